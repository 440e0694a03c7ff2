#!/usr/bin/env bash
# Replays a ROS 2 recording (an MCAP or SQLite .db3 file, or a rosbag2
# folder: its .mcap or .db3 files, several where rosbag2 split the
# recording) through robocache: the lidar topic voxelized, fused with the joint states
# at 10 Hz.  Paced at the recorded speed by default (identity sync=true);
# --fast runs as fast as possible, with the same frames.  Without a
# recording, one is made first: a few seconds of the synthetic lidar and
# joints written by robocachemcapsink as a rosbag2 folder.  A ROS 1 bag
# plays too (robocachemcapsrc reads both formats).  The topics default to
# /velodyne_points and /joint_states (those of pipelines/sample-data.sh).
# Usage: pipelines/mcap-replay.sh [FILE-or-FOLDER] [--points TOPIC]
#          [--joints TOPIC] [--fast] [--backend auto|cpu|gpu]
set -euo pipefail
. "$(dirname "$0")/setup.sh"

location="" points="" joints="" sync=true backend=auto
while [ $# -gt 0 ]; do
  case $1 in
    --points) points=$2; shift ;;
    --joints) joints=$2; shift ;;
    --fast) sync=false ;;
    --backend) backend=$2; shift ;;
    -*) echo "usage: $0 [FILE-or-FOLDER] [--points TOPIC] [--joints TOPIC]" \
          "[--fast] [--backend auto|cpu|gpu]" >&2
        exit 2 ;;
    *) location=$1 ;;
  esac
  shift
done

[ -f "$ROBOCACHE_BUILD/build.ninja" ] || robocache_build >/dev/null
robocache_env

if [ -z "$location" ]; then
  location=$ROBOCACHE_BUILD/mcap-demo
  rm -rf "$location"
  echo "no recording given: recording 3 s of the synthetic sensors into" \
    "$location (rosbag2: metadata.yaml and mcap-demo_0.mcap)"
  robocache_launch -q -e robocachemcapsink name=m location="$location" \
      rosbag2=true sink_0::topic=/velodyne_points \
      sink_1::topic=/joint_states \
    robocachelidarsrc num-buffers=30 ! m.sink_0 \
    robocachejointsrc num-buffers=300 rate=100/1 ! m.sink_1
fi
points=${points:-/velodyne_points} joints=${joints:-/joint_states}

# What the file holds, as robocache reads it.
if [ -x "$ROBOCACHE_BUILD/tests/rosdump" ]; then
  files=("$location")
  if [ -d "$location" ]; then
    shopt -s nullglob
    files=("$location"/*.mcap "$location"/*.db3 "$location"/*.mcap.zstd \
      "$location"/*.db3.zstd)
    shopt -u nullglob
  fi
  "$ROBOCACHE_BUILD/tests/rosdump" --topics "${files[@]}" | python3 -c '
import json, sys
head = json.load(sys.stdin)
print(head["format"], "recording:")
for t in head["topics"]:
    print("  %-32s %-32s %6d messages" % (t["name"], t["type"], t["messages"]))'
fi
echo "playing $points (voxelized on robocachevoxelize's default grid:" \
  "256 x 256 x 32 voxels of 0.2 m, backend=$backend) and $joints, fused at" \
  "10 Hz$([ "$sync" = true ] && echo ", at the recorded pace")"

robocache_launch -v robocachemcapsrc name=m location="$location" \
    topics="$points,$joints" \
  m.src_0 ! queue ! robocachevoxelize backend=$backend ! f.sink_0 \
  m.src_1 ! queue ! f.sink_1 \
  robocachefuse name=f rate=10/1 backend=$backend ! \
    identity name=fused silent=false sync=$sync ! fakesink 2>&1 |
  robocache_fused_frames ""
