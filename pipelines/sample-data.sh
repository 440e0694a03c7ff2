#!/usr/bin/env bash
# Writes the sample data every example of the README and docs/recording.md
# plays: 3 s of a small robot's three sensors (a lidar at 10 Hz, six arm
# joints at 100 Hz, an RGB camera at 10 Hz) in each format robocache
# reads, generated here by the real writers (nothing is downloaded or
# committed):
#   kitti/velodyne/000000.bin ...  the 30 lidar sweeps as KITTI velodyne
#                                  files, written by robocachelidarsrc
#   sample.bag                     ROS 1 bag of the sweeps, the joints and
#                                  the camera (python rosbag:
#                                  pipelines/sample_bag.py)
#   sample.mcap                    the same messages as a ROS 2 MCAP file,
#                                  written by robocachemcapsink from the bag
# into DIR (default: $ROBOCACHE_SAMPLE_DATA, else $ROBOCACHE_BUILD/
# sample-data, i.e. build/sample-data).  Does nothing when DIR already
# holds a complete set (--force writes it again).  Builds robocache first
# when there is no build.
# Usage: pipelines/sample-data.sh [DIR] [--force]
set -euo pipefail
. "$(dirname "$0")/setup.sh"
dir="" force=""
while [ $# -gt 0 ]; do
  case $1 in
    --force) force=1 ;;
    -*) echo "usage: $0 [DIR] [--force]" >&2; exit 2 ;;
    *) dir=$1 ;;
  esac
  shift
done
dir=${dir:-${ROBOCACHE_SAMPLE_DATA:-$ROBOCACHE_BUILD/sample-data}}
stamp="robocache sample data 1"

summary () {
  echo "sample data in $dir:"
  echo "  kitti/velodyne/  $(ls "$dir/kitti/velodyne" | wc -l) KITTI sweeps" \
    "(000000.bin ..., float32 x, y, z, intensity)"
  echo "  sample.bag       ROS 1 bag, $(du -h "$dir/sample.bag" | cut -f1)"
  echo "  sample.mcap      ROS 2 MCAP, $(du -h "$dir/sample.mcap" | cut -f1)"
  echo "  topics: /velodyne_points (PointCloud2, 10 Hz), /joint_states" \
    "(JointState j0..j5, 100 Hz), /camera/image_raw (Image rgb8 160x120, 10 Hz)"
}

if [ -z "$force" ] && [ "$(cat "$dir/.complete" 2>/dev/null)" = "$stamp" ]; then
  summary
  exit 0
fi
python=$(robocache_python_rosbag)
if [ -z "$python" ]; then
  echo "$0: no python3 with rosbag and sensor_msgs (Debian:" \
    "python3-rosbag python3-sensor-msgs; tests/run.sh and" \
    "pipelines/demo.sh install them)" >&2
  exit 1
fi
[ -f "$ROBOCACHE_BUILD/build.ninja" ] || robocache_build >/dev/null
robocache_env
rm -rf "$dir"
mkdir -p "$dir/kitti/velodyne"

echo "sample data: 30 lidar sweeps (robocachelidarsrc, 16384 points each)" \
  "-> $dir/kitti/velodyne/"
robocache_launch -q robocachelidarsrc num-buffers=30 points-per-sweep=16384 \
    rings=32 seed=7 ! multifilesink location="$dir/kitti/velodyne/%06d.bin"

echo "sample data: ROS 1 bag (python rosbag) -> $dir/sample.bag"
"$python" "$(dirname "$0")/sample_bag.py" "$dir/kitti/velodyne" \
  "$dir/sample.bag"

echo "sample data: the bag as ROS 2 MCAP (robocachebagsrc ! robocachemcapsink)" \
  "-> $dir/sample.mcap"
topics=/velodyne_points,/joint_states,/camera/image_raw
robocache_launch -q robocachebagsrc name=b location="$dir/sample.bag" \
    topics=$topics \
  robocachemcapsink name=m location="$dir/sample.mcap" \
    base-time=1700000000000000000 sink_0::topic=/velodyne_points \
    sink_1::topic=/joint_states sink_2::topic=/camera/image_raw \
  b.src_0 ! queue ! m.sink_0  b.src_1 ! queue ! m.sink_1 \
  b.src_2 ! queue ! m.sink_2

echo "$stamp" > "$dir/.complete"
summary
