#!/bin/bash
# Thirtieth session, call 179: the sweep of the means again, every size
# and series, on dcb549d's kernel library: the GPU's kernels are call
# 177's, the CPU reference's mean now without its second binning past
# 2^18 occupied voxels, for the plot's CPU lines.  Carried lean
# (.device/lean.tar.xz: bench-kernels, the two voxelize test programs and
# the kernel library).
CALL_SECONDS=300 . docs/bench/call-lib.sh "$1"
timeout $(( $(left) - 10 )) $B/tests/bench-kernels --sweep voxelize --modes mean --runs 30 --json $R/sweep-means.json > $R/sweep-means.txt 2>&1
echo rc=$? >> $R/sweep-means.txt; pack sweep
grep -E "rc=|differ" $R/sweep-means.txt | tail -2
grep -E -A2 "256cube.*n(262144|524288|4194304) " $R/sweep-means.txt | grep -E "256cube|CPU"
cat $R/timeline.txt
