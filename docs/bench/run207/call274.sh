#!/bin/bash
# Forty-third session, call 274, on one H200: initcheck_samedevice.cu, a
# copy into one context of memory another context of the same device
# wrote, read by a kernel and back to the host, at 1 KiB and 1 MiB; the
# control copies within one context.
CALL_SECONDS=120 . docs/bench/call-lib.sh "$1"
for n in 1024 1048576; do
  for mode in within across; do
    echo "-- $n bytes, $mode"
    timeout 40 compute-sanitizer --tool initcheck --print-limit 1 \
      .device/initcheck_samedevice $n $mode 2>&1 |
      grep -E "^==|^two|right|wrong|Uninitialized|ERROR SUMMARY|error"
  done
done > "$R/samedevice.txt" 2>&1
pack samedevice
cat "$R/samedevice.txt"
