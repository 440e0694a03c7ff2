#!/bin/bash
# Twenty-eighth session, call 167: a mean's records binned a warp's run of
# points at a time, in one slab where they fit (the KITTI region's), and
# the counted centroids' run loop and the records' one function
# (bin_record_run) ("new"; "base" is e875db5).  The voxelize tests,
# memcheck over the means' and centroids' tests; the means and centroids
# series base and new alternated; PyTorch's centroids of x, y and z; the
# whole suite if time is left.
CALL_SECONDS=560 AB_MARGIN=40 . docs/bench/call-lib.sh "$1"
meson_tests kernels kernels-voxelize-gpu kernels-voxelize
sanitize memcheck kernels_voxelize_gpu test_modes_sizes_strides,test_odd_grid_several_clouds,test_mean_scratch_reused,test_mean_slabs,test_scan_order,test_centroid_records,test_centroids_scratch_reused
ab_bench means "base new new base" --sweep voxelize --modes mean --points 262144,1048576,2097152,4194304 --only 'sweep-voxelize-mean-kitti0.2-*,sweep-voxelize-mean-256cube-*,sweep-voxelize-mean-xyz-256cube-*' --runs 30
cat $R/ab-means.txt
ab_bench centroids "base new new base" --sweep voxelize --modes centroids --points 262144,1048576,4194304 --only 'sweep-voxelize-centroids-xyz-*,sweep-voxelize-centroids-kitti0.2-n*,sweep-voxelize-centroids-kitti0.2-rows-*' --runs 30
cat $R/ab-centroids.txt
if [ $(left) -gt 150 ]; then
  timeout 120 python3 tests/bench/torch_baseline.py --sweep voxelize --modes centroids --runs 30 --json $R/torch-centroids.json > $R/torch-centroids.txt 2>&1
  echo rc=$? >> $R/torch-centroids.txt; pack torch centroids
  grep -E "xyz|rc=" $R/torch-centroids.txt
fi
if [ $(left) -gt 190 ]; then
  timeout $(( $(left) - 10 )) meson test -C build --no-rebuild --print-errorlogs > $R/meson-test.txt 2>&1; echo rc=$? >> $R/meson-test.txt; pack meson test
  grep -E "^Ok:|^Fail:|^Skipped:| FAIL |rc=" $R/meson-test.txt
fi
cat $R/timeline.txt
