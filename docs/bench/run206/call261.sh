#!/bin/bash
# Forty-second session, call 261, on two H200s: the final code (the fuse's
# log line of its copies between devices, the multigpu test's lines):
# elements-multigpu with every case, and the GPU element tests of the
# fuse and the CUDA memory beside it.
CALL_SECONDS=150 . docs/bench/call-lib.sh "$1"
meson test -C "$B" --no-rebuild --print-errorlogs elements-multigpu \
  elements-fuse elements-cuda kernels-fuse-gpu > "$R/meson.txt" 2>&1
echo rc=$? >> "$R/meson.txt"
pack meson
grep -E "^ *[0-9]+/[0-9]+ |^Ok:|^Fail:|^Skipped:|rc=" "$R/meson.txt"
