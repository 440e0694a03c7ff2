#!/bin/bash
# Thirty-second session, call 189 (91cf7e5 and the harness beside this
# script): the whole suite on the GPU, whose GPU-against-CPU tests had not
# run since the CPU resample and fusion were vectorized (bb52dd6, 0da3858,
# 91cf7e5); autocross.c, robocacheresample's path for host data against
# the one-thread CPU over shapes from the live path's to chunks, for
# backend=auto's bound; then bench-kernels --sweep resample and fuse, for
# the CPU columns of docs/performance.md's first table.  Carried whole
# (`carry: [".device", "build"]`); build/autocross built here.
CALL_SECONDS=560 . docs/bench/call-lib.sh "$1"
timeout 60 $B/autocross 41 > $R/autocross.txt 2>&1; echo rc=$? >> $R/autocross.txt; pack autocross
tail -14 $R/autocross.txt
for w in resample fuse; do
  timeout 120 $B/tests/bench-kernels --sweep $w --runs 30 --json $R/sweep-$w.json > $R/sweep-$w.txt 2>&1; echo rc=$? >> $R/sweep-$w.txt; pack sweep $w
  grep -E "rc=|differ" $R/sweep-$w.txt | tail -2
done
meson_tests all
cat $R/timeline.txt
