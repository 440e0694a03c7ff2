#!/usr/bin/env bash
# Jittered 333 Hz joint states with drop-outs resampled onto a 100 Hz grid.
# Usage: pipelines/resample.sh [seconds]   (after a build: tests/run.sh or
# pipelines/demo.sh)
set -euo pipefail
. "$(dirname "$0")/setup.sh"
robocache_env
seconds=${1:-2}

robocache_launch -v robocachejointsrc is-live=true rate=333/1 jitter=0.3 \
    dropout=0.05 quaternion=true num-buffers=$((seconds * 333)) ! \
  robocacheresample rate=100/1 method=linear ! \
  fakesink silent=false sync=false 2>&1 |
  awk '/last-message = chain/ {
    n++; match($0, /pts: [0-9:.]+/); pts = substr($0, RSTART + 5, RLENGTH - 5)
    match($0, /duration: [0-9:.]+/); dur = substr($0, RSTART + 10, RLENGTH - 10)
    if (n <= 5 || n % 50 == 0) printf "resampled sample %4d  pts %s  duration %s\n", n, pts, dur
  }
  /^(ERROR|WARNING)[: ]/ { print }
  END { printf "%d samples out at 100 Hz\n", n }'
