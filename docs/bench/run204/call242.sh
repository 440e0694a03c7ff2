#!/bin/bash
# Fortieth session, call 242: the session's final code on the GPU (READY
# properties refused past READY, the ROS node's malformed messages, torch's
# negative-bit views), and elements-pillars under memcheck now that its GPU
# case says when it is not run.
CALL_SECONDS=420 . docs/bench/call-lib.sh "$1"
meson_tests all
cp "$B/meson-logs/testlog.txt" "$R/testlog-all.txt"; pack testlog
grep -E "^ *[0-9]+/" "$R/meson-all.txt" | grep -v " OK " | head -20
grep -E -A1 "negative_bit" "$R/testlog-all.txt" | head -6
timeout 200 meson test -C "$B" --no-rebuild --print-errorlogs --wrapper \
  "compute-sanitizer --tool memcheck --launch-timeout 0 --error-exitcode 9" \
  elements-pillars elements-bev > "$R/memcheck.txt" 2>&1
echo rc=$? >> "$R/memcheck.txt"
cp "$B/meson-logs/testlog-compute-sanitizer.txt" "$R/" 2>/dev/null
pack memcheck
grep -E "^ *[0-9]+/|rc=" "$R/memcheck.txt"
grep -E "ERROR SUMMARY|not run|Checks:" "$R/testlog-compute-sanitizer.txt"
