#!/bin/bash
# Twenty-third session, call 138: the partitioned counts' keying pass
# reading each point's x, y, z in one 16-byte load where every point
# starts on 16 bytes ("wide", this build) against three 4-byte loads
# (8adda5d's library, "three"): test_counts_partitioned (now with points
# of 20 bytes, read as three floats) and memcheck over it on wide; the
# count sweep from 1 to 4 million points, three, wide, three, wide; then
# wide's whole count sweep, for the plot.
set -u
OUT=$1; B=$PWD/build
export LD_LIBRARY_PATH=$B/gst:$B/kernels:${LD_LIBRARY_PATH:-}
BASE_LD=$LD_LIBRARY_PATH
R=$OUT/r; mkdir -p $R
t0=$(date +%s)
pack () { echo "$(( $(date +%s) - t0 )) s: $*" >> $R/timeline.txt
  tar czf $OUT/r.$BASHPID -C $OUT r && mv $OUT/r.$BASHPID $OUT/r.tgz; }
left () { echo $(( 400 - ($(date +%s) - t0) )); }
V=/tmp/vars; mkdir -p $V && tar xJf .device/fvars.tar.xz -C $V
lib () { [ $1 = wide ] && echo $BASE_LD || echo $V/ms/$1:$BASE_LD; }
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $R/gpu.txt
date -u >> $R/gpu.txt
GST_CHECKS=test_counts_partitioned timeout 100 $B/tests/kernels_voxelize_gpu > $R/test-wide.txt 2>&1; echo rc=$? >> $R/test-wide.txt; pack test
grep -E "Checks|rc=|:F:" $R/test-wide.txt | head -4
GST_CHECKS=test_counts_partitioned timeout 100 compute-sanitizer --tool memcheck --error-exitcode 9 $B/tests/kernels_voxelize_gpu > $R/memcheck.txt 2>&1; echo rc=$? >> $R/memcheck.txt; pack memcheck
grep -E "SUMMARY|Checks|rc=|:F:" $R/memcheck.txt | head -4
for T in three wide three wide; do
  [ $(left) -gt 120 ] || break
  n=$(ls $R/count-$T-*.txt 2>/dev/null | wc -l); n=$((n+1))
  LD_LIBRARY_PATH=$(lib $T) timeout 60 $B/tests/bench-kernels --sweep voxelize --modes count --points 1048576,2097152,4194304 --runs 30 --json $R/count-$T-$n.json > $R/count-$T-$n.txt 2>&1; echo rc=$? >> $R/count-$T-$n.txt; pack bench $T $n
  tail -1 $R/count-$T-$n.txt
done
paste <(grep -E "^sweep-voxelize-count-256" $R/count-three-1.txt | awk '{print $1, $2}') <(grep -E "^sweep-voxelize-count-256" $R/count-wide-1.txt | awk '{print $2}') <(grep -E "^sweep-voxelize-count-256" $R/count-three-2.txt 2>/dev/null | awk '{print $2}') <(grep -E "^sweep-voxelize-count-256" $R/count-wide-2.txt 2>/dev/null | awk '{print $2}') | sed 's/sweep-voxelize-count-//' | tee $R/ab.txt
if [ $(left) -gt 60 ]; then
  timeout $(( $(left) )) $B/tests/bench-kernels --sweep voxelize --modes count --runs 30 --json $R/sweep-count.json > $R/sweep-count.txt 2>&1; echo rc=$? >> $R/sweep-count.txt; pack sweep count
  tail -1 $R/sweep-count.txt
fi
cat $R/timeline.txt
