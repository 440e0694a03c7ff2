#!/bin/bash
# Thirty-eighth session, call 230: the whole suite on the session's code
# (the kernels' check of the GPU's architecture at start, the default
# cuda-architectures 75;80;90, fuse's copies without cp.async before
# sm_80), carried whole; then the kernel and CUDA element tests again with
# the kernel libraries of .device/fvars.tar.xz built for sm_75 alone and
# sm_80 alone (their PTX compiled by the driver for this GPU, so that the
# code paths for GPUs before Hopper and before Ampere run here); then a
# library built for sm_100 alone, which this GPU cannot run: what
# gst-launch and Python say.
CALL_SECONDS=560 . docs/bench/call-lib.sh "$1"
meson_tests all
cp "$B/meson-logs/testlog.txt" "$R/all-testlog.txt"

gpu_tests="kernels_voxelize_gpu kernels_resample_gpu kernels_fuse_gpu
  kernels_sparse_gpu kernels_bev_gpu kernels_convert_gpu elements_cuda
  elements_gpufaults"
for l in sm75 sm80; do
  for t in $gpu_tests; do
    LD_LIBRARY_PATH=$(lib $l) timeout 300 "$B/tests/$t" \
      > "$R/$l-$t.txt" 2>&1 &
  done
done
for l in sm75 sm80; do
  for t in $gpu_tests; do
    wait -n
  done
done
wait
for l in sm75 sm80; do
  for t in $gpu_tests; do
    echo "$l $t: $(grep -m1 'cuda-architectures' "$R/$l-$t.txt")" \
      "$(grep -E '^[0-9]+%: Checks' "$R/$l-$t.txt" | tail -n 1)"
  done
done | tee "$R/archs-summary.txt"
pack "sm75 sm80"

export GST_PLUGIN_PATH=$B/gst
{
  for backend in gpu auto; do
    echo "== robocachevoxelize backend=$backend, kernels for sm_100 alone"
    LD_LIBRARY_PATH=$(lib sm100) timeout 60 gst-launch-1.0 -m \
      robocachelidarsrc num-buffers=3 ! \
      robocachevoxelize backend=$backend ! fakesink 2>&1 |
      grep -E "ERROR|WARNING|Additional debug|rebuild|Got EOS|sm_" | head -n 12
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
  echo "== kernels_voxelize_gpu, kernels for sm_100 alone"
  LD_LIBRARY_PATH=$(lib sm100) timeout 60 "$B/tests/kernels_voxelize_gpu" \
    2>&1 | tail -n 4
} > "$R/sm100.txt" 2>&1
cat "$R/sm100.txt"
pack sm100
cat $R/timeline.txt
