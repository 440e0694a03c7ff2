#!/bin/bash
# Thirtieth session, call 178: the whole suite on dcb549d (the CPU mean's
# table a row for every voxel the cloud can reach; robocachevoxelize's CPU
# scratch grown per sweep and checked against max-memory), then the means
# on the CPU reference, 8123406's kernel library ("base": a table of at
# most 2^18 rows, a second binning past it) against the build's ("new"),
# alternated; bench-kernels times the CPU reference on one thread, the
# median of 7, beside each GPU workload.  Carried whole (build/ stripped).
CALL_SECONDS=540 AB_MARGIN=70 . docs/bench/call-lib.sh "$1"
meson_tests suite
ab_bench cpu "base new new base" --sweep voxelize --modes mean --points 262144,393216,524288,1048576,4194304 --runs 10
# Each run's CPU medians (µs), a column a run in ab-cpu's order.
for f in $R/ab-cpu-*-[0-9].txt; do
  awk '/^sweep-/ { w = $1 } /on the CPU/ { print w, $5 }' "$f" > "$f.cpu"
done
paste -d' ' $R/ab-cpu-base-1.txt.cpu $R/ab-cpu-new-1.txt.cpu $R/ab-cpu-new-2.txt.cpu $R/ab-cpu-base-2.txt.cpu 2>/dev/null | awk '{ print $1, $2, $4, $6, $8 }' > $R/cpu-means.txt
pack cpu
cat $R/cpu-means.txt
cat $R/timeline.txt
