#!/bin/bash
# Thirty-fifth session, call 218: resample with more warps resident (its
# float linear kernel holds 100 registers, 16 warps an SM: S = T = 4,096
# takes four waves, each a locate then a row pass).  Kernel libraries
# built here from b28bfc4's resample.cu: "u2", two targets' rows in flight
# a lane group instead of four without groups (48 and 59 registers);
# "lb3", __launch_bounds__ (256, 3) (80 registers, spills).  Their
# kernels_resample_gpu, then the resample sweep alternated with "new".
CALL_SECONDS=330 AB_MARGIN=45 . docs/bench/call-lib.sh "$1"
for l in u2 lb3; do
  LD_LIBRARY_PATH=$(lib $l) timeout 60 $B/tests/kernels_resample_gpu \
    > $R/test-$l.txt 2>&1
  echo rc=$? >> $R/test-$l.txt
  tail -2 $R/test-$l.txt
done
pack tests
ab_bench rs "new u2 lb3 lb3 u2 new" --sweep resample --runs 30
cat $R/ab-rs.txt
cat $R/timeline.txt
