#!/bin/bash
# Twenty-ninth session, call 175: call 174's slices ("new"), a tile of
# one feature or none summed with no slice loop (call 174's loop cost the
# mean of one feature 4 to 8 us); "base" is 397b1f4.  Carried lean.  The
# voxelize tests, memcheck and racecheck over the partitions' tests; 256^3
# means of one, three and four features alternated; ncu of the one
# feature's passes, base and new.
CALL_SECONDS=420 AB_MARGIN=40 . docs/bench/call-lib.sh "$1"
test_programs kernels_voxelize_gpu kernels_voxelize
sanitize memcheck kernels_voxelize_gpu test_means_partitioned_features,test_means_partitioned,test_counts_partitioned
ab_bench means "base new new base" --sweep voxelize --modes mean --points 131072,262144,1048576,2097152,4194304 --only 'sweep-voxelize-mean-*256cube-*' --runs 30
cat $R/ab-means.txt
for l in base new; do
  ncu_kernels mean-$l $l "key_points|place_points|sum_tiles" 3 gpu__time_duration.sum --sweep voxelize --modes mean --points 4194304 --only "sweep-voxelize-mean-256cube-n4194304" --runs 2 | tail -3
done
[ $(left) -gt 110 ] && sanitize racecheck kernels_voxelize_gpu test_means_partitioned_features
cat $R/timeline.txt
