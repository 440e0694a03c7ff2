#!/bin/bash
# Twenty-first session: the sorted mean's keys four points a thread (built)
# against 693b514 (base): the whole suite on built; kernels_voxelize_gpu
# on base; test_mean_sorted on a mutant (points outside the grid counted
# as invalid), which must fail; the mean sweep at 1,048,576 and 4,194,304
# points, base, built, base, built; memcheck over test_mean_sorted.
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
timeout 280 meson test -C build --no-rebuild > $R/suite.txt 2>&1; echo rc=$? >> $R/suite.txt
cp build/meson-logs/testlog.txt $R/testlog.txt 2>/dev/null
grep -E "^ *[0-9]+/[0-9]+ .*(FAIL|TIMEOUT)|^Ok:|^Fail:|^Skipped:|^Timeout:|rc=" $R/suite.txt; pack suite
LD_LIBRARY_PATH=$(lib base) timeout 120 $B/tests/kernels_voxelize_gpu > $R/voxelize-gpu-base.txt 2>&1; echo rc=$? >> $R/voxelize-gpu-base.txt
grep -E "Checks|rc=|:F:" $R/voxelize-gpu-base.txt; pack base test
GST_CHECKS=test_mean_sorted LD_LIBRARY_PATH=$(lib mut) timeout 60 $B/tests/kernels_voxelize_gpu > $R/mutant.txt 2>&1; echo rc=$? >> $R/mutant.txt
echo "== mutant"; grep -E "Checks|rc=|:F:" $R/mutant.txt | head -3; pack mutant
for T in base built base built; do
  n=$(ls $R/mean-$T-*.json 2>/dev/null | wc -l); n=$((n+1))
  LD_LIBRARY_PATH=$(lib $T) timeout 60 $B/tests/bench-kernels --sweep voxelize --modes mean --points 1048576,4194304 --runs 20 --json $R/mean-$T-$n.json > $R/mean-$T-$n.txt 2>&1; echo rc=$? >> $R/mean-$T-$n.txt; pack bench $T $n
done
paste <(grep -E "^sweep-voxelize" $R/mean-base-1.txt | awk '{print $1, $2}') <(grep -E "^sweep-voxelize" $R/mean-built-1.txt | awk '{print $2}') <(grep -E "^sweep-voxelize" $R/mean-base-2.txt | awk '{print $2}') <(grep -E "^sweep-voxelize" $R/mean-built-2.txt | awk '{print $2, $NF}')
GST_CHECKS=test_mean_sorted timeout 120 compute-sanitizer --tool memcheck --error-exitcode 9 $B/tests/kernels_voxelize_gpu > $R/memcheck.txt 2>&1; echo rc=$? >> $R/memcheck.txt; pack memcheck
grep -E "seed|SUMMARY|Checks|rc=|:F:" $R/memcheck.txt
cat $R/timeline.txt
