#!/usr/bin/env bash
# pipelines/sample-data.sh and the examples of README.md and
# docs/recording.md that play its files: the sample data is written once
# (a second run only lists it), holds 30 sweeps, 300 joint states and 30
# images in the bag and the MCAP file and 30 KITTI sweeps; kitti.sh,
# mcap-replay.sh (bag and MCAP), the documented bag and MCAP launch lines
# and the players' start-time/stop-time/rate/loop lines run on it and say
# what they did.  SKIP without python rosbag (tests/run.sh installs it).
# Usage: sample_data.sh SOURCE_ROOT
set -euo pipefail
. "$(dirname "$0")/prelude.sh" "$@"
skip_without_rosbag
robocache_env "$ROBOCACHE_BUILD"
export ROBOCACHE_SAMPLE_DATA=$tmp/sample
S=$ROBOCACHE_SAMPLE_DATA

echo "== sample-data.sh, twice"
"$root/pipelines/sample-data.sh" | tee "$tmp/first"
grep -q "^sample data: ROS 1 bag" "$tmp/first" || fail "no bag written"
grep -q "30 KITTI sweeps" "$tmp/first" || fail "not 30 KITTI sweeps"
[ -f "$S/sample.bag" ] && [ -f "$S/sample.mcap" ] || fail "files missing"
"$root/pipelines/sample-data.sh" > "$tmp/second"
grep -q "^sample data:" "$tmp/second" && fail "the second run wrote again"
grep -q "^sample data in $S:" "$tmp/second" || fail "$(cat "$tmp/second")"
for f in "$S/sample.bag" "$S/sample.mcap"; do
  "$ROBOCACHE_BUILD/tests/rosdump" --topics "$f" > "$tmp/topics"
  for t in '"/velodyne_points".*"messages": 30' \
      '"/joint_states".*"messages": 300' '"/camera/image_raw".*"messages": 30'; do
    grep -q "$t" "$tmp/topics" || fail "$f: no $t: $(cat "$tmp/topics")"
  done
done

echo "== kitti.sh on the KITTI folder"
"$root/pipelines/kitti.sh" "$S/kitti/velodyne" --fast | tee "$tmp/kitti"
grep -q "^30 sweeps$" "$tmp/kitti" || fail "kitti.sh: not 30 sweeps"
grep -q "^sweep    0  points=16384 " "$tmp/kitti" || fail "kitti.sh: points"

echo "== mcap-replay.sh on the bag and the MCAP file"
for f in sample.bag sample.mcap; do
  "$root/pipelines/mcap-replay.sh" "$S/$f" --fast | tee "$tmp/replay"
  grep -q "^30 fused frames$" "$tmp/replay" || fail "$f: not 30 fused frames"
done

echo "== the documented launch lines (docs/recording.md)"
# ROS bags: voxelize and fuse, one line per sweep.
gst-launch-1.0 -m robocachebagsrc location="$S/sample.bag" \
    topics=/velodyne_points,/joint_states name=b \
    b.src_0 ! queue ! robocachevoxelize post-messages=true ! f.sink_0 \
    b.src_1 ! queue ! f.sink_1 \
    robocachefuse name=f rate=10/1 ! fakesink 2>&1 | tee "$tmp/bag" |
  grep -c "robocachevoxelize, " > "$tmp/n"
[ "$(cat "$tmp/n")" = 30 ] || fail "bag line: $(cat "$tmp/n") sweeps"
# The players: 1 s from 0.5 s at twice the speed, paced by the sink.
start=$(date +%s%N)
gst-launch-1.0 -v robocachemcapsrc location="$S/sample.mcap" \
    topics=/velodyne_points start-time=500000000 stop-time=1500000000 \
    rate=2.0 ! fakesink sync=true silent=false 2>&1 |
  grep -c "last-message = chain" > "$tmp/n"
took=$(( ($(date +%s%N) - start) / 1000000 ))
[ "$(cat "$tmp/n")" = 10 ] || fail "start/stop: $(cat "$tmp/n") sweeps"
[ "$took" -ge 400 ] || fail "rate=2: 1 s played in $took ms"

echo "== robocache_skip_reasons on a meson test log"
cat > "$tmp/testlog.txt" <<'LOG'
test:         robocache:elements / elements-cuda
result:       exit status 77
SKIP: no usable CUDA device (robocache was built without CUDA)
test:         robocache:kernels / kernels-fuse
result:       exit status 0
test:         robocache:kernels / kernels-fuse-gpu
result:       exit status 77
SKIP: no usable CUDA device (no driver)
test:         robocache:ros / ros-node
result:       exit status 77
LOG
robocache_skip_reasons "$tmp/testlog.txt" > "$tmp/reasons"
printf '%s\n' "no usable CUDA device" "no usable CUDA device" \
  "no reason given" | diff - "$tmp/reasons" || fail "skip reasons"
echo "PASS"
