# Sourced by tests/run.sh and pipelines/demo.sh: installs what is missing
# (Debian/Ubuntu packages), then configures and builds robocache in
# $ROBOCACHE_BUILD (default: build/).  The CUDA path is built when nvcc is
# found; the plugin then still runs on machines without a GPU.

ROBOCACHE_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
ROBOCACHE_BUILD=${ROBOCACHE_BUILD:-$ROBOCACHE_ROOT/build}

robocache_packages="meson ninja-build pkg-config gcc libglib2.0-dev
libgstreamer1.0-dev libgstreamer-plugins-base1.0-dev
libgstreamer-plugins-bad1.0-dev gstreamer1.0-tools gstreamer1.0-plugins-base
gstreamer1.0-plugins-good gstreamer1.0-plugins-bad
libbz2-dev liblz4-dev libzstd-dev libdeflate-dev libsqlite3-dev zlib1g-dev lz4
python3 python3-numpy
python3-rosbag python3-sensor-msgs"

# Optional: the ROS 1 node (gst/ros/) and its test, from Debian's ROS
# packages, and Slurm with munge for the dataset builder's Slurm test
# (which starts daemons of its own; docs/dataset.md).  Tried after the
# required ones; where they cannot be installed (no such packages, no
# root) the build leaves the node out and those tests report SKIP.
# ROBOCACHE_OPTIONAL_PACKAGES="" skips the attempt.
ROBOCACHE_OPTIONAL_PACKAGES=${ROBOCACHE_OPTIONAL_PACKAGES-"g++ ros-core
libroscpp-dev libsensor-msgs-dev libstd-msgs-dev python3-rospy
python3-rostopic python3-sensor-msgs slurm-wlm munge"}

robocache_install_missing () {
  local missing="" pkg sudo=""
  for pkg in $robocache_packages ${ROBOCACHE_EXTRA_PACKAGES:-}; do
    dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "ok installed" ||
      missing="$missing $pkg"
  done
  if [ -z "$missing" ]; then
    robocache_install_optional
    return 0
  fi
  if [ "$(id -u)" != 0 ]; then
    sudo=sudo
  fi
  echo "robocache: installing$missing"
  $sudo env DEBIAN_FRONTEND=noninteractive apt-get update -qq
  # shellcheck disable=SC2086
  $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
    --no-install-recommends $missing
  robocache_install_optional
}

# Node.js and the npm packages of tests/mcap (third-party MCAP writers and
# readers the tests check robocache against).  Node comes from Debian when
# no node/npm is installed.  Where the packages cannot be fetched (no
# network) the tests that need them report SKIP; under CI that is an error.
robocache_install_node () {
  local dir=$ROBOCACHE_ROOT/tests/mcap sudo=""
  if ! command -v npm >/dev/null || ! command -v node >/dev/null; then
    [ "$(id -u)" != 0 ] && sudo=sudo
    echo "robocache: installing nodejs npm"
    $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
      --no-install-recommends nodejs npm
  fi
  [ -d "$dir/node_modules/@mcap/core" ] && return 0
  echo "robocache: installing the npm packages of tests/mcap"
  if ! (cd "$dir" && npm ci --no-audit --no-fund --loglevel=error); then
    echo "robocache: npm packages not installed; MCAP tests against" \
      "third-party writers will SKIP"
    [ -n "${CI:-}" ] && return 1
  fi
  return 0
}

# Never fails: what cannot be installed is reported and left out.
# Arguments: the packages (default $ROBOCACHE_OPTIONAL_PACKAGES) and what
# goes without them.
robocache_install_optional () {
  local missing="" pkg sudo=""
  local packages=${1-$ROBOCACHE_OPTIONAL_PACKAGES}
  local without=${2-"the ROS node is not built; its test and the Slurm \
test report SKIP"}
  for pkg in $packages; do
    dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "ok installed" ||
      missing="$missing $pkg"
  done
  [ -z "$missing" ] && return 0
  if [ "$(id -u)" != 0 ]; then
    sudo="sudo -n"
  fi
  echo "robocache: installing optional$missing"
  # shellcheck disable=SC2086
  if ! $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
      --no-install-recommends $missing >/dev/null 2>&1; then
    echo "robocache: optional packages not installed:$missing ($without)"
  fi
  return 0
}

# For the tests only (tests/run.sh), not the set-up of a robot: Debian's
# CPU build of PyTorch, so that robocache.RecordingDataset, the training
# example and the torch paths of the package are tested here too (on the
# CPU; CUDA tensors are tested on a GPU machine with its own torch).
# ROBOCACHE_TEST_PACKAGES="" skips it.
ROBOCACHE_TEST_PACKAGES=${ROBOCACHE_TEST_PACKAGES-"python3-torch"}

# nvcc is often installed outside PATH.
if ! command -v nvcc >/dev/null 2>&1 && [ -x /usr/local/cuda/bin/nvcc ]; then
  export PATH=/usr/local/cuda/bin:$PATH
fi

robocache_build () {
  local dir=${1:-$ROBOCACHE_BUILD}
  shift || true
  if [ ! -f "$dir/build.ninja" ]; then
    # Meson before 1.4 gives nvcc no depfile to write, so that an edited
    # kernel header would not rebuild the CUDA objects: a machine file runs
    # nvcc through kernels/nvcc-depfile.sh, which writes it.
    local native=() older
    older=$(printf '%s\n' "$(meson --version)" 1.4 | sort -V | head -n 1)
    if command -v nvcc >/dev/null 2>&1 && [ "$older" != 1.4 ]; then
      mkdir -p "$dir"
      printf "[binaries]\ncuda = ['%s', 'nvcc']\n" \
        "$ROBOCACHE_ROOT/kernels/nvcc-depfile.sh" > "$dir/nvcc-depfile.ini"
      native=(--native-file "$dir/nvcc-depfile.ini")
    fi
    # With GPUs here, machine code for theirs alone (about half the
    # default list's compile time); without, the default list.
    local archs
    archs=$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader \
      2>/dev/null | tr -d '. ' | grep -E '^[0-9]+$' | sort -un |
      paste -sd ';') || archs=
    if [ -n "$archs" ] && [[ " $* " != *cuda-architectures* ]]; then
      set -- "$@" "-Dcuda-architectures=$archs"
    fi
    meson setup "${native[@]}" "$dir" "$ROBOCACHE_ROOT" "$@"
  fi
  meson compile -C "$dir"
}

