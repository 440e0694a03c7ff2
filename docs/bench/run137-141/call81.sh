#!/bin/bash
# Session 2026-11-28 (fourteenth), call 81: did the centroids' records
# change count, occupancy or the mean?  HEAD (c217717, .device/ms/head)
# against the built library, alternated twice; and a probe (nosum: the
# mean's binning without its feature atomics, wrong results, timing only)
# for what one atomic a point instead of two would leave.
set -u
OUT=$1; B=$PWD/build
export LD_LIBRARY_PATH=$B/gst:$B/kernels:${LD_LIBRARY_PATH:-}
R=$OUT/r; mkdir -p $R
t0=$(date +%s)
pack () { echo "$(( $(date +%s) - t0 )) s: $*" >> $R/timeline.txt
  tar czf $OUT/r.$BASHPID -C $OUT r && mv $OUT/r.$BASHPID $OUT/r.tgz; }
nvidia-smi --query-gpu=name --format=csv,noheader | tee $R/gpu.txt
lib () { [ $1 = built ] && echo $LD_LIBRARY_PATH || echo $PWD/.device/ms/$1:$LD_LIBRARY_PATH; }
P=131072,262144,524288,1048576,2097152,4194304
for i in 1 2; do for T in head built nosum; do
  LD_LIBRARY_PATH=$(lib $T) timeout 90 $B/tests/bench-kernels --sweep voxelize --modes count,occupancy,mean --points $P --runs 30 > $R/$T-$i.txt 2>&1; pack $T $i
done; done
echo "== head-1 built-1 nosum-1 head-2 built-2 nosum-2"
paste <(grep -E "^sweep-voxelize.*256cube" $R/head-1.txt | awk '{print $1, $2}') <(grep -E "^sweep-voxelize.*256cube" $R/built-1.txt | awk '{print $2}') <(grep -E "^sweep-voxelize.*256cube" $R/nosum-1.txt | awk '{print $2}') <(grep -E "^sweep-voxelize.*256cube" $R/head-2.txt | awk '{print $2}') <(grep -E "^sweep-voxelize.*256cube" $R/built-2.txt | awk '{print $2}') <(grep -E "^sweep-voxelize.*256cube" $R/nosum-2.txt | awk '{print $2}')
for T in built nosum; do
  LD_LIBRARY_PATH=$(lib $T) timeout 40 ncu --metrics gpu__time_duration.sum,lts__t_sectors_op_atom.sum,lts__t_sectors_op_red.sum -k regex:"clear_outputs|bin_points|divide" --launch-count 12 $B/tests/bench-kernels --sweep voxelize --modes mean --points 131072,4194304 --runs 1 > $R/ncu-$T.txt 2>&1
  echo "== ncu mean $T"; grep -E "^  [a-zA-Z_].*\(|gpu__time_duration" $R/ncu-$T.txt | awk '{print $1, $NF}' | tr '\n' ' ' | sed 's/ void / \nvoid /g; s/ \([a-z_]*\)(/\n\1(/g'; echo
done; pack ncu
cat $R/timeline.txt
