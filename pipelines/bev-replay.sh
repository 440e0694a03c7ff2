#!/usr/bin/env bash
# Replay review: a recording's lidar drawn from above (robocachevoxelize !
# robocachebev) next to its camera (compositor), as a VP8 video, or on the
# screen with --show.  Reads ROS 1 bags (robocachebagsrc) and ROS 2 MCAP
# files or rosbag2 folders (robocachemcapsrc).  Without a recording, one
# is made first: 3 s of the synthetic lidar and a test camera written by
# robocachemcapsink as a rosbag2 folder.
# Usage: pipelines/bev-replay.sh [FILE-or-FOLDER] [--points TOPIC]
#          [--camera TOPIC] [--out FILE.webm] [--show] [--backend B]
set -euo pipefail
. "$(dirname "$0")/setup.sh"

location="" points="" camera="" out="" show=false backend=auto
while [ $# -gt 0 ]; do
  case $1 in
    --points) points=$2; shift ;;
    --camera) camera=$2; shift ;;
    --out) out=$2; shift ;;
    --show) show=true ;;
    --backend) backend=$2; shift ;;
    -*) echo "usage: $0 [FILE-or-FOLDER] [--points TOPIC] [--camera TOPIC]" \
          "[--out FILE.webm] [--show] [--backend auto|cpu|gpu]" >&2
        exit 2 ;;
    *) location=$1 ;;
  esac
  shift
done

[ -f "$ROBOCACHE_BUILD/build.ninja" ] || robocache_build >/dev/null
robocache_env

if [ -z "$location" ]; then
  location=$ROBOCACHE_BUILD/bev-replay-demo
  rm -rf "$location"
  echo "no recording given: recording 3 s of the synthetic lidar and a" \
    "test camera into $location (rosbag2)"
  robocache_launch -q -e robocachemcapsink name=m location="$location" \
      rosbag2=true sink_0::topic=/velodyne_points \
      sink_1::topic=/camera/image_raw \
    robocachelidarsrc num-buffers=30 ! m.sink_0 \
    videotestsrc num-buffers=90 pattern=ball ! \
      video/x-raw,format=RGB,width=640,height=480,framerate=30/1 ! m.sink_1
  points=${points:-/velodyne_points} camera=${camera:-/camera/image_raw}
fi
if [ -z "$points" ] || [ -z "$camera" ]; then
  echo "$0: name the lidar and camera topics (--points, --camera)" >&2
  exit 2
fi
src=robocachemcapsrc
case $location in *.bag | *.bag.active) src=robocachebagsrc ;; esac
out=${out:-$ROBOCACHE_BUILD/bev-replay.webm}
if [ "$show" = true ]; then
  sink="videoconvert ! autovideosink"
else
  sink="videoconvert ! vp8enc deadline=1 ! webmmux ! filesink location=$out"
fi

# Left: 480 x 480 from above (height colours, rings every 10 m); right:
# the camera scaled to 480 rows; 10 frames/s.
# shellcheck disable=SC2086
robocache_launch -q $src name=m location="$location" \
    topics="$points,$camera" \
  m.src_0 ! queue ! robocachevoxelize mode=count backend=$backend ! \
    robocachebev value=height width=480 height=480 auto-range=false \
      range-min=-2.5 range-max=2.5 backend=$backend ! videoconvert ! \
    c.sink_0 \
  m.src_1 ! queue ! videoconvert ! videoscale ! video/x-raw,height=480 ! \
    c.sink_1 \
  compositor name=c background=black sink_1::xpos=480 ! \
    video/x-raw,framerate=10/1 ! $sink
[ "$show" = true ] || echo "replay review video: $out"
