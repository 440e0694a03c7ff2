#!/bin/bash
# Forty-second session, call 252: what calls 249 and 250 (run 205) left of
# the four sanitizers over the GPU tests on the current code, the slow
# tests each in a lane of its own (tests/gpu-sanitize.sh's `|`):
# pipelines-record-replay under all four tools, racecheck over the element
# and Python GPU tests it has not run, synccheck and initcheck over the
# Python GPU tests.
CALL_SECONDS=580 . docs/bench/call-lib.sh "$1"
ROBOCACHE_SANITIZE_PARALLEL=1 ROBOCACHE_SANITIZE_SECONDS=520 \
  ROBOCACHE_SANITIZE_TESTS_memcheck="pipelines-record-replay" \
  ROBOCACHE_SANITIZE_TESTS_synccheck="pipelines-record-replay |
    python-kernels-gpu python-pipeline-gpu" \
  ROBOCACHE_SANITIZE_TESTS_initcheck="pipelines-record-replay |
    python-kernels-gpu python-pipeline-gpu" \
  ROBOCACHE_SANITIZE_TESTS_racecheck="pipelines-record-replay |
    elements-resample | elements-gpufaults |
    elements-cuda elements-transfers elements-multigpu elements-mcapreplay-gpu |
    python-kernels-gpu python-pipeline-gpu" \
  timeout 560 bash tests/gpu-sanitize.sh "$B" "$R/sanitize" \
  > "$R/sanitize.txt" 2>&1
echo rc=$? >> "$R/sanitize.txt"
pack sanitize
cat "$R/sanitize/summary.md"
grep -E "^tests:|^tools:|rc=" "$R/sanitize.txt"
