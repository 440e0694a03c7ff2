#!/bin/bash
# Thirty-second session, call 194 (the commit after 3455e78): elemcross.c,
# robocacheresample's three backends element to element on chunks in
# system memory (appsrc's own memory in, system memory out), 30 shapes,
# auto against the better of cpu and gpu; twice.  Carried whole
# (`carry: [".device", "build"]`); build/elemcross built here.
CALL_SECONDS=400 . docs/bench/call-lib.sh "$1"
export GST_PLUGIN_PATH_1_0=$B/gst GST_REGISTRY_1_0=/tmp/registry-elemcross.bin
for i in 1 2; do
  [ $(left) -gt 60 ] || break
  timeout $(( $(left) - 20 )) $B/elemcross 120 > $R/elemcross-$i.txt 2> $R/elemcross-$i.err; echo rc=$? >> $R/elemcross-$i.txt
  pack elemcross $i
  tail -3 $R/elemcross-$i.txt
done
cat $R/timeline.txt
