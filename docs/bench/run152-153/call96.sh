#!/bin/bash
# Seventeenth session (2026-11-28): 5911419 on the GPU (the whole suite,
# the bench's lidar series), and issue 23's fuse at 8 streams: variants of
# fuse.cu (fvars.tar.xz): fD, each thread steps its row and unit instead of
# dividing an element; fDL, fD with every (episode, stream, tick) located by
# a kernel of its own before the fuse kernel, which loads them.  Each
# against the built library, alternated twice over the fuse sweep (checked
# against the CPU before timing).  ncu --set full with source at 8 streams.
set -u
OUT=$1; B=$PWD/build
export GST_PLUGIN_PATH_1_0=$B/gst GST_REGISTRY_1_0=/tmp/reg.bin
export LD_LIBRARY_PATH=$B/gst:$B/kernels:${LD_LIBRARY_PATH:-}
export PYTHONPATH=$B/python:$PWD/tests/python
BASE_LD=$LD_LIBRARY_PATH
R=$OUT/r; mkdir -p $R
t0=$(date +%s)
pack () { echo "$(( $(date +%s) - t0 )) s: $*" >> $R/timeline.txt
  tar czf $OUT/r.$BASHPID -C $OUT r && mv $OUT/r.$BASHPID $OUT/r.tgz; }
V=/tmp/vars; mkdir -p $V && tar xJf .device/fvars.tar.xz -C $V
lib () { [ $1 = built ] && echo $BASE_LD || echo $V/ms/$1:$BASE_LD; }
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $R/gpu.txt
for T in fD fDL; do
  LD_LIBRARY_PATH=$(lib $T) timeout 40 $B/tests/kernels_fuse_gpu > $R/test-$T.txt 2>&1; echo rc=$? >> $R/test-$T.txt
done; pack tests variants
for i in 1 2; do
  for T in built fD fDL; do
    LD_LIBRARY_PATH=$(lib $T) timeout 45 $B/tests/bench-kernels --sweep fuse --runs 30 --json $R/fuse-$T-$i.json > $R/fuse-$T-$i.txt 2>&1; echo rc=$? >> $R/fuse-$T-$i.txt; pack fuse $T $i
  done
done
timeout 240 meson test -C build --no-rebuild --print-errorlogs > $R/suite.txt 2>&1; echo rc=$? >> $R/suite.txt
echo "== suite"; grep -E "^Ok:|^Fail:|^Skipped:|^Timeout:|rc=|FAIL" $R/suite.txt | head -20; pack suite
timeout 30 $B/tests/bench-kernels --sweep voxelize --modes count,occupancy --points 131072,1048576 --runs 5 > $R/voxelize-short.txt 2>&1; echo rc=$? >> $R/voxelize-short.txt; pack voxelize
for T in built fDL; do
  LD_LIBRARY_PATH=$(lib $T) timeout 70 ncu --set full --import-source yes -k regex:fuse_kernel --launch-count 1 -o $R/ncu8-$T $B/tests/bench-kernels --sweep fuse --streams 8 --ticks 100 --runs 1 > $R/ncu8-$T.log 2>&1
  ncu -i $R/ncu8-$T.ncu-rep --page details > $R/ncu8-$T-details.txt 2>&1
  ncu -i $R/ncu8-$T.ncu-rep --page source --csv --print-source cuda,sass > $R/ncu8-$T-source.csv 2>&1 || ncu -i $R/ncu8-$T.ncu-rep --page source --csv > $R/ncu8-$T-source.csv 2>&1
  pack ncu $T
done
for T in built fD fDL; do echo "== $T"; grep -E "^sweep-fuse" $R/fuse-$T-2.txt; done
grep -h "rc=" $R/*.txt | sort | uniq -c; cat $R/timeline.txt
