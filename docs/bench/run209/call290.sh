#!/bin/bash
# Forty-fifth session, call 290, one H200, on the session's final code
# (beca3f1 reverted call 289's two-slot staging and kept its test):
# 1. the 17 GPU tests, 8 at a time;
# 2. memcheck over elements-resample's four GPU chunk cases;
# 3. bench-pipeline twice.
CALL_SECONDS=400 . docs/bench/call-lib.sh "$1"
meson_parallel gpu 200 "${GPU_TESTS[@]}"
sanitize memcheck elements_resample \
  test_gpu_long_chunks,test_gpu_chunk_cuts,test_gpu_chunk_in_flight_flushed,test_gpu_matches_cpu
ab_plugins final 2 "new=" --sweeps 500 --fusion-seconds 1
for f in "$R"/pipeline-*-[0-9].txt; do
  echo "${f##*/} $(grep -h 'from pinned memory' "$f" | grep -o '[0-9]* %')"
done | tee "$R/pinned-share.txt"
pack done
