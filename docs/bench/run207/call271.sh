#!/bin/bash
# Forty-third session, call 271, on one H200: elements-cuda with its new
# case, twenty rounds of new GPU pipelines and one pipeline played twenty
# times giving the device memory back
# (test_restarts_give_back_device_memory), and the shared-context case
# after its helper's split; the memory the case measured.
CALL_SECONDS=300 . docs/bench/call-lib.sh "$1"
meson_tests cuda elements-cuda
grep -h -o "device memory free: .*" "$B/meson-logs/testlog.txt" |
  tee "$R/restart-memory.txt"
