#!/bin/bash
# Session 2026-11-27 (seventh), call K: alignment in C (375c171): the
# suite; python_dataset.py A/B, the Python package before (build/pyold:
# the five files of 375c171~1 over the same build) and after, alternated,
# three rounds; the main thread's profile after.
set -u
OUT=$1; B=$PWD/build
export GST_PLUGIN_PATH_1_0=$B/gst GST_REGISTRY_1_0=/tmp/reg.bin
export LD_LIBRARY_PATH=$B/gst:$B/kernels:${LD_LIBRARY_PATH:-}
R=$OUT/r; mkdir -p $R
t0=$(date +%s)
pack () { echo "$(( $(date +%s) - t0 )) s: $*" >> $R/timeline.txt; }
rm -rf $B/pyold && cp -r $B/python $B/pyold && cp -r .device/oldpy/. $B/pyold/robocache/
REC=/tmp/rec.mcap
[ -e $REC ] || gst-launch-1.0 -q robocachemcapsink name=m location=$REC compression=none \
  sink_0::topic=/points sink_1::topic=/joints sink_2::topic=/camera \
  robocachelidarsrc num-buffers=60 points-per-sweep=131072 seed=1 ! m.sink_0 \
  robocachejointsrc num-buffers=600 rate=100/1 ! m.sink_1 \
  videotestsrc num-buffers=180 pattern=ball ! video/x-raw,format=RGB,width=640,height=480,framerate=30/1 ! m.sink_2
ls -la $REC > $R/rec.txt; pack recording
for round in 1 2 3; do
  for side in old new; do
    PP=$B/python; [ $side = old ] && PP=$B/pyold
    echo "== round $round, $side" >> $R/dataset.txt
    PYTHONPATH=$PP:$PWD/tests/python timeout 120 python3 tests/bench/python_dataset.py $REC --repeats 5 --json $R/dataset-$round-$side.json >> $R/dataset.txt 2>&1
  done
done; pack dataset
PYTHONPATH=$B/python:$PWD/tests/python timeout 100 python3 .device/prof_dataset4.py $REC > $R/prof.txt 2>&1; pack prof
PYTHONPATH=$B/python:$PWD/tests/python meson test -C build --no-rebuild --num-processes 12 --print-errorlogs > $R/suite.txt 2>&1
echo rc=$? >> $R/suite.txt; pack suite
echo "== dataset"; grep -E "==|samples" $R/dataset.txt
echo "== prof"; head -1 $R/prof.txt; grep -A22 "Ordered by" $R/prof.txt | cut -c1-150
echo "== suite"; grep -E "^(Ok|Fail|Skipped|Timeout):| FAIL | TIMEOUT |rc=" $R/suite.txt
cat $R/timeline.txt
