#!/bin/bash
# Sixteenth session (2026-11-28), issue 14 on the GPU: the suite on the new
# code (voxelize.cu in two files, robocachevoxelize and robocachepillars on
# GstRobocacheSweepFilter); bench-kernels and bench-pipeline, the build of
# 183fe94 (.device/old) and the new one alternated; ncu over the fuse
# kernel at 4, 8 and 16 streams (issue 23: the 8-stream knee on the H200).
set -u
OUT=$1; B=$PWD/build; O=$PWD/.device/old
R=$OUT/r; mkdir -p $R
export PYTHONPATH=$B/python:$PWD/tests/python
t0=$(date +%s)
pack () { echo "$(( $(date +%s) - t0 )) s: $*" >> $R/timeline.txt
  tar czf $OUT/r.$BASHPID -C $OUT r && mv $OUT/r.$BASHPID $OUT/r.tgz; }
use () {  # use old|new: the plugin, kernels and benches of that build
  if [ $1 = old ]; then D=$O; T=$O; else D=$B; T=$B/tests; fi
  export GST_PLUGIN_PATH_1_0=$D/gst GST_REGISTRY_1_0=/tmp/reg-$1.bin
  export LD_LIBRARY_PATH=$D/gst:$D/kernels:${BASE_LD:-}
}
BASE_LD=${LD_LIBRARY_PATH:-}
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $R/gpu.txt
use new
timeout 250 meson test -C build --no-rebuild --print-errorlogs > $R/suite.txt 2>&1; echo rc=$? >> $R/suite.txt
echo "== suite"; grep -E "^Ok:|^Fail:|^Skipped:|^Timeout:|rc=|FAIL" $R/suite.txt | head -20; pack suite
for i in 1 2; do
  for V in old new; do
    use $V
    [ $i = 1 ] && { timeout 70 $T/bench-kernels --json $R/k-$V.json > $R/k-$V.txt 2>&1; echo rc=$? >> $R/k-$V.txt; pack k $V; }
    timeout 70 $T/bench-pipeline --sweeps 500 --fusion-seconds 2 --json $R/p-$V-$i.json > $R/p-$V-$i.txt 2>&1; echo rc=$? >> $R/p-$V-$i.txt; pack p $V $i
  done
done
use new
for S in 4 8 16; do
  timeout 40 ncu --section SpeedOfLight --section Occupancy --section LaunchStats --section WarpStateStats --section SchedulerStats -k regex:fuse_kernel --launch-count 1 $B/tests/bench-kernels --sweep fuse --streams $S --runs 1 > $R/ncu-fuse-$S.txt 2>&1; pack ncu $S
done
grep -h "rc=" $R/*.txt | sort | uniq -c; cat $R/timeline.txt
