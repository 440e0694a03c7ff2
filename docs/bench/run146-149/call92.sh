#!/bin/bash
# Sixteenth session (2026-11-28), issue 23: fuse at 8 streams spends half
# its cycles at the tile's barriers on the H200 (run 147's ncu), its tiles
# held to 4 ticks by the 28 KB stage.  Variants of fuse.cu's constants
# (fusevars.tar.xz): f1 stage 40 KB, 5 blocks an SM; f2 tiles of at least
# 8 ticks (streams that do not fit read from global memory); f3 both; f4
# at least 6 ticks.  Each against the built library (f0), alternated twice
# over the fuse sweep (bench-kernels checks every result against the CPU
# before timing it).  Then bench-kernels of 183fe94 and of the new code
# alternated twice more (run 147's BEV count single call).
set -u
OUT=$1; B=$PWD/build
R=$OUT/r; mkdir -p $R
export GST_PLUGIN_PATH_1_0=$B/gst GST_REGISTRY_1_0=/tmp/reg.bin
BASE_LD=${LD_LIBRARY_PATH:-}
t0=$(date +%s)
pack () { echo "$(( $(date +%s) - t0 )) s: $*" >> $R/timeline.txt
  tar czf $OUT/r.$BASHPID -C $OUT r && mv $OUT/r.$BASHPID $OUT/r.tgz; }
V=/tmp/vars; mkdir -p $V && tar xJf .device/fusevars.tar.xz -C $V
lib () { [ $1 = f0 ] && echo $B/kernels:$BASE_LD || echo $V/ms/$1:$B/kernels:$BASE_LD; }
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $R/gpu.txt
for i in 1 2; do
  for T in f0 f1 f2 f3 f4; do
    LD_LIBRARY_PATH=$(lib $T) timeout 45 $B/tests/bench-kernels --sweep fuse --runs 30 --json $R/fuse-$T-$i.json > $R/fuse-$T-$i.txt 2>&1; echo rc=$? >> $R/fuse-$T-$i.txt; pack fuse $T $i
  done
done
for i in 2 3; do
  LD_LIBRARY_PATH=$V/old/kernels:$BASE_LD timeout 40 $V/old/bench-kernels --json $R/k-old-$i.json > $R/k-old-$i.txt 2>&1; pack k old $i
  LD_LIBRARY_PATH=$B/kernels:$BASE_LD timeout 40 $B/tests/bench-kernels --json $R/k-new-$i.json > $R/k-new-$i.txt 2>&1; pack k new $i
done
for T in f2 f3; do
  LD_LIBRARY_PATH=$(lib $T) timeout 40 ncu --section SpeedOfLight --section WarpStateStats --section LaunchStats -k regex:fuse_kernel --launch-count 1 $B/tests/bench-kernels --sweep fuse --streams 8 --runs 1 > $R/ncu-fuse-8-$T.txt 2>&1; pack ncu $T
done
for T in f0 f1 f2 f3 f4; do echo "== $T"; grep -A7 "fuse f32: streams" $R/fuse-$T-2.txt | tail -5; done
grep -h "rc=" $R/*.txt | sort | uniq -c; cat $R/timeline.txt
