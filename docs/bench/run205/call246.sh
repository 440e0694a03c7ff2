#!/bin/bash
# Forty-first session, call 246: the suite on the session's final code
# (since call 244: pipelines-demo runs its four sections without python
# rosbag, so on this machine it runs the demo on the GPU; a test of a
# resample chunk's equal times).
CALL_SECONDS=300 . docs/bench/call-lib.sh "$1"
meson_tests all
cp "$B/meson-logs/testlog.txt" "$R/testlog-all.txt"; pack testlog
grep -E "^ *[0-9]+/" "$R/meson-all.txt" | grep -v " OK " | head -20
grep -E "left out|== backend|^lidar: |^== summary" "$R/testlog-all.txt" | head -6
