#!/bin/bash
# Forty-second session, call 254, on two H200s: call 253's initcheck of
# elements-multigpu reported every byte of the fused frames' grids copied
# from device 1 to device 0 as uninitialized when read back (the test's
# own check of those bytes passed), and the flood of reports outran the
# limit.  Here: initcheck_peer.cu (built here: .device/initcheck_peer)
# under initcheck, to tell whether initcheck sees a copy between devices
# as initializing at all; then initcheck over elements-multigpu's four
# cases that copy nothing between devices (GST_CHECKS).
CALL_SECONDS=400 . docs/bench/call-lib.sh "$1"
.device/initcheck_peer > "$R/peer-plain.txt" 2>&1
echo rc=$? >> "$R/peer-plain.txt"
compute-sanitizer --tool initcheck .device/initcheck_peer \
  > "$R/peer-initcheck.txt" 2>&1
echo rc=$? >> "$R/peer-initcheck.txt"
pack peer
GST_CHECKS=test_unknown_device_id_n,test_same_bytes_on_each_device,test_two_pipelines_at_once,test_fuse_on_one_device \
  ROBOCACHE_SANITIZE_TOOLS=initcheck ROBOCACHE_SANITIZE_SECONDS=$(( $(left) - 40 )) \
  timeout $(( $(left) - 20 )) \
  bash tests/gpu-sanitize.sh "$B" "$R/sanitize" elements-multigpu \
  > "$R/sanitize.txt" 2>&1
echo rc=$? >> "$R/sanitize.txt"
pack sanitize
cat "$R/peer-plain.txt"
grep -E "^==|bytes right|wrong|Uninitialized access|ERROR SUMMARY|rc=" \
  "$R/peer-initcheck.txt" | uniq -c | head -40
cat "$R/sanitize/summary.md"
python3 -c "
import json
for l in open('$R/sanitize/initcheck/testlog.json'):
    t = json.loads(l)
    print((t.get('stdout') or '')[-1500:])
"
