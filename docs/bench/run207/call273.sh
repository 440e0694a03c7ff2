#!/bin/bash
# Forty-third session, call 273, on one H200: elements-cuda with the case
# of two pipelines each on a context of its own (what they get unless the
# application shares one): the second copies the first's grids from the
# other context and draws the one-pipeline pictures
# (test_contexts_of_two_pipelines); then both context cases under the
# four tools side by side.
CALL_SECONDS=300 . docs/bench/call-lib.sh "$1"
meson_tests cuda elements-cuda
export GST_PLUGIN_PATH_1_0=$B/gst GST_REGISTRY_1_0=/tmp/rc-registry.bin
export CK_FORK=no ROBOCACHE_SANITIZER=1
for tool in memcheck racecheck synccheck initcheck; do
  sanitize $tool elements_cuda \
    test_context_shared_between_pipelines,test_contexts_of_two_pipelines &
done
wait
grep -H -E "ERROR SUMMARY|Checks|rc=|Uninitialized" "$R"/*-elements_cuda.txt |
  head -40
