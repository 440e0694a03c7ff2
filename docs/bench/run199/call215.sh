#!/bin/bash
# Thirty-fifth session, call 215: why test_quaternion_arc failed in call
# 214 with 88c7022's library too.  The probe (arc_probe.cu, built here)
# runs the slerp's steps on the GPU for four of the test's pairs; the test
# again on call 214's seed; the SASS of the float kernels' dot products.
CALL_SECONDS=200 . docs/bench/call-lib.sh "$1"
.device/arc_probe > $R/arc-probe.txt 2>&1; echo rc=$? >> $R/arc-probe.txt
cat $R/arc-probe.txt
ROBOCACHE_TEST_SEED=961116689 GST_CHECKS=test_quaternion_arc timeout 60 \
  $B/tests/kernels_resample_gpu > $R/test-arc-seed.txt 2>&1
echo rc=$? >> $R/test-arc-seed.txt
tail -3 $R/test-arc-seed.txt
ldd $B/tests/kernels_resample_gpu | grep robocache
cuobjdump -sass -fun '_ZN44_GLOBAL__N__f585598f_11_resample_cu_4a801e8f15resample_kernelIfLi4ELb1ELb0EEEv18rc_resample_paramsPKlPKT_S3_PS4_j' \
  $B/kernels/librobocache-kernels-1.0.so.0 > $R/sass-f4-groups-linear.txt 2>&1
cuobjdump -sass .device/arc_probe > $R/sass-probe.txt 2>&1
wc -l $R/sass-*.txt
grep -c FFMA $R/sass-f4-groups-linear.txt
pack probe
