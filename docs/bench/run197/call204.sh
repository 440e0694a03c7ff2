#!/bin/bash
# Thirty-third session, call 204: "new" (the build): call 202's two
# channels an access in odd rows, but every two-channel store checking
# its alignment in the one instantiation (call 203: their own
# instantiations cost the quoted widths 1 % at 10,000 ticks, 475.1 against
# 470.1 us); "head", a1c12e3.  The fusion tests, memcheck, "mutant2b"
# (its two-channel stores write the first channel twice where misaligned;
# the tests must fail), the quoted widths alternated twice, the odd rows
# once each.  Carried lean.
CALL_SECONDS=260 AB_MARGIN=20 . docs/bench/call-lib.sh "$1"
test_programs kernels_fuse_gpu kernels_fuse
sanitize memcheck kernels_fuse_gpu test_split_rows,test_many_streams
LD_LIBRARY_PATH=$(lib mutant2b) GST_CHECKS=test_split_rows timeout 60 \
  build/tests/kernels_fuse_gpu > $R/test-mutant2b.txt 2>&1
echo rc=$? >> $R/test-mutant2b.txt
grep -m3 -E "differ|failed|rc=" $R/test-mutant2b.txt
pack mutant2b
ab_bench fuse "new head head new" --sweep fuse --runs 30
ab_bench fodd "new head" --sweep fuse --fuse-channels 512,7,10 --runs 30
cat $R/ab-fuse.txt $R/ab-fodd.txt
cat $R/timeline.txt
