#!/bin/bash
# Seventeenth session (2026-11-28), issue 23: fuse where a row or a
# stream's offset is not a multiple of four floats.  The kernel then moves
# two or one float an access (2 streams of the sweep, a row of 526, took
# 43 us against 35 for one stream); a row of 529 (512, 7, 10 channels: a
# camera feature, a 7-joint arm, an IMU) moves one.  Variants
# (fvars3.tar.xz): fA4 writes every such stream in whole 16-byte units of
# the output (the segments' first and last units partly), reading float by
# float; fA2 only those of one float an access.  Each against the built
# library over the fuse sweep with the quoted widths and with 512,7,10,
# alternated twice; each variant's kernels_fuse_gpu (test_odd_channels:
# widths 1 to 69) and memcheck.
set -u
OUT=$1; B=$PWD/build
export LD_LIBRARY_PATH=$B/gst:$B/kernels:${LD_LIBRARY_PATH:-}
BASE_LD=$LD_LIBRARY_PATH
R=$OUT/r; mkdir -p $R
t0=$(date +%s)
pack () { echo "$(( $(date +%s) - t0 )) s: $*" >> $R/timeline.txt
  tar czf $OUT/r.$BASHPID -C $OUT r && mv $OUT/r.$BASHPID $OUT/r.tgz; }
V=/tmp/vars; mkdir -p $V && tar xJf .device/fvars3.tar.xz -C $V
lib () { [ $1 = built ] && echo $BASE_LD || echo $V/ms/$1:$BASE_LD; }
VARS="fA4 fA2"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $R/gpu.txt
for T in $VARS; do
  LD_LIBRARY_PATH=$(lib $T) timeout 40 $B/tests/kernels_fuse_gpu > $R/test-$T.txt 2>&1; echo rc=$? >> $R/test-$T.txt
  LD_LIBRARY_PATH=$(lib $T) timeout 60 compute-sanitizer --tool memcheck --error-exitcode 9 $B/tests/kernels_fuse_gpu > $R/memcheck-$T.txt 2>&1; echo rc=$? >> $R/memcheck-$T.txt
done; pack tests variants
grep -h "Checks\|SUMMARY" $R/test-*.txt $R/memcheck-*.txt
for i in 1 2; do
  for T in built $VARS; do
    LD_LIBRARY_PATH=$(lib $T) timeout 45 $B/tests/bench-kernels --sweep fuse --runs 30 --json $R/fuse-$T-$i.json > $R/fuse-$T-$i.txt 2>&1; echo rc=$? >> $R/fuse-$T-$i.txt
    LD_LIBRARY_PATH=$(lib $T) timeout 45 $B/tests/bench-kernels --sweep fuse --fuse-channels 512,7,10 --runs 30 --json $R/odd-$T-$i.json > $R/odd-$T-$i.txt 2>&1; echo rc=$? >> $R/odd-$T-$i.txt; pack fuse $T $i
  done
done
for T in built $VARS; do echo "== $T"; paste <(grep -E "^sweep-fuse" $R/fuse-$T-2.txt | awk '{print $1, $2, $NF}') <(grep -E "^sweep-fuse" $R/odd-$T-2.txt | awk '{print $2, $NF}'); done
grep -h "rc=" $R/*.txt | sort | uniq -c; cat $R/timeline.txt
