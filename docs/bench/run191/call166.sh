#!/bin/bash
# Twenty-seventh session, call 166: a mean of one feature whose records
# (sum and count, 8 bytes a voxel) fit one slab bins in records, in room
# the scratch now keeps past the counts, where it binned two atomics a
# point into planes ("new"; "base" is 436080f, the means' code of
# 966bcfb).  The KITTI region's 0.2 m means of intensity, 262,144 to 4
# million points, are such.  The voxelize tests, memcheck over the
# means' tests; the KITTI means in each order, base and new alternated.
CALL_SECONDS=300 AB_MARGIN=25 . docs/bench/call-lib.sh "$1"
timeout 60 meson test -C build --no-rebuild --print-errorlogs kernels-voxelize-gpu kernels-voxelize > $R/meson-kernels.txt 2>&1; echo rc=$? >> $R/meson-kernels.txt; pack tests
grep -E "^Ok:|^Fail:|^Skipped:| FAIL |rc=" $R/meson-kernels.txt
GST_CHECKS=test_modes_sizes_strides,test_odd_grid_several_clouds,test_mean_scratch_reused,test_mean_slabs,test_scan_order timeout 80 compute-sanitizer --tool memcheck --error-exitcode 9 $B/tests/kernels_voxelize_gpu > $R/memcheck.txt 2>&1; echo rc=$? >> $R/memcheck.txt; pack memcheck
tail -3 $R/memcheck.txt
ab_bench means "base new new base" --sweep voxelize --modes mean --points 262144,1048576,2097152,4194304 --only 'sweep-voxelize-mean-kitti0.2-*' --runs 30
cat $R/ab-means.txt
cat $R/timeline.txt
