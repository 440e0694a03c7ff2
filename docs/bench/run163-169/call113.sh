#!/bin/bash
# Nineteenth session (2026-11-28), run 169: the sorted division's block of
# voxels, 1,024 (built, 8d4a419) against 2,048 and 4,096 (variants, the same
# code built with -DRC_MEAN_SORT_BLOCK_VOXELS): kernels_voxelize_gpu whole
# with each, the mean sweep at 1,048,576 and 4,194,304 points alternated
# twice, then the whole suite with the 2,048 variant.
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
V=/tmp/vars; mkdir -p $V && tar xJf .device/blocks.tar.xz -C $V
lib () { [ $1 = built ] && echo $BASE_LD || echo $V/ms/$1:$BASE_LD; }
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $R/gpu.txt
for T in built b2048 b4096; do
  LD_LIBRARY_PATH=$(lib $T) timeout 60 $B/tests/kernels_voxelize_gpu > $R/test-$T.txt 2>&1; echo rc=$? >> $R/test-$T.txt
  echo "$T: $(grep -E "Checks" $R/test-$T.txt) $(tail -1 $R/test-$T.txt)"
done; pack tests
for round in 1 2; do for T in built b2048 b4096; do
  LD_LIBRARY_PATH=$(lib $T) timeout 40 $B/tests/bench-kernels --sweep voxelize --modes mean --points 1048576,4194304 --runs 20 > $R/mean-$T-$round.txt 2>&1; echo rc=$? >> $R/mean-$T-$round.txt; pack mean $T $round
done; done
for f in $R/mean-*.txt; do echo "== $f"; grep -E "^sweep-voxelize-mean-xyz" $f | awk '{print $1, $2, $NF}'; done
LD_LIBRARY_PATH=$(lib b2048) timeout 220 meson test -C build --no-rebuild --print-errorlogs > $R/suite-b2048.txt 2>&1; echo rc=$? >> $R/suite-b2048.txt
echo "== suite (b2048)"; grep -E "^Ok:|^Fail:|^Skipped:|^Timeout:|rc=|FAIL" $R/suite-b2048.txt | head -20; pack suite
grep -h "rc=" $R/*.txt | sort | uniq -c; cat $R/timeline.txt
