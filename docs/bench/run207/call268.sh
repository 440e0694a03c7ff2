#!/bin/bash
# Forty-third session, call 268, on two H200s.  Call 267 reproduced
# initcheck's false reports without GStreamer: a copy between devices is
# not seen to write its destination when a second context of each device
# lives beside the first (initcheck_recreate.cu overlap).  elements-multigpu
# kept every pipeline it ran, and so their elements' contexts, to the end
# of the test (tests/common/elementutil.h, tracked); now a pipeline that
# ended is let go (untrack) before the next is made.  The test plainly,
# then the four tools side by side over it.
CALL_SECONDS=560 . docs/bench/call-lib.sh "$1"
meson test -C "$B" --no-rebuild --print-errorlogs elements-multigpu \
  > "$R/meson.txt" 2>&1
echo rc=$? >> "$R/meson.txt"
pack meson
grep -E "^ *[0-9]+/[0-9]+ |rc=" "$R/meson.txt"
ROBOCACHE_SANITIZE_PARALLEL=1 ROBOCACHE_SANITIZE_SECONDS=480 \
  tests/gpu-sanitize.sh "$B" "$R/sanitize" elements-multigpu \
  > "$R/sanitize.txt" 2>&1
echo rc=$? >> "$R/sanitize.txt"
pack sanitize
cat "$R/sanitize/summary.md"
tail -1 "$R/sanitize.txt"
