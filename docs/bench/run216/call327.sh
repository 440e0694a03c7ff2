#!/bin/bash
# Fifty-second session, call 327, one H200: the GPU tests and the python
# suite after the seek, fuse, point-field and dataset-warning changes
# (e0e82af), and the install changes (4457580).
# 1. The GPU tests (tests/gpu-sanitize.sh --list), 8 at a time.
# 2. The python suite, on the CPU and (its CUDA device) the GPU.
CALL_SECONDS=420 . docs/bench/call-lib.sh "$1"
export CK_DEFAULT_TIMEOUT=120
meson_parallel gpu 220 "${GPU_TESTS[@]}"
meson_tests python --suite python
pack done
