#!/bin/bash
# Forty-third session, call 270, on one H200: elements-cuda with its new
# case, two pipelines given one CUDA context by the application
# (test_context_shared_between_pipelines); then that case alone under the
# four tools side by side.
CALL_SECONDS=300 . docs/bench/call-lib.sh "$1"
meson test -C "$B" --no-rebuild --print-errorlogs elements-cuda \
  > "$R/meson.txt" 2>&1
echo rc=$? >> "$R/meson.txt"
pack meson
grep -E "^ *[0-9]+/[0-9]+ |rc=" "$R/meson.txt"
export GST_PLUGIN_PATH_1_0=$B/gst GST_REGISTRY_1_0=/tmp/rc-registry.bin
export CK_FORK=no ROBOCACHE_SANITIZER=1
for tool in memcheck racecheck synccheck initcheck; do
  sanitize $tool elements_cuda test_context_shared_between_pipelines &
done
wait
grep -H -E "ERROR SUMMARY|Checks|rc=" "$R"/*-elements_cuda.txt
