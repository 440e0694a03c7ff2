#!/bin/bash
# Session 2026-11-28 (ninth), call E: the own stream entered with set_stream:
# the python suite, the A/B of the per-sample work (before / own stream context / set_stream)
# with
# a light and a 2 ms GPU step, python_dataset.py (twice).
set -u
OUT=$1; B=$PWD/build
export GST_PLUGIN_PATH_1_0=$B/gst GST_REGISTRY_1_0=/tmp/reg.bin
export LD_LIBRARY_PATH=$B/gst:$B/kernels:${LD_LIBRARY_PATH:-}
export PYTHONPATH=$B/python:$PWD/tests/python
R=$OUT/r; mkdir -p $R
cp .device/side_dataset.py $B/python/robocache/_side.py
t0=$(date +%s)
pack () { echo "$(( $(date +%s) - t0 )) s: $*" >> $R/timeline.txt; }
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > $R/gpu.txt
meson test -C build --no-rebuild --num-processes 16 --suite python --print-errorlogs > $R/suite.txt 2>&1
echo rc=$? >> $R/suite.txt; pack suite
echo "== python suite"; grep -E "^(Ok|Fail|Skipped|Timeout):| FAIL | TIMEOUT |rc=" $R/suite.txt
grep -E "test_samples_kept|test_samples_match" $R/suite.txt
[ -f /tmp/rec300.mcap ] || gst-launch-1.0 -q robocachemcapsink name=m location=/tmp/rec300.mcap compression=none \
  sink_0::topic=/points sink_1::topic=/joints sink_2::topic=/camera \
  robocachelidarsrc num-buffers=300 points-per-sweep=131072 seed=1 ! m.sink_0 \
  robocachejointsrc num-buffers=3000 rate=100/1 ! m.sink_1 \
  videotestsrc num-buffers=900 pattern=ball ! video/x-raw,format=RGB,width=640,height=480,framerate=30/1 ! m.sink_2
pack rec
timeout 240 python3 -u .device/ab_item.py /tmp/rec300.mcap 5 > $R/ab-item.txt 2>&1; pack ab
echo "== A/B item"; tail -8 $R/ab-item.txt
for i in 1 2; do
timeout 150 python3 tests/bench/python_dataset.py /tmp/rec300.mcap --repeats 5 --json $R/dataset300-$i.json > $R/dataset300-$i.txt 2>&1; pack dataset $i
echo "== dataset $i"; grep -E "samples|rror" $R/dataset300-$i.txt
done
cat $R/timeline.txt
