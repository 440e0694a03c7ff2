#!/bin/bash
# Sixteenth session (2026-11-28): the final code on the GPU.  The whole
# suite; memcheck over kernels_fuse_gpu (tiles of six ticks); the fuse
# sweep on the committed library.
set -u
OUT=$1; B=$PWD/build
export GST_PLUGIN_PATH_1_0=$B/gst GST_REGISTRY_1_0=/tmp/reg.bin
export LD_LIBRARY_PATH=$B/gst:$B/kernels:${LD_LIBRARY_PATH:-}
export PYTHONPATH=$B/python:$PWD/tests/python
R=$OUT/r; mkdir -p $R
t0=$(date +%s)
pack () { echo "$(( $(date +%s) - t0 )) s: $*" >> $R/timeline.txt
  tar czf $OUT/r.$BASHPID -C $OUT r && mv $OUT/r.$BASHPID $OUT/r.tgz; }
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $R/gpu.txt
timeout 250 meson test -C build --no-rebuild --print-errorlogs > $R/suite.txt 2>&1; echo rc=$? >> $R/suite.txt
echo "== suite"; grep -E "^Ok:|^Fail:|^Skipped:|^Timeout:|rc=|FAIL" $R/suite.txt | head -20; pack suite
timeout 120 compute-sanitizer --tool memcheck --error-exitcode 9 $B/tests/kernels_fuse_gpu > $R/memcheck-fuse.txt 2>&1; echo rc=$? >> $R/memcheck-fuse.txt; pack memcheck
echo "== memcheck"; grep -E "SUMMARY|%|rc=" $R/memcheck-fuse.txt | tail -3
timeout 60 $B/tests/bench-kernels --sweep fuse --runs 30 --json $R/fuse.json > $R/fuse.txt 2>&1; echo rc=$? >> $R/fuse.txt; pack fuse
grep -E "^sweep-fuse|rc=" $R/fuse.txt; cat $R/timeline.txt
