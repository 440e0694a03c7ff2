#!/bin/bash
# Forty-third session, call 267, on two H200s: initcheck_recreate.cu's
# rounds as GStreamer's CUDA library makes and drops contexts: peer access
# taken back before the contexts go (gstreamer), and a second pair made
# while the first lives, every context of one device given access to
# every live one of the other (overlap); keep and recreate again beside
# them, at 1 KiB and 8 MiB, each run in a process of its own.
CALL_SECONDS=200 . docs/bench/call-lib.sh "$1"
for n in 1024 8388608; do
  for mode in keep recreate gstreamer overlap; do
    echo "-- $n bytes, $mode"
    timeout 60 compute-sanitizer --tool initcheck --print-limit 2 \
      .device/initcheck_recreate $n $mode 2>&1 |
      grep -E "^==|^mode|bytes right|wrong|Uninitialized|ERROR SUMMARY|error"
  done
done > "$R/recreate.txt" 2>&1
pack recreate
cat "$R/recreate.txt"
