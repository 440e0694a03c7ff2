#!/bin/bash
# Twenty-fourth session, call 140: where the partitioned mean of one
# feature spends its time (d716bbe).  ncu of the three passes at 4 million
# uniform points into 256^3, the mean and the counts; the mean at a
# million; the SASS of the tiles' pass (are shared float adds native?);
# one sweep of both modes for their one-call times in this session.
set -u
OUT=$1; B=$PWD/build
export LD_LIBRARY_PATH=$B/gst:$B/kernels:${LD_LIBRARY_PATH:-}
R=$OUT/r; mkdir -p $R
t0=$(date +%s)
pack () { echo "$(( $(date +%s) - t0 )) s: $*" >> $R/timeline.txt
  tar czf $OUT/r.$BASHPID -C $OUT r && mv $OUT/r.$BASHPID $OUT/r.tgz; }
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $R/gpu.txt
date -u >> $R/gpu.txt
L=$B/kernels/librobocache-kernels-1.0.so.0
cuobjdump -sass -fun sum_tiles $L > $R/sass-sum_tiles.txt 2>&1
cuobjdump -sass $L 2>/dev/null | awk '/Function : .*sum_tiles/{f=$0} /ATOMS/{if(f) print f" :: "$0}' | sed 's/  */ /g' | sort | uniq -c > $R/atoms.txt
cat $R/atoms.txt | head -20; pack sass
for c in "mean 4194304" "count 4194304" "mean 1048576"; do
  set -- $c
  timeout 150 ncu --set full -k regex:"key_points|place_points|sum_tiles" --launch-count 3 -o $R/$1-$2 $B/tests/bench-kernels --sweep voxelize --modes $1 --points $2 --runs 1 > $R/ncu-$1-$2.txt 2>&1; echo rc=$? >> $R/ncu-$1-$2.txt
  ncu --import $R/$1-$2.ncu-rep --page details --section SpeedOfLight --section MemoryWorkloadAnalysis --section WarpStateStats --section Occupancy --section LaunchStats > $R/details-$1-$2.txt 2>&1
  echo "== $1 $2"; grep -E "^  [a-z_]|Duration|DRAM Throughput|Achieved Occupancy|Registers Per|Dynamic Shared|Waves Per SM|Warp Cycles Per Issued" $R/details-$1-$2.txt | head -40
  pack ncu $1 $2
done
timeout 60 $B/tests/bench-kernels --sweep voxelize --modes count,mean --points 1048576,4194304 --runs 30 > $R/sweep.txt 2>&1; echo rc=$? >> $R/sweep.txt
grep -E "256cube" $R/sweep.txt | awk '{print $1, $2, $3}'; pack sweep
cat $R/timeline.txt
