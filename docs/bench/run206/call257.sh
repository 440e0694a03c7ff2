#!/bin/bash
# Forty-second session, call 257, on two H200s: which of
# test_fuse_across_devices' three configurations initcheck reports (the
# test now says each before it runs it), its reports cut to 3 a
# configuration's process; and test_fuse_on_one_device alone beside it.
CALL_SECONDS=300 . docs/bench/call-lib.sh "$1"
for t in test_fuse_on_one_device test_fuse_across_devices; do
  GST_CHECKS=$t ROBOCACHE_SANITIZER=1 CK_FORK=no GST_PLUGIN_PATH_1_0=$B/gst \
    GST_REGISTRY_1_0=/tmp/registry-$t.bin timeout 120 \
    compute-sanitizer --tool initcheck --error-exitcode 99 --print-limit 3 \
      "$B/tests/elements_multigpu" > "$R/multigpu-$t.txt" 2>&1 &
done
wait
pack multigpu
for t in test_fuse_on_one_device test_fuse_across_devices; do
  echo "== $t"
  grep -vE "Host Frame|Saved host|^========= *$" "$R/multigpu-$t.txt" |
    sed 's/0x[0-9a-f]*/ADDR/g' | uniq -c | head -40
done
