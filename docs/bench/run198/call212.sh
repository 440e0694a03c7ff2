#!/bin/bash
# Thirty-fourth session, call 212: call 211's look in the pillars' locate
# step only for clouds of more than 524,288 points ("new", the build);
# "base": e78a431's sparse.cu.  kernels_sparse_gpu and elements_pillars;
# "mutant" (the look's comparison turned round) must fail
# test_scan_paths, the only test with clouds that large; memcheck over
# test_scan_paths; the pillars sweep once each.  Carried lean.
CALL_SECONDS=200 AB_MARGIN=25 . docs/bench/call-lib.sh "$1"
export GST_PLUGIN_PATH_1_0=$B/gst GST_REGISTRY_1_0=/tmp/rc-registry.bin \
  CK_DEFAULT_TIMEOUT=120 \
  GST_STATE_IGNORE_ELEMENTS='robocachebagsrc robocachemcapsrc robocachemcapsink'
test_programs kernels_sparse_gpu elements_pillars
LD_LIBRARY_PATH=$(lib mutant) timeout 60 $B/tests/kernels_sparse_gpu \
  > $R/test-mutant.txt 2>&1
echo rc=$? >> $R/test-mutant.txt
grep -m3 -E ":F:|rc=" $R/test-mutant.txt
pack mutant
ab_bench pillars "new base" --sweep voxelize --modes pillars \
  --runs 30 --only 'sweep-voxelize-pillars-*'
sanitize memcheck kernels_sparse_gpu test_scan_paths
cat $R/ab-pillars.txt
cat $R/timeline.txt
