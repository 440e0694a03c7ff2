#!/bin/bash
# Forty-seventh session, call 300, one H200: a chunk's staging on the
# device as one launch of row copies (rc_copy_rows_cuda), the kept
# samples' times and values kept on the device in two turns.
# 1. The GPU tests (tests/gpu-sanitize.sh --list), 8 at a time.
# 2. memcheck over the row copies' tests and elements-resample's GPU chunk
#    cases; initcheck over the chunk cases.
# 3. Three mutants of gst/gstrobocacheresamplechunkgpu.c, each of which
#    should fail the chunk cases: mut-noprev never takes kept samples from
#    the previous chunk's (a chunk shorter than what it keeps),
#    mut-nokeept keeps no times from the chunk, mut-turn never turns.
# 4. bench-pipeline alternated 4 times: "head" (7f556eb's plugin and
#    kernel library) and "new" (the build's).
CALL_SECONDS=540 . docs/bench/call-lib.sh "$1"
tar xJf .device/plugs.tar.xz -C .device
meson_parallel gpu 200 "${GPU_TESTS[@]}"
CASES=test_gpu_long_chunks,test_chunk_grid_times_exact,test_gpu_chunk_cuts
sanitize memcheck kernels_convert_gpu test_copy_rows,test_copy_rows_eight,test_repeat_rows
sanitize memcheck elements_resample $CASES
sanitize initcheck elements_resample $CASES
mutants elements_resample $CASES,test_gpu_matches_cpu mut-noprev \
  mut-nokeept mut-turn
ab_plugins stream 4 "head=$PWD/.device/headplug new=" \
  --sweeps 500 --fusion-seconds 1
pack done
