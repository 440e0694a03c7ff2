#!/bin/bash
# Session 2026-11-28 (twelfth), call 74: count grids in two slabs from
# 524,289 points (as committed): kernels_voxelize_gpu; the count sweep;
# memcheck over the large grids' test.
set -u
OUT=$1; B=$PWD/build
export LD_LIBRARY_PATH=$B/gst:$B/kernels:${LD_LIBRARY_PATH:-}
R=$OUT/r; mkdir -p $R
t0=$(date +%s)
pack () { echo "$(( $(date +%s) - t0 )) s: $*" >> $R/timeline.txt
  tar czf $OUT/r.$BASHPID -C $OUT r && mv $OUT/r.$BASHPID $OUT/r.tgz; }
nvidia-smi --query-gpu=name --format=csv,noheader | tee $R/gpu.txt
timeout 150 $B/tests/kernels_voxelize_gpu > $R/test.txt 2>&1; echo rc=$? >> $R/test.txt; pack test
echo "== test"; grep -E "%|:F:|:E:|rc=" $R/test.txt
timeout 60 $B/tests/bench-kernels --sweep voxelize --modes count --points 262144,524288,1048576,2097152,4194304 --runs 50 > $R/sweep.txt 2>&1; pack sweep
echo "== sweep"; grep -E "^sweep-voxelize-count" $R/sweep.txt | awk '{print $1, $2, $NF}'
grep -iE "differ|mismatch|error" $R/sweep.txt | head -3
GST_CHECKS=test_large_grids timeout 150 compute-sanitizer --tool memcheck --error-exitcode 9 $B/tests/kernels_voxelize_gpu > $R/memcheck.txt 2>&1; echo rc=$? >> $R/memcheck.txt; pack memcheck
echo "== memcheck"; grep -E "SUMMARY|%|rc=" $R/memcheck.txt | tail -3
cat $R/timeline.txt
