#!/bin/bash
# Session 2026-11-28 (fourteenth), call 80: the centroids' sums side by side
# a voxel, added a float4 at a time on Hopper.  kernels_voxelize_gpu,
# memcheck over the centroid tests, centroids (and the other modes) against
# HEAD (c217717, .device/ms/head) alternated twice, ncu of the centroids'
# kernels at 4 million points, the whole suite.
set -u
OUT=$1; B=$PWD/build
export GST_PLUGIN_PATH_1_0=$B/gst GST_REGISTRY_1_0=/tmp/reg.bin
export LD_LIBRARY_PATH=$B/gst:$B/kernels:${LD_LIBRARY_PATH:-}
export PYTHONPATH=$B/python:$PWD/tests/python
R=$OUT/r; mkdir -p $R
t0=$(date +%s)
pack () { echo "$(( $(date +%s) - t0 )) s: $*" >> $R/timeline.txt
  tar czf $OUT/r.$BASHPID -C $OUT r && mv $OUT/r.$BASHPID $OUT/r.tgz; }
nvidia-smi --query-gpu=name --format=csv,noheader | tee $R/gpu.txt
lib () { [ $1 = built ] && echo $LD_LIBRARY_PATH || echo $PWD/.device/ms/$1:$LD_LIBRARY_PATH; }
timeout 100 $B/tests/kernels_voxelize_gpu > $R/test-built.txt 2>&1; echo rc=$? >> $R/test-built.txt; pack test
echo "== test built"; grep -E "%|:F:|:E:|rc=" $R/test-built.txt
GST_CHECKS=test_centroid_records,test_centroids_scratch_reused,test_modes_sizes_strides timeout 200 compute-sanitizer --tool memcheck --error-exitcode 9 $B/tests/kernels_voxelize_gpu > $R/memcheck.txt 2>&1; echo rc=$? >> $R/memcheck.txt; pack memcheck
echo "== memcheck"; grep -E "SUMMARY|%|rc=" $R/memcheck.txt | tail -3
P=16384,131072,262144,524288,1048576,2097152,4194304
for i in 1 2; do for T in head built; do
  LD_LIBRARY_PATH=$(lib $T) timeout 60 $B/tests/bench-kernels --sweep voxelize --modes centroids --points $P --runs 30 > $R/c-$T-$i.txt 2>&1; pack c $T $i
done; done
grep -iE "differ|mismatch|error" $R/c-built-*.txt | head -3
echo "== centroids: head-1 built-1 head-2 built-2 (built/floor)"
paste <(grep -E "^sweep-voxelize" $R/c-head-1.txt | awk '{print $1, $2}') <(grep -E "^sweep-voxelize" $R/c-built-1.txt | awk '{print $2}') <(grep -E "^sweep-voxelize" $R/c-head-2.txt | awk '{print $2}') <(grep -E "^sweep-voxelize" $R/c-built-2.txt | awk '{print $2, $NF}')
for T in head built; do
  LD_LIBRARY_PATH=$(lib $T) timeout 40 ncu --metrics gpu__time_duration.sum,dram__throughput.avg.pct_of_peak_sustained_elapsed,lts__t_sectors_op_atom.sum,lts__t_sectors_op_red.sum -k regex:"clear_outputs|bin_points|scan_tiles|write_centroids" --launch-count 8 $B/tests/bench-kernels --sweep voxelize --modes centroids --points 4194304 --runs 1 > $R/ncu-$T.txt 2>&1
  echo "== ncu $T"; grep -E "^  [a-zA-Z_].*\(|gpu__time_duration|dram__throughput|lts__t_sectors" $R/ncu-$T.txt | awk '{print $1, $NF}' | tail -16 | tr '\n' ' ' | sed 's/ void / \nvoid /g; s/ \([a-z_]*\)(/\n\1(/g'; echo
done; pack ncu
LD_LIBRARY_PATH=$(lib built) timeout 90 $B/tests/bench-kernels --sweep voxelize --runs 30 --json $R/all-built.json > $R/all-built.txt 2>&1; pack all
echo "== all voxelize built (median, /floor)"; grep -E "^sweep-voxelize" $R/all-built.txt | awk '{print $1, $2, $NF}'
timeout 260 meson test -C build --no-rebuild --num-processes 16 --print-errorlogs > $R/suite.log 2>&1; echo rc=$? >> $R/suite.log; pack suite
echo "== suite"; grep -E "^ *(Ok|Fail|Skipped|Timeout):|rc=" $R/suite.log; grep -E " FAIL | TIMEOUT " $R/suite.log | head -5
cat $R/timeline.txt
