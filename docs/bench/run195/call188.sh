#!/bin/bash
# Thirty-first session, call 188: every GPU mean and centroid divided by
# __fdividef through one helper (voxelize-cuda.cuh's mean_of), as the
# partition's tiles pass has since b35bd97 ("new"; b35bd97, "base"): the
# record slabs', the listed voxels', the sorted means' and the
# centroids' divisions.  The voxelize tests on it, then KITTI means and
# centroids against base, alternated.  Carried lean.
CALL_SECONDS=300 AB_MARGIN=40 . docs/bench/call-lib.sh "$1"
test_programs kernels_voxelize_gpu
ab_bench div "base new new base" --sweep voxelize --modes mean,centroids --points 1048576,4194304 --only 'sweep-voxelize-mean-kitti*,sweep-voxelize-centroids*' --runs 30
cat $R/ab-div.txt
cat $R/timeline.txt
