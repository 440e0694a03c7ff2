#!/bin/bash
# Fifty-fourth session, call 337, one H200: the final code (f9601e9: the
# folder suffixes' macro, pipelines and Python texts after call 336).
# 1. The GPU tests (tests/gpu-sanitize.sh --list), 8 at a time.
# 2. The formats suite.
# 3. The python suite, on the CPU and (its CUDA device) the GPU.
CALL_SECONDS=420 . docs/bench/call-lib.sh "$1"
export CK_DEFAULT_TIMEOUT=120
meson_parallel gpu 220 "${GPU_TESTS[@]}"
meson_tests formats --suite formats
meson_tests python --suite python
pack done
