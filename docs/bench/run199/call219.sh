#!/bin/bash
# Thirty-fifth session, call 219: the resample kernel of two targets' rows
# in flight where the wide one's warps do not fit on the GPU at once
# (this commit's library, "new", against b28bfc4's, "base").
# kernels_resample_gpu (test_many_targets new) and elements_resample,
# memcheck over test_many_targets, then the resample sweep alternated.
CALL_SECONDS=300 AB_MARGIN=45 . docs/bench/call-lib.sh "$1"
export GST_PLUGIN_PATH_1_0=$B/gst GST_REGISTRY_1_0=/tmp/rc-registry.bin
export CK_DEFAULT_TIMEOUT=120
test_programs kernels_resample_gpu elements_resample
sanitize memcheck kernels_resample_gpu test_many_targets
ab_bench rs "base new new base" --sweep resample --runs 30
cat $R/ab-rs.txt
cat $R/timeline.txt
