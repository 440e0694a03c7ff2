#!/bin/bash
# Forty-second session, call 256, on two H200s: initcheck_ctx.cu (the
# copies of initcheck_peer.cu between two created contexts, as GStreamer
# 1.22 makes them) under initcheck; then elements-multigpu's one case
# that copies between devices outside the fuse (test_pipeline_across_devices),
# under initcheck, its reports cut to 20 (--print-limit) so that it ends.
CALL_SECONDS=400 . docs/bench/call-lib.sh "$1"
compute-sanitizer --tool initcheck .device/initcheck_ctx \
  > "$R/ctx-initcheck.txt" 2>&1
echo rc=$? >> "$R/ctx-initcheck.txt"
pack ctx
for t in test_pipeline_across_devices test_fuse_across_devices; do
  GST_CHECKS=$t ROBOCACHE_SANITIZER=1 timeout 150 \
    meson test -C "$B" --no-rebuild --timeout-multiplier 20 \
      --logbase "initcheck-$t" --wrapper "compute-sanitizer --tool initcheck \
      --error-exitcode 99 --target-processes all --print-limit 20" \
      elements-multigpu > "$R/multigpu-$t.txt" 2>&1
  echo rc=$? >> "$R/multigpu-$t.txt"
  cp "$B"/meson-logs/initcheck-$t*.txt "$R/" 2>/dev/null
  pack "$t"
done
grep -E "^==|bytes right|wrong|Uninitialized access|ERROR SUMMARY|rc=" \
  "$R/ctx-initcheck.txt" | sed 's/0x[0-9a-f]*/ADDR/' | uniq -c | head -40
for t in test_pipeline_across_devices test_fuse_across_devices; do
  echo "== $t"
  grep -E "elements-multigpu|rc=" "$R/multigpu-$t.txt"
  cat "$R"/initcheck-$t*.txt | grep -E "Uninitialized|Host Frame: [a-z_]+ in|ERROR SUMMARY|Checks" |
    sed 's/0x[0-9a-f]*/ADDR/g' | sort | uniq -c | sort -rn | head -15
done
