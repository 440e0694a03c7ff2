#!/bin/bash
# Thirty-seventh session, call 229: the whole suite on the session's final
# code (robocachefuse's caps change and segment, its timeline split out;
# robocachevoxelize's centroids memory count; the base transform's
# refusal; robocachemcapsink's gate; the recording sources' segment
# seeks and stop; test_gpu_chunk_cuts through one helper; the
# dedupe helper's folds), carried whole; then compute-sanitizer's
# memcheck over the CUDA interop tests (fusion on the GPU among them) and
# the voxelization element's.
CALL_SECONDS=480 . docs/bench/call-lib.sh "$1"
meson_tests all
cp "$B/meson-logs/testlog.txt" "$R/all-testlog.txt"
for t in elements-cuda elements-voxelize; do
  timeout 120 meson test -C "$B" --no-rebuild --print-errorlogs \
    --wrapper "compute-sanitizer --tool memcheck --error-exitcode 9" \
    "$t" > "$R/memcheck-$t.txt" 2>&1
  echo rc=$? >> "$R/memcheck-$t.txt"
  cp "$B/meson-logs/testlog-compute-sanitizer.txt" "$R/memcheck-$t-log.txt"
  pack "memcheck $t"
  grep -E "^Ok:|^Fail:|Checks:|ERROR SUMMARY|rc=" "$R/memcheck-$t.txt" \
    "$R/memcheck-$t-log.txt" | sort | uniq -c
done
cat $R/timeline.txt
