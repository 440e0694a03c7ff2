#!/bin/bash
# Fifty-fifth session, call 338, one H200: the final code (the recording
# sources' pass ends by stamps, robocachefuse's gaps kept until a tick
# can be made, the ROS node's parameters, the Python checks).
# 1. The GPU tests (tests/gpu-sanitize.sh --list), 8 at a time.
# 2. The fuse and recording-source tests these changes touch.
# 3. The formats suite.
# 4. The python suite, on the CPU and (its CUDA device) the GPU.
CALL_SECONDS=420 . docs/bench/call-lib.sh "$1"
export CK_DEFAULT_TIMEOUT=120
meson_parallel gpu 220 "${GPU_TESTS[@]}"
meson_tests elements elements-fuse elements-recordingplay elements-livefaults
meson_tests formats --suite formats
meson_tests python --suite python
pack done
