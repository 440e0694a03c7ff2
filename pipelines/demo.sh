#!/usr/bin/env bash
# The main demo: sets robocache up (as tests/run.sh does), then runs its
# elements for a few seconds each, on the GPU when there is one, else on
# the CPU, saying before each section what runs with which settings and
# after it what came out, and at the end what was computed, how fast, on
# which backend and where the files are.  README.md: "What you should see".
#
# Each section is a function demo_<name> listed in demo_sections below;
# it prints its header with demo_header, runs, writes what it produced
# under $demo_out, and adds lines to the closing summary with
# demo_summary.  DEMO_SECONDS (default 3) is the length of the live
# sections; DEMO_SECTIONS="lidar joints" runs only those; DEMO_NO_SETUP=1
# skips the installation and the build (tests/pipelines/demo.sh).
set -euo pipefail
here=$(dirname "$0")
. "$here/setup.sh"

seconds=${DEMO_SECONDS:-3}
demo_sections=(lidar joints fusion recording bev)
summary_lines=()

# demo_header TITLE PIPELINE SETTINGS...: the section's header.
demo_header () {
  echo
  echo "== $1"
  echo "   runs:     $2"
  shift 2
  local line
  for line in "$@"; do
    echo "   $line"
  done
  echo
}

demo_summary () {
  summary_lines+=("$*")
}

# Configures and builds with a progress line (meson's own output goes to
# $ROBOCACHE_BUILD/demo-build.log, printed when the build fails).
demo_build () {
  local log=$ROBOCACHE_BUILD/demo-build.log
  mkdir -p "$ROBOCACHE_BUILD"
  echo "== building robocache in $ROBOCACHE_BUILD (the first build takes" \
    "a minute or two)"
  if ! robocache_build "$ROBOCACHE_BUILD" > >(tee "$log" | awk -v tty="$([ -t 1 ] && echo 1)" '
      /^\[[0-9]+\/[0-9]+\]/ {
        match($0, /^\[[0-9]+\/[0-9]+\]/); step = substr($0, 2, RLENGTH - 2)
        split(step, n, "/"); what = substr($0, RLENGTH + 2)
        if (tty) printf "\r   %-7s %-60.60s", step, what
        else if (n[1] == n[2] || n[1] % 25 == 1) printf "   %-7s %s\n", step, what
        fflush()
      }
      /^The Meson build system/ { print "   configuring (meson setup)" }
      END { if (tty) printf "\r%-72s\r", "" }') 2>&1; then
    sleep 0.2
    echo "build failed; the end of $log:" >&2
    tail -30 "$log" >&2
    exit 1
  fi
  sleep 0.2
  echo "   built, $(grep -q "ROBOCACHE_HAVE_CUDA 1" "$ROBOCACHE_BUILD/gst/config.h" &&
    echo "with the CUDA path" || echo "CPU only (no nvcc, or -Dcuda=disabled)")"
}

# The backend robocache uses: what robocachevoxelize reports for one sweep.
demo_backend () {
  robocache_launch -m robocachelidarsrc num-buffers=1 points-per-sweep=1000 ! \
      robocachevoxelize post-messages=true ! fakesink 2>&1 |
    sed -n 's/.*backend=(string)\([a-z]*\).*/\1/p' | head -1
}

demo_lidar () {
  demo_header "lidar: a spinning lidar voxelized into a grid" \
    "robocachelidarsrc is-live=true ! robocachevoxelize mode=count ! fakesink" \
    "lidar:    131072 points a sweep (64 rings), 10 Hz, ${seconds} s, live" \
    "grid:     256 x 256 x 32 voxels of 0.2 m from (-25.6, -25.6, -3.2) m:" \
    "          51.2 x 51.2 x 6.4 m around the sensor (robocachevoxelize's default)" \
    "columns:  in-grid = points inside the grid; invalid = lost returns" \
    "          (NaN, no echo), never binned; occupied = voxels with a point"
  robocache_launch -m robocachelidarsrc is-live=true \
      num-buffers=$((seconds * 10)) ! \
      robocachevoxelize mode=count post-messages=true ! fakesink 2>&1 |
    robocache_sweeps | tee "$demo_out/lidar.txt"
  demo_summary "$(awk '/^sweep/ { n++; ms += $(NF - 3); be = $NF }
    END { if (n) printf "lidar:     %d sweeps voxelized, %.2f ms a sweep on %s", n, ms / n, be }' \
    "$demo_out/lidar.txt")"
}

