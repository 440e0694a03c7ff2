#!/bin/bash
# Forty-sixth session, call 295, one H200: backend=auto element to
# element after the chunk changes of calls 292 and 293 (a chunk from
# system memory now uploads one row of grid times and repeats it on the
# device): run 196's elemcross.c (build/elemcross, built here) with
# "head" (ab28b58's plugin) and "new" (the build's) alternated twice,
# 30 shapes each, auto against the better of cpu and gpu.
CALL_SECONDS=400 . docs/bench/call-lib.sh "$1"
for i in 1 2; do
  for p in head new; do
    [ $(left) -gt 60 ] || break 2
    dir=$B/gst
    [ $p = head ] && dir=$PWD/.device/headplug
    GST_PLUGIN_PATH_1_0=$dir GST_REGISTRY_1_0=/tmp/registry-elemcross-$p.bin \
      timeout 90 "$B/elemcross" 120 > "$R/elemcross-$p-$i.txt" \
      2> "$R/elemcross-$p-$i.err"
    echo rc=$? >> "$R/elemcross-$p-$i.txt"
    pack "elemcross $p $i"
    echo "$p $i: $(tail -2 "$R/elemcross-$p-$i.txt" | head -1)"
  done
done | tee "$R/elemcross-summary.txt"
pack done
