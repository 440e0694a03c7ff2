#!/bin/bash
# Twenty-ninth session, call 173: means of two to four features
# partitioned by tile ("new"), where 256^3 means of three and four
# features were radix-sorted ("base" is 397b1f4).  Carried lean
# (.device/lean.tar.xz: the test programs, bench-kernels and the kernel
# library).  The voxelize tests, memcheck and racecheck over the
# partitions' tests; 256^3 means of one, three and four features, base and
# new alternated; ncu of the passes at 4 million points.
CALL_SECONDS=420 AB_MARGIN=40 . docs/bench/call-lib.sh "$1"
test_programs kernels_voxelize_gpu kernels_voxelize
sanitize memcheck kernels_voxelize_gpu test_means_partitioned_features,test_means_partitioned
ab_bench means "base new new base" --sweep voxelize --modes mean --points 131072,262144,524288,1048576,2097152,4194304 --only 'sweep-voxelize-mean-*256cube-*' --runs 30
cat $R/ab-means.txt
for w in xyz xyzi; do
  ncu_kernels $w-new new "key_points|place_points|sum_tiles" 3 gpu__time_duration.sum,dram__throughput.avg.pct_of_peak_sustained_elapsed,sm__warps_active.avg.pct_of_peak_sustained_active --sweep voxelize --modes mean --points 4194304 --only "sweep-voxelize-mean-$w-256cube-n4194304" --runs 2 | tail -9
done
[ $(left) -gt 100 ] && sanitize racecheck kernels_voxelize_gpu test_means_partitioned_features
cat $R/timeline.txt
