#!/bin/bash
# Twenty-fourth session, call 144: the session's partition as committed
# ("new": call 143's, counts partitioned from 524,289 points and means of
# one feature from 131,072).  kernels_voxelize_gpu whole and memcheck over
# the partition tests; the 256^3 counts and means from 131,072 to 4
# million points, d716bbe (the session's start, "start") and new
# alternated; the whole suite.
CALL_SECONDS=470 . docs/bench/call-lib.sh "$1"
T=test_counts_partitioned,test_means_partitioned
timeout 120 $B/tests/kernels_voxelize_gpu > $R/test.txt 2>&1; echo rc=$? >> $R/test.txt
grep -E "Checks|rc=|:F:|:E:" $R/test.txt | head -6; pack tests
GST_CHECKS=$T timeout 60 compute-sanitizer --tool memcheck --error-exitcode 9 $B/tests/kernels_voxelize_gpu > $R/memcheck.txt 2>&1; echo rc=$? >> $R/memcheck.txt
grep -E "SUMMARY|Checks|rc=|:F:" $R/memcheck.txt | head -4; pack memcheck
ab_bench cube "start new new start" --sweep voxelize --modes count,mean --points 131072,262144,393216,524288,786432,1048576,2097152,4194304 --only 'sweep-voxelize-count-256cube*,sweep-voxelize-mean-256cube-n*' --runs 30
cat $R/ab-cube.txt
timeout $(( $(left) - 5 )) meson test -C build --no-rebuild --print-errorlogs > $R/meson-test.txt 2>&1; echo rc=$? >> $R/meson-test.txt; pack meson test
grep -E "^Ok:|^Fail:|^Skipped:|^Timeout:| FAIL | TIMEOUT |rc=" $R/meson-test.txt
cat $R/timeline.txt
