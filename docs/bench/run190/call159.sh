#!/bin/bash
# Twenty-sixth session, call 159: a mean divided whole zeroes the counts
# it divided by and leaves the scratch clear, so that the next clear
# writes the output grid only ("new"; "prev" is 9cd8729).  The voxelize
# GPU tests, memcheck over the means' tests; the KITTI region's means in
# no order and in scan order, alternated; then the whole suite.
CALL_SECONDS=520 AB_MARGIN=150 . docs/bench/call-lib.sh "$1"
timeout 100 meson test -C build --no-rebuild --print-errorlogs kernels-voxelize-gpu > $R/meson-kernels.txt 2>&1; echo rc=$? >> $R/meson-kernels.txt; pack tests
grep -E "^Ok:|^Fail:|^Skipped:| FAIL |rc=" $R/meson-kernels.txt
T=test_mean_scratch_reused,test_mean_slabs,test_centroids_scratch_reused,test_odd_grid_several_clouds
GST_CHECKS=$T timeout 90 compute-sanitizer --tool memcheck --error-exitcode 9 $B/tests/kernels_voxelize_gpu > $R/memcheck.txt 2>&1; echo rc=$? >> $R/memcheck.txt; pack memcheck
tail -3 $R/memcheck.txt
ab_bench means "prev new new prev" --sweep voxelize --modes mean --points 16384,131072,1048576,4194304 --only 'sweep-voxelize-mean-kitti0.2-*' --runs 30
cat $R/ab-means.txt
timeout $(( $(left) - 5 )) meson test -C build --no-rebuild --print-errorlogs > $R/meson-test.txt 2>&1; echo rc=$? >> $R/meson-test.txt; pack meson test
grep -E "^Ok:|^Fail:|^Skipped:|^Timeout:| FAIL | TIMEOUT |rc=" $R/meson-test.txt
cat $R/timeline.txt
