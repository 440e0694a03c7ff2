#!/bin/bash
# Twenty-seventh session, call 163: the centroids keep each voxel's count
# in their record's spare float, added by the same vector atomic whose
# old value says whether the point is the voxel's first ("new"; "base" is
# 436080f).  The voxelize tests, memcheck over the centroids' tests; the
# centroids in no order, ring by ring and column by column, 16,384 to 4
# million points, base and new alternated; ncu's binning and writer
# times at 4 million points in no order; the whole suite if time is left.
CALL_SECONDS=440 AB_MARGIN=40 . docs/bench/call-lib.sh "$1"
timeout 60 meson test -C build --no-rebuild --print-errorlogs kernels-voxelize-gpu kernels-voxelize > $R/meson-kernels.txt 2>&1; echo rc=$? >> $R/meson-kernels.txt; pack tests
grep -E "^Ok:|^Fail:|^Skipped:| FAIL |rc=" $R/meson-kernels.txt
GST_CHECKS=test_centroid_records,test_scan_order,test_centroids_scratch_reused,test_odd_grid_several_clouds,test_modes_sizes_strides timeout 90 compute-sanitizer --tool memcheck --error-exitcode 9 $B/tests/kernels_voxelize_gpu > $R/memcheck.txt 2>&1; echo rc=$? >> $R/memcheck.txt; pack memcheck
tail -3 $R/memcheck.txt
ab_bench centroids "base new new base" --sweep voxelize --modes centroids --runs 30
cat $R/ab-centroids.txt
for l in base new; do
  [ $(left) -gt 40 ] || break
  LD_LIBRARY_PATH=$(lib $l) timeout 40 ncu --cache-control none --metrics gpu__time_duration.sum,lts__t_sectors_op_atom.sum,lts__t_sectors_op_red.sum -k regex:"bin_points|write_centroids|clear" --launch-count 9 --csv $B/tests/bench-kernels --sweep voxelize --modes centroids --points 4194304 --only "sweep-voxelize-centroids-kitti0.2-n4194304" --runs 3 > $R/ncu-$l.csv 2>&1
  pack ncu $l
  grep -E "gpu__time|lts__" $R/ncu-$l.csv | awk -F'","' '{sub(/\(.*/, "", $5); print $5, $(NF-2), $NF}' | tail -9
done
if [ $(left) -gt 190 ]; then
  timeout $(( $(left) - 10 )) meson test -C build --no-rebuild --print-errorlogs > $R/meson-test.txt 2>&1; echo rc=$? >> $R/meson-test.txt; pack meson test
  grep -E "^Ok:|^Fail:|^Skipped:| FAIL |rc=" $R/meson-test.txt
fi
cat $R/timeline.txt
