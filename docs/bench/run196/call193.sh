#!/bin/bash
# Thirty-second session, call 193 (69568e1: backend=auto leaves small
# chunks in system memory to the CPU; the CPU's search on from the last
# target only at most 8 samples apart; rc_resample_prefers_cpu's
# constants of call 191): the whole suite on the GPU, then memcheck over
# the resample element's GPU test (tests/gpu-sanitize.sh, its test
# named).  Carried whole (`carry: [".device", "build"]`).
CALL_SECONDS=520 . docs/bench/call-lib.sh "$1"
meson_tests all
if [ $(left) -gt 150 ]; then
  GST_CHECKS=test_gpu_matches_cpu ROBOCACHE_SANITIZE_TOOLS=memcheck ROBOCACHE_SANITIZE_SECONDS=$(( $(left) - 30 )) \
    bash tests/gpu-sanitize.sh build $R/sanitize elements-resample > $R/sanitize.txt 2>&1; echo rc=$? >> $R/sanitize.txt
  cp $R/sanitize/summary.md $R/ 2>/dev/null; pack sanitize
  tail -5 $R/sanitize.txt
fi
cat $R/timeline.txt
