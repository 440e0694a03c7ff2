#!/bin/bash
# Thirty-first session, call 185: pass 3 of the partition turning a mean
# of two to four features' sums into means in place, a reciprocal a
# voxel, then writing each plane 16 bytes a store ("new"), where it
# divided each feature and wrote the further planes a word a store
# (6c8dded, "base").  The voxelize tests and memcheck over the
# partitions' tests on it, then 256^3 means against base, alternated,
# and ncu's source counters (SASS) of place_points and sum_tiles at 4
# million points of x, y, z.  Carried lean.
CALL_SECONDS=450 AB_MARGIN=40 . docs/bench/call-lib.sh "$1"
test_programs kernels_voxelize_gpu kernels_voxelize
sanitize memcheck kernels_voxelize_gpu test_means_partitioned_features,test_means_partitioned
ab_bench rcp "base new new base" --sweep voxelize --modes mean --points 1048576,2097152,4194304 --only 'sweep-voxelize-mean-*256cube-*' --runs 30
cat $R/ab-rcp.txt
for l in new; do
  [ $(left) -gt 60 ] || break
  LD_LIBRARY_PATH=$(lib $l) timeout 90 ncu --cache-control none \
    --section SourceCounters --section WarpStateStats \
    --section InstructionStats -k regex:"place_points|sum_tiles" \
    --launch-count 2 -o "$R/src-$l" "$B/tests/bench-kernels" \
    --sweep voxelize --modes mean --points 4194304 \
    --only "sweep-voxelize-mean-xyz-256cube-n4194304" --runs 2 \
    > "$R/ncu-src-$l.log" 2>&1
  for k in place_points sum_tiles; do
    timeout 60 ncu -i "$R/src-$l.ncu-rep" -k regex:$k --page source \
      --csv --print-source sass > "$R/sass-$k-$l.csv" 2>&1
    timeout 60 ncu -i "$R/src-$l.ncu-rep" -k regex:$k --page details \
      --csv > "$R/details-$k-$l.csv" 2>&1
    gzip -f "$R/sass-$k-$l.csv"
  done
  rm -f "$R/src-$l.ncu-rep"
  pack "ncu source $l"
  ls -la $R | grep -E "sass|details"
done
cat $R/timeline.txt
