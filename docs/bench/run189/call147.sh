#!/bin/bash
# Twenty-fifth session, call 147: where the pillars of a KITTI-sized sweep
# (131,072 points) and of a 128-beam sweep with two returns (524,288)
# spend their time (the build: call 146's "new").  ncu's duration of each
# kernel of one call; ncu's full sections and SASS samples (stalls and
# instructions executed) of locate_points, place_points and write_slots.
CALL_SECONDS=300 . docs/bench/call-lib.sh "$1"
K='clear|scan|Scan|write|locate|mark|place'
for n in 131072 524288; do
  timeout 60 ncu --metrics gpu__time_duration.sum -k regex:"$K" --launch-count 14 --csv $B/tests/bench-kernels --sweep voxelize --modes pillars --points $n --only "sweep-voxelize-pillars-*" --runs 1 > $R/dur-$n.csv 2>&1; echo rc=$? >> $R/dur-$n.csv
  echo "== $n"; grep gpu__time_duration $R/dur-$n.csv | awk -F'","' '{printf "%s %s\n", $NF, substr($5, 1, 40)}' | head -14
  timeout 100 ncu --set full --import-source yes -k regex:"locate_points|place_points|write_slots" --launch-count 3 -o $R/p$n $B/tests/bench-kernels --sweep voxelize --modes pillars --points $n --only 'sweep-voxelize-pillars-*' --runs 1 > $R/ncu-$n.txt 2>&1; echo rc=$? >> $R/ncu-$n.txt
  ncu --import $R/p$n.ncu-rep --page details --section SpeedOfLight --section MemoryWorkloadAnalysis --section WarpStateStats --section Occupancy --section LaunchStats --section InstructionStats > $R/details-$n.txt 2>&1
  ncu --import $R/p$n.ncu-rep --page source --csv --print-source sass > $R/source-$n.csv 2>&1
  python3 tests/bench/ncu_stalls.py $R/source-$n.csv 20 > $R/stalls-$n.txt 2>&1
  grep -E "^  [a-z_]|Duration|DRAM Throughput|Achieved Occupancy|Registers Per|Warp Cycles Per Issued|Executed Instructions  " $R/details-$n.txt | head -30
  rm -f $R/p$n.ncu-rep; xz -9 $R/source-$n.csv; pack ncu $n
done
head -70 $R/stalls-131072.txt
cat $R/timeline.txt
