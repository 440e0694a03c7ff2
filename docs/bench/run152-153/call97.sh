#!/bin/bash
# Seventeenth session (2026-11-28), issue 23: fuse at 8 streams waits at the
# barrier after its stage copy (21 % of stall samples, run 152's ncu) and
# after locating (9 %).  Variants of fuse.cu (fvars2.tar.xz): fC sweeps the
# streams read from global memory while the stage lands; fN stages nothing;
# fL locates every (episode, stream, tick) in a kernel of its own; fP6 and
# fP5 pipeline two tiles (the next located, planned and its copy started
# before the current one's copy is waited for), two stages of 15 KB at 6
# blocks an SM or of 19 KB at 5.  Alternated twice with the built library
# over the fuse sweep (checked against the CPU before timing); each
# variant's kernels_fuse_gpu; racecheck and memcheck over fP6's.
set -u
OUT=$1; B=$PWD/build
export LD_LIBRARY_PATH=$B/gst:$B/kernels:${LD_LIBRARY_PATH:-}
BASE_LD=$LD_LIBRARY_PATH
R=$OUT/r; mkdir -p $R
t0=$(date +%s)
pack () { echo "$(( $(date +%s) - t0 )) s: $*" >> $R/timeline.txt
  tar czf $OUT/r.$BASHPID -C $OUT r && mv $OUT/r.$BASHPID $OUT/r.tgz; }
V=/tmp/vars; mkdir -p $V && tar xJf .device/fvars2.tar.xz -C $V
lib () { [ $1 = built ] && echo $BASE_LD || echo $V/ms/$1:$BASE_LD; }
VARS="fC fN fL fP6 fP5"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $R/gpu.txt
for T in $VARS; do
  LD_LIBRARY_PATH=$(lib $T) timeout 40 $B/tests/kernels_fuse_gpu > $R/test-$T.txt 2>&1; echo rc=$? >> $R/test-$T.txt
done; pack tests variants
grep -h "Checks" $R/test-*.txt
for i in 1 2; do
  for T in built $VARS; do
    LD_LIBRARY_PATH=$(lib $T) timeout 45 $B/tests/bench-kernels --sweep fuse --runs 30 --json $R/fuse-$T-$i.json > $R/fuse-$T-$i.txt 2>&1; echo rc=$? >> $R/fuse-$T-$i.txt; pack fuse $T $i
  done
done
LD_LIBRARY_PATH=$(lib fP6) timeout 60 compute-sanitizer --tool racecheck --error-exitcode 9 $B/tests/kernels_fuse_gpu > $R/racecheck-fP6.txt 2>&1; echo rc=$? >> $R/racecheck-fP6.txt; pack racecheck
LD_LIBRARY_PATH=$(lib fP6) timeout 40 compute-sanitizer --tool memcheck --error-exitcode 9 $B/tests/kernels_fuse_gpu > $R/memcheck-fP6.txt 2>&1; echo rc=$? >> $R/memcheck-fP6.txt; pack memcheck
LD_LIBRARY_PATH=$(lib fP6) timeout 50 ncu --set full --import-source yes -k regex:fuse_kernel --launch-count 1 -o $R/ncu8-fP6 $B/tests/bench-kernels --sweep fuse --streams 8 --ticks 100 --runs 1 > $R/ncu8-fP6.log 2>&1
ncu -i $R/ncu8-fP6.ncu-rep --page source --csv --print-source cuda,sass > $R/ncu8-fP6-source.csv 2>&1; pack ncu
for T in built $VARS; do echo "== $T"; grep -E "^sweep-fuse" $R/fuse-$T-2.txt | awk '{print $1, $2, $NF}'; done
grep -E "SUMMARY|rc=" $R/racecheck-fP6.txt $R/memcheck-fP6.txt | tail -4
grep -h "rc=" $R/*.txt | sort | uniq -c; cat $R/timeline.txt
