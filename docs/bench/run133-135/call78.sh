#!/bin/bash
# Session 2026-11-28 (thirteenth), call 78: the code to commit (streaming
# point loads; a mean's sums and counts in 32 MiB slabs; the division 8
# voxels a thread; clears in 16-byte stores from the first boundary).
# kernels_voxelize_gpu, memcheck over the mean's tests, every voxelize mode
# against HEAD (3f3bba5, .device/ms/head) alternated twice, the whole suite.
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
timeout 100 $B/tests/kernels_voxelize_gpu > $R/test-built.txt 2>&1; echo rc=$? >> $R/test-built.txt; pack test
echo "== test built"; grep -E "%|:F:|:E:|rc=" $R/test-built.txt
GST_CHECKS=test_mean_slabs,test_mean_scratch_reused,test_large_grids timeout 150 compute-sanitizer --tool memcheck --error-exitcode 9 $B/tests/kernels_voxelize_gpu > $R/memcheck.txt 2>&1; echo rc=$? >> $R/memcheck.txt; pack memcheck
echo "== memcheck"; grep -E "SUMMARY|%|rc=" $R/memcheck.txt | tail -3
for i in 1 2; do for T in head built; do
  LD_LIBRARY_PATH=$(lib $T) timeout 90 $B/tests/bench-kernels --sweep voxelize --runs 30 --json $R/all-$T-$i.json > $R/all-$T-$i.txt 2>&1; pack $T $i
done; done
grep -iE "differ|mismatch|error" $R/all-built-*.txt | head -3
echo "== all voxelize: head-1 built-1 head-2 built-2 (built/floor)"
paste <(grep -E "^sweep-voxelize" $R/all-head-1.txt | awk '{print $1, $2}') <(grep -E "^sweep-voxelize" $R/all-built-1.txt | awk '{print $2}') <(grep -E "^sweep-voxelize" $R/all-head-2.txt | awk '{print $2}') <(grep -E "^sweep-voxelize" $R/all-built-2.txt | awk '{print $2, $NF}')
timeout 260 meson test -C build --no-rebuild --num-processes 16 --print-errorlogs > $R/suite.log 2>&1; echo rc=$? >> $R/suite.log; pack suite
echo "== suite"; grep -E "^ *(Ok|Fail|Skipped|Timeout):|rc=" $R/suite.log; grep -E " FAIL | TIMEOUT " $R/suite.log | head -5
cat $R/timeline.txt
