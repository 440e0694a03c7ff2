#!/bin/bash
# Forty-second session, call 259, on two H200s: test_fuse_across_devices
# under initcheck with the fuse's copies between devices logged (source,
# destination) and the test's frame memories (pointer, device), so that
# the allocation initcheck reports can be named.
CALL_SECONDS=150 . docs/bench/call-lib.sh "$1"
GST_CHECKS=test_fuse_across_devices ROBOCACHE_SANITIZER=1 CK_FORK=no \
  GST_PLUGIN_PATH_1_0=$B/gst GST_REGISTRY_1_0=/tmp/registry-259.bin \
  GST_DEBUG="robocachefuse:6,default:4" GST_DEBUG_NO_COLOR=1 timeout 90 \
  compute-sanitizer --tool initcheck --error-exitcode 99 --print-limit 4 \
    "$B/tests/elements_multigpu" > "$R/fuse-across.txt" 2>&1
echo rc=$? >> "$R/fuse-across.txt"
pack fuse-across
grep -E "copying|frame [0-9]+, memory|host access to|Uninitialized|one device:|voxelize on|ERROR SUMMARY|rc=" \
  "$R/fuse-across.txt" | sed 's/^.*\(robocachefuse\|multigpu\.c\)[^ ]* *//' | head -80
