#!/bin/bash
# Twenty-fourth session, call 143, on b9590c9 and changes ("new"): call
# 142's e1 (the placing pass's copies to shared memory) with one helper for
# 16-byte stores and the keying pass's statistics as the binning's, its
# 8-point keying batches left out.  b9590c9 ("base"), e1 alone and new
# alternated; new against "p256k" (new partitioning counts from 262,144
# points and means from 131,072, a quarter and half of now) where that
# differs; the whole suite and memcheck over the partition tests on new.
CALL_SECONDS=540 . docs/bench/call-lib.sh "$1"
T=test_counts_partitioned,test_means_partitioned
GST_CHECKS=$T timeout 90 $B/tests/kernels_voxelize_gpu > $R/test.txt 2>&1; echo rc=$? >> $R/test.txt
grep -E "Checks|rc=|:F:|:E:" $R/test.txt | head -6; pack tests
ab_bench part "base e1 new new e1 base" --sweep voxelize --modes count,mean --points 1048576,2097152,4194304 --only 'sweep-voxelize-count-256cube*,sweep-voxelize-mean-256cube-n*' --runs 30
cat $R/ab-part.txt
ab_bench small "new p256k p256k new" --sweep voxelize --modes count,mean --points 131072,262144,393216,524288,786432 --only 'sweep-voxelize-count-256cube*,sweep-voxelize-mean-256cube-n*' --runs 30
cat $R/ab-small.txt
timeout 200 meson test -C build --no-rebuild --print-errorlogs > $R/meson-test.txt 2>&1; echo rc=$? >> $R/meson-test.txt; pack meson test
grep -E "^Ok:|^Fail:|^Skipped:|^Timeout:| FAIL | TIMEOUT |rc=" $R/meson-test.txt
GST_CHECKS=$T timeout $(( $(left) - 5 )) compute-sanitizer --tool memcheck --error-exitcode 9 $B/tests/kernels_voxelize_gpu > $R/memcheck.txt 2>&1; echo rc=$? >> $R/memcheck.txt
grep -E "SUMMARY|Checks|rc=|:F:" $R/memcheck.txt | head -4; pack memcheck
cat $R/timeline.txt
