#!/bin/bash
# Forty-first session, call 249: compute-sanitizer's four tools side by
# side over every GPU test on the current code (the last whole sweep was
# run 61, 2026-11-27; kernels changed since were sanitized one by one),
# within one call's limit: what finishes is summed up in
# sanitize/summary.md.
CALL_SECONDS=580 . docs/bench/call-lib.sh "$1"
ROBOCACHE_SANITIZE_PARALLEL=1 ROBOCACHE_SANITIZE_SECONDS=500 \
  timeout 540 bash tests/gpu-sanitize.sh "$B" "$R/sanitize" \
  > "$R/sanitize.txt" 2>&1
echo rc=$? >> "$R/sanitize.txt"
pack sanitize
cat "$R/sanitize/summary.md"
grep -E "^tests:|^tools:|rc=" "$R/sanitize.txt"
