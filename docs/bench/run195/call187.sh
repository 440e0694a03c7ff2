#!/bin/bash
# Thirty-first session, call 187: the sweep of the means on b35bd97 (the
# partition's tiles pass loading its points in batches and dividing by
# __fdividef) for the plot.  Carried lean.
CALL_SECONDS=200 . docs/bench/call-lib.sh "$1"
timeout $(( $(left) - 10 )) $B/tests/bench-kernels --sweep voxelize --modes mean --runs 30 --json $R/sweep-means.json > $R/sweep-means.txt 2>&1
echo rc=$? >> $R/sweep-means.txt; pack sweep
grep -E "rc=|differ" $R/sweep-means.txt | tail -2
grep -E "256cube.*n(131072|1048576|4194304) " $R/sweep-means.txt
cat $R/timeline.txt
