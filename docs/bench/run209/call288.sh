#!/bin/bash
# Forty-fifth session, call 288, one H200: 91464ef moved the chunk's GPU
# steps to gstrobocacheresamplechunkgpu.c (functions renamed, none
# changed) and 2e18eab folded the resample tests' chunk writers.  Run 208
# saw a change of code layout alone move this path by 10 to 15 %, so:
# 1. the 17 GPU tests, 8 at a time;
# 2. memcheck and initcheck over elements-resample's chunk cases on the
#    GPU (call 287's ran out of check's 4 s for test_gpu_chunk_cuts);
# 3. bench-pipeline alternated four times: "f84" (f84b357's one chunk
#    file, linked with the build's other objects) and "new" (the build).
CALL_SECONDS=570 . docs/bench/call-lib.sh "$1"
meson_parallel gpu 200 "${GPU_TESTS[@]}"
checks=test_gpu_long_chunks_from_cuda,test_gpu_chunk_cuts,test_gpu_matches_cpu
sanitize memcheck elements_resample $checks
sanitize initcheck elements_resample $checks
ab_plugins split 4 "f84=$PWD/.device/f84plug new=" \
  --sweeps 500 --fusion-seconds 1
pack done
