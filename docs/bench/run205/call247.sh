#!/bin/bash
# Forty-first session, call 247: a stream of four channels an access in
# rows not 16-byte aligned ("split") written one aligned store a unit, each
# thread loading the floats of its output unit from the staged rows in the
# aligned pieces that cover them ("new", the build's fuse.cu), against
# c574b0d's store of two or three pieces ("base").  Unlike run 200's
# shuffles, no lane waits on another.  The fusion tests, memcheck and
# racecheck over the split rows, "mutant" (a row two floats past a
# boundary takes its third float from the wrong pair: the tests must
# fail), then the row of 529 floats and the quoted widths alternated.
CALL_SECONDS=420 AB_MARGIN=20 . docs/bench/call-lib.sh "$1"
export CK_DEFAULT_TIMEOUT=120
test_programs kernels_fuse_gpu kernels_fuse
sanitize memcheck kernels_fuse_gpu test_split_rows,test_misaligned,test_tiles
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
