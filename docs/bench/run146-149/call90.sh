#!/bin/bash
# Sixteenth session (2026-11-28): d00a644 (voxelize.cu split in two) on the GPU.
# The whole suite; memcheck over the voxelize tests that run every
# clear, division and centroids path; the full sweep with JSON, the plot.
set -u
OUT=$1; B=$PWD/build
export GST_PLUGIN_PATH_1_0=$B/gst GST_REGISTRY_1_0=/tmp/reg.bin
export LD_LIBRARY_PATH=$B/gst:$B/kernels:${LD_LIBRARY_PATH:-}
export PYTHONPATH=$B/python:$PWD/tests/python
R=$OUT/r; mkdir -p $R
t0=$(date +%s)
pack () { echo "$(( $(date +%s) - t0 )) s: $*" >> $R/timeline.txt
  tar czf $OUT/r.$BASHPID -C $OUT r && mv $OUT/r.$BASHPID $OUT/r.tgz; }
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $R/gpu.txt
timeout 250 meson test -C build --no-rebuild --print-errorlogs > $R/suite.txt 2>&1; echo rc=$? >> $R/suite.txt
echo "== suite"; grep -E "^Ok:|^Fail:|^Skipped:|^Timeout:|rc=|FAIL" $R/suite.txt | head -20; pack suite
GST_CHECKS=test_odd_grid_several_clouds,test_centroids_scratch_reused,test_mean_scratch_reused,test_mean_slabs,test_centroid_records timeout 150 compute-sanitizer --tool memcheck --error-exitcode 9 $B/tests/kernels_voxelize_gpu > $R/memcheck.txt 2>&1; echo rc=$? >> $R/memcheck.txt; pack memcheck
echo "== memcheck"; grep -E "SUMMARY|%|rc=" $R/memcheck.txt | tail -3
timeout 200 $B/tests/bench-kernels --sweep all --runs 30 --json $R/sweep-all.json > $R/sweep-all.txt 2>&1; echo rc=$? >> $R/sweep-all.txt; pack sweep
python3 tests/bench/plot_sweep.py $R/sweep-all.json -o $R/sweep.png > $R/plot_sweep.txt 2>&1; pack plot
tail -40 $R/plot_sweep.txt; cat $R/timeline.txt
