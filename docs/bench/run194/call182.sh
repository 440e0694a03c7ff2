#!/bin/bash
# Thirtieth session, call 182: a partitioned mean of one feature reading
# it from the cloud in the placing pass too ("new", the patch
# call182-one-feature-from-cloud.diff over f0338b0: no feature planes
# kept by the keying pass at all, the scratch 4 bytes a point less for
# one feature).  The voxelize tests and memcheck over the partitions'
# tests on it, then 256^3 means of one feature against f0338b0 ("base"),
# alternated.  Carried lean.
CALL_SECONDS=300 AB_MARGIN=25 . docs/bench/call-lib.sh "$1"
test_programs kernels_voxelize_gpu kernels_voxelize
sanitize memcheck kernels_voxelize_gpu test_means_partitioned_features,test_means_partitioned,test_counts_partitioned
ab_bench one "base new new base" --sweep voxelize --modes mean --points 131072,262144,1048576,4194304 --only 'sweep-voxelize-mean-256cube-*' --runs 30
cat $R/ab-one.txt
cat $R/timeline.txt
