#!/bin/bash
# Forty-fourth session, call 277, one H200: robocacheresample's host
# scratch grown and freed by the GPU helper (1eae12a), and the pillars'
# scratch test stepping aside under sanitizers.  The tests that run
# resample (element, kernel, Python, fuse, record-replay) and the other
# elements whose scratch moved, 8 at a time; then memcheck and initcheck
# over elements-resample side by side.
CALL_SECONDS=560 . docs/bench/call-lib.sh "$1"
timeout 300 meson test -C "$B" --no-rebuild --print-errorlogs \
  --num-processes 8 elements-resample kernels-resample-gpu \
  python-kernels-gpu python-pipeline-gpu elements-fuse elements-pillars \
  elements-bev elements-voxelize elements-livefaults elements-embed \
  elements-cuda pipelines-record-replay > "$R/meson.txt" 2>&1
echo rc=$? >> "$R/meson.txt"
pack meson
grep -E "^ *[0-9]+/[0-9]+ |^Ok:|^Fail:|^Skipped:|^Timeout:|rc=" "$R/meson.txt"
grep -E "resident memory|device memory free" "$B/meson-logs/testlog.txt"
ROBOCACHE_SANITIZE_TOOLS="memcheck initcheck" \
  ROBOCACHE_SANITIZE_PARALLEL=1 ROBOCACHE_SANITIZE_SECONDS=$(( $(left) - 30 )) \
  tests/gpu-sanitize.sh "$B" "$R/sanitize" elements-resample elements-pillars \
  > "$R/sanitize.txt" 2>&1
echo rc=$? >> "$R/sanitize.txt"
pack sanitize
cat "$R/sanitize/summary.md"
grep -o "left out under [a-z]*: [^\\]*" "$R"/sanitize/*/testlog.json | head -5
