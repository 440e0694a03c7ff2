#!/bin/bash
# Twenty-third session, call 129 (and 130, passes timed apart): the partition probe in
# three tile sizes against the library's 256^3 counts.
set -u
OUT=$1; R=$OUT/r; mkdir -p $R
B=docs/bench/run184/bin
export LD_LIBRARY_PATH=$B
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.max.mem --format=csv > $R/gpu.txt 2>&1
for t in b x; do
  timeout 150 $B/p$t 30 > $R/p$t.txt 2>&1; echo rc=$? >> $R/p$t.txt
  cat $R/p$t.txt
done
