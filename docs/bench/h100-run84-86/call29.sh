#!/bin/bash
# Session 2026-11-27 (sixth), call H: kernels-sparse-gpu's failure with seed
# 3183019182 (run 84): replayed, with launch blocking, under the sanitizers.
set -u
OUT=$1; B=$PWD/build
export LD_LIBRARY_PATH=$B/gst:$B/kernels:${LD_LIBRARY_PATH:-}
R=$OUT/r; mkdir -p $R
T=$B/tests/kernels_sparse_gpu

for i in 1 2 3; do echo "== replay $i"; ROBOCACHE_TEST_SEED=3183019182 timeout 60 $T 2>&1 | tail -3; done > $R/replay.txt
echo "== blocking" >> $R/replay.txt; ROBOCACHE_TEST_SEED=3183019182 CUDA_LAUNCH_BLOCKING=1 timeout 60 $T 2>&1 | tail -3 >> $R/replay.txt
for i in 1 2 3 4 5; do echo "== fresh seed $i"; timeout 60 $T 2>&1 | grep -E "seed|%|F:" ; done >> $R/replay.txt
cat $R/replay.txt
for tool in racecheck memcheck synccheck; do
  echo "== $tool"; ROBOCACHE_TEST_SEED=3183019182 timeout 150 compute-sanitizer --tool $tool --error-exitcode 9 $T 2>&1 | grep -v "^=========     " | tail -12
done
