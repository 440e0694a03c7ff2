#!/usr/bin/env bash
# The main demo: sets robocache up (as tests/run.sh does), then runs live
# synthetic sensors through robocache for a few seconds, on the GPU when
# there is one, else on the CPU, printing what each element did; last,
# the lidar seen from above as a PNG and a short video (pipelines/bev.sh;
# DEMO_OUT picks their folder, default build/demo).
set -euo pipefail
. "$(dirname "$0")/setup.sh"
robocache_install_missing
robocache_build "$ROBOCACHE_BUILD" >/dev/null
robocache_env

seconds=${DEMO_SECONDS:-3}

echo "== lidar: robocachelidarsrc (131072 points, 10 Hz, live) ! robocachevoxelize"
robocache_launch -m robocachelidarsrc is-live=true num-buffers=$((seconds * 10)) \
    ! robocachevoxelize mode=count post-messages=true ! fakesink 2>&1 |
  awk '/robocachevoxelize, / {
    line = $0; sub(/.*robocachevoxelize, /, "", line);
    n = split(line, kv, ", ");
    for (i = 1; i <= n; i++) {
      split(kv[i], p, "="); v = p[2]; sub(/^\([a-z0-9]+\)/, "", v);
      sub(/;$/, "", v); f[p[1]] = v
    }
    printf "sweep t=%6.3fs  points=%d  in-grid=%d  invalid=%d  occupied=%d  %.2f ms on %s\n",
      f["timestamp"] / 1e9, f["points"], f["in-grid"], f["invalid"],
      f["occupied"], f["processing-time"] / 1e6, f["backend"]
  }
  /ERROR|WARNING/ { print }'

echo
echo "== joints: robocachejointsrc (333 Hz, jittered, drop-outs) ! robocacheresample rate=100"
"$(dirname "$0")/resample.sh" "$seconds"

echo
echo "== fusion: camera + joints + voxelized lidar ! robocachefuse rate=30"
"$(dirname "$0")/fuse.sh" "$seconds"

echo
echo "== bird's-eye view: robocachelidarsrc ! robocachevoxelize ! robocachebev, to PNG and VP8 video"
"$(dirname "$0")/bev.sh" "${DEMO_OUT:-$ROBOCACHE_BUILD/demo}" "$seconds"
