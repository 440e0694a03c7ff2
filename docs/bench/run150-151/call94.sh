#!/bin/bash
# Sixteenth session (2026-11-28), issue 23: counts and occupancy with the
# warp's points that share a voxel added in one atomic ("wagg", built with
# -DWARP_AGGREGATE=1) against the library as built, on uniform clouds and
# on lidar sweeps shuffled, ring by ring and column by column (new series
# of bench-kernels' voxelize sweep); alternated twice.  kernels_voxelize_gpu
# with wagg first.
set -u
OUT=$1; B=$PWD/build
R=$OUT/r; mkdir -p $R
BASE_LD=${LD_LIBRARY_PATH:-}
t0=$(date +%s)
pack () { echo "$(( $(date +%s) - t0 )) s: $*" >> $R/timeline.txt
  tar czf $OUT/r.$BASHPID -C $OUT r && mv $OUT/r.$BASHPID $OUT/r.tgz; }
lib () { [ $1 = built ] && echo $B/kernels:$BASE_LD || echo $PWD/.device/ms/$1:$B/kernels:$BASE_LD; }
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $R/gpu.txt
LD_LIBRARY_PATH=$(lib wagg) timeout 60 $B/tests/kernels_voxelize_gpu > $R/test-wagg.txt 2>&1; echo rc=$? >> $R/test-wagg.txt; pack test
tail -2 $R/test-wagg.txt
for i in 1 2; do
  for T in built wagg; do
    LD_LIBRARY_PATH=$(lib $T) timeout 90 $B/tests/bench-kernels --sweep voxelize --modes count,occupancy --points 131072,1048576,4194304 --runs 30 --json $R/$T-$i.json > $R/$T-$i.txt 2>&1; echo rc=$? >> $R/$T-$i.txt; pack $T $i
  done
done
grep -h "rc=" $R/*.txt | sort | uniq -c; cat $R/timeline.txt
