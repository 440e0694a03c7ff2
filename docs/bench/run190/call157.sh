#!/bin/bash
# Twenty-sixth session, call 157: the centroids' writer sums the tile
# counts before its tile itself instead of a one-block scan launch, the
# next clear zeroing the tile counts ("new"; "prev" is 178aae3, "pdl" new
# with the writer a programmatic dependent of binning).  The voxelize GPU
# tests, memcheck and racecheck over the centroids' tests; the centroids
# in no order and in scan order, 16,384 to 4 million points, alternated;
# then the whole suite.
CALL_SECONDS=560 AB_MARGIN=200 . docs/bench/call-lib.sh "$1"
timeout 120 meson test -C build --no-rebuild --print-errorlogs kernels-voxelize-gpu kernels-voxelize > $R/meson-voxelize.txt 2>&1; echo rc=$? >> $R/meson-voxelize.txt; pack tests
grep -E "^Ok:|^Fail:|^Skipped:| FAIL |rc=" $R/meson-voxelize.txt
T=test_centroids_scratch_reused,test_mean_scratch_reused,test_centroid_records,test_scan_order,test_odd_grid_several_clouds
GST_CHECKS=$T timeout 90 compute-sanitizer --tool memcheck --error-exitcode 9 $B/tests/kernels_voxelize_gpu > $R/memcheck.txt 2>&1; echo rc=$? >> $R/memcheck.txt; pack memcheck
tail -3 $R/memcheck.txt
GST_CHECKS=test_centroids_scratch_reused,test_centroid_records timeout 60 compute-sanitizer --tool racecheck --error-exitcode 9 $B/tests/kernels_voxelize_gpu > $R/racecheck.txt 2>&1; echo rc=$? >> $R/racecheck.txt; pack racecheck
tail -3 $R/racecheck.txt
ab_bench centroids "prev new pdl pdl new prev" --sweep voxelize --modes centroids --runs 30
cat $R/ab-centroids.txt
timeout $(( $(left) - 5 )) meson test -C build --no-rebuild --print-errorlogs > $R/meson-test.txt 2>&1; echo rc=$? >> $R/meson-test.txt; pack meson test
grep -E "^Ok:|^Fail:|^Skipped:|^Timeout:| FAIL | TIMEOUT |rc=" $R/meson-test.txt
cat $R/timeline.txt
