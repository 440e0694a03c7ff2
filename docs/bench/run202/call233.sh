#!/bin/bash
# Thirty-eighth session, call 233: the Python package's GPU tests after
# robocache.cuda_available() took the kernels' check (False, with a
# warning naming the rebuild, where the GPU's architecture was not
# built); then elements-voxelize under compute-sanitizer's memcheck, which
# call 229 could not attach to in its 120 s (its CPU cases come first:
# --launch-timeout 0 waits for the first CUDA call however late).
CALL_SECONDS=450 . docs/bench/call-lib.sh "$1"
meson_tests python python-kernels-gpu python-pipeline-gpu python-dataset \
  python-train-example python-kernels python-pipeline
cp "$B/meson-logs/testlog.txt" "$R/python-testlog.txt"
timeout 330 meson test -C "$B" --no-rebuild --print-errorlogs \
  --wrapper "compute-sanitizer --tool memcheck --launch-timeout 0 --error-exitcode 9" \
  elements-voxelize > "$R/memcheck-elements-voxelize.txt" 2>&1
echo rc=$? >> "$R/memcheck-elements-voxelize.txt"
cp "$B"/meson-logs/testlog-compute-sanitizer.txt "$R/memcheck-elements-voxelize-log.txt"
pack "memcheck elements-voxelize"
grep -E "^Ok:|^Fail:|^Timeout:|Checks:|ERROR SUMMARY|rc=" \
  "$R/memcheck-elements-voxelize.txt" "$R/memcheck-elements-voxelize-log.txt" |
  sort | uniq -c
cat $R/timeline.txt
