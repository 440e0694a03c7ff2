#!/bin/bash
# Forty-fourth session, call 275, one H200: the system memory scratch of
# the CPU's kernels (voxelize, pillars, bev) now grown and freed by the
# GPU helper with the GPU's own.  Every GPU test and the element tests,
# then memcheck over the three elements' tests with GPU cases that grow
# scratch, and initcheck over elements-cuda, whose case of two contexts of
# one device steps aside under it (not yet run on a GPU).
CALL_SECONDS=560 . docs/bench/call-lib.sh "$1"
mapfile -t tests < <(meson test -C "$B" --no-rebuild --list 2>/dev/null |
  sed 's/^.* \/ //' |
  grep -E -- '-gpu$|^elements-|^pipelines-record-replay$|^pipelines-demo$')
timeout 300 meson test -C "$B" --no-rebuild --print-errorlogs \
  --num-processes 8 "${tests[@]}" > "$R/meson.txt" 2>&1
echo rc=$? >> "$R/meson.txt"
pack meson
grep -E "^ *[0-9]+/[0-9]+ |^Ok:|^Fail:|^Skipped:|^Timeout:|rc=" "$R/meson.txt"
grep -E "resident memory|device memory free" "$B/meson-logs/testlog.txt" \
  > "$R/restarts.txt"
cat "$R/restarts.txt"
ROBOCACHE_SANITIZE_TOOLS="memcheck initcheck" \
  ROBOCACHE_SANITIZE_TESTS_memcheck="elements-pillars | elements-bev" \
  ROBOCACHE_SANITIZE_TESTS_initcheck="elements-cuda" \
  ROBOCACHE_SANITIZE_PARALLEL=1 ROBOCACHE_SANITIZE_SECONDS=$(( $(left) - 30 )) \
  tests/gpu-sanitize.sh "$B" "$R/sanitize" > "$R/sanitize.txt" 2>&1
echo rc=$? >> "$R/sanitize.txt"
pack sanitize
cat "$R/sanitize/summary.md"
grep -o "left out under [a-z]*: [^\\]*" "$R"/sanitize/*/testlog.json | head -5
