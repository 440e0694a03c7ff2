#!/bin/bash
# Session 2026-11-28 (thirteenth), call 77: streaming point loads and a
# mean's slabs (built: 48 MiB), against HEAD (3f3bba5), 32 MiB mean slabs
# and no mean slabs (.device/ms/*).  kernels_voxelize_gpu (one assertion a
# grid now); per-kernel times of the mean (ncu); the mean and count sweep
# alternated twice; every voxelize mode at the default sizes, built
# against HEAD; memcheck over the mean slabs' test.
set -u
OUT=$1; B=$PWD/build
export LD_LIBRARY_PATH=$B/gst:$B/kernels:${LD_LIBRARY_PATH:-}
R=$OUT/r; mkdir -p $R
t0=$(date +%s)
pack () { echo "$(( $(date +%s) - t0 )) s: $*" >> $R/timeline.txt
  tar czf $OUT/r.$BASHPID -C $OUT r && mv $OUT/r.$BASHPID $OUT/r.tgz; }
nvidia-smi --query-gpu=name --format=csv,noheader | tee $R/gpu.txt
lib () { [ $1 = built ] && echo $LD_LIBRARY_PATH || echo $PWD/.device/ms/$1:$LD_LIBRARY_PATH; }
timeout 120 $B/tests/kernels_voxelize_gpu > $R/test-built.txt 2>&1; echo rc=$? >> $R/test-built.txt; pack test
echo "== test built"; grep -E "%|:F:|:E:|rc=" $R/test-built.txt
for T in built head; do for P in 300000 4194304; do
  LD_LIBRARY_PATH=$(lib $T) timeout 60 ncu --metrics gpu__time_duration.sum -k regex:"clear_outputs|bin_points|divide" --launch-count 24 $B/tests/bench-kernels --sweep voxelize --modes mean --points $P --runs 1 > $R/ncu-$T-$P.txt 2>&1
  echo "== ncu $T $P"; grep -E "^  [a-z_]+.*\(|gpu__time_duration" $R/ncu-$T-$P.txt | sed -E 's/\(([0-9]+, ){2}[0-9]+\)x\(.*//' | paste - - | awk '{print $1, $(NF)}' | tail -8
done; done; pack ncu
P=300000,524288,1048576,2097152,4194304
for i in 1 2; do
  for T in head built s32 moff; do
    LD_LIBRARY_PATH=$(lib $T) timeout 60 $B/tests/bench-kernels --sweep voxelize --modes mean,count --points $P --runs 50 > $R/$T-$i.txt 2>&1; pack $T $i
  done
done
for M in mean count; do echo "== $M: head built(48) s32 moff, rounds 1 2"
for T in head built s32 moff; do for i in 1 2; do echo "$T-$i $(grep -E "^sweep-voxelize-$M-256" $R/$T-$i.txt | awk '{printf "%s ", $2}')"; done; done; done
grep -iE "differ|mismatch|error" $R/*-1.txt | head -3
for T in head built; do LD_LIBRARY_PATH=$(lib $T) timeout 90 $B/tests/bench-kernels --sweep voxelize --runs 20 > $R/all-$T.txt 2>&1; done; pack all
echo "== all voxelize: head | built"
paste <(grep -E "^sweep-voxelize" $R/all-head.txt | awk '{print $1, $2}') <(grep -E "^sweep-voxelize" $R/all-built.txt | awk '{print $2, $NF}')
GST_CHECKS=test_mean_slabs timeout 110 compute-sanitizer --tool memcheck --error-exitcode 9 $B/tests/kernels_voxelize_gpu > $R/memcheck.txt 2>&1; echo rc=$? >> $R/memcheck.txt; pack memcheck
echo "== memcheck"; grep -E "SUMMARY|%|rc=" $R/memcheck.txt | tail -3
cat $R/timeline.txt
