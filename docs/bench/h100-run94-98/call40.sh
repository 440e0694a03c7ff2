#!/bin/bash
# Session 2026-11-27 (eighth), call C: the bounded loader branches, GAP
# events and merge: the suite (run 95), where a sample's time goes now
# (depth 6 included, which hung with the unbounded branches), the A/B of
# the bounded branches, and python_dataset.py on 300 sweeps.
set -u
OUT=$1; B=$PWD/build
export GST_PLUGIN_PATH_1_0=$B/gst GST_REGISTRY_1_0=/tmp/reg.bin
export LD_LIBRARY_PATH=$B/gst:$B/kernels:${LD_LIBRARY_PATH:-}
export PYTHONPATH=$B/python:$PWD/tests/python
R=$OUT/r; mkdir -p $R
t0=$(date +%s)
pack () { echo "$(( $(date +%s) - t0 )) s: $*" >> $R/timeline.txt; }
meson test -C build --no-rebuild --num-processes 16 --print-errorlogs > $R/suite.txt 2>&1
echo rc=$? >> $R/suite.txt; pack suite
echo "== suite"; grep -E "^(Ok|Fail|Skipped|Timeout):| FAIL | TIMEOUT |rc=" $R/suite.txt
rec () { gst-launch-1.0 -q robocachemcapsink name=m location=$1 compression=none \
  sink_0::topic=/points sink_1::topic=/joints sink_2::topic=/camera \
  robocachelidarsrc num-buffers=$2 points-per-sweep=131072 seed=1 ! m.sink_0 \
  robocachejointsrc num-buffers=$(( $2 * 10 )) rate=100/1 ! m.sink_1 \
  videotestsrc num-buffers=$(( $2 * 3 )) pattern=ball ! video/x-raw,format=RGB,width=640,height=480,framerate=30/1 ! m.sink_2; }
rec /tmp/rec300.mcap 300; pack rec
timeout 150 python3 -u .device/ab_bounded.py /tmp/rec300.mcap 5 > $R/ab300.txt 2>&1; pack ab
echo "== A/B bounded"; cat $R/ab300.txt | tail -5
timeout 200 python3 -u .device/prof_dataset8.py /tmp/rec300.mcap 3 > $R/prof300.txt 2>&1; pack prof
echo "== prof"; sed -n '/== A/,/== C/p' $R/prof300.txt | head -30
cat $R/timeline.txt
