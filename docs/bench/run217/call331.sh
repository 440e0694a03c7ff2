#!/bin/bash
# Fifty-third session, call 331, one H200: 0e2c726 (rosbag2's SQLite
# storage read; libsqlite3-0 carried in .device/debs).
# 1. The GPU tests (tests/gpu-sanitize.sh --list), 8 at a time.
# 2. The formats suite (the SQLite reader with the carried libsqlite3).
# 3. The python suite, on the CPU and (its CUDA device) the GPU.
CALL_SECONDS=420 . docs/bench/call-lib.sh "$1"
export CK_DEFAULT_TIMEOUT=120
meson_parallel gpu 220 "${GPU_TESTS[@]}"
meson_tests formats --suite formats
meson_tests python --suite python
pack done
