#!/bin/bash
# Thirty-fourth session, call 211: the pillars' locate step ("new", the
# build) takes a cell's count first and skips its first point's atomicMin
# where the cell was reached before and a look through L1 shows a first
# point before this one; "base": e78a431's sparse.cu.  kernels_sparse_gpu
# and elements_pillars; "mutant" (the look's comparison turned round)
# must fail; the pillars sweep alternated; memcheck over
# kernels_sparse_gpu.  Carried lean.
CALL_SECONDS=300 AB_MARGIN=25 . docs/bench/call-lib.sh "$1"
export GST_PLUGIN_PATH_1_0=$B/gst GST_REGISTRY_1_0=/tmp/rc-registry.bin \
  CK_DEFAULT_TIMEOUT=120 \
  GST_STATE_IGNORE_ELEMENTS='robocachebagsrc robocachemcapsrc robocachemcapsink'
test_programs kernels_sparse_gpu elements_pillars
LD_LIBRARY_PATH=$(lib mutant) timeout 60 $B/tests/kernels_sparse_gpu \
  > $R/test-mutant.txt 2>&1
echo rc=$? >> $R/test-mutant.txt
grep -m3 -E "differ|:F:|rc=" $R/test-mutant.txt
pack mutant
ab_bench pillars "new base new base" --sweep voxelize --modes pillars \
  --runs 30 --only 'sweep-voxelize-pillars-*'
sanitize memcheck kernels_sparse_gpu ""
cat $R/ab-pillars.txt
cat $R/timeline.txt
