#!/bin/bash
# Thirty-third session, call 201: the fusion kernel's 4-channel accesses
# in odd rows (call 200's "odd4", now the build) with the two new cases
# of test_split_rows (a row of 529 floats, staged; a row of 23 with 8
# bfloat16 and 12 float channels at offsets 3 and 11, from global
# memory): the fusion tests, memcheck over test_split_rows, and the
# same tests with "mutant", whose odd-row stores write the third channel
# where the fourth belongs (they must fail).  Carried lean.
CALL_SECONDS=200 . docs/bench/call-lib.sh "$1"
test_programs kernels_fuse_gpu kernels_fuse
sanitize memcheck kernels_fuse_gpu test_split_rows
LD_LIBRARY_PATH=$(lib mutant) GST_CHECKS=test_split_rows timeout 60 \
  build/tests/kernels_fuse_gpu > $R/test-mutant.txt 2>&1
echo rc=$? >> $R/test-mutant.txt
grep -m3 -E "differ|failed|rc=" $R/test-mutant.txt
pack mutant
cat $R/timeline.txt
