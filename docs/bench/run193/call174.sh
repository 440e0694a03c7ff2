#!/bin/bash
# Twenty-ninth session, call 174: means of two to four features
# partitioned in tiles of 2^14 voxels as one feature's, each tile summed
# a slice at a time in 112 KiB ("new": two slices of 2^13 voxels for three
# features, four of 2^12 for four), or for four features two slices in
# 144 KiB, one block an SM ("s144"); "base" is 397b1f4 (three and four
# features radix-sorted).  Carried lean.  The voxelize tests, memcheck and
# racecheck over the partitions' tests; 256^3 means of one, three and four
# features alternated; ncu of the passes at 4 million points.
CALL_SECONDS=480 AB_MARGIN=50 . docs/bench/call-lib.sh "$1"
test_programs kernels_voxelize_gpu kernels_voxelize
sanitize memcheck kernels_voxelize_gpu test_means_partitioned_features,test_means_partitioned,test_counts_partitioned
ab_bench means "base new s144 s144 new base" --sweep voxelize --modes mean --points 131072,262144,1048576,2097152,4194304 --only 'sweep-voxelize-mean-*256cube-*' --runs 30
cat $R/ab-means.txt
for w in mean mean-xyz mean-xyzi; do
  ncu_kernels $w-new new "key_points|place_points|sum_tiles" 3 gpu__time_duration.sum,dram__throughput.avg.pct_of_peak_sustained_elapsed --sweep voxelize --modes mean --points 4194304 --only "sweep-voxelize-$w-256cube-n4194304" --runs 2 | tail -6
done
[ $(left) -gt 100 ] && sanitize racecheck kernels_voxelize_gpu test_means_partitioned_features
cat $R/timeline.txt
