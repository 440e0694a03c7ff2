#!/bin/bash
# Thirty-sixth session, call 222: a stream of four channels an access in
# rows not 16-byte aligned ("split") written one aligned store a unit,
# each lane's unit passed to the next by a shuffle ("new", the build),
# against d02b731's store of two or three pieces ("base").  The fusion
# and resample tests (resample's device steps now one helper), memcheck
# and racecheck over the split rows, "mutant" (its warps' first lanes
# never reload the unit before; the tests must fail), then the quoted
# widths and the row of 529 floats alternated twice.  Carried lean.
CALL_SECONDS=330 AB_MARGIN=20 . docs/bench/call-lib.sh "$1"
export CK_DEFAULT_TIMEOUT=120
test_programs kernels_fuse_gpu kernels_fuse kernels_resample_gpu
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
