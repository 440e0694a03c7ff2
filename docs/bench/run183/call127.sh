#!/bin/bash
# Twenty-second session, call 127: sparse pillars in the sweep (bench-kernels
# --modes pillars: the GPU checked byte for byte against the CPU reference
# and timed beside it; torch_baseline.py's pillars, checked against NumPy),
# first alone, then the whole sweep and PyTorch on every workload again,
# pillars included, for one plot from one call.
set -u
OUT=$1; B=$PWD/build
export LD_LIBRARY_PATH=$B/gst:$B/kernels:${LD_LIBRARY_PATH:-}
R=$OUT/r; mkdir -p $R
t0=$(date +%s)
pack () { echo "$(( $(date +%s) - t0 )) s: $*" >> $R/timeline.txt
  tar czf $OUT/r.$BASHPID -C $OUT r && mv $OUT/r.$BASHPID $OUT/r.tgz; }
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $R/gpu.txt
date -u >> $R/gpu.txt
timeout 100 $B/tests/bench-kernels --sweep voxelize --modes pillars --runs 30 --json $R/pillars.json > $R/pillars.txt 2>&1; echo rc=$? >> $R/pillars.txt; pack pillars
grep -E "^sweep|rc=|differ|pillars used" $R/pillars.txt | cut -c1-100
timeout 100 python3 -u tests/bench/torch_baseline.py --sweep voxelize --modes pillars --runs 20 --json $R/torch-pillars.json > $R/torch-pillars.txt 2>&1; echo rc=$? >> $R/torch-pillars.txt; pack torch pillars
grep -E "^sweep|rc=|differ|Error" $R/torch-pillars.txt | cut -c1-100
for w in voxelize resample fuse; do
  left=$(( 540 - ($(date +%s) - t0) ))
  [ $left -gt 20 ] || break
  m=(); [ $w = voxelize ] && m=(--modes count,occupancy,mean,centroids)
  timeout $left $B/tests/bench-kernels --sweep $w "${m[@]}" --runs 30 --json $R/sweep-$w.json > $R/sweep-$w.txt 2>&1; echo rc=$? >> $R/sweep-$w.txt; pack sweep $w
  tail -1 $R/sweep-$w.txt
done
for w in voxelize resample fuse; do
  left=$(( 555 - ($(date +%s) - t0) ))
  [ $left -gt 10 ] || break
  m=(); [ $w = voxelize ] && m=(--modes count,occupancy,mean,centroids)
  timeout $left python3 -u tests/bench/torch_baseline.py --sweep $w "${m[@]}" --runs 20 --json $R/torch-$w.json > $R/torch-$w.txt 2>&1; echo rc=$? >> $R/torch-$w.txt; pack torch $w
  tail -1 $R/torch-$w.txt
done
cat $R/timeline.txt
