#!/bin/bash
# Thirty-seventh session, call 228: after call 227's two test fixes,
# robocacheresample's tests on the GPU, then compute-sanitizer's memcheck,
# racecheck and initcheck over its GPU cases through meson (which sets the
# plugin path), and synccheck over the chunk cuts.
CALL_SECONDS=400 . docs/bench/call-lib.sh "$1"
meson_tests resample elements-resample kernels-resample-gpu
cp "$B/meson-logs/testlog.txt" "$R/resample-testlog.txt"
export GST_CHECKS=test_gpu_matches_cpu,test_gpu_chunk_in_flight_flushed,test_gpu_chunk_cuts
for tool in memcheck racecheck initcheck; do
  timeout 200 meson test -C "$B" --no-rebuild --print-errorlogs \
    --wrapper "compute-sanitizer --tool $tool --error-exitcode 9" \
    elements-resample > "$R/$tool-elements-resample.txt" 2>&1
  echo rc=$? >> "$R/$tool-elements-resample.txt"
  cp "$B/meson-logs/testlog.txt" "$R/$tool-testlog.txt"
  pack "$tool"
  grep -E "SUMMARY|^Ok:|^Fail:|Checks:|rc=" "$R/$tool-elements-resample.txt"
done
cat $R/timeline.txt
