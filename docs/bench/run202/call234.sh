#!/bin/bash
# Thirty-eighth session, call 234: the whole suite on the session's final
# code (since call 231: robocache.cuda_available() taking the kernels'
# check, the MCAP reader's rosbag2 message decompression, the message for
# a GPU whose architecture is built yet loads no code), carried whole.
CALL_SECONDS=330 . docs/bench/call-lib.sh "$1"
meson_tests all
cp "$B/meson-logs/testlog.txt" "$R/all-testlog.txt"
grep -m 3 "which name it" "$R/all-testlog.txt" | cut -c 1-300
cat $R/timeline.txt
