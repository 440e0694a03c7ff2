#!/bin/bash
# Session 2026-11-28 (fifteenth), call 85, an H200: count and occupancy
# of large clouds binned without returned values, their occupied voxels
# counted after; means divided whole counting theirs in the division;
# means listed up to 1/32.  kernels_voxelize_gpu (built; u0: every count
# and occupancy uncounted); memcheck; every voxelize mode, 25500a8 (h255)
# against built and u0, alternated twice; the mean listed to 1/64 (m64)
# against built; ncu of the count's kernels at 4,194,304 points.
set -u
OUT=$1; B=$PWD/build
export LD_LIBRARY_PATH=$B/gst:$B/kernels:${LD_LIBRARY_PATH:-}
R=$OUT/r; mkdir -p $R
t0=$(date +%s)
pack () { echo "$(( $(date +%s) - t0 )) s: $*" >> $R/timeline.txt
  tar czf $OUT/r.$BASHPID -C $OUT r && mv $OUT/r.$BASHPID $OUT/r.tgz; }
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader | tee $R/gpu.txt
lib () { [ $1 = built ] && echo $LD_LIBRARY_PATH || echo $PWD/.device/ms/$1:$LD_LIBRARY_PATH; }
for T in built u0; do
  LD_LIBRARY_PATH=$(lib $T) timeout 100 $B/tests/kernels_voxelize_gpu > $R/test-$T.txt 2>&1; echo rc=$? >> $R/test-$T.txt
  echo "== test $T"; grep -E "%|:F:|:E:|rc=" $R/test-$T.txt
done; pack test
GST_CHECKS=test_mean_scratch_reused,test_odd_grid_several_clouds timeout 150 compute-sanitizer --tool memcheck --error-exitcode 9 $B/tests/kernels_voxelize_gpu > $R/memcheck.txt 2>&1; echo rc=$? >> $R/memcheck.txt; pack memcheck
echo "== memcheck"; grep -E "SUMMARY|%|rc=" $R/memcheck.txt | tail -3
P=16384,131072,262144,393216,524288,1048576,2097152,4194304
for i in 1 2; do for T in h255 built u0; do
  LD_LIBRARY_PATH=$(lib $T) timeout 120 $B/tests/bench-kernels --sweep voxelize --modes count,occupancy,mean,centroids --points $P --runs 30 > $R/$T-$i.txt 2>&1; pack $T $i
done; done
echo "== h255-1 built-1 u0-1 h255-2 built-2 u0-2 ratio(u0-2)"
paste <(grep -E "^sweep-voxelize" $R/h255-1.txt | awk '{print $1, $2}') <(grep -E "^sweep-voxelize" $R/built-1.txt | awk '{print $2}') <(grep -E "^sweep-voxelize" $R/u0-1.txt | awk '{print $2}') <(grep -E "^sweep-voxelize" $R/h255-2.txt | awk '{print $2}') <(grep -E "^sweep-voxelize" $R/built-2.txt | awk '{print $2}') <(grep -E "^sweep-voxelize" $R/u0-2.txt | awk '{print $2, $NF}') | grep -v "cube-n131072.*cube"
M=393216,524288,1048576
for i in 1 2; do for T in built m64; do
  LD_LIBRARY_PATH=$(lib $T) timeout 60 $B/tests/bench-kernels --sweep voxelize --modes mean --points $M --runs 30 > $R/m-$T-$i.txt 2>&1; pack m $T $i
done; done
echo "== mean $M: built m64, rounds 1 2"
for T in built m64; do for i in 1 2; do echo "$T-$i $(grep -E "^sweep-voxelize-mean-256" $R/m-$T-$i.txt | awk '{printf "%s ", $2}')"; done; done
for m in count mean occupancy; do
  timeout 60 ncu --clock-control none --metrics gpu__time_duration.sum,lts__t_sectors_op_red.sum,lts__t_sectors_op_atom.sum,dram__bytes.sum -k regex:"clear_outputs|bin_points|count_occupied|divide" --launch-count 12 $B/tests/bench-kernels --sweep voxelize --modes $m --points 4194304 --runs 1 > $R/ncu-$m-4m.txt 2>&1
  echo "== ncu $m 4194304"; grep -E "^  [a-zA-Z_].*\(|gpu__time_duration|lts__t_sectors_op|dram__bytes" $R/ncu-$m-4m.txt | awk '{print $1, $NF}' | paste - - - - - | head -12; pack ncu $m
done
cat $R/timeline.txt
