#!/usr/bin/env bash
# Applications build with pkg-config robocache-1.0 alone, as docs/ros.md
# says: examples/embed.c and examples/array.c (which calls rc_array_free
# of librobocache-kernels-1.0) are compiled and linked with the build's
# uninstalled .pc file, then run; the .pc file to be installed must name
# the same libraries.
# Usage: pkgconfig.sh BUILD_ROOT SOURCE_ROOT CC...   (the plugin path in
# the env)
set -euo pipefail
build=$1
src=$2
shift 2
if ! command -v pkg-config > /dev/null; then
  echo "SKIP: pkg-config not found"; exit 77
fi
# GStreamer's development files (a machine with its libraries alone, as
# the GPU machine has them, cannot build an application).
if ! pkg-config --exists gstreamer-1.0 gstreamer-video-1.0 \
    gstreamer-app-1.0; then
  echo "SKIP: GStreamer's development files (gstreamer-1.0.pc," \
    "gstreamer-video-1.0.pc, gstreamer-app-1.0.pc) are not installed"
  exit 77
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

export PKG_CONFIG_PATH="$build/meson-uninstalled${PKG_CONFIG_PATH:+:$PKG_CONFIG_PATH}"
cflags=$(pkg-config --cflags robocache-1.0 gstreamer-app-1.0)
libs=$(pkg-config --libs robocache-1.0 gstreamer-app-1.0)
# The uninstalled .pc file gives -L but no run path.
ld_path=$(pkg-config --libs-only-L robocache-1.0 | sed 's/-L//g; s/ \+/:/g')

for prog in array embed; do
  # $cflags and $libs are word lists.
  # shellcheck disable=SC2086
  if ! "$@" -o "$tmp/$prog" "$src/tests/examples/$prog.c" $cflags $libs -lm \
      > "$tmp/$prog.log" 2>&1; then
    echo "$prog.c does not build with pkg-config robocache-1.0:"
    cat "$tmp/$prog.log"; exit 1
  fi
  if ! LD_LIBRARY_PATH="$ld_path${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" \
      "$tmp/$prog"; then
    echo "$prog built with pkg-config robocache-1.0 failed"; exit 1
  fi
done

# The installed .pc file: the same libraries, from the install prefix.
pc="$build/meson-private/robocache-1.0.pc"
for lib in -lrobocache-1.0 -lrobocache-kernels-1.0; do
  if ! grep -q -- "^Libs:.* $lib\( \|$\)" "$pc"; then
    echo "$pc does not link $lib:"; grep '^Libs' "$pc"; exit 1
  fi
done
echo "pkg-config robocache-1.0: array and embed built and ran"
