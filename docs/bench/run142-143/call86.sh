#!/bin/bash
# Session 2026-11-28 (fifteenth), call 86, an H200: the change as it will
# be committed (a mean divided whole binned uncounted, its division
# counting the occupied voxels; means listed up to 1/32; launch bounds on
# the binning kernels).  The whole suite; memcheck over the voxelize
# tests that take every path; every voxelize mode, 25500a8 (h255) against
# built, alternated twice; the mean's slabs of 48 and 64 MiB against
# built's 32.
set -u
OUT=$1; B=$PWD/build
export GST_PLUGIN_PATH_1_0=$B/gst GST_REGISTRY_1_0=/tmp/reg.bin
export LD_LIBRARY_PATH=$B/gst:$B/kernels:${LD_LIBRARY_PATH:-}
export PYTHONPATH=$B/python:$PWD/tests/python
R=$OUT/r; mkdir -p $R
t0=$(date +%s)
pack () { echo "$(( $(date +%s) - t0 )) s: $*" >> $R/timeline.txt
  tar czf $OUT/r.$BASHPID -C $OUT r && mv $OUT/r.$BASHPID $OUT/r.tgz; }
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader | tee $R/gpu.txt
timeout 280 meson test -C build --no-rebuild --print-errorlogs > $R/suite.txt 2>&1; echo rc=$? >> $R/suite.txt
echo "== suite"; grep -E "^Ok:|^Fail:|^Skipped:|^Timeout:|rc=|FAIL|SKIP" $R/suite.txt | head -30; pack suite
GST_CHECKS=test_modes_sizes_strides,test_mean_scratch_reused,test_odd_grid_several_clouds timeout 200 compute-sanitizer --tool memcheck --error-exitcode 9 $B/tests/kernels_voxelize_gpu > $R/memcheck.txt 2>&1; echo rc=$? >> $R/memcheck.txt; pack memcheck
echo "== memcheck"; grep -E "SUMMARY|%|rc=" $R/memcheck.txt | tail -3
lib () { [ $1 = built ] && echo $LD_LIBRARY_PATH || echo $PWD/.device/ms/$1:$LD_LIBRARY_PATH; }
P=16384,131072,262144,393216,524288,1048576,2097152,4194304
for i in 1 2; do for T in h255 built; do
  LD_LIBRARY_PATH=$(lib $T) timeout 120 $B/tests/bench-kernels --sweep voxelize --modes count,occupancy,mean,centroids --points $P --runs 30 > $R/$T-$i.txt 2>&1; pack $T $i
done; done
echo "== h255-1 built-1 h255-2 built-2 ratio(built-2)"
paste <(grep -E "^sweep-voxelize" $R/h255-1.txt | awk '{print $1, $2}') <(grep -E "^sweep-voxelize" $R/built-1.txt | awk '{print $2}') <(grep -E "^sweep-voxelize" $R/h255-2.txt | awk '{print $2}') <(grep -E "^sweep-voxelize" $R/built-2.txt | awk '{print $2, $NF}')
M=524288,1048576,2097152,4194304
for i in 1 2; do for T in built s48 s64; do
  LD_LIBRARY_PATH=$(lib $T) timeout 60 $B/tests/bench-kernels --sweep voxelize --modes mean --points $M --runs 30 > $R/m-$T-$i.txt 2>&1; pack m $T $i
done; done
echo "== mean $M: built(32 MiB) s48 s64, rounds 1 2"
for T in built s48 s64; do for i in 1 2; do echo "$T-$i $(grep -E "^sweep-voxelize-mean-256" $R/m-$T-$i.txt | awk '{printf "%s ", $2}')"; done; done
cat $R/timeline.txt
