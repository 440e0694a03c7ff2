#!/usr/bin/env bash
# One call on the GPU machine (../shared/device/README.md): the whole suite,
# then the four compute-sanitizer tools side by side over the GPU tests
# (tests/gpu-sanitize.sh) with the soak on the GPU beside them, all results
# packed into OUT/results.tgz (the device tool returns only a few files a
# call) and the summaries printed.
#
#   . .device/gst-env.sh && tests/gpu-run.sh BUILD OUT
#
# With two GPUs or more, tests/bench/multigpu.sh follows the suite.
#
# Environment: ROBOCACHE_SANITIZE_SECONDS (default 300; 0 leaves the
# sanitizers out) bounds each tool, ROBOCACHE_SOAK_MINUTES (default 4; 0
# leaves the soak out),
# ROBOCACHE_SANITIZE_TESTS a list of tests to sanitize instead of all, and
# ROBOCACHE_SWEEP=voxelize|resample|fuse|all the cost sweeps of bench-kernels
# and PyTorch, run alone on the GPU after the suite (docs/performance.md).
set -u

build=${1:?usage: tests/gpu-run.sh BUILD OUT}
out=${2:?usage: tests/gpu-run.sh BUILD OUT}
root=$(cd "$(dirname "$0")/.." && pwd)
build=$(cd "$build" && pwd)
# Every test that loads the plugin would fail without its libraries.
"$root/tests/device-libs-check.sh" "$build" || exit 1
mkdir -p "$out/results"
res=$(cd "$out/results" && pwd)

export GST_PLUGIN_PATH_1_0=$build/gst GST_REGISTRY_1_0=$res/registry.bin
export LD_LIBRARY_PATH=$build/gst:$build/kernels:${LD_LIBRARY_PATH:-}
export PYTHONPATH=$build/python
t0=$(date +%s)
# Each stage packs what is there so far: a call cut off by its time limit
# still brings back the stages that ended.
stamp () {
  echo "$(( $(date +%s) - t0 )) s: $*" >> "$res/timeline.txt"
  tar czf "$out/results.tgz.$BASHPID" -C "$out" results 2>/dev/null
  mv -f "$out/results.tgz.$BASHPID" "$out/results.tgz"
}

cd "$root"
nvidia-smi > "$res/nvidia-smi.txt" 2>&1
stamp start
# Every posted error logged (a harness says only that its element did not
# start).
GST_DEBUG=${GST_DEBUG:-GST_ERROR_SYSTEM:4} \
  meson test -C "$build" --no-rebuild --num-processes 8 --print-errorlogs \
  > "$res/suite.txt" 2>&1
echo "rc=$?" >> "$res/suite.txt"
cp "$build/meson-logs/testlog.txt" "$res/suite-testlog.txt"
stamp suite done

if [ "$(nvidia-smi -L 2>/dev/null | grep -c '^GPU ')" -ge 2 ]; then
  tests/bench/multigpu.sh "$build" "$res/multigpu" > "$res/multigpu.txt" 2>&1
  echo "rc=$?" >> "$res/multigpu.txt"
  stamp multigpu done
fi

if [ -n "${ROBOCACHE_SWEEP:-}" ]; then
  "$build/tests/bench-kernels" --sweep "$ROBOCACHE_SWEEP" --runs 50 \
    --json "$res/sweep.json" > "$res/sweep.txt" 2>&1
  python3 tests/bench/torch_baseline.py --sweep "$ROBOCACHE_SWEEP" \
    --runs 50 --json "$res/torch-sweep.json" > "$res/torch-sweep.txt" 2>&1
  torch_json=()
  [ -s "$res/torch-sweep.json" ] && torch_json=("$res/torch-sweep.json")
  python3 tests/bench/plot_sweep.py "$res/sweep.json" "${torch_json[@]}" \
    -o "$res/sweep.png" > "$res/sweep-table.txt" 2>&1
  stamp sweeps done
fi

minutes=${ROBOCACHE_SOAK_MINUTES:-4}
if [ "$minutes" != 0 ]; then
  ( python3 tests/bench/soak.py --build "$build" --backend gpu \
      --points 131072 --minutes "$minutes" --out "$res/soak-gpu" \
      > "$res/soak.txt" 2>&1
    echo "rc=$?" >> "$res/soak.txt"; stamp soak done ) &
fi
seconds=${ROBOCACHE_SANITIZE_SECONDS:-300}
if [ "$seconds" != 0 ]; then
  # shellcheck disable=SC2086
  ROBOCACHE_SANITIZE_PARALLEL=1 ROBOCACHE_SANITIZE_SECONDS=$seconds \
    tests/gpu-sanitize.sh "$build" "$res/sanitize" \
    ${ROBOCACHE_SANITIZE_TESTS:-} > "$res/sanitize.txt" 2>&1
  echo "rc=$?" >> "$res/sanitize.txt"
  stamp sanitizers done
fi
wait
stamp end

grep -E "^(Ok|Fail|Skipped|Timeout):| FAIL |rc=" "$res/suite.txt"
[ -f "$res/multigpu.txt" ] && tail -16 "$res/multigpu.txt"
[ -f "$res/sweep-table.txt" ] && head -60 "$res/sweep-table.txt"
[ "$seconds" = 0 ] || tail -4 "$res/sanitize.txt"
[ "$minutes" = 0 ] || tail -3 "$res/soak.txt"
rm -rf "$res"
