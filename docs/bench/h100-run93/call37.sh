#!/bin/bash
# Session 2026-11-27 (seventh), call P: the final code (robocache_merge,
# the aligner's patience and ordered vectors): the suite, then the
# dataset benchmark once on 60 sweeps.
set -u
OUT=$1; B=$PWD/build
export GST_PLUGIN_PATH_1_0=$B/gst GST_REGISTRY_1_0=/tmp/reg.bin
export LD_LIBRARY_PATH=$B/gst:$B/kernels:${LD_LIBRARY_PATH:-}
R=$OUT/r; mkdir -p $R
t0=$(date +%s)
pack () { echo "$(( $(date +%s) - t0 )) s: $*" >> $R/timeline.txt; }
PYTHONPATH=$B/python:$PWD/tests/python meson test -C build --no-rebuild --num-processes 16 --print-errorlogs > $R/suite.txt 2>&1
echo rc=$? >> $R/suite.txt; pack suite
echo "== suite"; grep -E "^(Ok|Fail|Skipped|Timeout):| FAIL | TIMEOUT |rc=" $R/suite.txt
gst-launch-1.0 -q robocachemcapsink name=m location=/tmp/rec.mcap compression=none \
  sink_0::topic=/points sink_1::topic=/joints sink_2::topic=/camera \
  robocachelidarsrc num-buffers=60 points-per-sweep=131072 seed=1 ! m.sink_0 \
  robocachejointsrc num-buffers=600 rate=100/1 ! m.sink_1 \
  videotestsrc num-buffers=180 pattern=ball ! video/x-raw,format=RGB,width=640,height=480,framerate=30/1 ! m.sink_2
PYTHONPATH=$B/python:$PWD/tests/python timeout 60 python3 tests/bench/python_dataset.py /tmp/rec.mcap --repeats 5 --json $R/dataset.json > $R/dataset.txt 2>&1; pack dataset
echo "== dataset"; grep -E "samples|rror" $R/dataset.txt
cat $R/timeline.txt
