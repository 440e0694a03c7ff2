#!/bin/bash
# Forty-second session, call 260, on two H200s: call 259 named the
# allocation initcheck reports: the destination of the fuse's copy of a
# device-1 grid onto device 0.  initcheck_ctx.cu's same copy between two
# created contexts is clean (call 258); here again with peer access
# enabled between the contexts, as GStreamer's CUDA library enables it.
CALL_SECONDS=100 . docs/bench/call-lib.sh "$1"
for n in 1024 8388608; do
  for c in 1 2; do
    echo "-- $n bytes, case $c, peer access"
    timeout 30 compute-sanitizer --tool initcheck --print-limit 1 \
      .device/initcheck_ctx $n $c peer 2>&1 |
      grep -E "^==|^peer|bytes right|wrong|ERROR SUMMARY|error"
  done
done > "$R/peer.txt" 2>&1
pack peer
cat "$R/peer.txt"
