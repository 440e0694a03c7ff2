#!/bin/bash
# Session 2026-11-28 (thirteenth), call 79: the committed code's
# kernels_voxelize_gpu; a mean marked only up to a point for 128 voxels
# (.device/ms/m128: slabs from 131,073 points; m128n: slabs from 262,145),
# tested and swept against the built library, alternated twice; ncu's
# per-kernel times of a marked mean, centroids and occupancy.
set -u
OUT=$1; B=$PWD/build
export LD_LIBRARY_PATH=$B/gst:$B/kernels:${LD_LIBRARY_PATH:-}
R=$OUT/r; mkdir -p $R
t0=$(date +%s)
pack () { echo "$(( $(date +%s) - t0 )) s: $*" >> $R/timeline.txt
  tar czf $OUT/r.$BASHPID -C $OUT r && mv $OUT/r.$BASHPID $OUT/r.tgz; }
nvidia-smi --query-gpu=name --format=csv,noheader | tee $R/gpu.txt
lib () { [ $1 = built ] && echo $LD_LIBRARY_PATH || echo $PWD/.device/ms/$1:$LD_LIBRARY_PATH; }
for T in built m128; do
  LD_LIBRARY_PATH=$(lib $T) timeout 60 $B/tests/kernels_voxelize_gpu > $R/test-$T.txt 2>&1; echo rc=$? >> $R/test-$T.txt
  echo "== test $T"; grep -E "%|:F:|:E:|rc=" $R/test-$T.txt
done; pack tests
P=131072,196608,262144,300000,524288
for i in 1 2; do for T in built m128 m128n; do
  LD_LIBRARY_PATH=$(lib $T) timeout 40 $B/tests/bench-kernels --sweep voxelize --modes mean --points $P --runs 30 > $R/$T-$i.txt 2>&1; pack $T $i
done; done
echo "== mean: built m128 m128n, rounds 1 2 ($P)"
for T in built m128 m128n; do for i in 1 2; do echo "$T-$i $(grep -E "^sweep-voxelize-mean-256" $R/$T-$i.txt | awk '{printf "%s ", $2}')"; done; done
for C in mean:262144 centroids:4194304 occupancy:4194304; do
  timeout 40 ncu --metrics gpu__time_duration.sum,dram__throughput.avg.pct_of_peak_sustained_elapsed,lts__t_sectors_op_atom.sum,lts__t_sectors_op_red.sum -k regex:"clear_outputs|bin_points|divide|scan_tiles|write_centroids" --launch-count 10 $B/tests/bench-kernels --sweep voxelize --modes ${C%%:*} --points ${C##*:} --runs 1 > $R/ncu-${C%%:*}.txt 2>&1
  echo "== ncu $C"; grep -E "^  [a-zA-Z_].*\(|gpu__time_duration|dram__throughput|lts__t_sectors" $R/ncu-${C%%:*}.txt | awk '{print $1, $NF}' | tail -25 | tr '\n' ' ' | sed 's/ void / \nvoid /g; s/ \([a-z_]*\)(/\n\1(/g'; echo
done; pack ncu
cat $R/timeline.txt
