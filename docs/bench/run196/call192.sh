#!/bin/bash
# Thirty-second session, call 192: the CPU's search for targets in order,
# three kernel libraries built here (.device/lean2.tar.xz, unpacked into
# /tmp/lean2): "base" (b68a5dc, a guess from even spacing for every
# target), "new" (8a01cea, a gallop on from the last answer) and "scan"
# (a scan of up to 8 samples on from the last, where the samples are at
# most 4 a target, else the guess), alternated, on the H200's host: call
# 191 found new 1.2 to 1.5x slower there for float32, where this 2-core
# machine found it 1.2 to 1.5x faster.  cpuresample.c (B 64 S 4,096
# T 1,024 D 32), cpulocate.c (one trajectory, 4 and 100 samples a
# target), cpufuse.c and cpuresample-check.c's hash; then autocross.c
# with scan twice and base once.  Carried: `carry: [".device"]`.
set -u
OUT=$1; R=$OUT/r; mkdir -p $R
tar xJf .device/lean2.tar.xz -C /tmp
L=/tmp/lean2
BASE_LD=${LD_LIBRARY_PATH:-}
nvidia-smi --query-gpu=name --format=csv,noheader > $R/gpu.txt; lscpu | grep -E "Model name|^CPU\(s\)" >> $R/gpu.txt
for round in 1 2 3; do
  for l in base new scan; do
    { echo "== $l"; LD_LIBRARY_PATH=$L/lib/$l:$BASE_LD $L/bin/cpuresample;
      LD_LIBRARY_PATH=$L/lib/$l:$BASE_LD $L/bin/cpulocate 0 65540 100;
      LD_LIBRARY_PATH=$L/lib/$l:$BASE_LD $L/bin/cpulocate 1 65540 100;
      LD_LIBRARY_PATH=$L/lib/$l:$BASE_LD $L/bin/cpulocate 0 655400 20 100;
      LD_LIBRARY_PATH=$L/lib/$l:$BASE_LD $L/bin/cpufuse;
      LD_LIBRARY_PATH=$L/lib/$l:$BASE_LD $L/bin/cpuresample-check | tail -1; } >> $R/cpu-ab.txt 2>&1
  done
done
tail -5 $R/cpu-ab.txt
for run in "scan 196" "scan 7" "base 196"; do
  set -- $run
  LD_LIBRARY_PATH=$L/lib/$1:$BASE_LD timeout 120 $L/bin/autocross 41 $2 > $R/autocross-$1-$2.txt 2>&1; echo rc=$? >> $R/autocross-$1-$2.txt
  grep -E "rc_resample_prefers|rc=" $R/autocross-$1-$2.txt
done
tar czf $OUT/r.tgz -C $OUT r
