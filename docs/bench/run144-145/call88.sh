#!/bin/bash
# Session 2026-11-28 (fifteenth), call 88, an H200: records only where
# they are not padded (one feature, three, seven...).  kernels_voxelize_gpu
# (now with a three-feature mean in records); memcheck over test_mean_slabs;
# means of one, three and four features, 606b96a (h606) against built,
# alternated twice.
set -u
OUT=$1; B=$PWD/build
export LD_LIBRARY_PATH=$B/gst:$B/kernels:${LD_LIBRARY_PATH:-}
R=$OUT/r; mkdir -p $R
t0=$(date +%s)
pack () { echo "$(( $(date +%s) - t0 )) s: $*" >> $R/timeline.txt
  tar czf $OUT/r.$BASHPID -C $OUT r && mv $OUT/r.$BASHPID $OUT/r.tgz; }
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $R/gpu.txt
lib () { [ $1 = built ] && echo $LD_LIBRARY_PATH || echo $PWD/.device/ms/$1:$LD_LIBRARY_PATH; }
timeout 100 $B/tests/kernels_voxelize_gpu > $R/test-built.txt 2>&1; echo rc=$? >> $R/test-built.txt
echo "== test built"; grep -E "%|:F:|:E:|rc=" $R/test-built.txt; pack test
GST_CHECKS=test_mean_slabs timeout 60 compute-sanitizer --tool memcheck --error-exitcode 9 $B/tests/kernels_voxelize_gpu > $R/memcheck.txt 2>&1; echo rc=$? >> $R/memcheck.txt; pack memcheck
echo "== memcheck"; grep -E "SUMMARY|%|rc=" $R/memcheck.txt | tail -3
P=524288,1048576,2097152,4194304
for i in 1 2; do for T in h606 built; do
  LD_LIBRARY_PATH=$(lib $T) timeout 60 $B/tests/bench-kernels --sweep voxelize --modes mean --points $P --runs 20 > $R/$T-$i.txt 2>&1; pack $T $i
done; done
echo "== h606-1 built-1 h606-2 built-2 ratio(built-2)"
paste <(grep -E "^sweep-voxelize-mean" $R/h606-1.txt | awk '{print $1, $2}') <(grep -E "^sweep-voxelize-mean" $R/built-1.txt | awk '{print $2}') <(grep -E "^sweep-voxelize-mean" $R/h606-2.txt | awk '{print $2}') <(grep -E "^sweep-voxelize-mean" $R/built-2.txt | awk '{print $2, $NF}')
cat $R/timeline.txt
