#!/bin/bash
# Forty-third session, call 269, on two H200s: the final code.  The GPU
# tests (those tests/gpu-sanitize.sh picks: elements-multigpu with every
# case on two devices, elements-gpufaults now letting its ended pipelines
# go), then the four tools side by side over elements-gpufaults.
CALL_SECONDS=560 . docs/bench/call-lib.sh "$1"
mapfile -t gpu_tests < <(meson test -C "$B" --no-rebuild --list 2>/dev/null |
  sed 's/^.* \/ //' |
  grep -E -- '-gpu$|^elements-(cuda|gpufaults|multigpu|transfers|pillars|resample|bev)$|^pipelines-record-replay$')
timeout 330 meson test -C "$B" --no-rebuild --print-errorlogs \
  --num-processes 8 "${gpu_tests[@]}" > "$R/meson.txt" 2>&1
echo rc=$? >> "$R/meson.txt"
pack meson
grep -E "^ *[0-9]+/[0-9]+ |^Ok:|^Fail:|^Skipped:|^Timeout:|rc=" "$R/meson.txt"
ROBOCACHE_SANITIZE_PARALLEL=1 ROBOCACHE_SANITIZE_SECONDS=$(( $(left) - 30 )) \
  tests/gpu-sanitize.sh "$B" "$R/sanitize" elements-gpufaults \
  > "$R/sanitize.txt" 2>&1
echo rc=$? >> "$R/sanitize.txt"
pack sanitize
cat "$R/sanitize/summary.md"
