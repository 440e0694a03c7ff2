#!/bin/bash
# Thirtieth session, call 177: cbb1fb1 (the partition's passes picked by
# decltype, built and tested only on a machine without a GPU until now)
# through the voxelize tests and memcheck over the partitions' tests; then
# the sweep of the means, every size and series, for the plot (run 192's
# still showed the 256^3 means of three and four features radix-sorted).
# Carried lean (.device/lean.tar.xz: bench-kernels, the two voxelize test
# programs and the kernel library).
CALL_SECONDS=420 . docs/bench/call-lib.sh "$1"
test_programs kernels_voxelize_gpu kernels_voxelize
sanitize memcheck kernels_voxelize_gpu test_means_partitioned_features,test_means_partitioned,test_counts_partitioned
timeout $(( $(left) - 10 )) $B/tests/bench-kernels --sweep voxelize --modes mean --runs 30 --json $R/sweep-means.json > $R/sweep-means.txt 2>&1
echo rc=$? >> $R/sweep-means.txt; pack sweep
grep -E "rc=|differ" $R/sweep-means.txt | tail -2
grep -E "256cube.*n(1048576|4194304) " $R/sweep-means.txt
cat $R/timeline.txt
