#!/usr/bin/env bash
# The project's scripts never hang on a refused pipeline: points caps
# without z, refused by robocachevoxelize, run through robocache_launch
# (pipelines/setup.sh) again and again, each under a hard time limit.
# Usage: refused_caps.sh SOURCE_ROOT [RUNS]   (the plugin path in the env)
set -euo pipefail
root=$1
runs=${2:-30}
. "$root/pipelines/setup.sh"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
head -c 1600 /dev/urandom > "$tmp/points.bin"

for i in $(seq 1 "$runs"); do
  status=0
  timeout 30 bash -c '. "$1/pipelines/setup.sh"; robocache_launch -q \
      filesrc location="$2" ! \
      "other/x-robocache-points,point-step=16,fields=\"x:float32:0,y:float32:4\"" ! \
      robocachevoxelize backend=cpu ! fakesink' _ "$root" "$tmp/points.bin" \
    > "$tmp/out.log" 2>&1 || status=$?
  if [ "$status" = 124 ]; then
    echo "run $i: hung"; cat "$tmp/out.log"; exit 1
  fi
  if [ "$status" = 0 ]; then
    echo "run $i: refused caps did not fail"; cat "$tmp/out.log"; exit 1
  fi
  n=$(grep -c "robocachevoxelize0: points caps fields" "$tmp/out.log" || true)
  if [ "$n" != 1 ]; then
    echo "run $i: the refusal was posted $n times"; cat "$tmp/out.log"; exit 1
  fi
done
echo "$runs runs: each refused once, none hung"
