#!/bin/bash
# Forty-fourth session, call 278, one H200: the whole meson suite on the
# session's final code (7c05227), 8 tests at a time.
CALL_SECONDS=560 . docs/bench/call-lib.sh "$1"
timeout 480 meson test -C "$B" --no-rebuild --print-errorlogs \
  --num-processes 8 > "$R/meson.txt" 2>&1
echo rc=$? >> "$R/meson.txt"
grep -E "resident memory|device memory free" "$B/meson-logs/testlog.txt" \
  > "$R/restarts.txt"
pack meson
grep -E "^ *[0-9]+/[0-9]+ |^Ok:|^Fail:|^Skipped:|^Timeout:|rc=" "$R/meson.txt"
cat "$R/restarts.txt"
