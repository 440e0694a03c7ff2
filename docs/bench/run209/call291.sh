#!/bin/bash
# Forty-fifth session, call 291, one H200: elements-resample (and
# kernels-resample-gpu) after the tests read and write values through
# tests/common/values.h (the bfloat16 chunk inputs now rounded).
CALL_SECONDS=200 . docs/bench/call-lib.sh "$1"
meson_tests resample kernels-resample-gpu elements-resample
pack done
