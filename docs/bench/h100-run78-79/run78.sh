#!/bin/bash
# Session 2026-11-27 (sixth), call A: the suite; the MCAP reader and
# RecordingDataset before (0688c61, .device/oldplug) and after (libdeflate
# CRCs, clouds and frames shared from the file's mapping).
set -u
OUT=$1; B=$PWD/build; OLD=$PWD/.device/oldplug
export GST_PLUGIN_PATH_1_0=$B/gst GST_REGISTRY_1_0=/tmp/reg.bin
export LD_LIBRARY_PATH=$B/gst:$B/kernels:${LD_LIBRARY_PATH:-} PYTHONPATH=$B/python:$PWD/tests/python
R=$OUT/r; mkdir -p $R
t0=$(date +%s)
pack () { echo "$(( $(date +%s) - t0 )) s: $*" >> $R/timeline.txt
  tar czf $OUT/r.$BASHPID -C $OUT r && mv $OUT/r.$BASHPID $OUT/r.tgz; }
nvidia-smi -L > $R/nvidia-smi.txt 2>&1; date -u >> $R/nvidia-smi.txt; nproc >> $R/nvidia-smi.txt
gst-inspect-1.0 robocache > /dev/null 2>&1
REC=/tmp/rec.mcap
gst-launch-1.0 -q robocachemcapsink name=m location=$REC compression=none \
  sink_0::topic=/points sink_1::topic=/joints sink_2::topic=/camera \
  robocachelidarsrc num-buffers=60 points-per-sweep=131072 seed=1 ! m.sink_0 \
  robocachejointsrc num-buffers=600 rate=100/1 ! m.sink_1 \
  videotestsrc num-buffers=180 pattern=ball ! video/x-raw,format=RGB,width=640,height=480,framerate=30/1 ! m.sink_2 > $R/rec.txt 2>&1
ls -l $REC >> $R/rec.txt
# gst-launch's own time, median of 9, for plugin dir $1 and check-crc $2.
readtime () { for i in $(seq 9); do LD_LIBRARY_PATH=$1:$LD_LIBRARY_PATH GST_PLUGIN_PATH_1_0=$1 GST_REGISTRY_1_0=/tmp/reg-$3.bin gst-launch-1.0 robocachemcapsrc name=s location=$REC check-crc=$2 s.src_0 ! queue ! fakesink s.src_1 ! queue ! fakesink s.src_2 ! queue ! fakesink 2>&1 | awk '/Execution ended/ {split($4,t,":"); print t[3]}'; done | sort -g | sed -n 5p; }
for pass in 1 2; do for crc in true false; do
  echo "pass $pass check-crc=$crc before $(readtime $OLD $crc old) after $(readtime $B/gst $crc new)" >> $R/read.txt
done; done; pack read
for pass in 1 2; do
  for v in old new; do
    D=$B/gst; [ $v = old ] && D=$OLD
    echo "== pass $pass $v" >> $R/dataset.txt
    LD_LIBRARY_PATH=$D:$LD_LIBRARY_PATH GST_PLUGIN_PATH_1_0=$D GST_REGISTRY_1_0=/tmp/reg-$v.bin timeout 120 python3 tests/bench/python_dataset.py $REC --repeats 5 --json $R/dataset-$v-$pass.json >> $R/dataset.txt 2>&1
  done
done; pack dataset
meson test -C build --no-rebuild --num-processes 12 --print-errorlogs > $R/suite.txt 2>&1
echo rc=$? >> $R/suite.txt; cp build/meson-logs/testlog.txt $R/suite-testlog.txt; pack suite
head -1 $R/nvidia-smi.txt; cat $R/rec.txt | tail -2
echo "== read"; cat $R/read.txt
echo "== dataset"; grep -v "^$" $R/dataset.txt | tail -30
echo "== suite"; grep -E "^(Ok|Fail|Skipped|Timeout):| FAIL | TIMEOUT |rc=" $R/suite.txt
echo "== timeline"; cat $R/timeline.txt
