#!/bin/bash
# Forty-fourth session, call 281, one H200: call 280 again with the order
# reversed (the final plugin first) and five pairs, as call 280's "cuda in"
# resample chunks ran slower with the final plugin in each of its three
# pairs (median latency 685 to 746 us against 601 to 679), where nothing
# the session changed runs per chunk.
CALL_SECONDS=560 . docs/bench/call-lib.sh "$1"
for k in 1 2 3 4 5; do
  for p in new base; do
    [ $(left) -gt 40 ] || break
    dir=$B/gst
    [ $p = base ] && dir=$PWD/.device/baseplug
    GST_PLUGIN_PATH_1_0=$dir GST_REGISTRY_1_0=/tmp/rc-registry-$p.bin \
      timeout 60 $B/tests/bench-pipeline --sweeps 500 --fusion-seconds 2 \
      --json $R/pipeline-$p-$k.json > $R/pipeline-$p-$k.txt 2>&1
    echo rc=$? >> $R/pipeline-$p-$k.txt
    pack "$p $k"
  done
done
for f in $R/pipeline-*-*.txt; do
  printf "%s " "${f##*/}"
  grep -E "^resample chunks (pinned|cuda)" "$f" |
    awk '{ printf "%s %s  ", $(NF-3), $(NF-1) } END { print "" }'
done | tee $R/ab.txt
