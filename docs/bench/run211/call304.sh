#!/bin/bash
# Forty-seventh session, call 304, one H200, on the final code (5764717):
# the chunk path's new staging under load, where call 293 once saw an
# element not start with 8 GPU tests at a time.
# 1. The GPU tests, 8 at a time (a third time on this code's chunk path).
# 2. Eight elements-resample processes at once, each running its GPU
#    chunk cases, twice.
CALL_SECONDS=300 . docs/bench/call-lib.sh "$1"
meson_parallel gpu 150 "${GPU_TESTS[@]}"
at_once elements_resample \
  test_gpu_chunk_cuts,test_gpu_long_chunks,test_gpu_matches_cpu,test_gpu_chunk_in_flight_flushed \
  8 2 chunks
pack done
