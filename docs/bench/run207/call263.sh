#!/bin/bash
# Forty-third session, call 263, on two H200s.  Call 262 showed the fuse's
# copies between devices write their bytes (the test can no longer pass
# without them) and initcheck clean on every read back tried in isolation.
# Here robocache's own pipelines, small (16^3 grids, 16 KiB), under
# initcheck through gst-launch-1.0, each ending in a filesink that reads
# every memory back to the host:
#   fuse-across   voxelize on 1, robocachefuse on 0 (the copy of run 206)
#   fuse-one      voxelize on 0, robocachefuse on 0 (no copy)
#   bev-across    voxelize on 1, robocachebev on 0 (the same copy, read by
#                 a kernel)
#   grid-on-1     voxelize on 1 straight to the filesink (device-1 memory
#                 read back on its own device)
CALL_SECONDS=300 . docs/bench/call-lib.sh "$1"
export GST_PLUGIN_PATH_1_0=$B/gst GST_REGISTRY_1_0=/tmp/rc-registry.bin
src="robocachelidarsrc num-buffers=2 points-per-sweep=4096 seed=7"
vox="robocachevoxelize backend=gpu mode=count dims=<16,16,16> voxel-size=<5.0>"
cuda="other/x-robocache-voxels(memory:CUDAMemory)"
out="filesink location=/tmp/out.bin"
fuse () {
  echo "robocachefuse name=f backend=gpu cuda-device-id=0 rate=0/1 ! $out" \
    "$src ! $vox cuda-device-id=$1 ! $cuda ! f.sink_0"
}
declare -A cases=(
  [fuse-across]="$(fuse 1)"
  [fuse-one]="$(fuse 0)"
  [bev-across]="$src ! $vox cuda-device-id=1 ! $cuda ! robocachebev backend=gpu cuda-device-id=0 width=64 height=64 ! $out"
  [grid-on-1]="$src ! $vox cuda-device-id=1 ! $cuda ! $out"
)
for name in fuse-across fuse-one bev-across grid-on-1; do
  echo "-- $name: ${cases[$name]}"
  gst-launch-1.0 -q ${cases[$name]} > /dev/null 2>&1
  echo "plain rc=$? bytes=$(stat -c %s /tmp/out.bin 2>/dev/null)"
  timeout 90 compute-sanitizer --tool initcheck --print-limit 2 \
    gst-launch-1.0 -q ${cases[$name]} 2>&1 |
    grep -E "Uninitialized|Host Frame: (copy|map|gst_robocache|rc_)|ERROR SUMMARY|ERROR:|rror" |
    head -12
  echo "rc=${PIPESTATUS[0]}"
done > "$R/pipelines.txt" 2>&1
pack pipelines
cat "$R/pipelines.txt"
