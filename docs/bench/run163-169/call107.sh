#!/bin/bash
# Nineteenth session (2026-11-28), run 163: the radix-sort means probe
# (docs/bench/run163-169/radix_means_probe.cu) against the library (ace593c).
set -u
OUT=$1; B=$PWD/build
export LD_LIBRARY_PATH=$B/gst:$B/kernels:${LD_LIBRARY_PATH:-}
R=$OUT/r; mkdir -p $R
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $R/gpu.txt
timeout 400 $B/probe/radix_means_probe 20 > $R/probe.txt 2>&1; echo "rc=$?" >> $R/probe.txt
cat $R/probe.txt
tar czf $OUT/r.tgz -C $OUT r
