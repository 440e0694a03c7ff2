#!/bin/bash
# Thirty-fifth session, call 217: the whole sweep, the reference workloads
# and the pipelines on ecd04a8's build, configured afresh through
# kernels/nvcc-depfile.sh (every CUDA object from the current headers):
# one table and one plot from one build, beside runs 191 to 198's pieces.
# bench-kernels --sweep over the pillars, every other voxelize mode,
# resample, fuse and fuse's row of 529 floats, 30 runs each (PyTorch is
# runs 183 and 192's); bench-kernels --json; bench-pipeline --sweeps 500
# --fusion-seconds 2.
CALL_SECONDS=560 . docs/bench/call-lib.sh "$1"
export GST_PLUGIN_PATH_1_0=$B/gst GST_REGISTRY_1_0=/tmp/rc-registry.bin
for w in pillars voxelize resample fuse fodd; do
  [ $(left) -gt 60 ] || break
  case $w in
    pillars) a=(--sweep voxelize --modes pillars) ;;
    voxelize) a=(--sweep voxelize --modes count,occupancy,mean,centroids) ;;
    fodd) a=(--sweep fuse --fuse-channels 512,7,10) ;;
    *) a=(--sweep $w) ;;
  esac
  timeout $(( $(left) - 40 )) $B/tests/bench-kernels "${a[@]}" --runs 30 \
    --json $R/sweep-$w.json > $R/sweep-$w.txt 2>&1
  echo rc=$? >> $R/sweep-$w.txt; pack sweep $w
  grep -E "rc=|differ" $R/sweep-$w.txt | tail -2
done
timeout 60 $B/tests/bench-kernels --json $R/kernels.json > $R/kernels.txt 2>&1
echo rc=$? >> $R/kernels.txt; pack kernels
tail -4 $R/kernels.txt
timeout $(( $(left) - 5 )) $B/tests/bench-pipeline --sweeps 500 \
  --fusion-seconds 2 --json $R/pipeline.json > $R/pipeline.txt 2>&1
echo rc=$? >> $R/pipeline.txt; pack pipeline
tail -14 $R/pipeline.txt
cat $R/timeline.txt
