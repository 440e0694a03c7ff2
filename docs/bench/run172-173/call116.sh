#!/bin/bash
# Twentieth session (2026-11-28): centroids summed over each warp's runs of
# points in one voxel (bin_centroid_run, the built library) against
# 6efc9db (base), alternated twice: centroids of lidar points in no order,
# ring by ring and column by column, 131,072 to 4,194,304 points, and
# counts at 4,194,304 (find_run shared with bin_run); the whole suite;
# memcheck over test_centroids_scan_order; that test on a mutant (a run's
# sums taking the next run's first point), which must fail.
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
V=/tmp/vars; mkdir -p $V && tar xJf .device/fvars.tar.xz -C $V
lib () { [ $1 = built ] && echo $BASE_LD || echo $V/ms/$1:$BASE_LD; }
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $R/gpu.txt
for round in 1 2; do
for T in base built; do
  LD_LIBRARY_PATH=$(lib $T) timeout 60 $B/tests/bench-kernels --sweep voxelize --modes centroids --points 131072,1048576,4194304 --runs 20 --json $R/cent-$T-$round.json > $R/cent-$T-$round.txt 2>&1; echo rc=$? >> $R/cent-$T-$round.txt
  LD_LIBRARY_PATH=$(lib $T) timeout 40 $B/tests/bench-kernels --sweep voxelize --modes count --points 4194304 --runs 20 --json $R/count-$T-$round.json > $R/count-$T-$round.txt 2>&1; echo rc=$? >> $R/count-$T-$round.txt; pack bench $T $round
done; done
for round in 1 2; do for T in base built; do echo "== $T $round"; grep -E "^sweep-voxelize" $R/cent-$T-$round.txt $R/count-$T-$round.txt | awk '{print $1, $2, $NF}' | sed 's/^.*txt://'; done; done
GST_CHECKS=test_centroids_scan_order LD_LIBRARY_PATH=$(lib mut) timeout 60 $B/tests/kernels_voxelize_gpu > $R/mutant.txt 2>&1; echo rc=$? >> $R/mutant.txt
echo "== mutant"; grep -E "Checks|rc=|differ" $R/mutant.txt | head -5; pack mutant
timeout 240 meson test -C build --no-rebuild --print-errorlogs > $R/suite.txt 2>&1; echo rc=$? >> $R/suite.txt
echo "== suite"; grep -E "^Ok:|^Fail:|^Skipped:|^Timeout:|rc=|FAIL" $R/suite.txt | head -20; pack suite
GST_CHECKS=test_centroids_scan_order timeout 100 compute-sanitizer --tool memcheck --error-exitcode 9 $B/tests/kernels_voxelize_gpu > $R/memcheck.txt 2>&1; echo rc=$? >> $R/memcheck.txt; pack memcheck
grep -E "SUMMARY|Checks|rc=" $R/memcheck.txt
grep -h "rc=" $R/*.txt | sort | uniq -c; cat $R/timeline.txt
