#!/bin/bash
# Forty-first session, call 244: the suite, with the Python tests of equal
# source times (the later sample wins) on torch CUDA tensors.
CALL_SECONDS=300 . docs/bench/call-lib.sh "$1"
meson_tests all
cp "$B/meson-logs/testlog.txt" "$R/testlog-all.txt"; pack testlog
grep -E "^ *[0-9]+/" "$R/meson-all.txt" | grep -v " OK " | head -20
grep -E "equal_times" "$R/testlog-all.txt" | head -6
