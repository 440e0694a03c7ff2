#!/bin/bash
# Thirty-first session, call 183: pass 3 of the partition (sum_tiles)
# loading a batch of its points' places, then their features, together
# ("new": TILE_BATCH 4; "b2": 2), where each point's loads waited on the
# one before (46bac4c, "base").  The voxelize tests and memcheck over the
# partitions' tests on it, then 256^3 counts and means against base,
# alternated, and ncu of sum_tiles at 4 million points of x, y, z.
# Carried lean.
CALL_SECONDS=520 AB_MARGIN=50 . docs/bench/call-lib.sh "$1"
test_programs kernels_voxelize_gpu kernels_voxelize
sanitize memcheck kernels_voxelize_gpu test_means_partitioned_features,test_means_partitioned,test_counts_partitioned
ab_bench tiles "base new b2 new base" --sweep voxelize --modes count,mean --points 1048576,2097152,4194304 --only 'sweep-voxelize-count-256cube-*,sweep-voxelize-mean-*256cube-*' --runs 30
cat $R/ab-tiles.txt
for l in base new; do
  [ $(left) -gt 30 ] && ncu_kernels xyz-$l $l "sum_tiles" 1 gpu__time_duration.sum,dram__throughput.avg.pct_of_peak_sustained_elapsed --sweep voxelize --modes mean --points 4194304 --only "sweep-voxelize-mean-xyz-256cube-n4194304" --runs 2 | tail -3
done
cat $R/timeline.txt
