#!/bin/bash
# Twenty-second session, call 126: occupancy reading a voxel's byte (from
# the L2 cache, after the clear) before its atomic, so that the points of
# an already marked voxel skip it ("mark", mark.diff) against a52dda8
# ("base", its kernels those of 111a3f5): kernels_voxelize_gpu on mark;
# the same on a mutant that skips unmarked voxels instead (must fail);
# memcheck over mark's test; the occupancy sweep (uniform cube, a lidar
# sweep in it, the KITTI region in three orders; 16,384 to 4 million
# points), base, mark, base, mark.
set -u
OUT=$1; B=$PWD/build
export LD_LIBRARY_PATH=$B/gst:$B/kernels:${LD_LIBRARY_PATH:-}
BASE_LD=$LD_LIBRARY_PATH
R=$OUT/r; mkdir -p $R
t0=$(date +%s)
pack () { echo "$(( $(date +%s) - t0 )) s: $*" >> $R/timeline.txt
  tar czf $OUT/r.$BASHPID -C $OUT r && mv $OUT/r.$BASHPID $OUT/r.tgz; }
V=/tmp/vars; mkdir -p $V && tar xJf .device/fvars.tar.xz -C $V
lib () { [ $1 = base ] && echo $BASE_LD || echo $V/ms/$1:$BASE_LD; }
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $R/gpu.txt
for T in mark mut; do
  LD_LIBRARY_PATH=$(lib $T) timeout 120 $B/tests/kernels_voxelize_gpu > $R/test-$T.txt 2>&1; echo rc=$? >> $R/test-$T.txt
  echo "== $T"; grep -E "Checks|rc=|:F:" $R/test-$T.txt | head -4; pack test $T
done
for T in base mark base mark; do
  n=$(ls $R/occ-$T-*.json 2>/dev/null | wc -l); n=$((n+1))
  LD_LIBRARY_PATH=$(lib $T) timeout 100 $B/tests/bench-kernels --sweep voxelize --modes occupancy --runs 30 --json $R/occ-$T-$n.json > $R/occ-$T-$n.txt 2>&1; echo rc=$? >> $R/occ-$T-$n.txt; pack bench $T $n
  tail -1 $R/occ-$T-$n.txt
done
paste <(grep -E "^sweep-voxelize-occ" $R/occ-base-1.txt | awk '{print $1, $2}') <(grep -E "^sweep-voxelize-occ" $R/occ-mark-1.txt | awk '{print $2}') <(grep -E "^sweep-voxelize-occ" $R/occ-base-2.txt | awk '{print $2}') <(grep -E "^sweep-voxelize-occ" $R/occ-mark-2.txt | awk '{print $2}') | sed 's/sweep-voxelize-occupancy-//' | tee $R/ab.txt
LD_LIBRARY_PATH=$(lib mark) timeout 150 compute-sanitizer --tool memcheck --error-exitcode 9 $B/tests/kernels_voxelize_gpu > $R/memcheck.txt 2>&1; echo rc=$? >> $R/memcheck.txt; pack memcheck
grep -E "SUMMARY|Checks|rc=|:F:" $R/memcheck.txt
cat $R/timeline.txt
