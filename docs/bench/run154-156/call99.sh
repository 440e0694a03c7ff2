#!/bin/bash
# Seventeenth session (2026-11-28): the session's code on the GPU: fuse's
# streams of one float an access written in whole 16-byte units
# (sweep_unaligned) and bench-kernels --fuse-channels.  The whole suite;
# memcheck over kernels_fuse_gpu; the fuse sweep with the quoted widths
# and with 512,7,10 (a row of 529), the built library and 7248e27's fuse.cu
# (f0, fvars4.tar.xz) alternated.
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
V=/tmp/vars; mkdir -p $V && tar xJf .device/fvars4.tar.xz -C $V
lib () { [ $1 = built ] && echo $BASE_LD || echo $V/ms/$1:$BASE_LD; }
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $R/gpu.txt
timeout 240 meson test -C build --no-rebuild --print-errorlogs > $R/suite.txt 2>&1; echo rc=$? >> $R/suite.txt
echo "== suite"; grep -E "^Ok:|^Fail:|^Skipped:|^Timeout:|rc=|FAIL" $R/suite.txt | head -20; pack suite
timeout 60 compute-sanitizer --tool memcheck --error-exitcode 9 $B/tests/kernels_fuse_gpu > $R/memcheck.txt 2>&1; echo rc=$? >> $R/memcheck.txt; pack memcheck
grep -E "SUMMARY|Checks" $R/memcheck.txt
for T in f0 built; do
  LD_LIBRARY_PATH=$(lib $T) timeout 45 $B/tests/bench-kernels --sweep fuse --runs 30 --json $R/fuse-$T.json > $R/fuse-$T.txt 2>&1; echo rc=$? >> $R/fuse-$T.txt
  LD_LIBRARY_PATH=$(lib $T) timeout 45 $B/tests/bench-kernels --sweep fuse --fuse-channels 512,7,10 --runs 30 --json $R/odd-$T.json > $R/odd-$T.txt 2>&1; echo rc=$? >> $R/odd-$T.txt; pack fuse $T
done
for T in f0 built; do echo "== $T"; paste <(grep -E "^sweep-fuse" $R/fuse-$T.txt | awk '{print $1, $2, $NF}') <(grep -E "^sweep-fuse" $R/odd-$T.txt | awk '{print $2, $NF}'); done
grep -h "rc=" $R/*.txt | sort | uniq -c; cat $R/timeline.txt
