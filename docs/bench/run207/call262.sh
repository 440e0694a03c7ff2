#!/bin/bash
# Forty-third session, call 262, on two H200s.  elements-multigpu with its
# pipelines across devices now run before the one-device references, each
# with seeds of its own: a copy between devices that failed to write its
# destination can no longer pass on bytes an earlier run left in freed
# device memory.  Then initcheck over initcheck_readback.cu's three read
# backs of a copy from device 1 onto device 0, at 1 KiB and 8 MiB, each
# case in a process of its own.
CALL_SECONDS=240 . docs/bench/call-lib.sh "$1"
meson test -C "$B" --no-rebuild --print-errorlogs elements-multigpu \
  > "$R/meson.txt" 2>&1
echo rc=$? >> "$R/meson.txt"
cp "$B/meson-logs/testlog.txt" "$R/multigpu-log.txt" 2>/dev/null
pack meson
for n in 1024 8388608; do
  for c in 0 1 2; do
    echo "-- $n bytes, read back $c"
    timeout 40 compute-sanitizer --tool initcheck --print-limit 1 \
      .device/initcheck_readback $n $c 2>&1 |
      grep -E "^==|bytes right|wrong|ERROR SUMMARY|error|needs"
  done
done > "$R/readback.txt" 2>&1
pack readback
grep -E "^ *[0-9]+/[0-9]+ |^Ok:|^Fail:|rc=" "$R/meson.txt"
grep -E "^(one device|voxelize)" "$R/multigpu-log.txt"
cat "$R/readback.txt"
