#!/bin/bash
# Forty-sixth session, call 292, one H200: robocacheresample's chunks with
# one row of grid times computed by stepping (resample_grid_times) and,
# from CUDA memory, uploaded once and repeated on the device for every
# trajectory (rc_repeat_rows_cuda) instead of 64 rows computed, copied
# and uploaded.
# 1. The GPU tests (tests/gpu-sanitize.sh --list), 8 at a time.
# 2. memcheck over the new kernel's test, memcheck and initcheck over the
#    new element test (every trajectory's grid times to the nanosecond).
# 3. bench-pipeline alternated 4 times: "head" (ab28b58's plugin) and
#    "new" (the build's), on the build's kernel library.
CALL_SECONDS=560 . docs/bench/call-lib.sh "$1"
meson_parallel gpu 220 "${GPU_TESTS[@]}"
sanitize memcheck kernels_convert_gpu test_repeat_rows
sanitize memcheck elements_resample test_chunk_grid_times_exact
sanitize initcheck elements_resample test_chunk_grid_times_exact
ab_plugins rows 4 "head=$PWD/.device/headplug new=" \
  --sweeps 500 --fusion-seconds 1
pack done
