#!/bin/bash
# Thirty-ninth session, call 237: the whole suite on 2ebc850 (since call
# 236: the recording decoder's caps names made once, the
# Python package's limits on joint windows, refusals of masked arrays and
# of NUL characters in descriptions).
CALL_SECONDS=300 . docs/bench/call-lib.sh "$1"
meson_tests all
cp "$B/meson-logs/testlog.txt" "$R/all-testlog.txt"
grep -E "RSS grew|unconsumed" "$R/all-testlog.txt" | head -3
cat $R/timeline.txt
