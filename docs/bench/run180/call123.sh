#!/bin/bash
# Twenty-second session, call 123: PyTorch over every voxelize series of
# bench-kernels --sweep (occupancy, counts, means of one, three and four
# features, centroids; the uniform cube, the lidar sweep in the cube, the
# KITTI region in no order, ring by ring and column by column; the grid
# sides), which torch_baseline.py now writes.  A short smoke run first.
set -u
OUT=$1
R=$OUT/r; mkdir -p $R
t0=$(date +%s)
pack () { echo "$(( $(date +%s) - t0 )) s: $*" >> $R/timeline.txt
  tar czf $OUT/r.$BASHPID -C $OUT r && mv $OUT/r.$BASHPID $OUT/r.tgz; }
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $R/gpu.txt
python3 -c 'import torch; print(torch.__version__)' | tee -a $R/gpu.txt
timeout 120 python3 -u tests/bench/torch_baseline.py --sweep voxelize --points 16384,65536 --runs 3 --json $R/smoke.json > $R/smoke.txt 2>&1; echo rc=$? >> $R/smoke.txt; pack smoke
tail -3 $R/smoke.txt
left=$(( 560 - ($(date +%s) - t0) ))
timeout $left python3 -u tests/bench/torch_baseline.py --sweep voxelize --runs 20 --json $R/torch-voxelize.json > $R/torch-voxelize.txt 2>&1; echo rc=$? >> $R/torch-voxelize.txt; pack torch voxelize
grep -E "^sweep|rc=|differ|Error|error" $R/torch-voxelize.txt | cut -c1-100 | tail -40
cat $R/timeline.txt
