#!/bin/bash
# Session 2026-11-28 (ninth), call K: the final code with the frames
# copied ahead: the whole suite, the A/B against HEAD's dataset (light and
# 2 ms steps), python_dataset.py twice.
set -u
OUT=$1; B=$PWD/build
export GST_PLUGIN_PATH_1_0=$B/gst GST_REGISTRY_1_0=/tmp/reg.bin
export LD_LIBRARY_PATH=$B/gst:$B/kernels:${LD_LIBRARY_PATH:-}
export PYTHONPATH=$B/python:$PWD/tests/python
R=$OUT/r; mkdir -p $R
t0=$(date +%s)
pack () { echo "$(( $(date +%s) - t0 )) s: $*" >> $R/timeline.txt; }
meson test -C build --no-rebuild --num-processes 16 --print-errorlogs > $R/suite.log 2>&1
echo rc=$? >> $R/suite.log; pack suite
grep -E "^(Ok|Fail|Skipped|Timeout):| FAIL | TIMEOUT |rc=" $R/suite.log > $R/suite-summary.txt
grep -E "^ *[0-9]+/[0-9]+ " $R/suite.log >> $R/suite-summary.txt
grep -E "test_gaps_before_caps|test_samples_kept" $R/suite.log >> $R/suite-summary.txt
echo "== suite"; head -6 $R/suite-summary.txt
grep -E " FAIL | TIMEOUT " $R/suite-summary.txt
cp .device/prev_dataset.py $B/python/robocache/_prev.py
gst-launch-1.0 -q robocachemcapsink name=m location=/tmp/rec300.mcap compression=none \
  sink_0::topic=/points sink_1::topic=/joints sink_2::topic=/camera \
  robocachelidarsrc num-buffers=300 points-per-sweep=131072 seed=1 ! m.sink_0 \
  robocachejointsrc num-buffers=3000 rate=100/1 ! m.sink_1 \
  videotestsrc num-buffers=900 pattern=ball ! video/x-raw,format=RGB,width=640,height=480,framerate=30/1 ! m.sink_2
pack rec
timeout 150 python3 -u .device/ab_item.py /tmp/rec300.mcap 5 > $R/ab-item.txt 2>&1; pack ab
echo "== A/B item"; tail -6 $R/ab-item.txt
for i in 1 2; do
timeout 120 python3 tests/bench/python_dataset.py /tmp/rec300.mcap --repeats 5 --json $R/dataset300-$i.json > $R/dataset300-$i.txt 2>&1; pack dataset $i
echo "== dataset $i"; grep -E "samples|rror" $R/dataset300-$i.txt
done
rm -f $R/suite.log
cat $R/timeline.txt
