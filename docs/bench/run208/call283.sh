#!/bin/bash
# Forty-fourth session, call 283, one H200: the GPU tests after the last
# change to gst/ (ensure_memory's sum through g_uint64_checked_add), with
# call-lib.sh's meson_parallel and GPU_TESTS (their first use).
CALL_SECONDS=300 . docs/bench/call-lib.sh "$1"
meson_parallel gpu 240 "${GPU_TESTS[@]}" elements-voxelize elements-fuse
cat "$R/restarts.txt"
