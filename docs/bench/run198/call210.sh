#!/bin/bash
# Thirty-fourth session, call 210: the kept change ("new", the build:
# occupancy's warps look before each atomic where warp_crowded says so,
# the "ad" of calls 208 and 209) against 04e853c's library ("base").
# kernels_voxelize_gpu with test_occupancy_crowded, and "mutant" (a look
# that leaves a voxel alone when any byte of its word is set: the test
# must fail); memcheck over the new test; elements_voxelize and
# elements_bev; the occupancy sweep alternated, and the counts', which
# run the same kernel, once each.  Carried lean.
CALL_SECONDS=440 AB_MARGIN=35 . docs/bench/call-lib.sh "$1"
export GST_PLUGIN_PATH_1_0=$B/gst GST_REGISTRY_1_0=/tmp/rc-registry.bin \
  CK_DEFAULT_TIMEOUT=120 \
  GST_STATE_IGNORE_ELEMENTS='robocachebagsrc robocachemcapsrc robocachemcapsink'
test_programs kernels_voxelize_gpu elements_voxelize elements_bev
LD_LIBRARY_PATH=$(lib mutant) GST_CHECKS=test_occupancy_crowded timeout 60 \
  $B/tests/kernels_voxelize_gpu > $R/test-mutant.txt 2>&1
echo rc=$? >> $R/test-mutant.txt
grep -m3 -E "differ|failed|rc=" $R/test-mutant.txt
pack mutant
sanitize memcheck kernels_voxelize_gpu test_occupancy_crowded
ab_bench occ "new base new base" --sweep voxelize --modes occupancy \
  --runs 20 --only 'sweep-voxelize-occupancy-*'
ab_bench cnt "new base" --sweep voxelize --modes count --runs 20 \
  --only 'sweep-voxelize-count-256cube-n*,sweep-voxelize-count-kitti0.2-*'
cat $R/ab-occ.txt $R/ab-cnt.txt
cat $R/timeline.txt
