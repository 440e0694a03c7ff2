#!/bin/bash
# Forty-second session, call 258, on two H200s: initcheck_ctx.cu at the
# sizes up to robocachefuse's 8 MiB grids, each case in a process of its
# own (call 257: initcheck reports the fuse's copies of device 1's grids
# onto device 0 as uninitialized; call 256: not copies of 1 KiB between
# the same kind of contexts).
CALL_SECONDS=200 . docs/bench/call-lib.sh "$1"
for n in 1024 65536 1048576 8388608; do
  for c in 0 1 2; do
    echo "-- $n bytes, case $c"
    timeout 60 compute-sanitizer --tool initcheck --print-limit 1 \
      .device/initcheck_ctx $n $c 2>&1 |
      grep -E "^==|bytes right|wrong|ERROR SUMMARY"
  done
done > "$R/sizes.txt" 2>&1
pack sizes
cat "$R/sizes.txt"
