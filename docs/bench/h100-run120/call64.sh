#!/bin/bash
# Session 2026-11-28 (eleventh), call 64: the H100 sweep again on 30a5c98
# (bench-kernels --sweep all, every kernel as it is now) and PyTorch on
# the same sizes (resample, voxelize, fuse), for docs/bench/h100-sweep.png.
set -u
OUT=$1; B=$PWD/build
export LD_LIBRARY_PATH=$B/gst:$B/kernels:${LD_LIBRARY_PATH:-}
export PYTHONPATH=$B/python:$PWD/tests/python
R=$OUT/r; mkdir -p $R
t0=$(date +%s)
pack () { echo "$(( $(date +%s) - t0 )) s: $*" >> $R/timeline.txt
  tar czf $OUT/r.$BASHPID -C $OUT r && mv $OUT/r.$BASHPID $OUT/r.tgz; }
nvidia-smi --query-gpu=name,clocks.max.sm,memory.total --format=csv > $R/gpu.txt; date -u >> $R/gpu.txt; cat $R/gpu.txt
timeout 230 $B/tests/bench-kernels --sweep all --runs 50 --json $R/sweep-all.json > $R/sweep-all.txt 2>&1; echo rc=$? >> $R/sweep-all.txt; pack sweep
for w in resample voxelize fuse; do
  left=$(( 570 - ($(date +%s) - t0) ))
  [ $left -gt 20 ] || break
  timeout $left python3 tests/bench/torch_baseline.py --sweep $w --runs 50 --json $R/torch-$w.json > $R/torch-$w.txt 2>&1; echo rc=$? >> $R/torch-$w.txt; pack torch $w
done
echo "== sweep"; grep -E "^sweep|rc=|differ" $R/sweep-all.txt | cut -c1-100 | head -70
echo "== torch"; grep -E "^sweep|rc=" $R/torch-*.txt | cut -c1-100
cat $R/timeline.txt
