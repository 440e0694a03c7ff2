#!/usr/bin/env bash
# Replays a folder of KITTI velodyne sweeps (.bin: float32 x, y, z,
# intensity, 16 bytes a point; 000000.bin, 000001.bin, ... as in the object
# detection set, or 0000000000.bin, ... as in the raw data) through
# robocachevoxelize on a PointPillars grid, at about 10 Hz, or as fast as
# possible with --fast; prints what each sweep gave.
# multifilesrc reads one file per buffer with the points caps; the .bin
# files carry no timestamps, and no GStreamer element stamps buffers of
# arbitrary caps at a frame rate, so 10 Hz is paced by sleeping 100 ms
# between reads (identity sleep-time; the period is that plus the read of
# one file, about a millisecond) and the sweeps stay without timestamps.
# Usage: pipelines/kitti.sh FOLDER [--fast] [--backend auto|cpu|gpu]
set -euo pipefail
. "$(dirname "$0")/setup.sh"
robocache_env

folder="" pace="identity sleep-time=100000 ! queue !" backend=auto
while [ $# -gt 0 ]; do
  case $1 in
    --fast) pace="" ;;
    --backend) backend=$2; shift ;;
    -*) folder="" ; break ;;
    *) folder=$1 ;;
  esac
  shift
done
if [ -z "$folder" ]; then
  echo "usage: $0 FOLDER [--fast] [--backend auto|cpu|gpu]" >&2
  exit 2
fi
if [ -f "$folder/000000.bin" ]; then
  location="$folder/%06d.bin"
elif [ -f "$folder/0000000000.bin" ]; then
  location="$folder/%010d.bin"
else
  echo "$0: no $folder/000000.bin (or 0000000000.bin)" >&2
  exit 1
fi

caps='other/x-robocache-points,point-step=16,fields="x:float32:0,y:float32:4,z:float32:8,intensity:float32:12"'
# shellcheck disable=SC2086
robocache_launch -m multifilesrc location="$location" caps="$caps" ! $pace \
    robocachevoxelize backend=$backend mode=count post-messages=true \
    voxel-size="<0.16,0.16,4.0>" origin="<0,-39.68,-3>" dims="<432,496,1>" ! \
    fakesink 2>&1 |
  robocache_sweeps 1
