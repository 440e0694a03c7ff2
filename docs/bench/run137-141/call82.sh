#!/bin/bash
# Session 2026-11-28 (fourteenth), call 82: the centroids' records in
# kernels of their own.  kernels_voxelize_gpu; every voxelize mode against
# HEAD (c217717, .device/ms/head) alternated twice; ncu's full sections of
# the marked mean's division at 16,384 and 131,072 points.
set -u
OUT=$1; B=$PWD/build
export LD_LIBRARY_PATH=$B/gst:$B/kernels:${LD_LIBRARY_PATH:-}
R=$OUT/r; mkdir -p $R
t0=$(date +%s)
pack () { echo "$(( $(date +%s) - t0 )) s: $*" >> $R/timeline.txt
  tar czf $OUT/r.$BASHPID -C $OUT r && mv $OUT/r.$BASHPID $OUT/r.tgz; }
nvidia-smi --query-gpu=name --format=csv,noheader | tee $R/gpu.txt
lib () { [ $1 = built ] && echo $LD_LIBRARY_PATH || echo $PWD/.device/ms/$1:$LD_LIBRARY_PATH; }
timeout 100 $B/tests/kernels_voxelize_gpu > $R/test-built.txt 2>&1; echo rc=$? >> $R/test-built.txt; pack test
echo "== test built"; grep -E "%|:F:|:E:|rc=" $R/test-built.txt
P=16384,131072,262144,524288,1048576,2097152,4194304
for i in 1 2; do for T in head built; do
  LD_LIBRARY_PATH=$(lib $T) timeout 120 $B/tests/bench-kernels --sweep voxelize --modes count,occupancy,mean,centroids --points $P --runs 30 > $R/$T-$i.txt 2>&1; pack $T $i
done; done
echo "== head-1 built-1 head-2 built-2"
paste <(grep -E "^sweep-voxelize" $R/head-1.txt | awk '{print $1, $2}') <(grep -E "^sweep-voxelize" $R/built-1.txt | awk '{print $2}') <(grep -E "^sweep-voxelize" $R/head-2.txt | awk '{print $2}') <(grep -E "^sweep-voxelize" $R/built-2.txt | awk '{print $2, $NF}') | grep -v cube-n131072.*cube
for N in 16384 131072; do
  timeout 60 ncu --set full -k regex:"divide_marked" --launch-count 1 $B/tests/bench-kernels --sweep voxelize --modes mean --points $N --runs 1 > $R/ncu-div-$N.txt 2>&1
  echo "== ncu division $N"; grep -E "Duration|DRAM Throughput|Memory Throughput|Achieved Occupancy|L2 Hit Rate|L1/TEX Hit|Stall|Registers Per|Warp Cycles Per Issued|Issued Ipc|est. speedup|Executed Instructions  " $R/ncu-div-$N.txt | head -30
done; pack ncu
cat $R/timeline.txt
