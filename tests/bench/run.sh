#!/usr/bin/env bash
# The kernel benchmarks in one command: builds robocache if needed
# ($ROBOCACHE_BUILD, default build/), runs bench-kernels, bench-cpu-pcl
# (where built), then the PyTorch baseline (where torch with CUDA imports),
# and plots the GPU results (where matplotlib imports).  Tables, JSON and the
# PNG go to OUTDIR (default bench-results/).
#
#   tests/bench/run.sh [OUTDIR] [--runs N] [--seed S]
#
# The options go to bench-kernels and the baseline.  Any wrong result (GPU
# or PCL check) stops the run.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../../pipelines/setup.sh"

out="bench-results"
if [ $# -gt 0 ] && [ "${1#-}" = "$1" ]; then
  out=$1
  shift
fi
python=${PYTHON:-python3}
mkdir -p "$out"

robocache_build "$ROBOCACHE_BUILD"

jsons=()
bench="$ROBOCACHE_BUILD/tests/bench-kernels"
if [ -x "$bench" ]; then
  "$bench" --json "$out/robocache.json" "$@" 2>&1 | tee "$out/robocache.txt"
  jsons+=("$out/robocache.json")
else
  echo "robocache: $bench was not built (no CUDA path in this build)"
fi

# Voxelize and fusion in real pipelines (GPU cases skipped without a GPU).
GST_PLUGIN_PATH_1_0="$ROBOCACHE_BUILD/gst" \
  "$ROBOCACHE_BUILD/tests/bench-pipeline" --json "$out/pipeline.json" 2>&1 |
  tee "$out/pipeline.txt"

# The CPU path against PCL's VoxelGrid: built only where meson found PCL
# (e.g. Debian's libpcl-dev); its own table and JSON, not plotted.
pcl_bench="$ROBOCACHE_BUILD/tests/bench-cpu-pcl"
if [ -x "$pcl_bench" ]; then
  "$pcl_bench" --json "$out/cpu-pcl.json" 2>&1 | tee "$out/cpu-pcl.txt"
else
  echo "robocache: $pcl_bench was not built (no PCL found by meson)"
fi

if "$python" -c "import numpy, torch; assert torch.cuda.is_available()" \
    2>/dev/null; then
  "$python" "$here/torch_baseline.py" --json "$out/torch.json" "$@" 2>&1 |
    tee "$out/torch.txt"
  jsons+=("$out/torch.json")
else
  echo "robocache: no torch with CUDA for $python; baseline skipped"
fi

if [ ${#jsons[@]} -gt 0 ] && "$python" -c "import matplotlib" 2>/dev/null
then
  "$python" "$here/plot.py" "${jsons[@]}" -o "$out/bench.png" |
    tee "$out/summary.txt"
else
  echo "robocache: no results or no matplotlib; nothing plotted"
fi
echo "robocache: results in $out/"
