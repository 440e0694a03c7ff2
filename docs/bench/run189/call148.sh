#!/bin/bash
# Twenty-fifth session, call 148: the pillars' slot writer ("new", the
# build): runs of whole 16-byte units from an aligned start (a slot of 32
# rows of 10 channels, and an empty slot's zeros) copied a unit a store in
# 32-bit arithmetic, and a slot's x, y and z summed in one loop.
# kernels_sparse_gpu and memcheck over it; base (e4d0d9d) and new
# alternated on the pillars from 16,384 to 4 million points; ncu's
# duration of each kernel of one call of new at 131,072.
CALL_SECONDS=300 . docs/bench/call-lib.sh "$1"
timeout 120 $B/tests/kernels_sparse_gpu > $R/test.txt 2>&1; echo rc=$? >> $R/test.txt
grep -E "Checks|rc=|:F:|:E:" $R/test.txt | head -6; pack tests
timeout 100 compute-sanitizer --tool memcheck --error-exitcode 9 $B/tests/kernels_sparse_gpu > $R/memcheck.txt 2>&1; echo rc=$? >> $R/memcheck.txt
grep -E "SUMMARY|Checks|rc=|:F:" $R/memcheck.txt | head -4; pack memcheck
ab_bench pillars "base new new base" --sweep voxelize --modes pillars --points 16384,131072,262144,524288,1048576,4194304 --only 'sweep-voxelize-pillars-*' --runs 30
cat $R/ab-pillars.txt
K='clear|scan|Scan|write|locate|mark|place'
timeout 60 ncu --metrics gpu__time_duration.sum,smsp__inst_executed.sum -k regex:"$K" --launch-count 7 --csv $B/tests/bench-kernels --sweep voxelize --modes pillars --points 131072 --only "sweep-voxelize-pillars-*" --runs 1 > $R/dur.csv 2>&1; echo rc=$? >> $R/dur.csv
grep -E "gpu__time_duration|inst_executed" $R/dur.csv | awk -F'","' '{printf "%s %s %s\n", $(NF-2), $NF, substr($5, 1, 30)}'
pack dur
cat $R/timeline.txt
