#!/bin/bash
# Session 2026-11-27 (seventh), call O: the dataset's queues bounded by
# time only (max-size-bytes=0: one second of each stream, 200 buffers)
# against cd93308's defaults (10 MB): python_dataset.py on 300 and 60
# sweeps, alternated; the pass time of both descriptions.
set -u
OUT=$1; B=$PWD/build
export GST_PLUGIN_PATH_1_0=$B/gst GST_REGISTRY_1_0=/tmp/reg.bin
export LD_LIBRARY_PATH=$B/gst:$B/kernels:${LD_LIBRARY_PATH:-}
R=$OUT/r; mkdir -p $R
t0=$(date +%s)
pack () { echo "$(( $(date +%s) - t0 )) s: $*" >> $R/timeline.txt; }
rm -rf $B/pyq && cp -r $B/python $B/pyq && cp .device/newq/_replay.py $B/pyq/robocache/
record () {
  [ -e $1 ] || gst-launch-1.0 -q robocachemcapsink name=m location=$1 compression=none \
    sink_0::topic=/points sink_1::topic=/joints sink_2::topic=/camera \
    robocachelidarsrc num-buffers=$2 points-per-sweep=131072 seed=1 ! m.sink_0 \
    robocachejointsrc num-buffers=$(( $2 * 10 )) rate=100/1 ! m.sink_1 \
    videotestsrc num-buffers=$(( $2 * 3 )) pattern=ball ! video/x-raw,format=RGB,width=640,height=480,framerate=30/1 ! m.sink_2
}
record /tmp/rec.mcap 60; record /tmp/rec300.mcap 300; pack recordings
for side in new q; do
  PP=$B/python; [ $side = q ] && PP=$B/pyq
  echo "== $side" >> $R/passes.txt
  PYTHONPATH=$PP:$PWD/tests/python timeout 60 python3 .device/prof_dataset7.py /tmp/rec.mcap 2>&1 | grep -E "median" >> $R/passes.txt
done; pack passes
ab () {  # $1 recording, $2 rounds, $3 tag
  for round in $(seq $2); do
    for side in new q; do
      PP=$B/python; [ $side = q ] && PP=$B/pyq
      echo "== $3 round $round, $side" >> $R/dataset.txt
      PYTHONPATH=$PP:$PWD/tests/python timeout 200 python3 tests/bench/python_dataset.py $1 --repeats 5 --json $R/dataset-$3-$round-$side.json >> $R/dataset.txt 2>&1
    done
  done
}
ab /tmp/rec300.mcap 2 s300; pack dataset300
ab /tmp/rec.mcap 1 s60; pack dataset60
echo "== passes"; cat $R/passes.txt
echo "== dataset"; grep -E "==|samples|rror" $R/dataset.txt
cat $R/timeline.txt
