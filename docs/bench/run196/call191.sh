#!/bin/bash
# Thirty-second session, call 191 (8a01cea: the CPU searches a grid's next
# target on from the last): autocross.c twice again, for
# rc_resample_prefers_cpu's constants now that the CPU locates a target
# for less; bench-kernels --sweep resample and fuse for the CPU columns;
# then the whole suite on the GPU.  Carried whole (`carry: [".device",
# "build"]`); build/autocross built here.
CALL_SECONDS=560 . docs/bench/call-lib.sh "$1"
for seed in 196 7; do
  timeout 150 $B/autocross 41 $seed > $R/autocross-$seed.txt 2>&1; echo rc=$? >> $R/autocross-$seed.txt; pack autocross $seed
  grep -E "rc_resample_prefers|rc=" $R/autocross-$seed.txt
done
for w in resample fuse; do
  timeout 120 $B/tests/bench-kernels --sweep $w --runs 30 --json $R/sweep-$w.json > $R/sweep-$w.txt 2>&1; echo rc=$? >> $R/sweep-$w.txt; pack sweep $w
  grep -E "rc=|differ" $R/sweep-$w.txt | tail -2
done
meson_tests all
cat $R/timeline.txt
