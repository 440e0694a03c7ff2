#!/bin/bash
# Session 2026-11-28 (fourteenth), call 83: a marked mean lists its
# occupied voxels while binning and divides only those, several a thread
# (in place of a mask walked a word a thread).  kernels_voxelize_gpu;
# memcheck over the mean's tests; every voxelize mode against HEAD
# (c217717, .device/ms/head) alternated twice; the mean listed up to a
# point for 64 or 32 voxels (.device/ms/m64, m32); ncu of the mean's
# kernels at 16,384 and 131,072 points; the whole suite.
set -u
OUT=$1; B=$PWD/build
export GST_PLUGIN_PATH_1_0=$B/gst GST_REGISTRY_1_0=/tmp/reg.bin
export LD_LIBRARY_PATH=$B/gst:$B/kernels:${LD_LIBRARY_PATH:-}
export PYTHONPATH=$B/python:$PWD/tests/python
R=$OUT/r; mkdir -p $R
t0=$(date +%s)
pack () { echo "$(( $(date +%s) - t0 )) s: $*" >> $R/timeline.txt
  tar czf $OUT/r.$BASHPID -C $OUT r && mv $OUT/r.$BASHPID $OUT/r.tgz; }
nvidia-smi --query-gpu=name --format=csv,noheader | tee $R/gpu.txt
lib () { [ $1 = built ] && echo $LD_LIBRARY_PATH || echo $PWD/.device/ms/$1:$LD_LIBRARY_PATH; }
for T in built m32; do
  LD_LIBRARY_PATH=$(lib $T) timeout 100 $B/tests/kernels_voxelize_gpu > $R/test-$T.txt 2>&1; echo rc=$? >> $R/test-$T.txt
  echo "== test $T"; grep -E "%|:F:|:E:|rc=" $R/test-$T.txt
done; pack test
GST_CHECKS=test_mean_scratch_reused,test_modes_sizes_strides,test_odd_grid_several_clouds timeout 200 compute-sanitizer --tool memcheck --error-exitcode 9 $B/tests/kernels_voxelize_gpu > $R/memcheck.txt 2>&1; echo rc=$? >> $R/memcheck.txt; pack memcheck
echo "== memcheck"; grep -E "SUMMARY|%|rc=" $R/memcheck.txt | tail -3
P=16384,131072,262144,524288,1048576,2097152,4194304
for i in 1 2; do for T in head built; do
  LD_LIBRARY_PATH=$(lib $T) timeout 120 $B/tests/bench-kernels --sweep voxelize --modes count,occupancy,mean,centroids --points $P --runs 30 > $R/$T-$i.txt 2>&1; pack $T $i
done; done
echo "== head-1 built-1 head-2 built-2"
paste <(grep -E "^sweep-voxelize" $R/head-1.txt | awk '{print $1, $2}') <(grep -E "^sweep-voxelize" $R/built-1.txt | awk '{print $2}') <(grep -E "^sweep-voxelize" $R/head-2.txt | awk '{print $2}') <(grep -E "^sweep-voxelize" $R/built-2.txt | awk '{print $2, $NF}') | grep -v "cube-n131072.*cube"
M=131072,196608,262144,393216,524288
for i in 1 2; do for T in built m64 m32; do
  LD_LIBRARY_PATH=$(lib $T) timeout 60 $B/tests/bench-kernels --sweep voxelize --modes mean --points $M --runs 30 > $R/m-$T-$i.txt 2>&1; pack m $T $i
done; done
echo "== mean $M: built m64 m32, rounds 1 2"
for T in built m64 m32; do for i in 1 2; do echo "$T-$i $(grep -E "^sweep-voxelize-mean-256" $R/m-$T-$i.txt | awk '{printf "%s ", $2}')"; done; done
timeout 60 ncu --metrics gpu__time_duration.sum -k regex:"clear_outputs|bin_points|divide" --launch-count 9 $B/tests/bench-kernels --sweep voxelize --modes mean --points 16384 --runs 1 > $R/ncu-16384.txt 2>&1
timeout 60 ncu --metrics gpu__time_duration.sum -k regex:"clear_outputs|bin_points|divide" --launch-count 9 $B/tests/bench-kernels --sweep voxelize --modes mean --points 131072 --runs 1 > $R/ncu-131072.txt 2>&1
for N in 16384 131072; do echo "== ncu mean $N"; grep -E "^  [a-zA-Z_].*\(|gpu__time_duration" $R/ncu-$N.txt | awk '{print $1, $NF}' | tail -6 | tr '\n' ' '; echo; done; pack ncu
timeout 260 meson test -C build --no-rebuild --num-processes 16 --print-errorlogs > $R/suite.log 2>&1; echo rc=$? >> $R/suite.log; pack suite
echo "== suite"; grep -E "^ *(Ok|Fail|Skipped|Timeout):|rc=" $R/suite.log; grep -E " FAIL | TIMEOUT " $R/suite.log | head -5
cat $R/timeline.txt
