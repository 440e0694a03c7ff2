#!/bin/bash
# Forty-fourth session, call 282, one H200: calls 280 and 281 found
# resample's "cuda in" chunks about 10 % slower with the final plugin
# than with the session's first in 7 of 8 pairs, where no per-chunk code
# changed.  A third plugin, the final one with robocacheresample's files
# as they were at the start (.device/noresample), tells the element's
# edits from the rest; the three alternated four times, each run
# bench-pipeline --sweeps 500 --fusion-seconds 2.
CALL_SECONDS=560 . docs/bench/call-lib.sh "$1"
for k in 1 2 3 4; do
  for p in noresample new base; do
    [ $(left) -gt 30 ] || break
    dir=$B/gst
    [ $p != new ] && dir=$PWD/.device/$([ $p = base ] && echo baseplug || echo noresample)
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
