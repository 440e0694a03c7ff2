#!/bin/bash
# Forty-third session, call 272, on one H200: elements-cuda with the
# restart case measuring the process's resident memory beside the
# device's (test_restarts_give_back_memory: page-locked host blocks count
# there); the memory it measured.
CALL_SECONDS=300 . docs/bench/call-lib.sh "$1"
meson_tests cuda elements-cuda
grep -h -E -o "(device|resident) memory.*" "$B/meson-logs/testlog.txt" |
  tee "$R/restart-memory.txt"
