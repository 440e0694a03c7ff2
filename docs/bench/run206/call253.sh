#!/bin/bash
# Forty-second session, call 253, on two H200s of one host: elements-multigpu
# plainly (every case runs with two devices), then under the four
# sanitizers side by side: initcheck over its two-device cases has not
# finished since run 67 (stopped at its 300 s limit there), the one gap of
# docs/reliability.md's sanitizer line.
CALL_SECONDS=560 . docs/bench/call-lib.sh "$1"
nvidia-smi -L > "$R/gpus.txt"
meson test -C "$B" --no-rebuild --verbose elements-multigpu \
  > "$R/multigpu.txt" 2>&1
echo rc=$? >> "$R/multigpu.txt"
pack multigpu
ROBOCACHE_SANITIZE_PARALLEL=1 ROBOCACHE_SANITIZE_SECONDS=$(( $(left) - 40 )) \
  timeout $(( $(left) - 20 )) \
  bash tests/gpu-sanitize.sh "$B" "$R/sanitize" elements-multigpu \
  > "$R/sanitize.txt" 2>&1
echo rc=$? >> "$R/sanitize.txt"
pack sanitize
cat "$R/gpus.txt"
grep -E "^(ok|not ok|# SKIP)|SKIP|skip|rc=" "$R/multigpu.txt" | tail -20
cat "$R/sanitize/summary.md"
