#!/bin/bash
# Fortieth session, call 240: the whole suite on the GPU with torch's
# negative-bit views read negated (2fe2baf), python-kernels-gpu's new case
# among them.
CALL_SECONDS=300 . docs/bench/call-lib.sh "$1"
meson_tests all
cp "$B/meson-logs/testlog.txt" "$R/testlog-all.txt"; pack testlog
grep -E "^ *[0-9]+/" "$R/meson-all.txt" | grep -v " OK " | head -20
grep -E -A1 "negative_bit" "$R/testlog-all.txt" | head -6
