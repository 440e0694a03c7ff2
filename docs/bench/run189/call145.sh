#!/bin/bash
# Twenty-fifth session, call 145: where the pillars and the centroids of
# large lidar clouds spend their time (e4d0d9d).  Their one-call times at
# 131,072, 1 and 4 million points; ncu's duration of each kernel of one
# call at 1 and 4 million; ncu's full sections and SASS stall samples of
# the pillars' locate_points, place_points and write_slots at 4 million.
CALL_SECONDS=420 . docs/bench/call-lib.sh "$1"
P='sweep-voxelize-pillars-*,sweep-voxelize-centroids-kitti0.2-n*'
timeout 90 $B/tests/bench-kernels --sweep voxelize --modes pillars,centroids --points 131072,1048576,4194304 --only "$P" --runs 30 > $R/sweep.txt 2>&1; echo rc=$? >> $R/sweep.txt
grep -E "^sweep-" $R/sweep.txt | awk '{print $1, $2, $3}'; pack sweep
for m in pillars centroids; do
  for n in 1048576 4194304; do
    [ $m = pillars ] && o="sweep-voxelize-pillars-bev432x496-n$n" || o="sweep-voxelize-centroids-kitti0.2-n$n"
    timeout 100 ncu --metrics gpu__time_duration.sum --launch-count 24 --csv $B/tests/bench-kernels --sweep voxelize --modes $m --points $n --only "$o" --runs 1 > $R/dur-$m-$n.csv 2>&1; echo rc=$? >> $R/dur-$m-$n.csv
    echo "== $m $n"; grep gpu__time_duration $R/dur-$m-$n.csv | awk -F'","' '{print $5, $(NF)}' | sed 's/(.*//' | head -24
    pack dur $m $n
  done
done
timeout 150 ncu --set full --import-source yes -k regex:"locate_points|place_points|write_slots" --launch-count 3 -o $R/pillars-4m $B/tests/bench-kernels --sweep voxelize --modes pillars --points 4194304 --only 'sweep-voxelize-pillars-*' --runs 1 > $R/ncu-pillars.txt 2>&1; echo rc=$? >> $R/ncu-pillars.txt
ncu --import $R/pillars-4m.ncu-rep --page details --section SpeedOfLight --section MemoryWorkloadAnalysis --section WarpStateStats --section Occupancy --section LaunchStats > $R/details-pillars-4m.txt 2>&1
ncu --import $R/pillars-4m.ncu-rep --page source --csv --print-source sass > $R/source-pillars-4m.csv 2>&1
python3 tests/bench/ncu_stalls.py $R/source-pillars-4m.csv 14 > $R/stalls-pillars-4m.txt 2>&1
grep -E "^  [a-z_]|Duration|DRAM Throughput|Achieved Occupancy|Registers Per|Waves Per SM|Warp Cycles Per Issued" $R/details-pillars-4m.txt | head -30
head -80 $R/stalls-pillars-4m.txt; pack ncu full
rm -f $R/*.ncu-rep $R/source-*.csv; pack done
cat $R/timeline.txt
