#!/bin/bash
# Session 2026-11-28 (fifteenth), call 87, an H200: a large mean's slabs
# binned as records (sums and count side by side, one vector atomic a
# point), divided into its planes whole.  kernels_voxelize_gpu (built;
# r4: the records' binning bounded to 4 blocks an SM, 56 registers,
# where built has 48 and spills 12 bytes); memcheck over the mean's
# tests; means of one and of four features, 606b96a (h606) against built
# and r4, alternated twice; then the whole suite.
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
lib () { [ $1 = built ] && echo $LD_LIBRARY_PATH || echo $PWD/.device/ms/$1:$LD_LIBRARY_PATH; }
for T in built r4; do
  LD_LIBRARY_PATH=$(lib $T) timeout 120 $B/tests/kernels_voxelize_gpu > $R/test-$T.txt 2>&1; echo rc=$? >> $R/test-$T.txt
  echo "== test $T"; grep -E "%|:F:|:E:|rc=" $R/test-$T.txt
done; pack test
GST_CHECKS=test_mean_slabs,test_mean_scratch_reused timeout 200 compute-sanitizer --tool memcheck --error-exitcode 9 $B/tests/kernels_voxelize_gpu > $R/memcheck.txt 2>&1; echo rc=$? >> $R/memcheck.txt; pack memcheck
echo "== memcheck"; grep -E "SUMMARY|%|rc=" $R/memcheck.txt | tail -3
P=262144,393216,524288,1048576,2097152,4194304
for i in 1 2; do for T in h606 built r4; do
  LD_LIBRARY_PATH=$(lib $T) timeout 100 $B/tests/bench-kernels --sweep voxelize --modes mean --points $P --runs 30 > $R/$T-$i.txt 2>&1; pack $T $i
done; done
echo "== h606-1 built-1 r4-1 h606-2 built-2 r4-2 ratio(built-2)"
paste <(grep -E "^sweep-voxelize-mean" $R/h606-1.txt | awk '{print $1, $2}') <(grep -E "^sweep-voxelize-mean" $R/built-1.txt | awk '{print $2}') <(grep -E "^sweep-voxelize-mean" $R/r4-1.txt | awk '{print $2}') <(grep -E "^sweep-voxelize-mean" $R/h606-2.txt | awk '{print $2}') <(grep -E "^sweep-voxelize-mean" $R/built-2.txt | awk '{print $2, $NF}') <(grep -E "^sweep-voxelize-mean" $R/r4-2.txt | awk '{print $2}')
timeout 60 ncu --clock-control none --metrics gpu__time_duration.sum,lts__t_sectors_op_red.sum,dram__bytes.sum -k regex:"clear_outputs|bin_points|divide" --launch-count 12 $B/tests/bench-kernels --sweep voxelize --modes mean --points 4194304 --runs 1 > $R/ncu-mean-4m.txt 2>&1
echo "== ncu mean 4194304"; grep -E "^  [a-zA-Z_].*\(|gpu__time_duration|lts__t_sectors_op|dram__bytes" $R/ncu-mean-4m.txt | awk '{print $1, $NF}' | paste - - - - | head -12; pack ncu
timeout 250 meson test -C build --no-rebuild --print-errorlogs > $R/suite.txt 2>&1; echo rc=$? >> $R/suite.txt
echo "== suite"; grep -E "^Ok:|^Fail:|^Skipped:|^Timeout:|rc=|FAIL" $R/suite.txt | head -20; pack suite
cat $R/timeline.txt
