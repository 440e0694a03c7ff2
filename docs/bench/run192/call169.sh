#!/bin/bash
# Twenty-eighth session, call 169: call 168's ncu put the records' loss
# ring by ring in their clear (10.2 us against 7.7 at a million points)
# and their division (11.6 against 8.2).  Now the division zeroes the
# occupied records as it reads them and a clear finds the records clear
# (the records' own scratch key) ("new"; "base" is e875db5).  The voxelize
# tests (test_mean_records_reused new), memcheck over the means' tests;
# the KITTI means in each order base and new alternated; ncu of a million
# points ring by ring; the whole suite.
CALL_SECONDS=560 AB_MARGIN=40 . docs/bench/call-lib.sh "$1"
meson_tests kernels kernels-voxelize-gpu kernels-voxelize
sanitize memcheck kernels_voxelize_gpu test_mean_records_reused,test_mean_slabs,test_scan_order,test_mean_scratch_reused,test_odd_grid_several_clouds
ab_bench means "base new new base" --sweep voxelize --modes mean --points 262144,1048576,2097152,4194304 --only 'sweep-voxelize-mean-kitti0.2-*' --runs 30
cat $R/ab-means.txt
M=gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum,lts__t_sectors_op_red.sum
for order in rows shuffled; do
  ncu_kernels $order-new new "clear_outputs|bin_points|divide" 12 $M --sweep voxelize --modes mean --points 1048576 --only "sweep-voxelize-mean-kitti0.2-$order-n1048576" --runs 3 | grep time_duration | tail -3
done
if [ $(left) -gt 190 ]; then
  timeout $(( $(left) - 10 )) meson test -C build --no-rebuild --print-errorlogs > $R/meson-test.txt 2>&1; echo rc=$? >> $R/meson-test.txt; pack meson test
  grep -E "^Ok:|^Fail:|^Skipped:| FAIL |rc=" $R/meson-test.txt
fi
cat $R/timeline.txt
