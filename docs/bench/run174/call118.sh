#!/bin/bash
# Twentieth session (2026-11-28): means divided whole (a lidar region's)
# summed over each warp's runs of points in one voxel, as the centroids
# since cd0ef91 (bin_point_run, the built library), against 8113d5e
# (base): the mean sweep at 1,048,576 and 4,194,304 points (256^3
# uniform, and the KITTI region in 0.2 m voxels from lidar points in no
# order, ring by ring and column by column), base, built, base, built;
# kernels_voxelize_gpu; test_scan_order on a mutant (a run's count one
# too many), which must fail; memcheck over test_scan_order.
set -u
OUT=$1; B=$PWD/build
export LD_LIBRARY_PATH=$B/gst:$B/kernels:${LD_LIBRARY_PATH:-}
BASE_LD=$LD_LIBRARY_PATH
R=$OUT/r; mkdir -p $R
t0=$(date +%s)
pack () { echo "$(( $(date +%s) - t0 )) s: $*" >> $R/timeline.txt
  tar czf $OUT/r.$BASHPID -C $OUT r && mv $OUT/r.$BASHPID $OUT/r.tgz; }
V=/tmp/vars; mkdir -p $V && tar xJf .device/fvars.tar.xz -C $V
lib () { [ $1 = built ] && echo $BASE_LD || echo $V/ms/$1:$BASE_LD; }
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $R/gpu.txt
for round in 1 2; do for T in base built; do
  LD_LIBRARY_PATH=$(lib $T) timeout 40 $B/tests/bench-kernels --sweep voxelize --modes mean --points 1048576,4194304 --runs 20 --json $R/mean-$T-$round.json > $R/mean-$T-$round.txt 2>&1; echo rc=$? >> $R/mean-$T-$round.txt; pack bench $T $round
done; done
for round in 1 2; do for T in base built; do echo "== $T $round"; grep -E "^sweep-voxelize-mean" $R/mean-$T-$round.txt | awk '{print $1, $2, $NF}'; done; done
timeout 90 $B/tests/kernels_voxelize_gpu > $R/voxelize-gpu.txt 2>&1; echo rc=$? >> $R/voxelize-gpu.txt
grep -E "seed|Checks|rc=|:F:|:E:" $R/voxelize-gpu.txt | head; pack test
GST_CHECKS=test_scan_order LD_LIBRARY_PATH=$(lib mut) timeout 40 $B/tests/kernels_voxelize_gpu > $R/mutant.txt 2>&1; echo rc=$? >> $R/mutant.txt
echo "== mutant"; grep -E "Checks|rc=|differ" $R/mutant.txt | head -3; pack mutant
GST_CHECKS=test_scan_order timeout 60 compute-sanitizer --tool memcheck --error-exitcode 9 $B/tests/kernels_voxelize_gpu > $R/memcheck.txt 2>&1; echo rc=$? >> $R/memcheck.txt; pack memcheck
grep -E "seed|SUMMARY|Checks|rc=|:F:" $R/memcheck.txt
cat $R/timeline.txt
