#!/bin/bash
# Thirty-fifth session, call 221: cubic resample of one target's four rows
# in flight a lane group where the wide kernel's warps (two targets', 100
# registers; one's, 63) do not fit on the GPU at once: this commit's
# library, "new", against 8ebc651's, "base".  kernels_resample_gpu
# (test_many_targets runs the narrow cubic kernel too), memcheck over
# test_many_targets, then the resample sweep (its new cubic batch series)
# at the sizes around one wave, alternated.
CALL_SECONDS=250 AB_MARGIN=40 . docs/bench/call-lib.sh "$1"
test_programs kernels_resample_gpu
sanitize memcheck kernels_resample_gpu test_many_targets
ab_bench rs "base new new base" --sweep resample --batch 16,64,256,1024 \
  --samples 1024,4096 --channels 32 --runs 30
cat $R/ab-rs.txt
cat $R/timeline.txt
