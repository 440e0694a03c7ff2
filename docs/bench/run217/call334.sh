#!/bin/bash
# Fifty-third session, call 334, one H200: the final code (29f247a: the recording suffixes
# in one tuple, after the re-read), after call 333.
# 1. The GPU tests (tests/gpu-sanitize.sh --list), 8 at a time.
# 2. The formats suite (the SQLite reader with the carried libsqlite3).
# 3. The python suite, on the CPU and (its CUDA device) the GPU.
CALL_SECONDS=420 . docs/bench/call-lib.sh "$1"
export CK_DEFAULT_TIMEOUT=120
meson_parallel gpu 220 "${GPU_TESTS[@]}"
meson_tests formats --suite formats
meson_tests python --suite python
pack done
