#!/bin/bash
# Thirty-first session, call 184: pass 3 of the partition a block a slice
# of a tile ("new"), where a mean of two to four features summed its
# tile's slices one after another in one block (6c8dded, "base").  The
# voxelize tests (a grid whose last tile has one slice's voxels added)
# and memcheck over the partitions' tests on it, then 256^3 means
# against base, alternated, and ncu's sections of place_points and
# sum_tiles at 4 million points of x, y, z.  Carried lean.
CALL_SECONDS=450 AB_MARGIN=40 . docs/bench/call-lib.sh "$1"
test_programs kernels_voxelize_gpu kernels_voxelize
sanitize memcheck kernels_voxelize_gpu test_means_partitioned_features,test_means_partitioned,test_counts_partitioned
ab_bench slices "base new new base" --sweep voxelize --modes mean --points 1048576,2097152,4194304 --only 'sweep-voxelize-mean-*256cube-*' --runs 30
cat $R/ab-slices.txt
for l in new base; do
  [ $(left) -gt 40 ] || break
  LD_LIBRARY_PATH=$(lib $l) timeout 60 ncu --cache-control none \
    --section SpeedOfLight --section MemoryWorkloadAnalysis \
    --section WarpStateStats --section Occupancy --section SchedulerStats \
    --section LaunchStats --metrics "$(for s in long_scoreboard barrier \
      lg_throttle mio_throttle short_scoreboard membar drain wait \
      math_pipe_throttle no_instruction; do
      printf smsp__average_warps_issue_stalled_%s_per_issue_active.ratio, $s
    done | sed 's/,$//')" -k regex:"place_points|sum_tiles" \
    --launch-count 2 --csv --page details "$B/tests/bench-kernels" \
    --sweep voxelize --modes mean --points 4194304 \
    --only "sweep-voxelize-mean-xyz-256cube-n4194304" --runs 2 \
    > "$R/ncu-sections-$l.csv" 2>&1
  pack "ncu sections $l"
  grep -E "Duration|DRAM Throughput|Achieved Occupancy|stalled|No Eligible|L2 Hit|Warp Cycles Per Issued" "$R/ncu-sections-$l.csv" | awk -F'","' '{sub(/\(.*/, "", $5); print $5, $(NF-2), $NF}' | tr -d '"' | head -50
done
cat $R/timeline.txt
