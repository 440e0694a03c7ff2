#!/bin/bash
# Twenty-third session, call 132: ncu of the partition probe's passes at
# 4 million uniform points (tiles of 2^15 voxels).
set -u
OUT=$1; R=$OUT/r; mkdir -p $R
B=docs/bench/run184/bin
export LD_LIBRARY_PATH=$B
timeout 300 ncu --set full -k regex:"key_points|scatter_keys|count_tiles|bin_points|clear" --launch-count 10 -o $R/p15 $B/p15 3 4194304 > $R/ncu.txt 2>&1; echo rc=$? >> $R/ncu.txt
tail -5 $R/ncu.txt
ncu --import $R/p15.ncu-rep --print-summary per-kernel --page details --section SpeedOfLight --section MemoryWorkloadAnalysis --section WarpStateStats --section Occupancy --section LaunchStats > $R/ncu-details.txt 2>&1
grep -E "^  [a-z_]|Duration|DRAM Throughput|Memory Throughput|Achieved Occupancy|Registers Per|Stall|L2 Hit|Warp Cycles Per Issued" $R/ncu-details.txt | head -120
