#!/bin/bash
# Twenty-third session, call 137: call 136 again after its two faults:
# libdeflate0 now among .device's packages (every test that loads the
# plugin had stopped on it), and the partitioned counts' 16-byte stores
# aligned for a batch's later grids (a misaligned store had failed
# test_counts_partitioned, then every test after it in that process).
# The whole suite; the mutant (crowded tiles left uncleared) on
# test_counts_partitioned, which must fail; memcheck over that test; then
# the count sweep on this library once.
set -u
OUT=$1; B=$PWD/build
export LD_LIBRARY_PATH=$B/gst:$B/kernels:${LD_LIBRARY_PATH:-}
BASE_LD=$LD_LIBRARY_PATH
R=$OUT/r; mkdir -p $R
t0=$(date +%s)
pack () { echo "$(( $(date +%s) - t0 )) s: $*" >> $R/timeline.txt
  tar czf $OUT/r.$BASHPID -C $OUT r && mv $OUT/r.$BASHPID $OUT/r.tgz; }
left () { echo $(( 570 - ($(date +%s) - t0) )); }
V=/tmp/vars; mkdir -p $V && tar xJf .device/fvars.tar.xz -C $V
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $R/gpu.txt
date -u >> $R/gpu.txt
timeout 330 meson test -C build --no-rebuild --print-errorlogs > $R/meson-test.txt 2>&1; echo rc=$? >> $R/meson-test.txt; pack meson test
grep -E "^Ok:|^Fail:|^Skipped:|^Timeout:| FAIL | TIMEOUT |rc=" $R/meson-test.txt
GST_CHECKS=test_counts_partitioned LD_LIBRARY_PATH=$V/ms/mut:$BASE_LD timeout 100 $B/tests/kernels_voxelize_gpu > $R/test-mut.txt 2>&1; echo rc=$? >> $R/test-mut.txt; pack mutant
echo "== mut"; grep -E "Checks|rc=|:F:" $R/test-mut.txt | head -4
GST_CHECKS=test_counts_partitioned timeout $(( $(left) - 10 )) compute-sanitizer --tool memcheck --error-exitcode 9 $B/tests/kernels_voxelize_gpu > $R/memcheck.txt 2>&1; echo rc=$? >> $R/memcheck.txt; pack memcheck
grep -E "SUMMARY|Checks|rc=|:F:" $R/memcheck.txt | head -5
if [ $(left) -gt 60 ]; then
  timeout $(( $(left) - 5 )) $B/tests/bench-kernels --sweep voxelize --modes count --points 131072,524288,1048576,2097152,4194304 --runs 30 --json $R/count-new-3.json > $R/count-new-3.txt 2>&1; echo rc=$? >> $R/count-new-3.txt; pack bench new 3
  tail -1 $R/count-new-3.txt
fi
cat $R/timeline.txt
