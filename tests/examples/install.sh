#!/usr/bin/env bash
# An installed copy works from wherever its prefix lies: `meson install`
# into a staging folder (as packagers do), the prefix then moved
# elsewhere, and used from there with nothing of the build: the plugin's,
# librobocache-1.0's and robocache_node's run paths are relative to
# themselves ($ORIGIN, no absolute path: a system install carries none),
# gst-inspect-1.0 loads the plugin from the moved folder alone, and the
# Python package finds its libraries and plugin without LD_LIBRARY_PATH.
# Usage: install.sh BUILD_ROOT
set -euo pipefail
build=$1
for tool in meson readelf gst-inspect-1.0; do
  if ! command -v "$tool" > /dev/null; then
    echo "SKIP: $tool not found"; exit 77
  fi
done
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

prefix=$(meson introspect --buildoptions "$build" | python3 -c '
import json, sys
print({o["name"]: o["value"] for o in json.load(sys.stdin)}["prefix"])')
meson install -C "$build" --no-rebuild --quiet --destdir "$tmp/stage" \
  > "$tmp/install.log" 2>&1 || { cat "$tmp/install.log"; exit 1; }
mv "$tmp/stage$prefix" "$tmp/moved"
moved=$tmp/moved

plugin=$(find "$moved" -name libgstrobocache.so -path '*gstreamer-1.0*')
lib=$(find "$moved" -name 'librobocache-1.0.so.*.*')
[ -n "$plugin" ] && [ -n "$lib" ] || { echo "plugin or library not installed"; exit 1; }
for f in "$plugin" "$lib" $(find "$moved" -name robocache_node -type f); do
  runpath=$(readelf -d "$f" | sed -n 's/.*\(RUNPATH\|RPATH\).*\[\(.*\)\]/\2/p')
  case "$runpath" in
    '$ORIGIN'*) ;;
    *) echo "$f: run path \"$runpath\", not relative to \$ORIGIN"; exit 1 ;;
  esac
done

# Nothing of the build: no LD_LIBRARY_PATH, only the moved plugin folder.
clean=(env -u LD_LIBRARY_PATH -u GST_PLUGIN_PATH -u GST_PLUGIN_PATH_1_0
  -u ROBOCACHE_LIBRARY -u ROBOCACHE_KERNELS_LIBRARY)
"${clean[@]}" GST_REGISTRY_1_0="$tmp/registry.bin" \
  GST_PLUGIN_SYSTEM_PATH_1_0= GST_PLUGIN_PATH_1_0="$(dirname "$plugin")" \
  gst-inspect-1.0 robocachevoxelize > "$tmp/inspect.log" 2>&1 ||
  { echo "the moved plugin does not load:"; cat "$tmp/inspect.log"; exit 1; }

# The package is pure Python: any python3 with numpy imports it.
package=$(find "$moved" -name _config.py -path '*robocache*' -print -quit)
python=
for p in /usr/bin/python3 python3; do
  if "$p" -c 'import numpy' 2> /dev/null; then python=$p; break; fi
done
if [ -z "$package" ]; then
  echo "no Python package installed (no python3 at configure time)"
elif [ -z "$python" ]; then
  echo "the Python package not tried: no python3 with numpy"
else
  "${clean[@]}" GST_REGISTRY_1_0="$tmp/registry-py.bin" \
    PYTHONPATH="$(dirname "$(dirname "$package")")" "$python" -c '
import os, numpy as np, robocache
assert robocache.__file__.startswith(os.environ["PYTHONPATH"]), robocache.__file__
points = np.random.default_rng(3).uniform(-1, 1, (1000, 4)).astype(np.float32)
grid = robocache.voxelize(points, 0.5, (-1, -1, -1), (4, 4, 4))
assert int(grid.sum()) == 1000, grid.sum()
with robocache.Pipeline("robocachelidarsrc num-buffers=2 points-per-sweep=64 "
                        "! robocachevoxelize backend=cpu ! appsink name=out sync=false",
                        device="cpu") as p:
    assert len([s.array for s in p]) == 2
' || { echo "the moved Python package does not work"; exit 1; }
  echo "the moved Python package found its libraries and plugin"
fi
echo "installed into $prefix, moved, and used from there"
