#!/bin/bash
# Forty-third session, call 264, on two H200s.  Call 263: the fuse's copy
# of a 16 KiB grid from device 1, read back by a filesink, is clean under
# initcheck.  What elements-multigpu does beside: grids of the default
# 128^3 (8 MiB), two streams (one voxelized on each device), 8 sweeps of
# 32768 points, read back by the test after a map of the device side.
# Here the first two of those, one at a time, then together.
#   big-one-stream   8 MiB grids, voxelize on 1, fuse on 0
#   small-two        16 KiB grids, voxelize on 0 and on 1, fuse on 0
#   big-two          8 MiB grids, voxelize on 0 and on 1, fuse on 0
CALL_SECONDS=420 . docs/bench/call-lib.sh "$1"
export GST_PLUGIN_PATH_1_0=$B/gst GST_REGISTRY_1_0=/tmp/rc-registry.bin
src="robocachelidarsrc num-buffers=2 points-per-sweep=32768"
small="dims=<16,16,16> voxel-size=<5.0>"
cuda="other/x-robocache-voxels(memory:CUDAMemory)"
out="filesink location=/tmp/out.bin"
# fuse GRID DEVICE..: a stream of GRID properties voxelized on each DEVICE.
fuse () {
  local grid=$1 i=0 d
  shift
  echo "robocachefuse name=f backend=gpu cuda-device-id=0 rate=0/1 ! $out"
  for d in "$@"; do
    echo "$src seed=$((7 + i)) ! robocachevoxelize backend=gpu mode=count" \
      "$grid cuda-device-id=$d ! $cuda ! f.sink_$i"
    i=$((i + 1))
  done
}
declare -A cases=(
  [big-one-stream]="$(fuse "" 1)"
  [small-two]="$(fuse "$small" 0 1)"
  [big-two]="$(fuse "" 0 1)"
)
for name in big-one-stream small-two big-two; do
  desc=$(echo ${cases[$name]})
  echo "-- $name: $desc"
  gst-launch-1.0 -q $desc > /dev/null 2>&1
  echo "plain rc=$? bytes=$(stat -c %s /tmp/out.bin 2>/dev/null)"
  timeout 100 compute-sanitizer --tool initcheck --print-limit 2 \
    gst-launch-1.0 -q $desc 2>&1 |
    grep -E "Uninitialized|Host Frame: (copy|map|gst_robocache|rc_)|ERROR SUMMARY|ERROR:|rror" |
    head -12
  echo "rc=${PIPESTATUS[0]}"
  pack "$name"
done > "$R/pipelines.txt" 2>&1
cat "$R/pipelines.txt"
