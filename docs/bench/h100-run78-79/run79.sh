#!/bin/bash
# Session 2026-11-27 (sixth), call B: where RecordingDataset's time goes.
set -u
OUT=$1; B=$PWD/build
export GST_PLUGIN_PATH_1_0=$B/gst GST_REGISTRY_1_0=/tmp/reg.bin
export LD_LIBRARY_PATH=$B/gst:$B/kernels:${LD_LIBRARY_PATH:-} PYTHONPATH=$B/python:$PWD/tests/python
R=$OUT/r; mkdir -p $R
REC=/tmp/rec.mcap
[ -e $REC ] || gst-launch-1.0 -q robocachemcapsink name=m location=$REC compression=none \
  sink_0::topic=/points sink_1::topic=/joints sink_2::topic=/camera \
  robocachelidarsrc num-buffers=60 points-per-sweep=131072 seed=1 ! m.sink_0 \
  robocachejointsrc num-buffers=600 rate=100/1 ! m.sink_1 \
  videotestsrc num-buffers=180 pattern=ball ! video/x-raw,format=RGB,width=640,height=480,framerate=30/1 ! m.sink_2
timeout 200 python3 .device/prof_dataset.py $REC > $R/prof.txt 2>&1; echo rc=$? >> $R/prof.txt
head -12 $R/prof.txt; grep -A32 "Ordered by: internal" $R/prof.txt | head -34; grep -A36 "Ordered by: cumulative" $R/prof.txt | head -38
