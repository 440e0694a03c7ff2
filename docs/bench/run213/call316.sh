#!/bin/bash
# Forty-ninth session, call 316, one H200: 6343d5f.
# 1. The GPU tests (tests/gpu-sanitize.sh --list), 8 at a time: among them
#    kernels-convert-gpu's new test_seconds_to_ns (the GPU's seconds to
#    nanoseconds against the CPU's, exact, and its clamping) and
#    python-kernels-gpu's test_misaligned_refused_after_fast_path (a
#    misaligned torch CUDA tensor refused after the same shapes took each
#    fast path, and the next aligned call right).
# 2. memcheck over test_seconds_to_ns.
# 3. The python suite on this machine.
CALL_SECONDS=400 . docs/bench/call-lib.sh "$1"
export CK_DEFAULT_TIMEOUT=120
meson_parallel gpu 220 "${GPU_TESTS[@]}"
sanitize memcheck kernels_convert_gpu test_seconds_to_ns
meson_tests python --suite python
grep -E "test_misaligned|test_seconds|skipped|Ran " "$B/meson-logs/testlog.txt" | head -20 > "$R/python-notes.txt"
pack done
