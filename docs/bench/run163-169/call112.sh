#!/bin/bash
# Nineteenth session (2026-11-28), run 168: the mean sweep of ff7fb35 with
# its JSON (16,384 to 4,194,304 points, one, three and four features), for
# the plot of the means.
set -u
OUT=$1; B=$PWD/build
export LD_LIBRARY_PATH=$B/gst:$B/kernels:${LD_LIBRARY_PATH:-}
R=$OUT/r; mkdir -p $R
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $R/gpu.txt
timeout 250 $B/tests/bench-kernels --sweep voxelize --modes mean --runs 20 --json $R/mean.json > $R/mean.txt 2>&1; echo rc=$? >> $R/mean.txt
grep -E "^sweep-voxelize-mean" $R/mean.txt | awk '{print $1, $2, $NF}'; tail -1 $R/mean.txt
tar czf $OUT/r.tgz -C $OUT r
