#!/bin/bash
# Thirty-fifth session, call 214: the whole suite on 88c7022, carried whole
# (the kernel library and build/tests packed into .device/), then the new
# test_quaternion_arc against a kernel library whose quaternion dot product
# nvcc may fuse (7a87814's resample-math.h: "mutarc"), memcheck over it,
# and the GPU comparison tests again on fresh random inputs (repeats).
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