robocache_env () {
  export GST_PLUGIN_PATH_1_0="${1:-$ROBOCACHE_BUILD}/gst"
  export GST_REGISTRY_1_0="${1:-$ROBOCACHE_BUILD}/registry.bin"
}

# gst-launch-1.0 that cannot hang after an error.  When two elements post
# errors during preroll (an element refusing caps, then the source's
# not-negotiated), gst-launch-1.0 1.22 now and then waits forever instead of
# exiting; the scripts stop it a few seconds after its first error line.
# Same arguments and output as gst-launch-1.0; fails when it printed an
# error.
robocache_launch () {
  local log pid status=0 ticks=-1
  local grace=$((${ROBOCACHE_ERROR_GRACE:-3} * 10))
  log=$(mktemp)
  gst-launch-1.0 "$@" 2> >(tee "$log" >&2) &
  pid=$!
  while kill -0 "$pid" 2>/dev/null; do
    if [ "$ticks" -lt 0 ] && grep -q '^ERROR: ' "$log"; then
      ticks=0
    fi
    if [ "$ticks" -ge 0 ] && [ $((ticks += 1)) -gt "$grace" ]; then
      kill -INT "$pid" 2>/dev/null && sleep 1
      kill -KILL "$pid" 2>/dev/null
      break
    fi
    sleep 0.1
  done
  wait "$pid" || status=$?
  if [ "$status" = 0 ] && grep -q '^ERROR: ' "$log"; then
    status=1
  fi
  rm -f "$log"
  return "$status"
}

# Reads gst-launch -v output with an "identity name=fused silent=false"
# after robocachefuse: prints the first frames and every 30th (pts and
# size) and a count, or with an argument every frame as "pts duration
# bytes"; warnings and errors pass through.
robocache_fused_frames () {
  awk -v all="$1" '/GstIdentity:fused: last-message = chain/ {
    n++; match($0, /pts: [0-9:.]+/); pts = substr($0, RSTART + 5, RLENGTH - 5)
    match($0, /duration: [0-9:.]+/); dur = substr($0, RSTART + 10, RLENGTH - 10)
    match($0, /\([0-9]+ bytes/); bytes = substr($0, RSTART + 1, RLENGTH - 7)
    if (all) print pts, dur, bytes
    else if (n <= 3 || n % 30 == 0)
      printf "fused frame %4d  pts %s  %s bytes\n", n, pts, bytes
  }
  /^(ERROR|WARNING)[: ]/ { print }
  END { if (!all) printf "%d fused frames\n", n }'
}

# Reads a meson testlog.txt: one line per skipped test (exit status 77),
# the reason it printed ("SKIP: no usable CUDA device (...)" gives "no
# usable CUDA device"), or "no reason given".
robocache_skip_reasons () {
  [ -f "$1" ] || return 0
  awk 'function flush() { if (skipped) print (reason != "" ? reason : "no reason given") }
    /^test: / { flush(); skipped = 0; reason = "" }
    /^result: .*exit status 77/ { skipped = 1 }
    /^SKIP: / && reason == "" { reason = substr($0, 7); sub(/ \(.*$/, "", reason) }
    END { flush() }' "$1"
}

# The first python3 that has rosbag and sensor_msgs (Debian's, in
# /usr/bin, before one of a virtual environment); nothing if none has.
robocache_python_rosbag () {
  local p
  for p in /usr/bin/python3 python3; do
    if "$p" -c "import rosbag, sensor_msgs.msg" 2>/dev/null; then
      echo "$p"
      return 0
    fi
  done
}

# Reads gst-launch -m output with robocachevoxelize post-messages=true: one
# line per sweep, "sweep t=<s>" (or with an argument "sweep <n>"), the
# point, in-grid, invalid and occupied counts, time and backend; warnings
# and errors pass through.
robocache_sweeps () {
  awk -v numbered="${1:-}" '/robocachevoxelize, / {
    line = $0; sub(/.*robocachevoxelize, /, "", line);
    n = split(line, kv, ", ");
    for (i = 1; i <= n; i++) {
      split(kv[i], p, "="); v = p[2]; sub(/^\([a-z0-9]+\)/, "", v);
      sub(/;$/, "", v); f[p[1]] = v
    }
    if (numbered) printf "sweep %4d", sweeps++
    else printf "sweep t=%6.3fs", f["timestamp"] / 1e9
    printf "  points=%d  in-grid=%d  invalid=%d  occupied=%d  %.2f ms on %s\n",
      f["points"], f["in-grid"], f["invalid"], f["occupied"],
      f["processing-time"] / 1e6, f["backend"]
  }
  /^(ERROR|WARNING)[: ]/ { print }
  END { if (numbered) printf "%d sweeps\n", sweeps }'
}
