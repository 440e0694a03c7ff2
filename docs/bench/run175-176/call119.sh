#!/bin/bash
# Twenty-first session (2026-11-28): counts and occupancy of large clouds
# sorted into buckets of voxels (voxelize-sort.cu, the built library)
# against b8bf378 (base, atomics in the grid); "forced" sorts from 65,536
# points in any grid.  kernels_voxelize_gpu; test_counts_sorted on a
# mutant (a run counted as one point), which must fail; the count and
# occupancy sweep from 524,288 to 4,194,304 points, base, built, forced,
# base, built; memcheck over test_counts_sorted.
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
timeout 150 $B/tests/kernels_voxelize_gpu > $R/voxelize-gpu.txt 2>&1; echo rc=$? >> $R/voxelize-gpu.txt
grep -E "seed|Checks|rc=|:F:|:E:" $R/voxelize-gpu.txt | head; pack test
timeout 30 $B/tests/kernels_voxelize > $R/voxelize-cpu.txt 2>&1; echo rc=$? >> $R/voxelize-cpu.txt
GST_CHECKS=test_counts_sorted LD_LIBRARY_PATH=$(lib mut) timeout 60 $B/tests/kernels_voxelize_gpu > $R/mutant.txt 2>&1; echo rc=$? >> $R/mutant.txt
echo "== mutant"; grep -E "Checks|rc=|differ" $R/mutant.txt | head -3; pack mutant
for T in base built forced base built; do
  n=$(ls $R/sweep-$T-*.json 2>/dev/null | wc -l); n=$((n+1))
  LD_LIBRARY_PATH=$(lib $T) timeout 60 $B/tests/bench-kernels --sweep voxelize --modes count,occupancy --points 524288,1048576,2097152,4194304 --runs 20 --json $R/sweep-$T-$n.json > $R/sweep-$T-$n.txt 2>&1; echo rc=$? >> $R/sweep-$T-$n.txt; pack bench $T $n
done
for f in $R/sweep-*.txt; do echo "== $f"; grep -E "^sweep-voxelize" $f | awk '{print $1, $2, $NF}'; tail -1 $f; done
GST_CHECKS=test_counts_sorted timeout 170 compute-sanitizer --tool memcheck --error-exitcode 9 $B/tests/kernels_voxelize_gpu > $R/memcheck.txt 2>&1; echo rc=$? >> $R/memcheck.txt; pack memcheck
grep -E "seed|SUMMARY|Checks|rc=|:F:" $R/memcheck.txt
cat $R/timeline.txt
