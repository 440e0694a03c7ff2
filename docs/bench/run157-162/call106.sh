#!/bin/bash
# Eighteenth session (2026-11-28), run 162: a sorted mean of four features
# with records of eight floats (a whole 32-byte sector a point's write) in
# s8, against the built library's four: kernels_voxelize_gpu's
# test_mean_sorted with each, then the mean sweep at 524,288, 1,048,576 and
# 4,194,304 points, alternated twice.
set -u
OUT=$1; B=$PWD/build
export LD_LIBRARY_PATH=$B/gst:$B/kernels:${LD_LIBRARY_PATH:-}
BASE_LD=$LD_LIBRARY_PATH
R=$OUT/r; mkdir -p $R
V=/tmp/vars; mkdir -p $V && tar xJf .device/s8.tar.xz -C $V
lib () { [ $1 = built ] && echo $BASE_LD || echo $V/ms/$1:$BASE_LD; }
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $R/gpu.txt
for T in built s8; do
  LD_LIBRARY_PATH=$(lib $T) GST_CHECKS=test_mean_sorted timeout 60 $B/tests/kernels_voxelize_gpu > $R/test-$T.txt 2>&1; echo rc=$? >> $R/test-$T.txt
  grep -E "Checks|rc=" $R/test-$T.txt
done
for round in 1 2; do for T in built s8; do
  LD_LIBRARY_PATH=$(lib $T) timeout 40 $B/tests/bench-kernels --sweep voxelize --modes mean --points 524288,1048576,4194304 --runs 20 > $R/mean-$T-$round.txt 2>&1; echo rc=$? >> $R/mean-$T-$round.txt
done; done
for f in $R/mean-*.txt; do echo "== $f"; grep -E "^sweep-voxelize-mean-xyzi" $f | awk '{print $1, $2, $NF}'; done
