#!/bin/bash
# Twenty-seventh session, call 164: call 163 timed the centroids of x, y,
# z and intensity, whose four-float records have no float to spare, so
# both libraries took the counts' own atomics there.  Here the centroids
# of x, y and z (robocachevoxelize's default features, a float to spare),
# a series bench-kernels now has, base and new alternated, and ncu's
# binning at 4 million points.
CALL_SECONDS=200 AB_MARGIN=25 . docs/bench/call-lib.sh "$1"
ab_bench xyz "base new new base" --sweep voxelize --modes centroids --only 'sweep-voxelize-centroids-xyz-*' --runs 30
cat $R/ab-xyz.txt
for l in base new; do
  [ $(left) -gt 25 ] || break
  LD_LIBRARY_PATH=$(lib $l) timeout 25 ncu --cache-control none --metrics gpu__time_duration.sum,lts__t_sectors_op_atom.sum,lts__t_sectors_op_red.sum -k regex:"bin_points|write_centroids" --launch-count 6 --csv $B/tests/bench-kernels --sweep voxelize --modes centroids --points 4194304 --only "sweep-voxelize-centroids-xyz-kitti0.2-n4194304" --runs 3 > $R/ncu-$l.csv 2>&1
  pack ncu $l
  grep -E "gpu__time|lts__" $R/ncu-$l.csv | awk -F'","' '{sub(/\(.*/, "", $5); print $5, $(NF-2), $NF}' | tail -6
done
cat $R/timeline.txt
