#!/bin/bash
# Twenty-sixth session, call 160: the pillars' step 2 scans in one launch
# at every size, adding up its tiles' totals by groups of tiles, CUB's
# device scan dropped ("new"; "prev" is df7ccee).  kernels_sparse_gpu,
# memcheck over its scan, overflow and empty tests; the pillars of 131,072
# to 4 million points in each order, alternated.
CALL_SECONDS=230 AB_MARGIN=30 . docs/bench/call-lib.sh "$1"
timeout 60 meson test -C build --no-rebuild --print-errorlogs kernels-sparse-gpu > $R/meson-kernels.txt 2>&1; echo rc=$? >> $R/meson-kernels.txt; pack tests
grep -E "^Ok:|^Fail:|^Skipped:| FAIL |rc=" $R/meson-kernels.txt
GST_CHECKS=test_scan_paths,test_random_overflowing,test_empty_and_one_voxel timeout 80 compute-sanitizer --tool memcheck --error-exitcode 9 $B/tests/kernels_sparse_gpu > $R/memcheck.txt 2>&1; echo rc=$? >> $R/memcheck.txt; pack memcheck
tail -3 $R/memcheck.txt
ab_bench pillars "prev new new prev" --sweep voxelize --modes pillars --points 131072,1048576,2097152,4194304 --only 'sweep-voxelize-pillars-*' --runs 30
cat $R/ab-pillars.txt
cat $R/timeline.txt
