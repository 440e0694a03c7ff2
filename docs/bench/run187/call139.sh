#!/bin/bash
# Twenty-third session, call 139: means of one feature partitioned by tile
# as the counts are (uncommitted on d63fd00, "new"): the whole suite;
# test_means_partitioned on a mutant whose crowded tiles' last block does
# not divide (must fail); memcheck over test_means_partitioned; the mean
# sweep at 262,144, 1 and 4 million points on d63fd00's library ("base")
# and this one, alternated while time allows; the counts once on new.
set -u
OUT=$1; B=$PWD/build
export LD_LIBRARY_PATH=$B/gst:$B/kernels:${LD_LIBRARY_PATH:-}
BASE_LD=$LD_LIBRARY_PATH
R=$OUT/r; mkdir -p $R
t0=$(date +%s)
pack () { echo "$(( $(date +%s) - t0 )) s: $*" >> $R/timeline.txt
  tar czf $OUT/r.$BASHPID -C $OUT r && mv $OUT/r.$BASHPID $OUT/r.tgz; }
left () { echo $(( 285 - ($(date +%s) - t0) )); }
V=/tmp/vars; mkdir -p $V && tar xJf .device/fvars.tar.xz -C $V
lib () { [ $1 = new ] && echo $BASE_LD || echo $V/ms/$1:$BASE_LD; }
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $R/gpu.txt
date -u >> $R/gpu.txt
timeout 180 meson test -C build --no-rebuild --print-errorlogs > $R/meson-test.txt 2>&1; echo rc=$? >> $R/meson-test.txt; pack meson test
grep -E "^Ok:|^Fail:|^Skipped:|^Timeout:| FAIL | TIMEOUT |rc=" $R/meson-test.txt
grep -E "Checks|:F:" build/meson-logs/testlog.txt | head -6
GST_CHECKS=test_means_partitioned LD_LIBRARY_PATH=$(lib mut) timeout 60 $B/tests/kernels_voxelize_gpu > $R/test-mut.txt 2>&1; echo rc=$? >> $R/test-mut.txt; pack mutant
echo "== mut"; grep -E "Checks|rc=|:F:" $R/test-mut.txt | head -4
GST_CHECKS=test_means_partitioned timeout 60 compute-sanitizer --tool memcheck --error-exitcode 9 $B/tests/kernels_voxelize_gpu > $R/memcheck.txt 2>&1; echo rc=$? >> $R/memcheck.txt; pack memcheck
grep -E "SUMMARY|Checks|rc=|:F:" $R/memcheck.txt | head -4
for T in base new base new; do
  [ $(left) -gt 45 ] || break
  n=$(ls $R/mean-$T-*.txt 2>/dev/null | wc -l); n=$((n+1))
  LD_LIBRARY_PATH=$(lib $T) timeout 40 $B/tests/bench-kernels --sweep voxelize --modes mean --points 262144,1048576,4194304 --runs 30 --json $R/mean-$T-$n.json > $R/mean-$T-$n.txt 2>&1; echo rc=$? >> $R/mean-$T-$n.txt; pack bench $T $n
  tail -1 $R/mean-$T-$n.txt
done
paste <(grep -E "^sweep-voxelize-mean" $R/mean-base-1.txt | awk '{print $1, $2}') <(grep -E "^sweep-voxelize-mean" $R/mean-new-1.txt | awk '{print $2}') <(grep -E "^sweep-voxelize-mean" $R/mean-base-2.txt 2>/dev/null | awk '{print $2}') <(grep -E "^sweep-voxelize-mean" $R/mean-new-2.txt 2>/dev/null | awk '{print $2}') | sed 's/sweep-voxelize-mean-//' | tee $R/ab.txt
if [ $(left) -gt 30 ]; then
  timeout $(( $(left) - 5 )) $B/tests/bench-kernels --sweep voxelize --modes count --points 1048576,4194304 --runs 30 > $R/count-new.txt 2>&1; echo rc=$? >> $R/count-new.txt; pack count
  grep -E "256cube" $R/count-new.txt | awk '{print $1, $2}'
fi
cat $R/timeline.txt
