#!/bin/bash
# Session 2026-11-28 (twelfth), call 75: the slabs as committed (binning
# dispatch folded into launch_binning): kernels_voxelize_gpu,
# elements-cuda and elements-transfers; the count sweep.
set -u
OUT=$1; B=$PWD/build
export LD_LIBRARY_PATH=$B/gst:$B/kernels:${LD_LIBRARY_PATH:-}
R=$OUT/r; mkdir -p $R
nvidia-smi --query-gpu=name --format=csv,noheader | tee $R/gpu.txt
timeout 150 meson test -C build --no-rebuild --num-processes 8 kernels-voxelize-gpu elements-cuda elements-transfers > $R/tests.txt 2>&1; echo rc=$? >> $R/tests.txt
grep -E "^ *[0-9]+/|Ok:|Fail:|rc=" $R/tests.txt
timeout 60 $B/tests/bench-kernels --sweep voxelize --modes count --points 524288,1048576,2097152,4194304 --runs 50 > $R/sweep.txt 2>&1
grep -E "^sweep-voxelize-count-256" $R/sweep.txt | awk '{print $1, $2, $NF}'
grep -iE "differ|mismatch|error" $R/sweep.txt | head -3
