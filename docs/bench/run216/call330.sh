#!/bin/bash
# Fifty-second session, call 330, one H200: the final code (the fuse's SEGMENT_DONE by seqnum), after call 329. Before: (time 0 not
# set by a topic that skips its first message), after call 328.
# 1. The GPU tests (tests/gpu-sanitize.sh --list), 8 at a time.
# 2. The python suite, on the CPU and (its CUDA device) the GPU.
CALL_SECONDS=420 . docs/bench/call-lib.sh "$1"
export CK_DEFAULT_TIMEOUT=120
meson_parallel gpu 220 "${GPU_TESTS[@]}"
meson_tests python --suite python
pack done