demo_joints () {
  demo_header "joints: jittered joint states resampled onto a regular clock" \
    "robocachejointsrc is-live=true ! robocacheresample rate=100/1 method=linear" \
    "input:    joint states at 333 Hz, each up to 0.3 periods early or late," \
    "          5 % of them lost; 7 joints + an orientation quaternion" \
    "output:   one sample every 10 ms (100 Hz), each joint interpolated" \
    "          linearly between the input samples around it" \
    "shows:    joint j0 of a few output samples, with the input samples" \
    "          they were interpolated from (both recorded with" \
    "          robocachemcapsink, read back with rosdump)"
  local rec=$demo_out/joints.mcap
  rm -f "$rec"
  robocache_launch -q robocachejointsrc is-live=true rate=333/1 jitter=0.3 \
      dropout=0.05 quaternion=true num-buffers=$((seconds * 333)) ! \
      tee name=t \
    robocachemcapsink name=m location="$rec" base-time=1000000000 \
      sink_0::topic=/input sink_1::topic=/resampled \
    t. ! queue ! m.sink_0 \
    t. ! queue ! robocacheresample rate=100/1 method=linear ! m.sink_1
  "$ROBOCACHE_BUILD/tests/rosdump" "$rec" | python3 -c '
import json, sys
msgs = [json.loads(l) for l in sys.stdin][1:]
# Times from the first output sample (the live sources start a few ms
# after the pipeline does).
t0 = min(int(m["stamp"]) for m in msgs if m["topic"] == "/resampled")
t = lambda m: (int(m["stamp"]) - t0) / 1e9
raw = [(t(m), m["position"][0]) for m in msgs if m["topic"] == "/input"]
out = [(t(m), m["position"][0]) for m in msgs if m["topic"] == "/resampled"]
for k, (ts, v) in enumerate(out):
    if k < 5 or (k + 1) % 50 == 0:
        a = max([r for r in raw if r[0] <= ts] or [raw[0]])
        b = min([r for r in raw if r[0] >= ts] or [raw[-1]])
        print("resampled sample %4d  t=%.3f s  j0=%+.4f   from input t=%.4f s j0=%+.4f"
              " and t=%.4f s j0=%+.4f" % (k + 1, ts, v, a[0], a[1], b[0], b[1]))
print("%d input samples (%.0f Hz on average), %d samples out at 100 Hz"
      % (len(raw), (len(raw) - 1) / (raw[-1][0] - raw[0][0]), len(out)))
' | tee "$demo_out/joints.txt"
  demo_summary "$(sed -n 's/^\([0-9]*\) input samples.*, \([0-9]*\) samples out.*/joints:    \1 jittered samples resampled to \2 at 100 Hz/p' \
    "$demo_out/joints.txt")"
}

demo_fusion () {
  demo_header "fusion: camera + joints + lidar grid, one fused frame per tick" \
    "videotestsrc + robocachejointsrc + robocachelidarsrc ! robocachevoxelize ! robocachefuse rate=30/1" \
    "inputs:   camera I420 320 x 240 at 30 Hz; joint states at 200 Hz" \
    "          (jittered); lidar 10 Hz voxelized (occupancy, 256 x 256 x 32)" \
    "output:   30 fused frames a second; each holds the latest camera image" \
    "          (115200 bytes), joint state and voxel grid (2097152 bytes," \
    "          one byte a voxel) plus one flat float vector: about 2.2 MB" \
    "          (docs/media-types.md: the fused frame); the first frames," \
    "          before the first sweep (0.1 s), have no grid: 115 kB"
  "$here/fuse.sh" "$seconds" | tee "$demo_out/fusion.txt"
  demo_summary "$(sed -n 's/^\([0-9]*\) fused frames$/fusion:    \1 fused frames at 30 Hz (camera + joints + grid)/p' \
    "$demo_out/fusion.txt")"
}

demo_recording () {
  demo_header "recording: the sample ROS 1 bag replayed through voxelize and fuse" \
    "robocachebagsrc ! robocachevoxelize ... robocachefuse rate=10/1 (pipelines/mcap-replay.sh)" \
    "data:     $sample (pipelines/sample-data.sh): 3 s of lidar," \
    "          joints and camera, as ROS 1 bag, ROS 2 MCAP and KITTI files" \
    "pace:     as fast as possible (--fast); lidar voxelized on the default" \
    "          grid, fused with the joints at 10 Hz"
  "$here/sample-data.sh" "$sample" | sed 's/^/   /'
  echo
  "$here/mcap-replay.sh" "$sample/sample.bag" --fast | tee "$demo_out/recording.txt"
  demo_summary "$(sed -n 's/^\([0-9]*\) fused frames$/recording: \1 fused frames from the sample bag/p' \
    "$demo_out/recording.txt")"
}

demo_bev () {
  demo_header "bird's-eye view: the lidar seen from above, as a picture and a video" \
    "robocachelidarsrc ! robocachevoxelize ! robocachebev ! pngenc / vp8enc" \
    "picture:  512 x 512 RGBA from the 256 x 256 x 32 grid, x right, y up;" \
    "          colour = height of each column's highest point (blue -2.5 m" \
    "          .. red +2.5 m), grey rings every 10 m, white bar 10 m"
  "$here/bev.sh" "$demo_out" "$seconds" | tee "$demo_out/bev.txt"
  demo_summary "bev:       $demo_out/bev.png and $demo_out/bev.webm" \
    "(look at them)"
}

if [ -z "${DEMO_NO_SETUP:-}" ]; then
  robocache_install_missing
  demo_build
fi
robocache_env
demo_out=$ROBOCACHE_BUILD/demo
sample=${ROBOCACHE_SAMPLE_DATA:-$ROBOCACHE_BUILD/sample-data}
mkdir -p "$demo_out"
backend=$(demo_backend)
echo "== backend: ${backend:-unknown} ($([ "$backend" = gpu ] &&
  echo "a CUDA GPU was found" || echo "no usable CUDA GPU: the same results on the CPU"))"
start=$(date +%s)
# shellcheck disable=SC2206
[ -n "${DEMO_SECTIONS:-}" ] && demo_sections=($DEMO_SECTIONS)
for section in "${demo_sections[@]}"; do
  "demo_$section"
done

echo
echo "== summary ($(($(date +%s) - start)) s, backend ${backend:-unknown})"
for line in "${summary_lines[@]}"; do
  [ -n "$line" ] && echo "$line"
done
echo "files:     $demo_out (what the sections wrote), $sample (sample data)"
