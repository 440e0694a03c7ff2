#!/bin/bash
# Thirty-ninth session, call 235: the whole suite on the code since call
# 234 (the recording sources' split recordings shared file by file, the
# chain's look ahead that copies what its files held, the folder listed
# once), then elements-mcapreplay-gpu, the recording sources into the GPU
# elements, under compute-sanitizer's memcheck.
CALL_SECONDS=540 . docs/bench/call-lib.sh "$1"
meson_tests all
cp "$B/meson-logs/testlog.txt" "$R/all-testlog.txt"
timeout 240 meson test -C "$B" --no-rebuild --print-errorlogs \
  --wrapper "compute-sanitizer --tool memcheck --launch-timeout 0 --error-exitcode 9" \
  elements-mcapreplay-gpu > "$R/memcheck-elements-mcapreplay-gpu.txt" 2>&1
echo rc=$? >> "$R/memcheck-elements-mcapreplay-gpu.txt"
cp "$B"/meson-logs/testlog-compute-sanitizer.txt \
  "$R/memcheck-elements-mcapreplay-gpu-log.txt"
pack "memcheck elements-mcapreplay-gpu"
grep -E "^Ok:|^Fail:|^Timeout:|Checks:|ERROR SUMMARY|rc=" \
  "$R/memcheck-elements-mcapreplay-gpu.txt" \
  "$R/memcheck-elements-mcapreplay-gpu-log.txt" | sort | uniq -c
cat $R/timeline.txt
