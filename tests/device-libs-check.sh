#!/usr/bin/env bash
# Stops a GPU-machine call at once when the build's libraries cannot load
# there, instead of letting every test that loads the plugin fail for its
# whole run: lists what the dynamic linker does not find for the plugin
# and robocache's libraries under BUILD, and exits 1 with the fix when
# anything is missing.  The usual cause is a .device prepared without
# libdeflate (the MCAP CRCs) or libsqlite3 (rosbag2's SQLite storage),
# which the GPU machine may lack:
#   EXTRA_DEBS="libdeflate0 libsqlite3-0" ../shared/device/prepare.sh
# Usage (after `. .device/gst-env.sh`): tests/device-libs-check.sh BUILD
set -u
build=${1:?usage: $0 BUILD}
missing=$(for lib in "$build"/gst/libgstrobocache.so \
    "$build"/gst/librobocache-1.0.so "$build"/kernels/librobocache-kernels-1.0.so; do
  [ -e "$lib" ] || { echo "$lib(no-such-file)"; continue; }
  LD_LIBRARY_PATH=$build/gst:$build/kernels:${LD_LIBRARY_PATH:-} ldd "$lib" |
    awk '/not found/ { print $1 }'
done | sort -u)
if [ -n "$missing" ]; then
  echo "device-libs-check: not found on this machine:" $missing >&2
  echo "device-libs-check: prepare .device again with the packages that" \
    "hold them (EXTRA_DEBS=\"libdeflate0 libsqlite3-0\"" \
    "../shared/device/prepare.sh), then call again" >&2
  exit 1
fi
echo "device-libs-check: every library of the plugin found"
