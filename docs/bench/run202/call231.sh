#!/bin/bash
# Thirty-eighth session, call 231: call 230 again after its findings.  The
# host now takes the kernels' own architecture (the PTX they were compiled
# from) for the choices their code must match, not the device's: with a
# library for sm_75 or sm_80 alone the driver compiles that PTX for this
# GPU, and the host had chosen Hopper's record layouts and dependent
# launches, which that code does not have (call 230: 5 voxelize checks
# failed with each).  test_kernel_image sees the warning as it is posted.
# The element tests of the sm_75 and sm_80 libraries run through meson
# this time (call 230 ran them without the plugin path).
CALL_SECONDS=560 . docs/bench/call-lib.sh "$1"
meson_tests all
cp "$B/meson-logs/testlog.txt" "$R/all-testlog.txt"

for l in new sm75 sm80 sm100; do
  f=$B/kernels/librobocache-kernels-1.0.so.0
  [ $l = new ] || f=$V/ms/$l/librobocache-kernels-1.0.so.0
  echo "$l: kernels major $(python3 -c '
import ctypes, sys
k = ctypes.CDLL(sys.argv[1])
m = ctypes.c_int()
print(k.rc_kernels_compute_major(ctypes.byref(m)), m.value)' "$f")"
done | tee "$R/majors.txt"

gpu_tests="kernels-voxelize-gpu kernels-resample-gpu kernels-fuse-gpu
  kernels-sparse-gpu kernels-bev-gpu kernels-convert-gpu elements-cuda
  elements-gpufaults elements-voxelize elements-pillars python-kernels-gpu"
for l in sm75 sm80; do
  LD_LIBRARY_PATH=$(lib $l) ROBOCACHE_KERNELS_LIBRARY=$V/ms/$l/librobocache-kernels-1.0.so.0 \
    timeout 330 meson test -C "$B" --no-rebuild --print-errorlogs \
    --logbase "$l" $gpu_tests > "$R/meson-$l.txt" 2>&1 &
done
wait
for l in sm75 sm80; do
  cp "$B/meson-logs/$l.txt" "$R/$l-testlog.txt"
  echo "== $l: $(grep -c "cuda-architectures '${l#sm}'" "$R/$l-testlog.txt")" \
    "tests said they ran its kernels"
  grep -E "^ *[0-9]+/[0-9]+ |^Ok:|^Fail:|^Skipped:" "$R/meson-$l.txt"
done | tee "$R/archs-summary.txt"
pack "sm75 sm80"

export GST_PLUGIN_PATH=$B/gst
{
  for backend in gpu auto; do
    echo "== robocachevoxelize backend=$backend, kernels for sm_100 alone"
    LD_LIBRARY_PATH=$(lib sm100) timeout 60 gst-launch-1.0 \
      robocachelidarsrc num-buffers=3 ! \
      robocachevoxelize backend=$backend ! fakesink 2>&1 |
      grep -E "ERROR|WARNING|rebuild|Got EOS|sm_" | head -n 12
    echo "rc=${PIPESTATUS[0]}"
  done
  echo "== Python on a torch CUDA tensor, kernels for sm_100 alone"
  ROBOCACHE_KERNELS_LIBRARY=$V/ms/sm100/librobocache-kernels-1.0.so.0 \
    PYTHONPATH=$B/python timeout 60 python3 -c '
import torch, robocache
p = torch.rand(1000, 4, device="cuda") * 10
try:
    robocache.voxelize(p, voxel_size=0.5, origin=0, dims=20)
    print("no error")
except robocache.RobocacheError as e:
    print("RobocacheError:", e)
' 2>&1 | tail -n 3
} > "$R/sm100.txt" 2>&1
cat "$R/sm100.txt"
pack sm100
cat $R/timeline.txt
