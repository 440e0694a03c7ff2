#!/bin/bash
# Twenty-fifth session, call 146: the pillars' locating pass.  "v1" reads
# a cell's first point from the L2 cache and takes the atomicMin only
# when the point comes before it; "new" (the build) also counts the
# block's points before the atomics, not after.  kernels_sparse_gpu and
# memcheck over it on new; base (e4d0d9d), v1 and new alternated on the
# pillars from 131,072 to 4 million points; ncu's duration of each kernel
# of one call of new, the pillars and the centroids at 4 million.
CALL_SECONDS=420 . docs/bench/call-lib.sh "$1"
timeout 120 $B/tests/kernels_sparse_gpu > $R/test.txt 2>&1; echo rc=$? >> $R/test.txt
grep -E "Checks|rc=|:F:|:E:" $R/test.txt | head -6; pack tests
timeout 100 compute-sanitizer --tool memcheck --error-exitcode 9 $B/tests/kernels_sparse_gpu > $R/memcheck.txt 2>&1; echo rc=$? >> $R/memcheck.txt
grep -E "SUMMARY|Checks|rc=|:F:" $R/memcheck.txt | head -4; pack memcheck
K='clear|bin_points|scan|Scan|write|locate|mark|place'
for m in pillars centroids; do
  [ $m = pillars ] && o="sweep-voxelize-pillars-*" || o="sweep-voxelize-centroids-kitti0.2-n*"
  timeout 100 ncu --metrics gpu__time_duration.sum -k regex:"$K" --launch-count 14 --csv $B/tests/bench-kernels --sweep voxelize --modes $m --points 4194304 --only "$o" --runs 1 > $R/dur-$m.csv 2>&1; echo rc=$? >> $R/dur-$m.csv
  echo "== $m"; grep gpu__time_duration $R/dur-$m.csv | awk -F'","' '{printf "%s %s\n", $NF, substr($5, 1, 60)}' | head -14
  pack dur $m
done
ab_bench pillars "base v1 new new v1 base" --sweep voxelize --modes pillars --points 131072,524288,1048576,2097152,4194304 --only 'sweep-voxelize-pillars-*' --runs 30
cat $R/ab-pillars.txt
cat $R/timeline.txt
