#!/bin/bash
# Nineteenth session (2026-11-28), run 165: the radix-sorted means as
# built (three features or more, records gathered inside the division)
# against ace593c's library (old; a counting sort for four or more),
# alternated twice: the mean sweep at 262,144 to 4,194,304 points; then the
# whole suite and memcheck over test_mean_sorted.
set -u
OUT=$1; B=$PWD/build
export GST_PLUGIN_PATH_1_0=$B/gst GST_REGISTRY_1_0=/tmp/reg.bin
export LD_LIBRARY_PATH=$B/gst:$B/kernels:${LD_LIBRARY_PATH:-}
export PYTHONPATH=$B/python:$PWD/tests/python
BASE_LD=$LD_LIBRARY_PATH
R=$OUT/r; mkdir -p $R
t0=$(date +%s)
pack () { echo "$(( $(date +%s) - t0 )) s: $*" >> $R/timeline.txt
  tar czf $OUT/r.$BASHPID -C $OUT r && mv $OUT/r.$BASHPID $OUT/r.tgz; }
V=/tmp/vars; mkdir -p $V && tar xJf .device/oldlib.tar.xz -C $V
lib () { [ $1 = built ] && echo $BASE_LD || echo $V/ms/$1:$BASE_LD; }
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $R/gpu.txt
P=262144,524288,1048576,2097152,4194304
for round in 1 2; do for T in built old; do
  LD_LIBRARY_PATH=$(lib $T) timeout 60 $B/tests/bench-kernels --sweep voxelize --modes mean --points $P --runs 20 --json $R/mean-$T-$round.json > $R/mean-$T-$round.txt 2>&1; echo rc=$? >> $R/mean-$T-$round.txt; pack mean $T $round
done; done
for f in $R/mean-*.txt; do echo "== $f"; grep -E "^sweep-voxelize" $f | awk '{print $1, $2, $3, $4, $NF}'; done
timeout 240 meson test -C build --no-rebuild --print-errorlogs > $R/suite.txt 2>&1; echo rc=$? >> $R/suite.txt
echo "== suite"; grep -E "^Ok:|^Fail:|^Skipped:|^Timeout:|rc=|FAIL" $R/suite.txt | head -20; pack suite
GST_CHECKS=test_mean_sorted timeout 150 compute-sanitizer --tool memcheck --error-exitcode 9 $B/tests/kernels_voxelize_gpu > $R/memcheck.txt 2>&1; echo rc=$? >> $R/memcheck.txt; pack memcheck
grep -E "SUMMARY|Checks|rc=" $R/memcheck.txt
grep -h "rc=" $R/*.txt | sort | uniq -c; cat $R/timeline.txt
