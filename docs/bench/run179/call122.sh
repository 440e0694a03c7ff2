#!/bin/bash
# Twenty-first session: the whole sweep on the code as main has it
# (693b514's kernels), for the plot a user reads their sizes off:
# bench-kernels --sweep voxelize, resample, fuse --runs 30 (run 178 had
# stopped at 160 workloads, the most bench-kernels then recorded).
set -u
OUT=$1; B=$PWD/build
export LD_LIBRARY_PATH=$B/gst:$B/kernels:${LD_LIBRARY_PATH:-}
R=$OUT/r; mkdir -p $R
t0=$(date +%s)
pack () { echo "$(( $(date +%s) - t0 )) s: $*" >> $R/timeline.txt
  tar czf $OUT/r.$BASHPID -C $OUT r && mv $OUT/r.$BASHPID $OUT/r.tgz; }
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $R/gpu.txt
for w in voxelize resample fuse; do
  timeout 300 $B/tests/bench-kernels --sweep $w --runs 30 --json $R/sweep-$w.json > $R/sweep-$w.txt 2>&1; echo rc=$? >> $R/sweep-$w.txt; pack sweep $w
  tail -1 $R/sweep-$w.txt
done
cat $R/timeline.txt
