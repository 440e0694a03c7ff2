#!/bin/bash
# Session 2026-11-28 (eleventh), call 63: the whole suite; the joint
# window resampled on the CPU (ab_resample.py against HEAD's dataset and
# a variant), python_dataset.py twice; a point a thread counted with
# barrier counts again (one-point-barrier-counts.diff): the count and
# occupancy sweep against HEAD's library and 21f4c4a's, alternated.
set -u
OUT=$1; B=$PWD/build
export GST_PLUGIN_PATH_1_0=$B/gst GST_REGISTRY_1_0=/tmp/reg.bin
export LD_LIBRARY_PATH=$B/gst:$B/kernels:${LD_LIBRARY_PATH:-}
export PYTHONPATH=$B/python:$PWD/tests/python
R=$OUT/r; mkdir -p $R
t0=$(date +%s)
pack () { echo "$(( $(date +%s) - t0 )) s: $*" >> $R/timeline.txt; }
nvidia-smi --query-gpu=name,clocks.max.sm,memory.total --format=csv > $R/gpu.txt; cat $R/gpu.txt
cp .device/prev_dataset.py $B/python/robocache/_prev.py
cp .device/pulled_dataset.py $B/python/robocache/_pulled.py
gst-launch-1.0 -q robocachemcapsink name=m location=/tmp/rec300.mcap compression=none \
  sink_0::topic=/points sink_1::topic=/joints sink_2::topic=/camera \
  robocachelidarsrc num-buffers=300 points-per-sweep=131072 seed=1 ! m.sink_0 \
  robocachejointsrc num-buffers=3000 rate=100/1 ! m.sink_1 \
  videotestsrc num-buffers=900 pattern=ball ! video/x-raw,format=RGB,width=640,height=480,framerate=30/1 ! m.sink_2
pack rec
timeout 200 python3 -u .device/ab_resample.py /tmp/rec300.mcap 5 > $R/ab-resample.txt 2>&1; pack ab
echo "== ab"; cat $R/ab-resample.txt | tail -12
for i in 1 2; do
timeout 100 python3 tests/bench/python_dataset.py /tmp/rec300.mcap --repeats 5 --json $R/dataset300-$i.json > $R/dataset300-$i.txt 2>&1; pack dataset $i
echo "== dataset $i"; grep -E "samples|rror" $R/dataset300-$i.txt
done
rm -f $B/python/robocache/_prev.py $B/python/robocache/_pulled.py
OLDLIB=$PWD/.device/oldbench/kernels HEADLIB=$PWD/.device/headlib
P=16384,131072,262144,300001,1048576,4194304
for i in 1 2; do
  LD_LIBRARY_PATH=$OLDLIB:$LD_LIBRARY_PATH timeout 60 .device/oldbench/tests/bench-kernels --sweep voxelize --modes count,occupancy --points $P --runs 50 > $R/old-$i.txt 2>&1; pack old $i
  LD_LIBRARY_PATH=$HEADLIB:$LD_LIBRARY_PATH timeout 60 $B/tests/bench-kernels --sweep voxelize --modes count,occupancy --points $P --runs 50 > $R/head-$i.txt 2>&1; pack head $i
  timeout 60 $B/tests/bench-kernels --sweep voxelize --modes count,occupancy --points $P --runs 50 > $R/new-$i.txt 2>&1; pack new $i
done
echo "== sweep (21f4c4a, HEAD, new) x2"; paste <(grep -E "^sweep" $R/old-1.txt | awk '{print $1, $2}') <(grep -E "^sweep" $R/head-1.txt | awk '{print $2}') <(grep -E "^sweep" $R/new-1.txt | awk '{print $2}') <(grep -E "^sweep" $R/old-2.txt | awk '{print $2}') <(grep -E "^sweep" $R/head-2.txt | awk '{print $2}') <(grep -E "^sweep" $R/new-2.txt | awk '{print $2}')
grep -iE "differ|mismatch|error" $R/new-*.txt | head -3
meson test -C build --no-rebuild --num-processes 16 --print-errorlogs > $R/suite.log 2>&1
echo rc=$? >> $R/suite.log; pack suite
echo "== suite"; grep -E "^(Ok|Fail|Skipped|Timeout):| FAIL | TIMEOUT |rc=" $R/suite.log
timeout 60 compute-sanitizer --tool memcheck --error-exitcode 9 $B/tests/kernels_voxelize_gpu > $R/memcheck.txt 2>&1; echo rc=$? >> $R/memcheck.txt; pack memcheck
echo "== memcheck"; grep -E "SUMMARY|rc=" $R/memcheck.txt | tail -2
cat $R/timeline.txt
