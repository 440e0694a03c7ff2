#!/bin/bash
# Session 2026-11-27 (eighth), call A: the suite over the seventh
# session's last commits (run 94), then where a dataset sample's time goes.
set -u
OUT=$1; B=$PWD/build
export GST_PLUGIN_PATH_1_0=$B/gst GST_REGISTRY_1_0=/tmp/reg.bin
export LD_LIBRARY_PATH=$B/gst:$B/kernels:${LD_LIBRARY_PATH:-}
export PYTHONPATH=$B/python:$PWD/tests/python
R=$OUT/r; mkdir -p $R
t0=$(date +%s)
pack () { echo "$(( $(date +%s) - t0 )) s: $*" >> $R/timeline.txt; }
which perf nsys > $R/tools.txt 2>&1; nvidia-smi > $R/smi.txt 2>&1
meson test -C build --no-rebuild --num-processes 16 --print-errorlogs > $R/suite.txt 2>&1
echo rc=$? >> $R/suite.txt; pack suite
echo "== suite"; grep -E "^(Ok|Fail|Skipped|Timeout):| FAIL | TIMEOUT |rc=" $R/suite.txt
rec () { gst-launch-1.0 -q robocachemcapsink name=m location=$1 compression=none \
  sink_0::topic=/points sink_1::topic=/joints sink_2::topic=/camera \
  robocachelidarsrc num-buffers=$2 points-per-sweep=131072 seed=1 ! m.sink_0 \
  robocachejointsrc num-buffers=$(( $2 * 10 )) rate=100/1 ! m.sink_1 \
  videotestsrc num-buffers=$(( $2 * 3 )) pattern=ball ! video/x-raw,format=RGB,width=640,height=480,framerate=30/1 ! m.sink_2; }
rec /tmp/rec300.mcap 300; pack rec
timeout 300 python3 -u .device/prof_dataset8.py /tmp/rec300.mcap 5 > $R/prof300.txt 2>&1; pack prof300
cat $R/prof300.txt | head -40
timeout 90 python3 tests/bench/python_dataset.py /tmp/rec300.mcap --repeats 5 --json $R/dataset300.json > $R/dataset300.txt 2>&1; pack dataset300
echo "== dataset"; grep -E "samples|rror" $R/dataset300.txt
cat $R/timeline.txt; cat $R/tools.txt
