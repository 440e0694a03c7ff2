#!/bin/bash
# Thirty-seventh session, call 227: the whole suite on main (bf9fdb0: its
# commits after c92ea6e never ran on a GPU) with robocacheresample's chunk
# fix (a chunk produces only the grid times every trajectory decides; the
# samples each keeps go in front of the next chunk on the device), carried
# whole; then compute-sanitizer over the element's GPU cases.
CALL_SECONDS=420 . docs/bench/call-lib.sh "$1"
meson_tests all
GPU_CASES=test_gpu_matches_cpu,test_gpu_chunk_in_flight_flushed,test_gpu_chunk_cuts
test_programs elements_resample
sanitize memcheck elements_resample $GPU_CASES
sanitize racecheck elements_resample test_gpu_chunk_cuts
sanitize initcheck elements_resample test_gpu_chunk_cuts
cat $R/timeline.txt
