# Sourced by tests/run.sh and pipelines/demo.sh: installs what is missing
# (Debian/Ubuntu packages), then configures and builds robocache in
# $ROBOCACHE_BUILD (default: build/).  The CUDA path is built when nvcc is
# found; the plugin then still runs on machines without a GPU.

ROBOCACHE_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
ROBOCACHE_BUILD=${ROBOCACHE_BUILD:-$ROBOCACHE_ROOT/build}

robocache_packages="meson ninja-build pkg-config gcc libglib2.0-dev
libgstreamer1.0-dev libgstreamer-plugins-base1.0-dev
libgstreamer-plugins-bad1.0-dev gstreamer1.0-tools gstreamer1.0-plugins-base
gstreamer1.0-plugins-good gstreamer1.0-plugins-bad"

robocache_install_missing () {
  local missing="" pkg sudo=""
  for pkg in $robocache_packages ${ROBOCACHE_EXTRA_PACKAGES:-}; do
    dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "ok installed" ||
      missing="$missing $pkg"
  done
  [ -z "$missing" ] && return 0
  if [ "$(id -u)" != 0 ]; then
    sudo=sudo
  fi
  echo "robocache: installing$missing"
  $sudo env DEBIAN_FRONTEND=noninteractive apt-get update -qq
  # shellcheck disable=SC2086
  $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
    --no-install-recommends $missing
}

# nvcc is often installed outside PATH.
if ! command -v nvcc >/dev/null 2>&1 && [ -x /usr/local/cuda/bin/nvcc ]; then
  export PATH=/usr/local/cuda/bin:$PATH
fi

robocache_build () {
  local dir=${1:-$ROBOCACHE_BUILD}
  shift || true
  if [ ! -f "$dir/build.ninja" ]; then
    meson setup "$dir" "$ROBOCACHE_ROOT" "$@"
  fi
  meson compile -C "$dir"
}

robocache_env () {
  export GST_PLUGIN_PATH_1_0="${1:-$ROBOCACHE_BUILD}/gst"
  export GST_REGISTRY_1_0="${1:-$ROBOCACHE_BUILD}/registry.bin"
}
