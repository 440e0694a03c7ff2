#!/bin/bash
# Forty-first session, call 245: README's first command on a GPU, which no
# run had shown (the suite's pipelines-demo skips on the GPU machine, which
# has no python rosbag): pipelines/demo.sh without its set-up step (no
# package registry there) over the build, then the README's next two
# commands, kitti.sh and mcap-replay.sh, on the sample data: the bag
# written here by pipelines/sample-data.sh (carried as
# .device/sample.tar.xz, with its completion stamp), the KITTI sweeps
# written there as sample-data.sh writes them (the carry's 64 MiB).
CALL_SECONDS=300 . docs/bench/call-lib.sh "$1"
tar xJf .device/sample.tar.xz -C /tmp
export ROBOCACHE_BUILD=$B ROBOCACHE_SAMPLE_DATA=/tmp/sample
mkdir -p /tmp/sample/kitti/velodyne
GST_PLUGIN_PATH_1_0=$B/gst gst-launch-1.0 -q robocachelidarsrc \
  num-buffers=30 points-per-sweep=16384 rings=32 seed=7 ! \
  multifilesink location=/tmp/sample/kitti/velodyne/%06d.bin
DEMO_NO_SETUP=1 timeout 200 bash pipelines/demo.sh > "$R/demo.txt" 2>&1
echo rc=$? >> "$R/demo.txt"
cp "$B/demo/bev.png" "$R/" 2>/dev/null
pack demo
timeout 60 bash pipelines/kitti.sh /tmp/sample/kitti/velodyne --fast \
  > "$R/kitti.txt" 2>&1
echo rc=$? >> "$R/kitti.txt"
pack kitti
timeout 60 bash pipelines/mcap-replay.sh /tmp/sample/sample.bag --fast \
  > "$R/mcap-replay.txt" 2>&1
echo rc=$? >> "$R/mcap-replay.txt"
pack mcap-replay
cat "$R/demo.txt"
tail -n 4 "$R/kitti.txt" "$R/mcap-replay.txt"
