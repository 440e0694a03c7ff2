#!/bin/bash
# Thirty-first session, call 186: pass 3 of the partition dividing a
# mean's sums by a reciprocal and a product (__fdividef, 2 ulp) instead
# of IEEE division ("new"; 6c8dded, "base"): call 185's SASS showed pass
# 3 spending most of its instructions on the grid's every voxel.  256^3
# means against base, alternated; then the whole suite, racecheck over
# the partitions' means and memcheck over the partitions' tests on it.
# Carried whole (`carry: [".device", "build"]`).
CALL_SECONDS=545 AB_MARGIN=40 . docs/bench/call-lib.sh "$1"
ab_bench div "base new new base" --sweep voxelize --modes mean --points 1048576,2097152,4194304 --only 'sweep-voxelize-mean-*256cube-*' --runs 30
cat $R/ab-div.txt
meson_tests all
sanitize racecheck kernels_voxelize_gpu test_means_partitioned_features
[ $(left) -gt 45 ] && sanitize memcheck kernels_voxelize_gpu test_means_partitioned_features,test_means_partitioned,test_counts_partitioned
cat $R/timeline.txt
