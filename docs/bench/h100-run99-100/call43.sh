#!/bin/bash
# Session 2026-11-27 (eighth), call F: points of uncompressed chunks shared
# from the file even where voxelize proposes page-locked memory (B, this
# build) against copied into it by the reading thread (A, .device/plugA):
# alternated processes; then the elements tests on B.
set -u
OUT=$1; B=$PWD/build
export LD_LIBRARY_PATH=$B/gst:$B/kernels:${LD_LIBRARY_PATH:-}
export PYTHONPATH=$B/python:$PWD/tests/python
R=$OUT/r; mkdir -p $R
cp $B/gst/libgstrobocache.so /tmp/plugB.so
export GST_PLUGIN_PATH_1_0=$B/gst GST_REGISTRY_1_0=/tmp/reg.bin
gst-launch-1.0 -q robocachemcapsink name=m location=/tmp/rec300.mcap compression=none \
  sink_0::topic=/points sink_1::topic=/joints sink_2::topic=/camera \
  robocachelidarsrc num-buffers=300 points-per-sweep=131072 seed=1 ! m.sink_0 \
  robocachejointsrc num-buffers=3000 rate=100/1 ! m.sink_1 \
  videotestsrc num-buffers=900 pattern=ball ! video/x-raw,format=RGB,width=640,height=480,framerate=30/1 ! m.sink_2
for round in 1 2; do
  for v in A B; do
    if [ $v = A ]; then cp .device/plugA/libgstrobocache.so $B/gst/libgstrobocache.so; else cp /tmp/plugB.so $B/gst/libgstrobocache.so; fi
    GST_PLUGIN_PATH_1_0=$B/gst GST_REGISTRY_1_0=/tmp/reg$v.bin timeout 120 python3 -u .device/ab_plugin.py /tmp/rec300.mcap $v 4 2>&1 | tail -1 | tee -a $R/ab.txt
  done
done
cp /tmp/plugB.so $B/gst/libgstrobocache.so
true
echo rc=$? >> $R/suite.txt
echo "== suite"; grep -E "^(Ok|Fail|Skipped|Timeout):| FAIL | TIMEOUT |rc=" $R/suite.txt
