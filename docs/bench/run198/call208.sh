#!/bin/bash
# Thirty-fourth session, call 208: occupancy's atomic skipped where a load
# through L1 finds the voxel's byte set already (the probe of calls 206
# and 207, occ_cluster.cu: 142 against 68 us on a crowded cloud, 80
# against 130 on a uniform one).  "new": the build (no test); "t1": every
# run's head tests first; "ad" and "ad75": a warp's first point a thread
# binned as before, and its next three tested where at least half (three
# quarters) of its first points' voxels were set already.  Each variant's
# voxelize tests, then the occupancy sweep alternated.  Carried lean.
CALL_SECONDS=400 AB_MARGIN=40 . docs/bench/call-lib.sh "$1"
for l in new t1 ad ad75; do
  LD_LIBRARY_PATH=$(lib $l) timeout 120 $B/tests/kernels_voxelize_gpu \
    > $R/test-voxelize-gpu-$l.txt 2>&1
  echo "$l rc=$?" | tee -a $R/test-voxelize-gpu-$l.txt
done
pack tests
ab_bench occ "new t1 ad ad75 new t1 ad ad75" --sweep voxelize \
  --modes occupancy --runs 20 --only 'sweep-voxelize-occupancy-*'
cat $R/ab-occ.txt
cat $R/timeline.txt
