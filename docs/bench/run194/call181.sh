#!/bin/bash
# Thirtieth session, call 181: the whole suite on f0338b0 (a partitioned
# mean of two to four features reading them from the cloud in its placing
# pass, the scratch without their keyed planes), memcheck over the
# partitions' tests and racecheck over the means', then the sweep of the
# means again for the plot.  Carried whole (build/ stripped).
CALL_SECONDS=560 . docs/bench/call-lib.sh "$1"
meson_tests suite
sanitize memcheck kernels_voxelize_gpu test_means_partitioned_features,test_means_partitioned,test_counts_partitioned
sanitize racecheck kernels_voxelize_gpu test_means_partitioned_features
timeout $(( $(left) - 10 )) $B/tests/bench-kernels --sweep voxelize --modes mean --runs 30 --json $R/sweep-means.json > $R/sweep-means.txt 2>&1
echo rc=$? >> $R/sweep-means.txt; pack sweep
grep -E "rc=|differ" $R/sweep-means.txt | tail -2
grep -E "256cube.*n(131072|1048576|4194304) " $R/sweep-means.txt
cat $R/timeline.txt
