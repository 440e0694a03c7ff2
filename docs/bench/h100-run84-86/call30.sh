#!/bin/bash
# Session 2026-11-27 (sixth), call I: sparse locate in double (the fix),
# its new test against the library before the fix, the failing seed, the
# suite, racecheck and memcheck over kernels-sparse-gpu.
set -u
OUT=$1; B=$PWD/build
export GST_PLUGIN_PATH_1_0=$B/gst GST_REGISTRY_1_0=/tmp/reg.bin
export LD_LIBRARY_PATH=$B/gst:$B/kernels:${LD_LIBRARY_PATH:-} PYTHONPATH=$B/python:$PWD/tests/python
R=$OUT/r; mkdir -p $R
T=$B/tests/kernels_sparse_gpu
{ echo "== before the fix (.device/buggy)"; LD_LIBRARY_PATH=$PWD/.device/buggy:$LD_LIBRARY_PATH timeout 60 $T 2>&1 | grep -E "seed|%|:F:|:E:"
  echo "== fixed, seed 3183019182"; ROBOCACHE_TEST_SEED=3183019182 timeout 60 $T 2>&1 | grep -E "seed|%|:F:|:E:"
  for i in 1 2; do echo "== fixed, fresh seed"; timeout 60 $T 2>&1 | grep -E "seed|%|:F:|:E:"; done; } > $R/sparse.txt 2>&1
cat $R/sparse.txt
meson test -C build --no-rebuild --num-processes 12 --print-errorlogs > $R/suite.txt 2>&1
echo rc=$? >> $R/suite.txt
echo "== suite"; grep -E "^(Ok|Fail|Skipped|Timeout):| FAIL | TIMEOUT |rc=" $R/suite.txt
for tool in; do
  echo "== $tool"; timeout 100 compute-sanitizer --tool $tool --error-exitcode 9 $T 2>&1 | grep -E "SUMMARY|%|:F:" | tail -3
done
