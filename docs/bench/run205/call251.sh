#!/bin/bash
# Forty-first session, call 251: python-kernels-gpu after its equal-times
# case moved onto references.resample_last_wins.
CALL_SECONDS=150 . docs/bench/call-lib.sh "$1"
meson_tests python python-kernels-gpu
cp "$B/meson-logs/testlog.txt" "$R/testlog-python.txt"; pack testlog
grep -E "equal_times|^Ran |^OK" "$R/testlog-python.txt" | head -5
