#!/bin/bash
# Twenty-third session, call 136: counts partitioned by tile
# (kernels/voxelize-partition.cu, uncommitted on 5020b6d): the whole suite;
# test_counts_partitioned on a mutant that leaves crowded tiles uncleared
# (must fail); the count sweep from 131,072 to 4 million points on
# 5020b6d's library ("base") and this one ("new"), alternated twice;
# memcheck over test_counts_partitioned.
set -u
OUT=$1; B=$PWD/build
export LD_LIBRARY_PATH=$B/gst:$B/kernels:${LD_LIBRARY_PATH:-}
BASE_LD=$LD_LIBRARY_PATH
R=$OUT/r; mkdir -p $R
t0=$(date +%s)
pack () { echo "$(( $(date +%s) - t0 )) s: $*" >> $R/timeline.txt
  tar czf $OUT/r.$BASHPID -C $OUT r && mv $OUT/r.$BASHPID $OUT/r.tgz; }
left () { echo $(( 570 - ($(date +%s) - t0) )); }
V=/tmp/vars; mkdir -p $V && tar xJf .device/fvars.tar.xz -C $V
lib () { [ $1 = new ] && echo $BASE_LD || echo $V/ms/$1:$BASE_LD; }
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $R/gpu.txt
date -u >> $R/gpu.txt
timeout 240 meson test -C build --no-rebuild --print-errorlogs > $R/meson-test.txt 2>&1; echo rc=$? >> $R/meson-test.txt; pack meson test
grep -E "^Ok:|^Fail:|^Skipped:|^Timeout:| FAIL |rc=" $R/meson-test.txt
GST_CHECKS=test_counts_partitioned LD_LIBRARY_PATH=$(lib mut) timeout 100 $B/tests/kernels_voxelize_gpu > $R/test-mut.txt 2>&1; echo rc=$? >> $R/test-mut.txt; pack mutant
echo "== mut"; grep -E "Checks|rc=|:F:" $R/test-mut.txt | head -4
for T in base new base new; do
  [ $(left) -gt 90 ] || break
  n=$(ls $R/count-$T-*.txt 2>/dev/null | wc -l); n=$((n+1))
  LD_LIBRARY_PATH=$(lib $T) timeout $(( $(left) - 30 )) $B/tests/bench-kernels --sweep voxelize --modes count --points 131072,524288,1048576,2097152,4194304 --runs 30 --json $R/count-$T-$n.json > $R/count-$T-$n.txt 2>&1; echo rc=$? >> $R/count-$T-$n.txt; pack bench $T $n
  tail -1 $R/count-$T-$n.txt
done
paste <(grep -E "^sweep-voxelize-count" $R/count-base-1.txt | awk '{print $1, $2}') <(grep -E "^sweep-voxelize-count" $R/count-new-1.txt | awk '{print $2}') <(grep -E "^sweep-voxelize-count" $R/count-base-2.txt 2>/dev/null | awk '{print $2}') <(grep -E "^sweep-voxelize-count" $R/count-new-2.txt 2>/dev/null | awk '{print $2}') | sed 's/sweep-voxelize-count-//' | tee $R/ab.txt
GST_CHECKS=test_counts_partitioned timeout $(( $(left) )) compute-sanitizer --tool memcheck --error-exitcode 9 $B/tests/kernels_voxelize_gpu > $R/memcheck.txt 2>&1; echo rc=$? >> $R/memcheck.txt; pack memcheck
grep -E "SUMMARY|Checks|rc=|:F:" $R/memcheck.txt
cat $R/timeline.txt
