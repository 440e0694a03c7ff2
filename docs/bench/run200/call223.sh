#!/bin/bash
# Thirty-sixth session, call 223: call 222's one aligned store a unit for
# split streams, a warp's round now 31 units whose lane 0 blends the unit
# before them (no divergent reload), the alignment chosen by selects
# ("new", the build), against d02b731 ("base").  The fusion tests,
# memcheck and racecheck over the split rows, "mutant" (a unit one float
# past 16 bytes takes its floats one place off; the tests must fail), the
# row of 529 floats and the quoted widths alternated twice.  Carried lean.
CALL_SECONDS=300 AB_MARGIN=20 . docs/bench/call-lib.sh "$1"
export CK_DEFAULT_TIMEOUT=120
test_programs kernels_fuse_gpu
sanitize memcheck kernels_fuse_gpu test_split_rows,test_tiles
sanitize racecheck kernels_fuse_gpu test_split_rows
LD_LIBRARY_PATH=$(lib mutant) GST_CHECKS=test_split_rows timeout 60 \
  build/tests/kernels_fuse_gpu > $R/test-mutant.txt 2>&1
echo rc=$? >> $R/test-mutant.txt
grep -m3 -E "differ|failed|rc=" $R/test-mutant.txt
pack mutant
ab_bench fodd "new base base new" --sweep fuse --fuse-channels 512,7,10 \
  --runs 30
ab_bench fuse "new base base new" --sweep fuse --runs 30
cat $R/ab-fodd.txt $R/ab-fuse.txt
cat $R/timeline.txt
