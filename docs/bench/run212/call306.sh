#!/bin/bash
# Forty-eighth session, call 306, one H200, on the session's final code:
# the 17 GPU tests, 8 at a time (kernels-fuse-gpu's new test_many_items
# among them), memcheck over that test; then the reference workloads and
# the pipelines as run 208's call 279 ran them (bench-kernels --json, then
# bench-pipeline --sweeps 500 --fusion-seconds 2 twice), for issue 14's
# "speed unchanged" while the H100 is not lent.
CALL_SECONDS=300 . docs/bench/call-lib.sh "$1"
meson_parallel gpu 180 "${GPU_TESTS[@]}"
sanitize memcheck kernels_fuse_gpu test_many_items
export GST_PLUGIN_PATH_1_0=$B/gst GST_REGISTRY_1_0=/tmp/rc-registry.bin
timeout 60 $B/tests/bench-kernels --json $R/kernels.json > $R/kernels.txt 2>&1
echo rc=$? >> $R/kernels.txt; pack kernels
for n in 1 2; do
  timeout 40 $B/tests/bench-pipeline --sweeps 500 --fusion-seconds 2 \
    --json $R/pipeline-$n.json > $R/pipeline-$n.txt 2>&1
  echo rc=$? >> $R/pipeline-$n.txt; pack pipeline $n
  grep -E '^(voxelize|resample|fusion)' $R/pipeline-$n.txt
done
grep -E '^[a-z]+-' $R/kernels.txt | awk '{print $1, $2, $NF}'
pack done
