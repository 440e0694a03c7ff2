#!/usr/bin/env bash
# Records the live synthetic sensors for SECONDS seconds into DIR, one GDP
# file per stream (gdppay ! filesink: caps, events and every buffer with
# its timestamps, as they were): lidar.gdp (10 Hz sweeps), joints.gdp
# (jittered 200 Hz joint states) and camera.gdp (I420 320x240, 30 Hz).
# All three are recorded in one pipeline, so their timestamps share one
# time base: pipelines/replay.sh plays them back in sync.  DIR/index.txt
# lists every recorded buffer (stream, pts, duration, bytes), for reading;
# replay does not need it.  docs/recording.md says more.
# Usage: pipelines/record.sh [DIR] [SECONDS]   (after a build)
set -euo pipefail
. "$(dirname "$0")/setup.sh"
robocache_env
dir=${1:-recording}
seconds=${2:-5}
mkdir -p "$dir"

# num-buffers makes the length exact.
robocache_launch -q \
  robocachelidarsrc is-live=true num-buffers=$((seconds * 10)) ! gdppay ! \
    filesink location="$dir/lidar.gdp" \
  robocachejointsrc is-live=true rate=200/1 jitter=0.2 \
    num-buffers=$((seconds * 200)) ! gdppay ! \
    filesink location="$dir/joints.gdp" \
  videotestsrc is-live=true num-buffers=$((seconds * 30)) ! \
    video/x-raw,format=I420,width=320,height=240,framerate=30/1 ! gdppay ! \
    filesink location="$dir/camera.gdp"

# The index, read back from the files one stream at a time (gst-launch -v
# can mix up the messages of elements printing from several threads).
: > "$dir/index.txt"
for s in lidar joints camera; do
  robocache_launch -v filesrc location="$dir/$s.gdp" ! gdpdepay ! \
      identity name=buffer silent=false ! fakesink 2>&1 |
    awk -v s=$s '/GstIdentity:buffer: last-message = chain/ {
      match($0, /pts: [0-9:.]+/); pts = substr($0, RSTART + 5, RLENGTH - 5)
      match($0, /duration: [0-9:.]+/); dur = substr($0, RSTART + 10, RLENGTH - 10)
      match($0, /\([0-9]+ bytes/); bytes = substr($0, RSTART + 1, RLENGTH - 7)
      print s, pts, dur, bytes }' >> "$dir/index.txt"
done
awk '!($1 in n) { first[$1] = $2; order[++k] = $1 }
  { n[$1]++; last[$1] = $2; size[$1] += $4 }
  END {
    for (i = 1; i <= k; i++) { s = order[i]
      printf "recorded %-6s %5d buffers  pts %s .. %s  %.0f kB\n", s, n[s],
        first[s], last[s], size[s] / 1e3 }
  }' "$dir/index.txt"
echo "recording in $dir: lidar.gdp joints.gdp camera.gdp, index.txt"
