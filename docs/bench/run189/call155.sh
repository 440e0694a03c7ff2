#!/bin/bash
# Twenty-fifth session, call 155: call 154's "s" as committed ("new", the
# build: the partition's keying pass counts its statistics as three block
# sums, the binning's tally back in voxelize.cu).  kernels_voxelize_gpu,
# memcheck over the partition tests, prev (c6e0473) and new alternated on
# the partitioned counts.
CALL_SECONDS=200 . docs/bench/call-lib.sh "$1"
timeout 100 $B/tests/kernels_voxelize_gpu > $R/test.txt 2>&1; echo rc=$? >> $R/test.txt
grep -E "Checks|rc=|:F:|:E:" $R/test.txt | head -6; pack tests
GST_CHECKS=test_counts_partitioned,test_means_partitioned timeout 60 compute-sanitizer --tool memcheck --error-exitcode 9 $B/tests/kernels_voxelize_gpu > $R/memcheck.txt 2>&1; echo rc=$? >> $R/memcheck.txt
grep -E "SUMMARY|Checks|rc=|:F:" $R/memcheck.txt | head -4; pack memcheck
ab_bench counts "prev new new prev" --sweep voxelize --modes count --points 1048576,4194304 --only 'sweep-voxelize-count-256cube-n*,sweep-voxelize-count-256cube-lidar-n1048576' --runs 30
cat $R/ab-counts.txt
cat $R/timeline.txt
