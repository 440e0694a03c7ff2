#!/usr/bin/env bash
# The whole test suite: installs what is missing, configures, builds and
# runs `meson test`.  Where the CUDA path is built, a second, CPU-only build
# (-Dcuda=disabled) is tested too, so that both configurations stay green.
# GPU tests report SKIP, with the reason in their log, on a machine without
# a GPU.  Extra arguments go to `meson test`.
set -euo pipefail
. "$(dirname "$0")/../pipelines/setup.sh"

robocache_install_missing
robocache_build "$ROBOCACHE_BUILD"
meson test -C "$ROBOCACHE_BUILD" --print-errorlogs "$@"

if grep -q "ROBOCACHE_HAVE_CUDA 1" "$ROBOCACHE_BUILD/gst/config.h"; then
  echo "robocache: testing the CPU-only build as well"
  robocache_build "$ROBOCACHE_BUILD-cpu" -Dcuda=disabled
  meson test -C "$ROBOCACHE_BUILD-cpu" --print-errorlogs "$@"
fi
