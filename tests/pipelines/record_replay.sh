#!/usr/bin/env bash
# pipelines/record.sh -> pipelines/replay.sh and pipelines/kitti.sh, with
# the plugin of the build under test (meson's GST_PLUGIN_PATH_1_0):
# - a 1 s recording holds exactly 10 lidar sweeps, 200 joint samples and
#   30 camera frames, and replays them with the same values (compared with
#   the deterministic sources run again, not live) and the same timestamps;
# - replaying twice as fast as possible gives byte-identical fused frames
#   and timestamps, on the CPU and, where one is usable, on the GPU; at the
#   recorded speed too, taking about the recorded time;
# - kitti.sh processes a generated 3-sweep folder, fast and at 10 Hz.
# Usage: record_replay.sh SOURCE_ROOT
set -euo pipefail
. "$(dirname "$0")/prelude.sh" "$@"
robocache_env "$ROBOCACHE_BUILD"

# list OUT SRC...: runs "SRC ! identity ! filesink location=OUT" (one
# stream, one thread) and prints one line per buffer: pts, duration, bytes.
list () {
  local out=$1
  shift
  robocache_launch -v "$@" ! identity name=buf silent=false ! \
      filesink location="$out" 2>&1 |
    awk '/GstIdentity:buf: last-message = chain/ {
      match($0, /pts: [0-9:.]+/); pts = substr($0, RSTART + 5, RLENGTH - 5)
      match($0, /duration: [0-9:.]+/); dur = substr($0, RSTART + 10, RLENGTH - 10)
      match($0, /\([0-9]+ bytes/); bytes = substr($0, RSTART + 1, RLENGTH - 7)
      print pts, dur, bytes }
      /ERROR/ { print > "/dev/stderr" }'
}

echo "== record 1 s"
"$root/pipelines/record.sh" "$tmp/rec" 1
rec=$tmp/rec

echo "== round trip: values and timestamps"
# The recorded streams against the same sources run again, not live: the
# same bytes, durations and timestamps, the latter moved by one constant
# (a live source starts at the running time it was started at).
for s in lidar joints camera; do
  case $s in
    lidar) ref=(robocachelidarsrc num-buffers=10) ;;
    joints) ref=(robocachejointsrc rate=200/1 jitter=0.2 num-buffers=200) ;;
    camera) ref=(videotestsrc num-buffers=30 !
      "video/x-raw,format=I420,width=320,height=240,framerate=30/1") ;;
  esac
  list "$tmp/$s.ref" "${ref[@]}" > "$tmp/$s.ref.txt"
  list "$tmp/$s.raw" filesrc location="$rec/$s.gdp" ! gdpdepay \
    > "$tmp/$s.txt"
  cmp "$tmp/$s.raw" "$tmp/$s.ref" || fail "$s: replayed values differ"
  # The live start may lag by ROBOCACHE_START_SLACK_NS (0.5 s; the valgrind
  # setup, whose programs start slowly, allows more).
  paste -d " " "$tmp/$s.ref.txt" "$tmp/$s.txt" | awk -v s=$s \
    -v slack="${ROBOCACHE_START_SLACK_NS:-500000000}" '
    function ns(t,  a, b) { split(t, a, ":"); split(a[3], b, ".")
      return ((a[1] * 60 + a[2]) * 60 + b[1]) * 1e9 + b[2] }
    NR == 1 { shift = ns($4) - ns($1)
      if (shift < 0 || shift > slack) { print s ": starts at " $4; bad = 1 } }
    $4 == "" || ns($4) - ns($1) != shift || $2 != $5 || $3 != $6 {
      print s ": buffer " NR ": " $0; bad = 1; exit }
    END { exit bad }' ||
    fail "$s: replayed timestamps differ from the recorded ones"
  n=$(wc -l < "$tmp/$s.txt")
  [ "$n" = "$(wc -l < "$tmp/$s.ref.txt")" ] || fail "$s: $n buffers"
  [ "$(grep -c "^$s " "$rec/index.txt")" = "$n" ] || fail "$s: index.txt"
  echo "$s: $n buffers, same bytes, durations and timestamps" \
    "(from $(head -c 17 "$tmp/$s.txt"))"
done

# replay BACKEND TAG [--fast]: the fused frames to $tmp/TAG.bin(.pts).
replay () {
  local backend=$1 tag=$2
  shift 2
  "$root/pipelines/replay.sh" "$rec" --backend "$backend" \
    --out "$tmp/$tag.bin" "$@" | tail -n 1
  if [ ! -s "$tmp/$tag.bin" ] || [ ! -s "$tmp/$tag.bin.pts" ]; then
    fail "$tag: no fused frames"
  fi
}
same () {
  [ "$(cd "$tmp" && sha256sum < "$1.bin")" = \
    "$(cd "$tmp" && sha256sum < "$2.bin")" ] ||
    fail "$1 and $2: fused frames differ"
  cmp -s "$tmp/$1.bin.pts" "$tmp/$2.bin.pts" ||
    fail "$1 and $2: fused timestamps differ"
  rm "$tmp/$2.bin"
}

echo "== determinism: CPU"
replay cpu cpu-a --fast
replay cpu cpu-b --fast
same cpu-a cpu-b
echo "CPU: two fast replays identical ($(sha256sum < "$tmp/cpu-a.bin" | cut -c1-16)...)"
start=$(date +%s%N)
replay cpu cpu-sync
took=$((($(date +%s%N) - start) / 1000000))
same cpu-a cpu-sync
[ "$took" -ge 800 ] || fail "replay at recorded speed took $took ms"
echo "CPU: recorded speed ($took ms) gives the same frames"

echo "== determinism: GPU"
if robocache_launch -q robocachelidarsrc num-buffers=1 points-per-sweep=64 ! \
    robocachevoxelize backend=gpu ! fakesink > /dev/null 2>&1; then
  replay gpu gpu-a --fast
  replay gpu gpu-b --fast
  same gpu-a gpu-b
  echo "GPU: two fast replays identical"
else
  echo "GPU case skipped: no usable GPU (robocachevoxelize backend=gpu fails)"
fi

echo "== KITTI folder"
mkdir "$tmp/kitti"
for i in 0 1 2; do
  robocache_launch -q robocachelidarsrc num-buffers=1 seed=$i \
    points-per-sweep=$((4000 + 500 * i)) ! \
    filesink location="$tmp/kitti/00000$i.bin"
done
for mode in --fast ""; do
  start=$(date +%s%N)
  # shellcheck disable=SC2086
  "$root/pipelines/kitti.sh" "$tmp/kitti" --backend cpu $mode > "$tmp/kitti.out"
  took=$((($(date +%s%N) - start) / 1000000))
  cat "$tmp/kitti.out"
  [ -n "$mode" ] || [ "$took" -ge 250 ] || fail "kitti.sh at 10 Hz took $took ms"
  grep -qx "3 sweeps" "$tmp/kitti.out" || fail "kitti.sh $mode: not 3 sweeps"
  grep -q "sweep    2  points=5000 " "$tmp/kitti.out" ||
    fail "kitti.sh $mode: third sweep not 5000 points"
done
echo "PASS"
