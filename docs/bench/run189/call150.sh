#!/bin/bash
# Twenty-fifth session, call 150: the slot writer's launch bounds on
# ac48a47 ("new", the build: five blocks an SM, 48 registers, spilling
# 56 bytes): "lb4" four blocks (64 registers), "lb6" six (40).  base
# (e4d0d9d), new, lb4 and lb6 alternated on the pillars; then the whole
# suite on new.
CALL_SECONDS=420 . docs/bench/call-lib.sh "$1"
ab_bench pillars "base new lb4 lb6 lb6 lb4 new base" --sweep voxelize --modes pillars --points 131072,524288,1048576 --only 'sweep-voxelize-pillars-*' --runs 30
cat $R/ab-pillars.txt
timeout $(( $(left) - 5 )) meson test -C build --no-rebuild --print-errorlogs > $R/meson-test.txt 2>&1; echo rc=$? >> $R/meson-test.txt; pack meson test
grep -E "^Ok:|^Fail:|^Skipped:|^Timeout:| FAIL | TIMEOUT |rc=" $R/meson-test.txt
cat $R/timeline.txt
