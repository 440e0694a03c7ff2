#!/bin/bash
# Thirty-ninth session, call 236: the whole suite on the session's final
# code (since call 235: stricter voxels and points caps, strings that are
# not UTF-8, start-time past 2^63, robocachemcapsink's TIME segments, rates
# above 1 GHz refused, the Python package's DLPack capsules with their
# destructor and its argument checks), then elements-bev and
# elements-pillars under compute-sanitizer's memcheck.
CALL_SECONDS=540 . docs/bench/call-lib.sh "$1"
meson_tests all
cp "$B/meson-logs/testlog.txt" "$R/all-testlog.txt"
grep -E "RSS grew|unconsumed" "$R/all-testlog.txt" | head -5
for t in elements-bev elements-pillars; do
  timeout 150 meson test -C "$B" --no-rebuild --print-errorlogs \
    --wrapper "compute-sanitizer --tool memcheck --launch-timeout 0 --error-exitcode 9" \
    $t > "$R/memcheck-$t.txt" 2>&1
  echo rc=$? >> "$R/memcheck-$t.txt"
  cp "$B"/meson-logs/testlog-compute-sanitizer.txt "$R/memcheck-$t-log.txt"
  pack "memcheck $t"
  grep -E "^Ok:|^Fail:|^Timeout:|Checks:|ERROR SUMMARY|rc=" \
    "$R/memcheck-$t.txt" "$R/memcheck-$t-log.txt" | sort | uniq -c
done
cat $R/timeline.txt
