#!/bin/bash
# Fiftieth session, call 321, one H200: the pixel spans in 32-bit
# integers (after call 320 measured the pooling 8 % slower).
# 1. The bird's-eye view tests on the GPU (CPU and GPU bytes compared).
# 2. bench-kernels' bird's-eye view rows, before the pooling ("old") and
#    the build's ("new") alternated, three times each.
CALL_SECONDS=300 . docs/bench/call-lib.sh "$1"
export CK_DEFAULT_TIMEOUT=120
meson_parallel gpu 150 kernels-bev-gpu elements-bev
ab_bench bev "old new old new old new" --only 'bev*'
pack done
