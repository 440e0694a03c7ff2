#!/bin/bash
# Thirty-third session, call 200: the whole suite on 3377002 (the fusion
# kernel's stage planned without a barrier, tiles of at least 8 ticks),
# carried whole, and the fuse sweep on it for the plot.  Then "odd4", a
# candidate: a stream of a multiple of 4 channels in a row of any width
# (a row of 529 floats: 512, 7 and 10) read 4 channels an access and
# stored as one, two and one floats where a 16-byte store would be
# misaligned, where it now reads and writes a float at a time (1.73 to
# 1.99x its floor): its fusion tests with its library, memcheck over its
# cases, and both sweeps alternated.
CALL_SECONDS=540 AB_MARGIN=30 . docs/bench/call-lib.sh "$1"
meson_tests all
ab_bench fodd "new odd4 odd4 new" --sweep fuse --fuse-channels 512,7,10 --runs 30
ab_bench fuse "new odd4 odd4 new" --sweep fuse --runs 30
LD_LIBRARY_PATH=$(lib odd4) timeout 150 meson test -C build --no-rebuild \
  --print-errorlogs kernels-fuse-gpu elements-fuse > $R/meson-odd4.txt 2>&1
echo rc=$? >> $R/meson-odd4.txt
grep -E "^Ok:|^Fail:|^Skipped:| FAIL |rc=" $R/meson-odd4.txt
LD_LIBRARY_PATH=$(lib odd4) GST_CHECKS=test_vectorised,test_tiles,test_split_rows \
  timeout 120 compute-sanitizer --tool memcheck --error-exitcode 9 \
  build/tests/kernels_fuse_gpu > $R/memcheck-odd4.txt 2>&1
echo rc=$? >> $R/memcheck-odd4.txt
tail -3 $R/memcheck-odd4.txt
pack odd4
cat $R/ab-fodd.txt $R/ab-fuse.txt
cat $R/timeline.txt
