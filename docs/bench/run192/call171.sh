#!/bin/bash
# Twenty-eighth session, call 171: the records' division reading each
# record in one vector load through the read-only path (two or four
# floats; 05adbe0's took 79 registers, these 56 and 60), eight voxels a
# thread ("new") or four ("v4": 40 and 48 registers); "base" is 05adbe0.
# Carried lean (the tree's pictures left too little room for build/):
# .device/lean.tar.xz holds the test programs, bench-kernels and the
# kernel library.  The voxelize tests and memcheck over the means'; the
# KITTI means base, v4 and new alternated; ncu of the division.
CALL_SECONDS=400 AB_MARGIN=40 . docs/bench/call-lib.sh "$1"
for t in kernels_voxelize_gpu kernels_voxelize; do
  timeout 120 $B/tests/$t > $R/test-$t.txt 2>&1; echo rc=$? >> $R/test-$t.txt
  tail -2 $R/test-$t.txt
done
pack tests
sanitize memcheck kernels_voxelize_gpu test_mean_records_reused,test_mean_slabs,test_scan_order,test_mean_scratch_reused
ab_bench means "base v4 new new v4 base" --sweep voxelize --modes mean --points 524288,1048576,4194304 --only 'sweep-voxelize-mean-kitti0.2-*' --runs 30
cat $R/ab-means.txt
for l in base v4 new; do
  ncu_kernels rows-$l $l "divide_records" 3 gpu__time_duration.sum,sm__warps_active.avg.pct_of_peak_sustained_active --sweep voxelize --modes mean --points 1048576 --only "sweep-voxelize-mean-kitti0.2-rows-n1048576" --runs 3 | tail -2
done
cat $R/timeline.txt
