#!/bin/bash
# Session 2026-11-27 (seventh), call M: cd93308 (= 375c171's package; the
# plain loader prunes): python_dataset.py A/B against 375c171~1
# (build/pyold), alternated, on 60 and 300 sweeps; where the pipeline's
# time goes (prof_dataset6.py).
set -u
OUT=$1; B=$PWD/build
export GST_PLUGIN_PATH_1_0=$B/gst GST_REGISTRY_1_0=/tmp/reg.bin
export LD_LIBRARY_PATH=$B/gst:$B/kernels:${LD_LIBRARY_PATH:-}
R=$OUT/r; mkdir -p $R
t0=$(date +%s)
pack () { echo "$(( $(date +%s) - t0 )) s: $*" >> $R/timeline.txt; }
rm -rf $B/pyold && cp -r $B/python $B/pyold && cp -r .device/oldpy/. $B/pyold/robocache/
record () {
  [ -e $1 ] || gst-launch-1.0 -q robocachemcapsink name=m location=$1 compression=none \
    sink_0::topic=/points sink_1::topic=/joints sink_2::topic=/camera \
    robocachelidarsrc num-buffers=$2 points-per-sweep=131072 seed=1 ! m.sink_0 \
    robocachejointsrc num-buffers=$(( $2 * 10 )) rate=100/1 ! m.sink_1 \
    videotestsrc num-buffers=$(( $2 * 3 )) pattern=ball ! video/x-raw,format=RGB,width=640,height=480,framerate=30/1 ! m.sink_2
  ls -la $1 >> $R/rec.txt
}
record /tmp/rec.mcap 60; record /tmp/rec300.mcap 300; pack recordings
ab () {  # $1 recording, $2 rounds, $3 tag
  for round in $(seq $2); do
    for side in old new; do
      PP=$B/python; [ $side = old ] && PP=$B/pyold
      echo "== $3 round $round, $side" >> $R/dataset.txt
      PYTHONPATH=$PP:$PWD/tests/python timeout 200 python3 tests/bench/python_dataset.py $1 --repeats 5 --json $R/dataset-$3-$round-$side.json >> $R/dataset.txt 2>&1
    done
  done
}
ab /tmp/rec.mcap 3 s60; pack dataset60
ab /tmp/rec300.mcap 2 s300; pack dataset300
PYTHONPATH=$B/python:$PWD/tests/python timeout 150 python3 .device/prof_dataset6.py /tmp/rec.mcap > $R/prof.txt 2>&1; pack prof
echo "== dataset"; grep -E "==|samples|rror" $R/dataset.txt
echo "== prof"; tail -8 $R/prof.txt
cat $R/timeline.txt
