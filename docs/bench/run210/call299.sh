#!/bin/bash
# Forty-sixth session, call 299, one H200, on the session's final code
# (gst/ and kernels/ as 3764da0 but robocachefuse's pads keeping their
# blend buffer): the 17 GPU tests, 8 at a time.
CALL_SECONDS=200 . docs/bench/call-lib.sh "$1"
meson_parallel gpu 180 "${GPU_TESTS[@]}"
pack done
