#!/usr/bin/env bash
# The synthetic lidar seen from above: robocachelidarsrc ! robocachevoxelize
# ! robocachebev, on the GPU when there is one (the same pixels on the
# CPU).  Writes OUTDIR/bev.png (the first sweep) and OUTDIR/bev.webm (a
# few seconds at 10 sweeps/s, VP8) and prints where they are.
# Usage: pipelines/bev.sh [OUTDIR] [seconds]   (after a build)
# docs/bev.png is this script's bev.png: pipelines/bev.sh docs
set -euo pipefail
. "$(dirname "$0")/setup.sh"
robocache_env
out=${1:-$ROBOCACHE_BUILD/demo}
seconds=${2:-3}
mkdir -p "$out"

# 256 x 256 x 32 voxels of 0.2 m (51.2 m square), drawn at 512 x 512:
# colour is the height of the highest point of each column, from blue
# at -2.5 m to dark red at +2.5 m (the ground, 1.7 m below the sensor, is
# blue); grey rings every 10 m; the white bar is 10 m.
voxelize="robocachevoxelize mode=count"
bev="robocachebev value=height width=512 height=512 auto-range=false
  range-min=-2.5 range-max=2.5 range-rings=10 scale-bar=10"

# shellcheck disable=SC2086
robocache_launch -q robocachelidarsrc num-buffers=1 ! $voxelize ! $bev ! pngenc ! \
  filesink location="$out/bev.png"
# shellcheck disable=SC2086
robocache_launch -q robocachelidarsrc num-buffers=$((seconds * 10)) ! \
  $voxelize ! $bev ! \
  videoconvert ! video/x-raw,format=I420 ! vp8enc deadline=1 ! webmmux ! \
  filesink location="$out/bev.webm"
echo "bird's-eye view picture: $out/bev.png"
echo "bird's-eye view video:   $out/bev.webm ($seconds s)"
