#!/bin/bash
# Twenty-fifth session, call 152: where the slot writer's instructions go
# now (c6e0473): ncu's SASS samples and instructions executed of
# write_slots at 131,072 points.
CALL_SECONDS=120 . docs/bench/call-lib.sh "$1"
timeout 100 ncu --set full --import-source yes -k regex:"write_slots" --launch-count 1 -o $R/ws $B/tests/bench-kernels --sweep voxelize --modes pillars --points 131072 --only 'sweep-voxelize-pillars-*' --runs 1 > $R/ncu.txt 2>&1; echo rc=$? >> $R/ncu.txt
ncu --import $R/ws.ncu-rep --page details --section SpeedOfLight --section WarpStateStats --section Occupancy --section LaunchStats --section InstructionStats > $R/details.txt 2>&1
ncu --import $R/ws.ncu-rep --page source --csv --print-source sass > $R/source.csv 2>&1
python3 tests/bench/ncu_stalls.py $R/source.csv 20 > $R/stalls.txt 2>&1
grep -E "Duration|Achieved Occupancy|Registers Per|Warp Cycles Per Issued|Executed Instructions  " $R/details.txt | head; head -24 $R/stalls.txt
rm -f $R/ws.ncu-rep; xz -9 $R/source.csv; pack done
