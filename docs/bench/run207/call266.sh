#!/bin/bash
# Forty-third session, call 266, on two H200s: initcheck_recreate.cu's two
# rounds of a copy between devices, with the contexts kept and made anew,
# at 1 KiB and 8 MiB, each run in a process of its own.
CALL_SECONDS=200 . docs/bench/call-lib.sh "$1"
for n in 1024 8388608; do
  for mode in keep recreate; do
    echo "-- $n bytes, $mode"
    timeout 60 compute-sanitizer --tool initcheck --print-limit 2 \
      .device/initcheck_recreate $n $mode 2>&1 |
      grep -E "^==|^one|^contexts|bytes right|wrong|Uninitialized|ERROR SUMMARY|error"
  done
done > "$R/recreate.txt" 2>&1
pack recreate
cat "$R/recreate.txt"
