#!/bin/bash
# Twenty-second session, call 125: the whole sweep and PyTorch on every
# workload of it in one call, PyTorch's counts now index_add_ of ones
# (call 124's run 180 had index_put_ with accumulate, which sorts):
# count_idioms.py first (the four ways to count, same clouds), then
# bench-kernels --sweep voxelize, resample, fuse --runs 30, then
# torch_baseline.py --sweep voxelize, resample, fuse --runs 20.
set -u
OUT=$1; B=$PWD/build
export LD_LIBRARY_PATH=$B/gst:$B/kernels:${LD_LIBRARY_PATH:-}
R=$OUT/r; mkdir -p $R
t0=$(date +%s)
pack () { echo "$(( $(date +%s) - t0 )) s: $*" >> $R/timeline.txt
  tar czf $OUT/r.$BASHPID -C $OUT r && mv $OUT/r.$BASHPID $OUT/r.tgz; }
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $R/gpu.txt
date -u >> $R/gpu.txt
timeout 90 python3 -u docs/bench/run181/count_idioms.py --runs 20 > $R/count-idioms.txt 2>&1; echo rc=$? >> $R/count-idioms.txt; pack idioms
cat $R/count-idioms.txt
for w in voxelize resample fuse; do
  timeout 250 $B/tests/bench-kernels --sweep $w --runs 30 --json $R/sweep-$w.json > $R/sweep-$w.txt 2>&1; echo rc=$? >> $R/sweep-$w.txt; pack sweep $w
  tail -1 $R/sweep-$w.txt
done
for w in voxelize resample fuse; do
  left=$(( 575 - ($(date +%s) - t0) ))
  [ $left -gt 10 ] || break
  timeout $left python3 -u tests/bench/torch_baseline.py --sweep $w --runs 20 --json $R/torch-$w.json > $R/torch-$w.txt 2>&1; echo rc=$? >> $R/torch-$w.txt; pack torch $w
  tail -1 $R/torch-$w.txt
done
cat $R/timeline.txt
