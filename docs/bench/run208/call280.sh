#!/bin/bash
# Forty-fourth session, call 280, one H200: bench-pipeline with the plugin
# of the session's start (d5fac48, built here into .device/baseplug) and
# the final one (the build's), alternated three times each, the kernel
# library the same: whether the session's change (the host scratch
# through the GPU helper) moved the pipelines.  Call 279's resample chunk
# cases were 20 to 50 % below run 199's and 16 to 22 % apart between its
# own two runs.
CALL_SECONDS=560 . docs/bench/call-lib.sh "$1"
for k in 1 2 3; do
  for p in base new; do
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
  echo "== ${f##*/}"
  grep -E "^(voxelize|resample|fusion 3)" "$f" | awk '{ printf "%s ", $(NF-3) } END { print "" }'
done | tee $R/ab.txt
grep -E "^(voxelize|resample|fusion 3)" $R/pipeline-new-1.txt | awk '{NF-=5; print}'
