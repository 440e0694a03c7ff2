#!/bin/bash
# Session 2026-11-27 (sixth), call F: the final code: the suite, the
# dataset benchmark twice, the main thread's profile.
set -u
OUT=$1; B=$PWD/build
export GST_PLUGIN_PATH_1_0=$B/gst GST_REGISTRY_1_0=/tmp/reg.bin
export LD_LIBRARY_PATH=$B/gst:$B/kernels:${LD_LIBRARY_PATH:-} PYTHONPATH=$B/python:$PWD/tests/python
R=$OUT/r; mkdir -p $R
t0=$(date +%s)
pack () { echo "$(( $(date +%s) - t0 )) s: $*" >> $R/timeline.txt; }
REC=/tmp/rec.mcap
[ -e $REC ] || gst-launch-1.0 -q robocachemcapsink name=m location=$REC compression=none \
  sink_0::topic=/points sink_1::topic=/joints sink_2::topic=/camera \
  robocachelidarsrc num-buffers=60 points-per-sweep=131072 seed=1 ! m.sink_0 \
  robocachejointsrc num-buffers=600 rate=100/1 ! m.sink_1 \
  videotestsrc num-buffers=180 pattern=ball ! video/x-raw,format=RGB,width=640,height=480,framerate=30/1 ! m.sink_2
for pass in 1 2 3; do
  timeout 120 python3 tests/bench/python_dataset.py $REC --repeats 5 --json $R/dataset-$pass.json >> $R/dataset.txt 2>&1
done; pack dataset
timeout 100 python3 .device/prof_dataset4.py $REC > $R/prof4.txt 2>&1; pack prof
meson test -C build --no-rebuild --num-processes 12 --print-errorlogs > $R/suite.txt 2>&1
echo rc=$? >> $R/suite.txt; pack suite
echo "== dataset"; grep samples $R/dataset.txt
echo "== prof"; head -1 $R/prof4.txt; grep -A14 "Ordered by" $R/prof4.txt | cut -c1-140
echo "== suite"; grep -E "^(Ok|Fail|Skipped|Timeout):| FAIL | TIMEOUT |rc=" $R/suite.txt
cat $R/timeline.txt
