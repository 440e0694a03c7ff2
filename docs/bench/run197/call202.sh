#!/bin/bash
# Thirty-third session, call 202: "new" (the build), a stream of an even
# number of channels in an odd row (the 10 of a row of 529 floats: 512,
# 7, 10) read two channels an access, stored as 8 bytes or two of 4,
# where it now reads and writes a float at a time; "head", a1c12e3's
# library.  The fusion tests, memcheck, "mutant2" (whose split stores of
# two write the first channel twice; the tests must fail), then the odd
# rows' sweep alternated and the quoted widths once each.  Carried lean.
CALL_SECONDS=300 AB_MARGIN=25 . docs/bench/call-lib.sh "$1"
test_programs kernels_fuse_gpu kernels_fuse
sanitize memcheck kernels_fuse_gpu test_split_rows,test_many_streams
LD_LIBRARY_PATH=$(lib mutant2) GST_CHECKS=test_split_rows timeout 60 \
  build/tests/kernels_fuse_gpu > $R/test-mutant2.txt 2>&1
echo rc=$? >> $R/test-mutant2.txt
grep -m3 -E "differ|failed|rc=" $R/test-mutant2.txt
pack mutant2
ab_bench fodd "head new new head" --sweep fuse --fuse-channels 512,7,10 --runs 30
ab_bench fuse "head new" --sweep fuse --runs 30
cat $R/ab-fodd.txt $R/ab-fuse.txt
cat $R/timeline.txt
