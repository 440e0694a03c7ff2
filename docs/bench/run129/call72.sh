#!/bin/bash
# Session 2026-11-28 (twelfth), call 72: the session's code as committed.
# The whole suite (the dataset's early-stop test on CUDA among it);
# python_dataset.py twice.
set -u
OUT=$1; B=$PWD/build
export GST_PLUGIN_PATH_1_0=$B/gst GST_REGISTRY_1_0=/tmp/reg.bin
export LD_LIBRARY_PATH=$B/gst:$B/kernels:${LD_LIBRARY_PATH:-}
export PYTHONPATH=$B/python:$PWD/tests/python
R=$OUT/r; mkdir -p $R
t0=$(date +%s)
pack () { echo "$(( $(date +%s) - t0 )) s: $*" >> $R/timeline.txt
  tar czf $OUT/r.$BASHPID -C $OUT r && mv $OUT/r.$BASHPID $OUT/r.tgz; }
nvidia-smi --query-gpu=name,clocks.max.sm,memory.total --format=csv > $R/gpu.txt; cat $R/gpu.txt
timeout 300 meson test -C build --no-rebuild --num-processes 16 --print-errorlogs > $R/suite.log 2>&1; echo rc=$? >> $R/suite.log; pack suite
echo "== suite"; grep -E "^ *(Ok|Fail|Skipped|Timeout):|rc=" $R/suite.log; grep -E " FAIL | TIMEOUT " $R/suite.log | head -5
grep -E "kernels-convert-gpu|python-dataset |elements-embed" $R/suite.log | head -3
gst-launch-1.0 -q robocachemcapsink name=m location=/tmp/rec300.mcap compression=none \
  sink_0::topic=/points sink_1::topic=/joints sink_2::topic=/camera \
  robocachelidarsrc num-buffers=300 points-per-sweep=131072 seed=1 ! m.sink_0 \
  robocachejointsrc num-buffers=3000 rate=100/1 ! m.sink_1 \
  videotestsrc num-buffers=900 pattern=ball ! video/x-raw,format=RGB,width=640,height=480,framerate=30/1 ! m.sink_2
pack rec
for i in 1 2; do
  timeout 100 python3 tests/bench/python_dataset.py /tmp/rec300.mcap --repeats 5 --json $R/dataset300-$i.json > $R/dataset300-$i.txt 2>&1; pack dataset $i
  echo "== dataset $i"; grep -E "samples|rror" $R/dataset300-$i.txt | tail -3
done
grep -A3 "test_stopped_early" build/meson-logs/testlog.txt | head -4 > $R/stopped-early.txt
cat $R/stopped-early.txt; cat $R/timeline.txt
