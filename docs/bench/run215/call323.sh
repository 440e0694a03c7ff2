#!/bin/bash
# Fifty-first session, call 323, one H200: 913de64 (robocachefuse
# holding the other pads' buffers while a stalled pad holds a tick, at a
# rate and with rate=0/1, the tick deadlines, drop-outs left out of the
# latency; the recording
# sources' allocator asked once a topic and their JointState order; the
# aligner skipping joint states that name other joints).
# 1. The GPU tests (tests/gpu-sanitize.sh --list), 8 at a time.
# 2. The python suite, on the CPU and (its CUDA device) the GPU.
CALL_SECONDS=420 . docs/bench/call-lib.sh "$1"
export CK_DEFAULT_TIMEOUT=120
meson_parallel gpu 220 "${GPU_TESTS[@]}"
meson_tests python --suite python
pack done
