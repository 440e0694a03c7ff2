#!/bin/bash
# Twenty-seventh session, call 161: eb0bdd4 (room for a group total a
# tile in the pillars' scratch) on the GPU.  The whole suite; memcheck
# over all of kernels_sparse_gpu; the pillars of 131,072 to 4 million
# points in each order, to set beside call 160's.
CALL_SECONDS=480 AB_MARGIN=30 . docs/bench/call-lib.sh "$1"
timeout 240 meson test -C build --no-rebuild --print-errorlogs > $R/meson-test.txt 2>&1; echo rc=$? >> $R/meson-test.txt; pack tests
grep -E "^Ok:|^Fail:|^Skipped:| FAIL |rc=" $R/meson-test.txt
timeout 150 compute-sanitizer --tool memcheck --error-exitcode 9 $B/tests/kernels_sparse_gpu > $R/memcheck.txt 2>&1; echo rc=$? >> $R/memcheck.txt; pack memcheck
tail -3 $R/memcheck.txt
ab_bench pillars "new new" --sweep voxelize --modes pillars --points 131072,1048576,2097152,4194304 --only 'sweep-voxelize-pillars-*' --runs 30
cat $R/ab-pillars.txt
cat $R/timeline.txt
