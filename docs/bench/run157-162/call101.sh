#!/bin/bash
# Run 157: the counting-sort mean probe against the library (alternated).
OUT=$1
mkdir -p $OUT
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv > $OUT/gpu.txt 2>&1
cat $OUT/gpu.txt
timeout 300 build/probe/sort_means_probe 30 > $OUT/probe.txt 2>&1; echo "probe rc $?" >> $OUT/probe.txt
cat $OUT/probe.txt
