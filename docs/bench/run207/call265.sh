#!/bin/bash
# Forty-third session, call 265, on two H200s.  Calls 263 and 264: the
# fuse's copies between devices are clean under initcheck in gst-launch
# pipelines (16 KiB and 8 MiB grids, one and two streams, filesink).
# elements-multigpu's test_fuse_across_devices now runs its pipelines
# across devices first, in a process that has run nothing else
# (GST_CHECKS): do initcheck's reports still begin with the first of
# them, or only once an earlier pipeline's memory has been freed?
CALL_SECONDS=300 . docs/bench/call-lib.sh "$1"
export GST_PLUGIN_PATH_1_0=$B/gst GST_REGISTRY_1_0=/tmp/rc-registry.bin
export CK_FORK=no GST_CHECKS=test_fuse_across_devices
timeout 240 compute-sanitizer --tool initcheck --print-limit 3 \
  "$B/tests/elements_multigpu" > "$R/fuse-across.txt" 2>&1
echo rc=$? >> "$R/fuse-across.txt"
pack fuse-across
grep -E "^(one device|voxelize)|Uninitialized|Host Frame: (collect|copy_sync|rc_)|ERROR SUMMARY|Checks|rc=|Failure|failure" \
  "$R/fuse-across.txt" | cut -c1-160
