#!/bin/bash
# Twenty-second session, call 124: bench-kernels --sweep voxelize,
# resample, fuse --runs 30 on main's code, then PyTorch's resample and
# fuse sweeps (--runs 20) in the same call, for the plot with PyTorch in
# every panel (its voxelize sweep: call 123, minutes before).
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
for w in resample fuse; do
  left=$(( 570 - ($(date +%s) - t0) ))
  [ $left -gt 20 ] || break
  timeout $left python3 -u tests/bench/torch_baseline.py --sweep $w --runs 20 --json $R/torch-$w.json > $R/torch-$w.txt 2>&1; echo rc=$? >> $R/torch-$w.txt; pack torch $w
  tail -1 $R/torch-$w.txt
done
cat $R/timeline.txt
