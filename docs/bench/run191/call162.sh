#!/bin/bash
# Twenty-seventh session, call 162: the whole sweep of the code as it is
# (5ac3863), for one table and one plot from one call.  First 10459de's
# partition layout (one description of its arrays) on the GPU: the
# voxelize tests, memcheck over the partitioned counts and means.  Then
# bench-kernels --sweep over the pillars, every other voxelize mode,
# resample and fuse, 30 runs each (PyTorch is run 183's: unchanged).
CALL_SECONDS=540 . docs/bench/call-lib.sh "$1"
timeout 60 meson test -C build --no-rebuild --print-errorlogs kernels-voxelize-gpu kernels-voxelize > $R/meson-test.txt 2>&1; echo rc=$? >> $R/meson-test.txt; pack tests
grep -E "^Ok:|^Fail:|^Skipped:| FAIL |rc=" $R/meson-test.txt
GST_CHECKS=test_counts_partitioned,test_means_partitioned timeout 60 compute-sanitizer --tool memcheck --error-exitcode 9 $B/tests/kernels_voxelize_gpu > $R/memcheck.txt 2>&1; echo rc=$? >> $R/memcheck.txt; pack memcheck
tail -3 $R/memcheck.txt
for w in pillars voxelize resample fuse; do
  [ $(left) -gt 20 ] || break
  case $w in
    pillars) a=(--sweep voxelize --modes pillars) ;;
    voxelize) a=(--sweep voxelize --modes count,occupancy,mean,centroids) ;;
    *) a=(--sweep $w) ;;
  esac
  timeout $(( $(left) - 10 )) $B/tests/bench-kernels "${a[@]}" --runs 30 --json $R/sweep-$w.json > $R/sweep-$w.txt 2>&1; echo rc=$? >> $R/sweep-$w.txt; pack sweep $w
  grep -E "rc=|differ" $R/sweep-$w.txt | tail -2
done
cat $R/timeline.txt
