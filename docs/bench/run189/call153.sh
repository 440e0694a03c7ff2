#!/bin/bash
# Twenty-fifth session, call 153: the pillars' scan in one launch ("new",
# the build): each tile makes its items, publishes their sum and looks back
# at the sums of the tiles before it, where two launches (and CUB's device
# scan above 2,048 tiles) made the items and then scanned them.
# kernels_sparse_gpu, memcheck and synccheck over it; prev (c6e0473) and
# new alternated on the pillars from 16,384 to 4 million points.
CALL_SECONDS=240 . docs/bench/call-lib.sh "$1"
timeout 60 $B/tests/kernels_sparse_gpu > $R/test.txt 2>&1; echo rc=$? >> $R/test.txt
grep -E "Checks|rc=|:F:|:E:" $R/test.txt | head -6; pack tests
ab_bench pillars "prev new new prev" --sweep voxelize --modes pillars --points 16384,131072,524288,1048576,2097152,4194304 --only 'sweep-voxelize-pillars-*' --runs 30
cat $R/ab-pillars.txt
timeout 90 compute-sanitizer --tool memcheck --error-exitcode 9 $B/tests/kernels_sparse_gpu > $R/memcheck.txt 2>&1; echo rc=$? >> $R/memcheck.txt
grep -E "SUMMARY|Checks|rc=|:F:" $R/memcheck.txt | head -4; pack memcheck
timeout 60 compute-sanitizer --tool synccheck --error-exitcode 9 $B/tests/kernels_sparse_gpu > $R/synccheck.txt 2>&1; echo rc=$? >> $R/synccheck.txt
grep -E "SUMMARY|Checks|rc=|:F:" $R/synccheck.txt | head -4; pack synccheck
cat $R/timeline.txt
