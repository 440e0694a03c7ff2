#!/bin/bash
# Forty-first session, call 250: what call 249's limit left, as far as
# the session's device time allows: memcheck over the two Python GPU tests
# and racecheck over kernels-bev-gpu and the element tests of pillars and
# the bird's-eye view, side by side.
CALL_SECONDS=280 . docs/bench/call-lib.sh "$1"
ROBOCACHE_SANITIZE_PARALLEL=1 ROBOCACHE_SANITIZE_SECONDS=230 \
  ROBOCACHE_SANITIZE_TOOLS="memcheck racecheck" \
  ROBOCACHE_SANITIZE_TESTS_memcheck="python-kernels-gpu python-pipeline-gpu" \
  ROBOCACHE_SANITIZE_TESTS_racecheck="kernels-bev-gpu elements-pillars elements-bev" \
  timeout 260 bash tests/gpu-sanitize.sh "$B" "$R/sanitize" \
  > "$R/sanitize.txt" 2>&1
echo rc=$? >> "$R/sanitize.txt"
pack sanitize
cat "$R/sanitize/summary.md"
