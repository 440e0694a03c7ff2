#!/bin/bash
# Twenty-fifth session, call 149: call 148's slot writer with a slot's
# index in 32 bits and no empty padding run after 32 rows of 32 ("new",
# the build).  kernels_sparse_gpu and memcheck over it; base (e4d0d9d) and
# new alternated on the pillars from 16,384 to 4 million points; ncu's
# duration and instructions of each kernel of one call of new at 131,072.
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
cuobjdump -sass -fun '_Z11write_slotsILj1ELb1EEv15rc_point_layout16rc_sparse_paramsPKhjPKyPK5uint4PKjPj16rc_sparse_outputP12device_stats' $B/kernels/librobocache-kernels-1.0.so.0 > $R/ws.sass 2>&1
grep -cE "STL|LDL" $R/ws.sass
pack dur
cat $R/timeline.txt
