#!/bin/bash
# Session 2026-11-27 (eighth), call D: the final code (caps read ahead
# from the first playable message, the zombie partials): the suite, the
# bounded/unbounded A/B again (7 rounds) and python_dataset.py.
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
gst-launch-1.0 -q robocachemcapsink name=m location=/tmp/rec300.mcap compression=none \
  sink_0::topic=/points sink_1::topic=/joints sink_2::topic=/camera \
  robocachelidarsrc num-buffers=300 points-per-sweep=131072 seed=1 ! m.sink_0 \
  robocachejointsrc num-buffers=3000 rate=100/1 ! m.sink_1 \
  videotestsrc num-buffers=900 pattern=ball ! video/x-raw,format=RGB,width=640,height=480,framerate=30/1 ! m.sink_2
pack rec
timeout 200 python3 -u .device/ab_bounded.py /tmp/rec300.mcap 7 > $R/ab300.txt 2>&1; pack ab
echo "== A/B bounded"; tail -4 $R/ab300.txt
timeout 120 python3 tests/bench/python_dataset.py /tmp/rec300.mcap --repeats 5 --json $R/dataset300.json > $R/dataset300.txt 2>&1; pack dataset
echo "== dataset"; grep -E "samples|rror" $R/dataset300.txt
cat $R/timeline.txt
