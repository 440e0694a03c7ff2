#!/usr/bin/env bash
# The three-sensor live fusion: a camera (30 Hz), joint states (jittered
# 200 Hz) and a lidar (10 Hz, voxelized) fused at 30 Hz, GPU when present.
# Usage: pipelines/fuse.sh [seconds]   (after a build)
set -euo pipefail
. "$(dirname "$0")/setup.sh"
robocache_env
seconds=${1:-2}

robocache_launch -v robocachefuse name=f rate=30/1 flat-output=true ! \
    fakesink silent=false sync=false \
  videotestsrc is-live=true num-buffers=$((seconds * 30)) ! \
    video/x-raw,format=I420,width=320,height=240,framerate=30/1 ! f.sink_0 \
  robocachejointsrc is-live=true rate=200/1 jitter=0.2 \
    num-buffers=$((seconds * 200)) ! f.sink_1 \
  robocachelidarsrc is-live=true num-buffers=$((seconds * 10)) ! \
    robocachevoxelize mode=occupancy ! f.sink_2 2>&1 |
  awk '/fakesink0: last-message = chain/ {
    n++; match($0, /pts: [0-9:.]+/); pts = substr($0, RSTART + 5, RLENGTH - 5)
    match($0, /\([0-9]+ bytes/); bytes = substr($0, RSTART + 1, RLENGTH - 7)
    if (n <= 5 || n % 15 == 0) printf "fused frame %3d  pts %s  %s bytes (camera + joints + voxel grid + flat vector)\n", n, pts, bytes
  }
  /^(ERROR|WARNING)[: ]/ { print }
  END { printf "%d fused frames\n", n }'
