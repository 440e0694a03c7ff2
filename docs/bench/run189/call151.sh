#!/bin/bash
# Twenty-fifth session, call 151: the passes after binning as programmatic
# dependents ("new", the build: a mean's divisions and the centroids' scan
# and writer launched as dependents of the binning launch, which lets them
# be scheduled as its last blocks start).  kernels_voxelize_gpu; prev
# (c6e0473) and new alternated on the centroids and means from 32,768 to
# 2 million points; memcheck over the tests of every mode.
CALL_SECONDS=330 . docs/bench/call-lib.sh "$1"
timeout 150 $B/tests/kernels_voxelize_gpu > $R/test.txt 2>&1; echo rc=$? >> $R/test.txt
grep -E "Checks|rc=|:F:|:E:" $R/test.txt | head -6; pack tests
ab_bench after "prev new new prev" --sweep voxelize --modes centroids,mean --points 32768,131072,524288,2097152 --only 'sweep-voxelize-centroids-*,sweep-voxelize-mean-kitti*,sweep-voxelize-mean-xyz*' --runs 30
cat $R/ab-after.txt
T=test_modes_sizes_strides,test_odd_grid_several_clouds,test_centroids_scratch_reused,test_mean_scratch_reused,test_mean_slabs,test_centroid_records,test_scan_order
GST_CHECKS=$T timeout $(( $(left) - 5 )) compute-sanitizer --tool memcheck --error-exitcode 9 $B/tests/kernels_voxelize_gpu > $R/memcheck.txt 2>&1; echo rc=$? >> $R/memcheck.txt
grep -E "SUMMARY|Checks|rc=|:F:" $R/memcheck.txt | head -4; pack memcheck
cat $R/timeline.txt
