#!/bin/bash
# Forty-fourth session, call 276, one H200: call 275 again (the GPU tests
# and the element tests side by side), after elements-cuda's restart case
# failed there (resident memory 148 -> 229 MiB over 20 rounds of new
# pipelines, then flat); the case now has glibc give back the free memory
# of its arenas before it reads VmRSS, and prints both.  Then elements-cuda
# alone.
CALL_SECONDS=560 . docs/bench/call-lib.sh "$1"
mapfile -t tests < <(meson test -C "$B" --no-rebuild --list 2>/dev/null |
  sed 's/^.* \/ //' |
  grep -E -- '-gpu$|^elements-|^pipelines-record-replay$|^pipelines-demo$')
timeout 300 meson test -C "$B" --no-rebuild --print-errorlogs \
  --num-processes 8 "${tests[@]}" > "$R/meson.txt" 2>&1
echo rc=$? >> "$R/meson.txt"
grep -E "resident memory|device memory free" "$B/meson-logs/testlog.txt" \
  > "$R/restarts.txt"
pack meson
grep -E "^ *[0-9]+/[0-9]+ |^Ok:|^Fail:|^Skipped:|^Timeout:|rc=" "$R/meson.txt"
meson_tests cuda-alone elements-cuda
grep -E "resident memory|device memory free" "$B/meson-logs/testlog.txt" \
  >> "$R/restarts.txt"
cat "$R/restarts.txt"
