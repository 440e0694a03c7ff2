#!/bin/bash
# Forty-second session, call 255, on two H200s: initcheck_peer.cu again
# with sources on device 1 written by a kernel there too (call 254's were
# copied from the host, and initcheck found nothing).
CALL_SECONDS=120 . docs/bench/call-lib.sh "$1"
compute-sanitizer --tool initcheck .device/initcheck_peer \
  > "$R/peer-initcheck.txt" 2>&1
echo rc=$? >> "$R/peer-initcheck.txt"
pack peer
grep -E "^==|bytes right|wrong|Uninitialized access|ERROR SUMMARY|rc=" \
  "$R/peer-initcheck.txt" | sed 's/0x[0-9a-f]*/ADDR/' | uniq -c | head -60
