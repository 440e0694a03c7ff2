#!/bin/bash
# Thirty-fifth session, call 216: the whole suite on a build configured
# afresh through kernels/nvcc-depfile.sh (every CUDA object compiled from
# the current headers: call 214's resample.cu object was stale), carried
# whole (the kernel library and build/tests packed into .device/); then
# test_quaternion_arc against a kernel library of 7a87814's
# resample-math.h ("mutarc", its dot products fused), memcheck over it,
# and the GPU comparison tests three times more on fresh random inputs.
CALL_SECONDS=420 . docs/bench/call-lib.sh "$1"
meson_tests all
LD_LIBRARY_PATH=$(lib mutarc) GST_CHECKS=test_quaternion_arc timeout 60 \
  $B/tests/kernels_resample_gpu > $R/test-mutarc.txt 2>&1
echo rc=$? >> $R/test-mutarc.txt
tail -3 $R/test-mutarc.txt
pack mutarc
sanitize memcheck kernels_resample_gpu test_quaternion_arc
timeout 150 meson test -C "$B" --no-rebuild --print-errorlogs --repeat 3 \
  elements-bev kernels-resample-gpu kernels-sparse-gpu kernels-fuse-gpu \
  python-kernels-gpu python-pipeline-gpu > $R/meson-repeat.txt 2>&1
echo rc=$? >> $R/meson-repeat.txt
pack "meson repeat"
grep -E "^Ok:|^Fail:|^Skipped:| FAIL |rc=" $R/meson-repeat.txt
cat $R/timeline.txt
