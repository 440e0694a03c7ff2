#!/bin/bash
# Session 2026-11-28 (twelfth), call 73: count grids binned a slab at a
# time (COUNT_SLAB_BYTES; built 24 MiB, variants 16 and 48 MiB and off in
# .device/slab-*).  kernels_voxelize_gpu with each; the count sweep from
# 262,144 points, the four alternated twice; memcheck over the large
# grids' test.
set -u
OUT=$1; B=$PWD/build
export LD_LIBRARY_PATH=$B/gst:$B/kernels:${LD_LIBRARY_PATH:-}
R=$OUT/r; mkdir -p $R
t0=$(date +%s)
pack () { echo "$(( $(date +%s) - t0 )) s: $*" >> $R/timeline.txt
  tar czf $OUT/r.$BASHPID -C $OUT r && mv $OUT/r.$BASHPID $OUT/r.tgz; }
nvidia-smi --query-gpu=name --format=csv,noheader | tee $R/gpu.txt
lib () { [ $1 = built ] && echo $LD_LIBRARY_PATH || echo $PWD/.device/slab-$1:$LD_LIBRARY_PATH; }
for T in built s16 s48 off; do
  LD_LIBRARY_PATH=$(lib $T) timeout 150 $B/tests/kernels_voxelize_gpu > $R/test-$T.txt 2>&1; echo rc=$? >> $R/test-$T.txt; pack test $T
  echo "== test $T"; grep -E "%|:F:|:E:|rc=" $R/test-$T.txt
done
P=262144,524288,1048576,2097152,4194304
for i in 1 2; do
  for T in off built s16 s48; do
    LD_LIBRARY_PATH=$(lib $T) timeout 60 $B/tests/bench-kernels --sweep voxelize --modes count --points $P --runs 50 > $R/$T-$i.txt 2>&1; pack $T $i
  done
done
echo "== count sweep: off, 24 MiB, 16 MiB, 48 MiB (round 1 | round 2)"
paste <(grep -E "^sweep-voxelize-count-256" $R/off-1.txt | awk '{print $1, $2}') <(grep -E "^sweep-voxelize-count-256" $R/built-1.txt | awk '{print $2}') <(grep -E "^sweep-voxelize-count-256" $R/s16-1.txt | awk '{print $2}') <(grep -E "^sweep-voxelize-count-256" $R/s48-1.txt | awk '{print $2}') <(grep -E "^sweep-voxelize-count-256" $R/off-2.txt | awk '{print $2}') <(grep -E "^sweep-voxelize-count-256" $R/built-2.txt | awk '{print $2}') <(grep -E "^sweep-voxelize-count-256" $R/s16-2.txt | awk '{print $2}') <(grep -E "^sweep-voxelize-count-256" $R/s48-2.txt | awk '{print $2}')
grep -iE "differ|mismatch|error" $R/built-*.txt | head -3
grep -E "^sweep-voxelize-count-(64|128|512)|bev" $R/built-1.txt | awk '{print $1, $2, $NF}'
GST_CHECKS=test_large_grids timeout 200 compute-sanitizer --tool memcheck --error-exitcode 9 $B/tests/kernels_voxelize_gpu > $R/memcheck.txt 2>&1; echo rc=$? >> $R/memcheck.txt; pack memcheck
echo "== memcheck"; grep -E "SUMMARY|%|rc=" $R/memcheck.txt | tail -3
cat $R/timeline.txt
