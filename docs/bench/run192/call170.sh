#!/bin/bash
# Twenty-eighth session, call 170: the sweep of the means and centroids
# on 05adbe0's kernels (the means' records in one slab since then, the
# counted centroids since 966bcfb), every size, for the plot and the
# tables of docs/performance.md.
CALL_SECONDS=300 . docs/bench/call-lib.sh "$1"
timeout 240 $B/tests/bench-kernels --sweep voxelize --modes mean,centroids --runs 30 --json $R/sweep-means-centroids.json > $R/sweep-means-centroids.txt 2>&1; echo rc=$? >> $R/sweep-means-centroids.txt; pack sweep
grep -E "rc=|differ" $R/sweep-means-centroids.txt | tail -2
grep -E "kitti0.2.*n(1048576|4194304) " $R/sweep-means-centroids.txt
cat $R/timeline.txt
