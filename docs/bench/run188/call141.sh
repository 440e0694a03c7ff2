#!/bin/bash
# Twenty-fourth session, call 141: the partition's passes reworked
# (uncommitted on d716bbe, "new"): the keying pass loads a mean's feature
# with its point, the placing pass all its voxels before their atomics
# ("v1": only these), and the tiles' pass keeps 16-bit counts (64 KiB a
# count tile, 96 KiB a mean's) so that two blocks share an SM.  The
# partition tests and memcheck over them on new; base (d716bbe), v1 and
# new alternated on the 256^3 counts and means; ncu's SASS stall samples
# of new's passes at 4 million points.
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
lib () { [ $1 = new ] && echo $BASE_LD || echo $V/ms/$1:$BASE_LD; }
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $R/gpu.txt
date -u >> $R/gpu.txt
T=test_counts_partitioned,test_means_partitioned
GST_CHECKS=$T timeout 90 $B/tests/kernels_voxelize_gpu > $R/test.txt 2>&1; echo rc=$? >> $R/test.txt
grep -E "Checks|rc=|:F:|:E:" $R/test.txt | head -6
GST_CHECKS=$T timeout 120 compute-sanitizer --tool memcheck --error-exitcode 9 $B/tests/kernels_voxelize_gpu > $R/memcheck.txt 2>&1; echo rc=$? >> $R/memcheck.txt
grep -E "SUMMARY|Checks|rc=|:F:" $R/memcheck.txt | head -4; pack tests
ONLY='sweep-voxelize-count-256cube*,sweep-voxelize-mean-256cube-n*'
for T in base v1 new new v1 base; do
  [ $(left) -gt 100 ] || break
  n=$(ls $R/ab-$T-*.txt 2>/dev/null | wc -l); n=$((n+1))
  LD_LIBRARY_PATH=$(lib $T) timeout 60 $B/tests/bench-kernels --sweep voxelize --modes count,mean --points 262144,1048576,2097152,4194304 --only "$ONLY" --runs 30 --json $R/ab-$T-$n.json > $R/ab-$T-$n.txt 2>&1; echo rc=$? >> $R/ab-$T-$n.txt; pack bench $T $n
done
for f in $R/ab-base-1.txt $R/ab-v1-1.txt $R/ab-new-1.txt $R/ab-new-2.txt $R/ab-v1-2.txt $R/ab-base-2.txt; do
  [ -f $f ] && grep -E "^sweep-voxelize" $f | awk '{print $2}' > $f.col || echo > $f.col; done
paste <(grep -E "^sweep-voxelize" $R/ab-base-1.txt | awk '{print $1}' | sed 's/sweep-voxelize-//') $R/ab-base-1.txt.col $R/ab-v1-1.txt.col $R/ab-new-1.txt.col $R/ab-new-2.txt.col $R/ab-v1-2.txt.col $R/ab-base-2.txt.col | tee $R/ab.txt
for c in "mean 4194304" "count 4194304"; do
  [ $(left) -gt 40 ] || break
  set -- $c
  timeout 100 ncu --set full --import-source yes -k regex:"key_points|place_points|sum_tiles" --launch-count 3 -o $R/$1-$2 $B/tests/bench-kernels --sweep voxelize --modes $1 --points $2 --only "sweep-voxelize-$1-256cube-n*" --runs 1 > $R/ncu-$1-$2.txt 2>&1; echo rc=$? >> $R/ncu-$1-$2.txt
  ncu --import $R/$1-$2.ncu-rep --page details --section SpeedOfLight --section Occupancy > $R/details-$1-$2.txt 2>&1
  ncu --import $R/$1-$2.ncu-rep --page source --csv --print-source sass > $R/sass-$1-$2.csv 2>&1
  echo "== $1 $2"; grep -E "^  [a-z_]|Duration|DRAM Throughput|Achieved Occupancy" $R/details-$1-$2.txt | head -16
  rm -f $R/$1-$2.ncu-rep; pack ncu $1 $2
done
cat $R/timeline.txt
