#!/bin/bash
# Twenty-fourth session, call 142, on b9590c9 and changes ("new"): the
# placing pass copies a mean's features and the tiles' totals to shared
# memory while it ranks the voxels, and clears crowded tiles first ("e1"
# alone); the keying pass of packed x, y, z loads 8 points at a time, not
# 4 ("e4" alone); one helper for 16-byte stores (the tiles, the clears,
# the pillars' rows) and the keying pass's statistics as the binning's.
# The partition tests, memcheck and racecheck over them and memcheck over
# the sparse tests; b9590c9 ("base"), e1, e4 and new alternated; the whole
# suite.
CALL_SECONDS=540 . docs/bench/call-lib.sh "$1"
T=test_counts_partitioned,test_means_partitioned
GST_CHECKS=$T timeout 90 $B/tests/kernels_voxelize_gpu > $R/test.txt 2>&1; echo rc=$? >> $R/test.txt
grep -E "Checks|rc=|:F:|:E:" $R/test.txt | head -6; pack tests
ab_bench part "base e1 e4 new new e4 e1 base" --sweep voxelize --modes count,mean --points 262144,1048576,2097152,4194304 --only 'sweep-voxelize-count-256cube*,sweep-voxelize-mean-256cube-n*' --runs 30
cat $R/ab-part.txt
timeout 200 meson test -C build --no-rebuild --print-errorlogs > $R/meson-test.txt 2>&1; echo rc=$? >> $R/meson-test.txt; pack meson test
grep -E "^Ok:|^Fail:|^Skipped:|^Timeout:| FAIL | TIMEOUT |rc=" $R/meson-test.txt
GST_CHECKS=$T timeout 60 compute-sanitizer --tool memcheck --error-exitcode 9 $B/tests/kernels_voxelize_gpu > $R/memcheck.txt 2>&1; echo rc=$? >> $R/memcheck.txt
grep -E "SUMMARY|Checks|rc=|:F:" $R/memcheck.txt | head -4; pack memcheck
timeout 60 compute-sanitizer --tool memcheck --error-exitcode 9 $B/tests/kernels_sparse_gpu > $R/memcheck-sparse.txt 2>&1; echo rc=$? >> $R/memcheck-sparse.txt
grep -E "SUMMARY|Checks|rc=|:F:" $R/memcheck-sparse.txt | head -4; pack memcheck sparse
GST_CHECKS=$T timeout $(( $(left) - 5 )) compute-sanitizer --tool racecheck --error-exitcode 9 $B/tests/kernels_voxelize_gpu > $R/racecheck.txt 2>&1; echo rc=$? >> $R/racecheck.txt
grep -E "SUMMARY|Checks|rc=|:F:" $R/racecheck.txt | head -4; pack racecheck
cat $R/timeline.txt
