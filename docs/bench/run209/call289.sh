#!/bin/bash
# Forty-fifth session, call 289, one H200: a72287b stages robocacheresample's
# chunks from system memory through two of the GPU helper's slots in turn,
# uploaded on its upload stream, so that one chunk's upload runs beside
# the previous chunk's kernels (call 287's probe: from page-locked memory
# the host waited 66 to 118 µs a chunk for the previous chunk's GPU work,
# 86 % of the bus).
# 1. the 17 GPU tests, 8 at a time;
# 2. memcheck and initcheck over elements-resample's GPU chunk cases
#    (test_gpu_long_chunks now from pageable, page-locked and CUDA memory);
# 3. bench-pipeline alternated four times: "split" (948209d's resample
#    files, linked with the build's other objects) and "new" (the build).
CALL_SECONDS=570 . docs/bench/call-lib.sh "$1"
meson_parallel gpu 200 "${GPU_TESTS[@]}"
checks=test_gpu_long_chunks,test_gpu_chunk_cuts,test_gpu_chunk_in_flight_flushed,test_gpu_matches_cpu
sanitize memcheck elements_resample $checks
sanitize initcheck elements_resample $checks
ab_plugins slots 4 "split=$PWD/.device/splitplug new=" \
  --sweeps 500 --fusion-seconds 1
for f in "$R"/pipeline-*-[0-9].txt; do
  echo "${f##*/} $(grep -h 'from pinned memory' "$f" | grep -o '[0-9]* %')"
done | tee "$R/pinned-share.txt"
pack done
