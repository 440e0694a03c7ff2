#!/usr/bin/env bash
# pipelines/mcap-replay.sh with the plugin of the build under test: without
# a recording it records 3 s of the synthetic sensors as a rosbag2 folder
# (robocachemcapsink) and replays it: 30 fused frames at 10 Hz, each with
# a voxel grid; the same frames at the recorded pace, taking about the
# recorded time; a folder holding files of both formats is refused, saying
# so.
# Usage: mcap_replay.sh SOURCE_ROOT
set -euo pipefail
. "$(dirname "$0")/prelude.sh" "$@"

echo "== record and replay, fast"
"$root/pipelines/mcap-replay.sh" --fast | tee "$tmp/fast"
grep -q "^30 fused frames$" "$tmp/fast" || fail "not 30 fused frames"
grep -q "/velodyne_points .* 30 messages" "$tmp/fast" ||
  fail "the recording does not hold 30 sweeps"
grep -q "fused frame   30  pts 0:00:02.900000000  2097208 bytes" \
  "$tmp/fast" || fail "frame 30 is not at 2.9 s with a grid"

echo "== the same recording at the recorded pace"
demo=$ROBOCACHE_BUILD/mcap-demo
start=$(date +%s%N)
"$root/pipelines/mcap-replay.sh" "$demo" --points /velodyne_points \
  --joints /joint_states | tee "$tmp/paced"
took=$(( ($(date +%s%N) - start) / 1000000 ))
diff <(grep "fused frame" "$tmp/fast") <(grep "fused frame" "$tmp/paced") ||
  fail "paced frames differ from the fast ones"
[ "$took" -ge 2500 ] || fail "paced replay took $took ms for 2.9 s"

echo "== a folder of .mcap and .bag files is refused"
mkdir "$tmp/two"
cp "$demo"/*.mcap "$tmp/two/a.mcap"
cp "$demo"/*.mcap "$tmp/two/b.bag"
if "$root/pipelines/mcap-replay.sh" "$tmp/two" --points /velodyne_points \
    --joints /joint_states --fast > "$tmp/two.log" 2>&1; then
  fail "a folder of .mcap and .bag files played"
fi
grep -q "both .mcap and .bag files" "$tmp/two.log" ||
  fail "$(cat "$tmp/two.log")"
echo "PASS"
