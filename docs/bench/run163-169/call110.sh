#!/bin/bash
# Nineteenth session (2026-11-28), run 166: where the radix-sorted mean's
# time goes in the library: ncu's duration of each kernel of a 256^3 mean
# of 4,194,304 points (three and four features), and the division's speed
# of light.
set -u
OUT=$1; B=$PWD/build
export LD_LIBRARY_PATH=$B/gst:$B/kernels:${LD_LIBRARY_PATH:-}
R=$OUT/r; mkdir -p $R
K='regex:key_points|divide_sorted|find_block|Radix|clear_outputs'
timeout 200 ncu --clock-control none --metrics gpu__time_duration.sum -k "$K" --csv $B/tests/bench-kernels --sweep voxelize --modes mean --points 4194304 --runs 2 > $R/ncu-times.csv 2> $R/ncu-times.err; echo rc=$? >> $R/ncu-times.err
python3 - $R/ncu-times.csv <<'PY'
import csv, sys, collections
rows = [r for r in csv.reader(open(sys.argv[1])) if len(r) > 10]
head = rows[0]; k = head.index("Kernel Name"); v = head.index("Metric Value"); i = head.index("ID")
for r in rows[1:]:
    print(r[i], r[k][:60], r[v])
PY
timeout 200 ncu --clock-control none --section SpeedOfLight --section Occupancy --section MemoryWorkloadAnalysis -k regex:divide_sorted --launch-skip 2 --launch-count 2 $B/tests/bench-kernels --sweep voxelize --modes mean --points 4194304 --runs 1 > $R/ncu-divide.txt 2>&1; echo rc=$? >> $R/ncu-divide.txt
grep -E "Duration|Throughput|Achieved Occupancy|Theoretical Occupancy|Hit Rate|Block Limit|rc=" $R/ncu-divide.txt | head -40
tar czf $OUT/r.tgz -C $OUT r
