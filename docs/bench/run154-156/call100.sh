#!/bin/bash
# Seventeenth session (2026-11-28), issue 23: fuse's streams of two floats
# an access (at 2 streams every stream of the quoted widths, a row of 526)
# written in whole 16-byte units of the output like a577ec0's streams of
# one, reading two floats at a time (fvars5.tar.xz): fB inlined as
# sweep_unaligned is (it spills 68 bytes under the launch bounds), fBn the
# same not inlined, fBn1 not inlined for streams of one float only.  One
# round each over the quoted widths (and 512,7,10 for the built library and
# fBn1), each variant's kernels_fuse_gpu and memcheck.
set -u
OUT=$1; B=$PWD/build
export LD_LIBRARY_PATH=$B/gst:$B/kernels:${LD_LIBRARY_PATH:-}
BASE_LD=$LD_LIBRARY_PATH
R=$OUT/r; mkdir -p $R
t0=$(date +%s)
pack () { echo "$(( $(date +%s) - t0 )) s: $*" >> $R/timeline.txt
  tar czf $OUT/r.$BASHPID -C $OUT r && mv $OUT/r.$BASHPID $OUT/r.tgz; }
V=/tmp/vars; mkdir -p $V && tar xJf .device/fvars5.tar.xz -C $V
lib () { [ $1 = built ] && echo $BASE_LD || echo $V/ms/$1:$BASE_LD; }
VARS="fB fBn fBn1"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $R/gpu.txt
for T in $VARS; do
  LD_LIBRARY_PATH=$(lib $T) timeout 30 $B/tests/kernels_fuse_gpu > $R/test-$T.txt 2>&1; echo rc=$? >> $R/test-$T.txt
  LD_LIBRARY_PATH=$(lib $T) timeout 40 compute-sanitizer --tool memcheck --error-exitcode 9 $B/tests/kernels_fuse_gpu > $R/memcheck-$T.txt 2>&1; echo rc=$? >> $R/memcheck-$T.txt
done; pack tests variants
grep -h "Checks\|SUMMARY" $R/test-*.txt $R/memcheck-*.txt
for T in built $VARS; do
  LD_LIBRARY_PATH=$(lib $T) timeout 40 $B/tests/bench-kernels --sweep fuse --runs 30 --json $R/fuse-$T.json > $R/fuse-$T.txt 2>&1; echo rc=$? >> $R/fuse-$T.txt; pack fuse $T
done
for T in built fBn1; do
  LD_LIBRARY_PATH=$(lib $T) timeout 40 $B/tests/bench-kernels --sweep fuse --fuse-channels 512,7,10 --runs 30 --json $R/odd-$T.json > $R/odd-$T.txt 2>&1; echo rc=$? >> $R/odd-$T.txt; pack odd $T
done
for T in built $VARS; do echo "== $T $(grep -E '^sweep-fuse' $R/fuse-$T.txt | awk '{printf "%s ", $2}') | $(grep -E '^sweep-fuse' $R/odd-$T.txt 2>/dev/null | awk '{printf "%s ", $2}')"; done
grep -h "rc=" $R/*.txt | sort | uniq -c; cat $R/timeline.txt
