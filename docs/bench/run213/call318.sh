#!/bin/bash
# Forty-ninth session, call 318, one H200: ea66f3f (the recording sources
# taking a non-flushing seek in their streaming task).
# 1. The GPU tests (tests/gpu-sanitize.sh --list), 8 at a time.
CALL_SECONDS=300 . docs/bench/call-lib.sh "$1"
export CK_DEFAULT_TIMEOUT=120
meson_parallel gpu 220 "${GPU_TESTS[@]}"
pack done
