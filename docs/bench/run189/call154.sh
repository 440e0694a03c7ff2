#!/bin/bash
# Twenty-fifth session, call 154, the committed code (c6e0473, "new"):
# which of 4f0c825's tidy-ups costs the partitioned counts 0.5 to 1.5 us
# (run 188): "t" writes a tile by its own loop again, "s" counts the
# keying pass's statistics as three block sums again, each on c6e0473;
# the pillars' whole series, e4d0d9d ("base", the session's start) and
# new; then the whole suite.
CALL_SECONDS=420 . docs/bench/call-lib.sh "$1"
ab_bench counts "new t s s t new" --sweep voxelize --modes count --points 1048576,4194304 --only 'sweep-voxelize-count-256cube-n*,sweep-voxelize-count-256cube-lidar-n1048576' --runs 30
cat $R/ab-counts.txt
ab_bench pillars "base new" --sweep voxelize --modes pillars --only 'sweep-voxelize-pillars-*' --runs 30
cat $R/ab-pillars.txt
timeout $(( $(left) - 5 )) meson test -C build --no-rebuild --print-errorlogs > $R/meson-test.txt 2>&1; echo rc=$? >> $R/meson-test.txt; pack meson test
grep -E "^Ok:|^Fail:|^Skipped:|^Timeout:| FAIL | TIMEOUT |rc=" $R/meson-test.txt
cat $R/timeline.txt
