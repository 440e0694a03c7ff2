#!/bin/bash
# Twenty-sixth session, call 158: the means' divisions as programmatic
# dependents of binning ("new"; "prev" is 0676853, with b28fd2f's
# centroids).  The voxelize and sparse GPU tests, memcheck over the
# means' and centroids' tests; the means of one feature (256^3 and the
# KITTI region, in no order and in scan order) and of x, y, z (and
# intensity), alternated; then the whole suite.
CALL_SECONDS=500 AB_MARGIN=200 . docs/bench/call-lib.sh "$1"
timeout 120 meson test -C build --no-rebuild --print-errorlogs kernels-voxelize-gpu kernels-sparse-gpu > $R/meson-kernels.txt 2>&1; echo rc=$? >> $R/meson-kernels.txt; pack tests
grep -E "^Ok:|^Fail:|^Skipped:| FAIL |rc=" $R/meson-kernels.txt
T=test_mean_scratch_reused,test_mean_slabs,test_centroids_scratch_reused,test_modes_sizes_strides,test_odd_grid_several_clouds
GST_CHECKS=$T timeout 100 compute-sanitizer --tool memcheck --error-exitcode 9 $B/tests/kernels_voxelize_gpu > $R/memcheck.txt 2>&1; echo rc=$? >> $R/memcheck.txt; pack memcheck
tail -3 $R/memcheck.txt
ab_bench means "prev new new prev" --sweep voxelize --modes mean --points 16384,131072,1048576,4194304 --runs 30
cat $R/ab-means.txt
timeout $(( $(left) - 5 )) meson test -C build --no-rebuild --print-errorlogs > $R/meson-test.txt 2>&1; echo rc=$? >> $R/meson-test.txt; pack meson test
grep -E "^Ok:|^Fail:|^Skipped:|^Timeout:| FAIL | TIMEOUT |rc=" $R/meson-test.txt
cat $R/timeline.txt
