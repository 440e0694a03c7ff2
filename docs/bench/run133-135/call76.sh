#!/bin/bash
# Session 2026-11-28 (thirteenth), call 76: a mean's sums and counts in
# slabs (MEAN_SLAB_BYTES; built 48 MiB, variants off/24/32/64 MiB and
# streaming point loads in .device/ms/*).  kernels_voxelize_gpu on the
# built library; the mean sweep from 300,000 points and the count sweep,
# alternated twice; memcheck over the mean slabs' test.
set -u
OUT=$1; B=$PWD/build
export LD_LIBRARY_PATH=$B/gst:$B/kernels:${LD_LIBRARY_PATH:-}
R=$OUT/r; mkdir -p $R
t0=$(date +%s)
pack () { echo "$(( $(date +%s) - t0 )) s: $*" >> $R/timeline.txt
  tar czf $OUT/r.$BASHPID -C $OUT r && mv $OUT/r.$BASHPID $OUT/r.tgz; }
nvidia-smi --query-gpu=name --format=csv,noheader | tee $R/gpu.txt
lib () { [ $1 = built ] && echo $LD_LIBRARY_PATH || echo $PWD/.device/ms/$1:$LD_LIBRARY_PATH; }
timeout 200 $B/tests/kernels_voxelize_gpu > $R/test-built.txt 2>&1; echo rc=$? >> $R/test-built.txt; pack test
echo "== test built"; grep -E "%|:F:|:E:|rc=" $R/test-built.txt
LD_LIBRARY_PATH=$(lib ldcs) GST_CHECKS=test_large_grids,test_mean_slabs timeout 150 $B/tests/kernels_voxelize_gpu > $R/test-ldcs.txt 2>&1; echo rc=$? >> $R/test-ldcs.txt
echo "== test ldcs"; grep -E "%|:F:|:E:|rc=" $R/test-ldcs.txt
P=300000,524288,1048576,2097152,4194304
for i in 1 2; do
  for T in off built s24 s32 s64 ldcs; do
    LD_LIBRARY_PATH=$(lib $T) timeout 60 $B/tests/bench-kernels --sweep voxelize --modes mean,count --points $P --runs 50 > $R/$T-$i.txt 2>&1; pack $T $i
  done
done
for M in mean count; do
echo "== $M sweep: off built(48) 24 32 64 ldcs (round 1 | round 2)"
for T in off built s24 s32 s64 ldcs; do for i in 1 2; do echo "$T-$i $(grep -E "^sweep-voxelize-$M-256" $R/$T-$i.txt | awk '{printf "%s ", $2}')"; done; done
done
grep -iE "differ|mismatch|error" $R/*-1.txt | head -3
grep -E "^sweep-voxelize-mean-256" $R/built-1.txt | head -2
GST_CHECKS=test_mean_slabs timeout 250 compute-sanitizer --tool memcheck --error-exitcode 9 $B/tests/kernels_voxelize_gpu > $R/memcheck.txt 2>&1; echo rc=$? >> $R/memcheck.txt; pack memcheck
echo "== memcheck"; grep -E "SUMMARY|%|rc=" $R/memcheck.txt | tail -3
cat $R/timeline.txt
