#!/bin/bash
# Forty-fourth session, call 279, one H200: the reference workloads and
# the pipelines on the final code (56acb4c), as run 199's call 217 ran
# them on ecd04a8 (an H200 too), for issue 14's "speed unchanged" while the
# H100 is not lent: bench-kernels --json, then bench-pipeline --sweeps 500
# --fusion-seconds 2 twice.
CALL_SECONDS=560 . docs/bench/call-lib.sh "$1"
export GST_PLUGIN_PATH_1_0=$B/gst GST_REGISTRY_1_0=/tmp/rc-registry.bin
timeout 90 $B/tests/bench-kernels --json $R/kernels.json > $R/kernels.txt 2>&1
echo rc=$? >> $R/kernels.txt; pack kernels
tail -4 $R/kernels.txt
for n in 1 2; do
  timeout $(( ($(left) - 10) / (3 - n) )) $B/tests/bench-pipeline \
    --sweeps 500 --fusion-seconds 2 --json $R/pipeline-$n.json \
    > $R/pipeline-$n.txt 2>&1
  echo rc=$? >> $R/pipeline-$n.txt; pack pipeline $n
  tail -14 $R/pipeline-$n.txt
done
cat $R/timeline.txt
