#!/bin/bash
# Fiftieth session, call 320, one H200: the final code (48e0e42 and its
# docs): robocachebev's pixels pooled over the columns they cover (the
# largest value), turbo from blue, the CUDA filters' negotiation errors,
# robocachefuse's seek refusal, empty flat vector and interpolated offset.
# 1. The GPU tests (tests/gpu-sanitize.sh --list), 8 at a time.
# 2. bench-kernels' bird's-eye view rows, the kernel library before the
#    pooling ("old", b822e91~1's bev-math.h and colormaps) and the build's
#    ("new") alternated, twice each.
CALL_SECONDS=420 . docs/bench/call-lib.sh "$1"
export CK_DEFAULT_TIMEOUT=120
meson_parallel gpu 220 "${GPU_TESTS[@]}"
ab_bench bev "old new old new" --only 'bev*'
pack done
