#!/bin/bash
# Fifty-fourth session, call 335, one H200: the code after files compressed
# whole (2c0f365 to 58fd0ce: rosbag2's --compression-mode file read through
# a temporary file).
# 1. The GPU tests (tests/gpu-sanitize.sh --list), 8 at a time.
# 2. The formats suite (formats-whole-file new; SQLite with the carried
#    libsqlite3).
# 3. The python suite, on the CPU and (its CUDA device) the GPU.
CALL_SECONDS=420 . docs/bench/call-lib.sh "$1"
export CK_DEFAULT_TIMEOUT=120
meson_parallel gpu 220 "${GPU_TESTS[@]}"
meson_tests formats --suite formats
meson_tests python --suite python
pack done
