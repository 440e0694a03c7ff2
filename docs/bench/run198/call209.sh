#!/bin/bash
# Thirty-fourth session, call 209: call 208's occupancy variants again
# with two more thresholds: "ad25" and "ad12" test a warp's next three
# points where at least a quarter (an eighth) of its first points' voxels
# were set already.  The sweep's occupancy alternated; no tests (call 208
# passed kernels_voxelize_gpu with new, t1, ad and ad75; ad25 and ad12
# differ from ad in the threshold only).  Carried lean.
CALL_SECONDS=420 AB_MARGIN=35 . docs/bench/call-lib.sh "$1"
ab_bench occ "new t1 ad ad25 ad12 new t1 ad25 ad12 ad" --sweep voxelize \
  --modes occupancy --runs 20 --only 'sweep-voxelize-occupancy-*'
cat $R/ab-occ.txt
cat $R/timeline.txt
