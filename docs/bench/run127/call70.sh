#!/bin/bash
# Session 2026-11-28 (twelfth), call 70: each dataset sample in one C call
# (robocache_align_write).  The whole suite; memcheck over the new
# conversion kernel's test and the dataset's tests; ab_onecall.py (against
# 6de4423's dataset, 15 alternated rounds); python_dataset.py three times;
# thread_share.py on the new dataset.
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
cp .device/_dataset_old.py $B/python/robocache/_dataset_old.py
timeout 280 meson test -C build --no-rebuild --num-processes 16 --print-errorlogs > $R/suite.log 2>&1; echo rc=$? >> $R/suite.log; pack suite
echo "== suite"; grep -E "^ *(Ok|Fail|Skipped|Timeout):|rc=" $R/suite.log; grep -E "FAIL|TIMEOUT" $R/suite.log | head -5
grep -E "kernels-convert-gpu|python-dataset |elements-embed|python-train" $R/suite.log | head
gst-launch-1.0 -q robocachemcapsink name=m location=/tmp/rec300.mcap compression=none \
  sink_0::topic=/points sink_1::topic=/joints sink_2::topic=/camera \
  robocachelidarsrc num-buffers=300 points-per-sweep=131072 seed=1 ! m.sink_0 \
  robocachejointsrc num-buffers=3000 rate=100/1 ! m.sink_1 \
  videotestsrc num-buffers=900 pattern=ball ! video/x-raw,format=RGB,width=640,height=480,framerate=30/1 ! m.sink_2
pack rec
timeout 150 python3 -u .device/ab_onecall.py /tmp/rec300.mcap 15 > $R/ab-onecall.txt 2>&1; pack ab
echo "== ab"; tail -8 $R/ab-onecall.txt
for i in 1 2 3; do
timeout 100 python3 tests/bench/python_dataset.py /tmp/rec300.mcap --repeats 5 --json $R/dataset300-$i.json > $R/dataset300-$i.txt 2>&1; pack dataset $i
echo "== dataset $i"; grep -E "samples|rror|x " $R/dataset300-$i.txt | tail -4
done
timeout 60 python3 -u .device/thread_share.py /tmp/rec300.mcap > $R/thread-share.txt 2>&1; pack share
echo "== share"; tail -8 $R/thread-share.txt
timeout 120 compute-sanitizer --tool memcheck --error-exitcode 9 $B/tests/kernels_convert_gpu > $R/memcheck-convert.txt 2>&1; echo rc=$? >> $R/memcheck-convert.txt; pack memcheck
echo "== memcheck convert"; grep -E "SUMMARY|%|rc=" $R/memcheck-convert.txt | tail -3
rm -f $B/python/robocache/_dataset_old.py
cat $R/timeline.txt
