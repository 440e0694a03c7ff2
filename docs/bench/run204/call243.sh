#!/bin/bash
# Fortieth session, call 243: the suite on the session's final code (since
# call 242: rosbag2's .db3 refused saying why, the Python package copied
# by fs.copyfile, a test of a stream added to a running recording).
CALL_SECONDS=300 . docs/bench/call-lib.sh "$1"
meson_tests all
cp "$B/meson-logs/testlog.txt" "$R/testlog-all.txt"; pack testlog
grep -E "^ *[0-9]+/" "$R/meson-all.txt" | grep -v " OK " | head -20
grep -E -A1 "negative_bit" "$R/testlog-all.txt" | head -6
