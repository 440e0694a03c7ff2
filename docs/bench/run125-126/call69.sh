#!/bin/bash
# Session 2026-11-28 (eleventh), call 69: occupancy of large clouds as
# plain stores, then a counting pass.  kernels_voxelize_gpu with the
# library at three thresholds (262,144 as built; 524,288 and 1,048,576
# in .device/occ*); memcheck; the occupancy sweep against HEAD's library
# (.device/headlib), alternated twice.
set -u
OUT=$1; B=$PWD/build
export LD_LIBRARY_PATH=$B/gst:$B/kernels:${LD_LIBRARY_PATH:-}
R=$OUT/r; mkdir -p $R
t0=$(date +%s)
pack () { echo "$(( $(date +%s) - t0 )) s: $*" >> $R/timeline.txt
  tar czf $OUT/r.$BASHPID -C $OUT r && mv $OUT/r.$BASHPID $OUT/r.tgz; }
nvidia-smi --query-gpu=name --format=csv,noheader | tee $R/gpu.txt
for T in built 524288 1048576; do
  L=$LD_LIBRARY_PATH; [ $T = built ] || L=$PWD/.device/occ$T:$LD_LIBRARY_PATH
  LD_LIBRARY_PATH=$L timeout 120 $B/tests/kernels_voxelize_gpu > $R/test-$T.txt 2>&1; echo rc=$? >> $R/test-$T.txt; pack test $T
  echo "== test $T"; grep -E "%|:F:|:E:|rc=" $R/test-$T.txt
done
P=131072,262144,300001,524288,1048576,2097152,4194304
for i in 1 2; do
  LD_LIBRARY_PATH=$PWD/.device/headlib:$LD_LIBRARY_PATH timeout 60 $B/tests/bench-kernels --sweep voxelize --modes occupancy --points $P --runs 50 > $R/head-$i.txt 2>&1; pack head $i
  timeout 60 $B/tests/bench-kernels --sweep voxelize --modes occupancy --points $P --runs 50 > $R/new-$i.txt 2>&1; pack new $i
done
echo "== occupancy sweep (HEAD, stores, HEAD, stores)"; paste <(grep -E "^sweep" $R/head-1.txt | awk '{print $1, $2}') <(grep -E "^sweep" $R/new-1.txt | awk '{print $2}') <(grep -E "^sweep" $R/head-2.txt | awk '{print $2}') <(grep -E "^sweep" $R/new-2.txt | awk '{print $2}')
grep -iE "differ|mismatch|error" $R/new-*.txt | head -3
timeout 150 compute-sanitizer --tool memcheck --error-exitcode 9 $B/tests/kernels_voxelize_gpu > $R/memcheck.txt 2>&1; echo rc=$? >> $R/memcheck.txt; pack memcheck
echo "== memcheck"; grep -E "SUMMARY|%|rc=" $R/memcheck.txt | tail -3
cat $R/timeline.txt
