#!/bin/bash
# Twentieth session (2026-11-28): fuse's staged float streams of one float
# an access (odd rows) read as two aligned 16-byte units a row and
# funnelled (sweep_shifted, not inlined: the built library), against
# 2877f2c (base) and the same inlined (inl, 48 bytes of spills), alternated
# twice over the fuse sweep with the quoted widths and with 512,7,10; the
# whole suite; memcheck over kernels_fuse_gpu; kernels_fuse_gpu on a mutant
# (a shift of one read as three), which must fail.
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
timeout 240 meson test -C build --no-rebuild --print-errorlogs > $R/suite.txt 2>&1; echo rc=$? >> $R/suite.txt
echo "== suite"; grep -E "^Ok:|^Fail:|^Skipped:|^Timeout:|rc=|FAIL" $R/suite.txt | head -20; pack suite
timeout 90 compute-sanitizer --tool memcheck --error-exitcode 9 $B/tests/kernels_fuse_gpu > $R/memcheck.txt 2>&1; echo rc=$? >> $R/memcheck.txt; pack memcheck
grep -E "SUMMARY|Checks|rc=" $R/memcheck.txt
LD_LIBRARY_PATH=$(lib mut) timeout 60 $B/tests/kernels_fuse_gpu > $R/mutant.txt 2>&1; echo rc=$? >> $R/mutant.txt
echo "== mutant"; grep -E "Checks|rc=|differ" $R/mutant.txt | head; pack mutant
LD_LIBRARY_PATH=$(lib inl) timeout 60 $B/tests/kernels_fuse_gpu > $R/inl-test.txt 2>&1; echo rc=$? >> $R/inl-test.txt
grep -E "Checks|rc=" $R/inl-test.txt
for round in 1 2; do
for T in base built inl; do
  LD_LIBRARY_PATH=$(lib $T) timeout 45 $B/tests/bench-kernels --sweep fuse --runs 30 --json $R/fuse-$T-$round.json > $R/fuse-$T-$round.txt 2>&1; echo rc=$? >> $R/fuse-$T-$round.txt
  LD_LIBRARY_PATH=$(lib $T) timeout 45 $B/tests/bench-kernels --sweep fuse --fuse-channels 512,7,10 --runs 30 --json $R/odd-$T-$round.json > $R/odd-$T-$round.txt 2>&1; echo rc=$? >> $R/odd-$T-$round.txt; pack fuse $T $round
done; done
for round in 1 2; do for T in base built inl; do echo "== $T $round"; paste <(grep -E "^sweep-fuse" $R/fuse-$T-$round.txt | awk '{print $1, $2, $NF}') <(grep -E "^sweep-fuse" $R/odd-$T-$round.txt | awk '{print $2, $NF}'); done; done
grep -h "rc=" $R/*.txt | sort | uniq -c; cat $R/timeline.txt
