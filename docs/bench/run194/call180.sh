#!/bin/bash
# Thirtieth session, call 180: a mean of two to four features partitioned
# with the placing pass reading the features from the cloud ("new", the
# patch call180-features-from-cloud.diff): the keying pass no longer
# writes a plane a feature, and is the counts' one.  One feature keeps
# its plane.  The voxelize tests and memcheck over the partitions' tests
# on it, then 256^3 means against 143927f ("base"), alternated, and ncu
# of the three passes at 4 million points of x, y, z.  Carried lean.
CALL_SECONDS=470 AB_MARGIN=45 . docs/bench/call-lib.sh "$1"
test_programs kernels_voxelize_gpu kernels_voxelize
sanitize memcheck kernels_voxelize_gpu test_means_partitioned_features,test_means_partitioned,test_counts_partitioned
ab_bench means "base new new base" --sweep voxelize --modes mean --points 131072,262144,1048576,4194304 --only 'sweep-voxelize-mean-*256cube-*' --runs 30
cat $R/ab-means.txt
for l in base new; do
  [ $(left) -gt 40 ] && ncu_kernels xyz-$l $l "key_points|place_points|sum_tiles" 3 gpu__time_duration.sum,dram__throughput.avg.pct_of_peak_sustained_elapsed --sweep voxelize --modes mean --points 4194304 --only "sweep-voxelize-mean-xyz-256cube-n4194304" --runs 2 | tail -6
done
cat $R/timeline.txt
