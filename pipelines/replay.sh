#!/usr/bin/env bash
# Replays a recording of pipelines/record.sh (filesrc ! gdpdepay per
# stream) through the fusion pipeline of pipelines/fuse.sh: the lidar
# voxelized, the joints resampled to 100 Hz, both fused with the camera at
# 30 Hz.  The streams keep their recorded timestamps and share the
# pipeline clock, so they stay in sync: by default the output is paced at
# the recorded speed (identity sync=true); with --fast it runs as fast as
# possible.  Both give the same frames: the sources are files, not live, so
# robocachefuse waits for every stream and the output only depends on the
# recording (docs/recording.md: determinism and its limits).
# --out FILE writes the fused frames' bytes back to back to FILE and one
# line per frame (pts, duration, bytes) to FILE.pts: checksum both to
# compare runs.  --backend auto|cpu|gpu (default auto) for all elements.
# Usage: pipelines/replay.sh [DIR] [--fast] [--out FILE] [--backend B]
set -euo pipefail
. "$(dirname "$0")/setup.sh"
robocache_env

dir=recording sync=true out="" backend=auto
while [ $# -gt 0 ]; do
  case $1 in
    --fast) sync=false ;;
    --out) out=$2; shift ;;
    --backend) backend=$2; shift ;;
    -*) echo "usage: $0 [DIR] [--fast] [--out FILE] [--backend auto|cpu|gpu]" >&2
        exit 2 ;;
    *) dir=$1 ;;
  esac
  shift
done
for s in lidar joints camera; do
  [ -f "$dir/$s.gdp" ] || { echo "$0: no $dir/$s.gdp" >&2; exit 1; }
done

# identity paces the frames (sync) and prints them; with --out they go to
# a GDP file, unpacked afterwards into FILE and FILE.pts by a one-stream
# pipeline (gst-launch -v can mix up the messages of elements printing from
# several threads; the GDP file itself is not kept: its stream-start event
# carries a random stream id).
if [ -n "$out" ]; then
  sink=(gdppay ! filesink "location=$out.gdp")
else
  sink=(fakesink)
fi

# shellcheck disable=SC2086
robocache_launch -v robocachefuse name=f rate=30/1 flat-output=true \
    backend=$backend ! identity name=fused silent=false sync=$sync ! \
    "${sink[@]}" \
  filesrc location="$dir/camera.gdp" ! gdpdepay ! f.sink_0 \
  filesrc location="$dir/joints.gdp" ! gdpdepay ! \
    robocacheresample rate=100/1 backend=$backend ! f.sink_1 \
  filesrc location="$dir/lidar.gdp" ! gdpdepay ! \
    robocachevoxelize mode=occupancy backend=$backend ! f.sink_2 2>&1 |
  robocache_fused_frames ""

if [ -n "$out" ]; then
  robocache_launch -v filesrc location="$out.gdp" ! gdpdepay ! \
      identity name=fused silent=false ! filesink location="$out" 2>&1 |
    robocache_fused_frames 1 > "$out.pts"
  rm -f "$out.gdp"
  echo "fused frames in $out, their pts, duration and size in $out.pts"
fi
