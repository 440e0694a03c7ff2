#!/bin/bash
# Session 2026-11-27 (seventh), call L: e850765 (frames through page-locked
# staging; the plain loader prunes): python_dataset.py A/B against
# 375c171~1 (build/pyold) on the 60-sweep recording, three rounds
# alternated; the new code on a 300-sweep recording (30 s); where a pass
# goes (prof_dataset5.py); the python suite.
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
for round in 1 2 3; do
  for side in old new; do
    PP=$B/python; [ $side = old ] && PP=$B/pyold
    echo "== round $round, $side" >> $R/dataset.txt
    PYTHONPATH=$PP:$PWD/tests/python timeout 120 python3 tests/bench/python_dataset.py /tmp/rec.mcap --repeats 5 --json $R/dataset-$round-$side.json >> $R/dataset.txt 2>&1
  done
done; pack dataset60
for round in 1 2; do
  echo "== 300 sweeps, round $round, new" >> $R/dataset.txt
  PYTHONPATH=$B/python:$PWD/tests/python timeout 200 python3 tests/bench/python_dataset.py /tmp/rec300.mcap --repeats 5 --json $R/dataset300-$round.json >> $R/dataset.txt 2>&1
done; pack dataset300
PYTHONPATH=$B/python:$PWD/tests/python timeout 100 python3 .device/prof_dataset5.py /tmp/rec.mcap > $R/prof.txt 2>&1; pack prof
PYTHONPATH=$B/python:$PWD/tests/python meson test -C build --no-rebuild --suite python --num-processes 12 --print-errorlogs > $R/suite.txt 2>&1
echo rc=$? >> $R/suite.txt; pack suite
echo "== dataset"; grep -E "==|samples|rror" $R/dataset.txt
echo "== prof"; cat $R/prof.txt | tail -8
echo "== suite"; grep -E "^(Ok|Fail|Skipped|Timeout):| FAIL | TIMEOUT |rc=" $R/suite.txt
cat $R/timeline.txt
