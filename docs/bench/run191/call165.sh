#!/bin/bash
# Twenty-seventh session, call 165: the counted centroids as a binning
# kernel of their own ("new"; "base" is 436080f).  Call 163 found the
# centroids of four features, which do not count in their records, up to
# 3 % slower when one kernel took either way.  The voxelize tests,
# memcheck over the centroids' tests; every centroids series (four
# features in each order, three in no order), base and new alternated;
# the whole suite if time is left.
CALL_SECONDS=400 AB_MARGIN=30 . docs/bench/call-lib.sh "$1"
timeout 60 meson test -C build --no-rebuild --print-errorlogs kernels-voxelize-gpu kernels-voxelize > $R/meson-kernels.txt 2>&1; echo rc=$? >> $R/meson-kernels.txt; pack tests
grep -E "^Ok:|^Fail:|^Skipped:| FAIL |rc=" $R/meson-kernels.txt
GST_CHECKS=test_centroid_records,test_scan_order,test_centroids_scratch_reused,test_odd_grid_several_clouds,test_modes_sizes_strides timeout 90 compute-sanitizer --tool memcheck --error-exitcode 9 $B/tests/kernels_voxelize_gpu > $R/memcheck.txt 2>&1; echo rc=$? >> $R/memcheck.txt; pack memcheck
tail -3 $R/memcheck.txt
ab_bench centroids "base new new base" --sweep voxelize --modes centroids --points 262144,1048576,2097152,4194304 --only 'sweep-voxelize-centroids-*' --runs 30
cat $R/ab-centroids.txt
if [ $(left) -gt 190 ]; then
  timeout $(( $(left) - 10 )) meson test -C build --no-rebuild --print-errorlogs > $R/meson-test.txt 2>&1; echo rc=$? >> $R/meson-test.txt; pack meson test
  grep -E "^Ok:|^Fail:|^Skipped:| FAIL |rc=" $R/meson-test.txt
fi
cat $R/timeline.txt
