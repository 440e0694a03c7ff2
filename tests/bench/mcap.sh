#!/usr/bin/env bash
# Reading and decoding an MCAP recording of 131k-point sweeps (zstd), side
# by side with @mcap/core + Foxglove's CDR reader in Node.js on the same
# file: tests/mcap/write-samples.js --large writes it (100 sweeps of 131072
# points, 10 s of joints and four cameras, 1,520 messages, ~224 MB).
# Cases, each run RUNS times (default 5), the median printed:
#   node       tests/mcap/dump.js --bench: read + decode every message
#   decode     robocachemcapsrc, every played topic into fakesinks
#              (read, decompress, decode, buffers made)
#   voxelize   robocachemcapsrc topics=/points ! robocachevoxelize
#              backend=BACKEND (default cpu) ! fakesink
# MB/s is of the file (its size over the time), messages/s of the messages
# each case decodes.  Times are gst-launch's "Execution ended after" and
# Node's own clock: process start-up is not counted in either.
# Usage: tests/bench/mcap.sh [BUILD] [BACKEND] (RUNS=N in the environment)
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
build=$(cd "${1:-$root/build}" && pwd)
backend=${2:-cpu}
runs=${RUNS:-5}
export GST_PLUGIN_PATH_1_0=$build/gst GST_REGISTRY_1_0=$build/registry.bin
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

node "$root/tests/mcap/write-samples.js" "$tmp" --large --seed 1 >/dev/null
file=$tmp/large-zstd.mcap
size=$(stat -c %s "$file")

median () { sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }

# Seconds of a gst-launch run, from its "Execution ended after H:MM:SS.n".
launch_seconds () {
  gst-launch-1.0 -q "$@" 2>&1 >/dev/null || true
  gst-launch-1.0 "$@" 2>&1 | awk '/Execution ended after/ {
    split($4, t, ":"); print t[1] * 3600 + t[2] * 60 + t[3] }'
}

# The played topics and their message count.
topics=$("$build/tests/rosdump" --topics "$file" | python3 -c '
import json, sys
played = ("sensor_msgs/msg/PointCloud2", "sensor_msgs/msg/JointState",
          "sensor_msgs/msg/Image")
t = [x for x in json.load(sys.stdin)["topics"] if x["type"] in played]
print(",".join(x["name"] for x in t), sum(x["messages"] for x in t),
      sum(x["messages"] for x in t if x["name"] == "/points"))')
read -r names played_msgs point_msgs <<< "$topics"
n_topics=$(tr ',' '\n' <<< "$names" | wc -l)
sinks=""
for i in $(seq 0 $((n_topics - 1))); do
  sinks="$sinks m.src_$i ! queue ! fakesink"
done

node_s=$(for _ in $(seq "$runs"); do
  node "$root/tests/mcap/dump.js" --bench "$file" |
    python3 -c 'import json, sys; print(json.load(sys.stdin)["seconds"])'
done | median)
node_msgs=$(node "$root/tests/mcap/dump.js" --bench "$file" |
  python3 -c 'import json, sys; print(json.load(sys.stdin)["messages"])')
# shellcheck disable=SC2086
decode_s=$(for _ in $(seq "$runs"); do
  launch_seconds robocachemcapsrc name=m location="$file" topics="$names" \
    $sinks
done | median)
voxel_s=$(for _ in $(seq "$runs"); do
  launch_seconds robocachemcapsrc location="$file" topics=/points ! \
    robocachevoxelize backend="$backend" mode=count ! fakesink
done | median)

echo "file: $(basename "$file"), $size bytes, zstd; $runs runs each, medians"
printf "| case | s | MB/s of file | messages/s | vs node |\n"
printf "| --- | --- | --- | --- | --- |\n"
row () {
  awk -v name="$1" -v s="$2" -v n="$3" -v size="$size" -v base="$node_s" \
    'BEGIN { printf "| %s | %.3f | %.0f | %.0f (%d) | %.2fx |\n", name, s,
      size / 1e6 / s, n / s, n, base / s }'
}
row "node: @mcap/core + rosmsg2-serialization, every message" "$node_s" \
  "$node_msgs"
row "robocachemcapsrc, every played topic" "$decode_s" "$played_msgs"
row "robocachemcapsrc ! robocachevoxelize backend=$backend (/points)" \
  "$voxel_s" "$point_msgs"
