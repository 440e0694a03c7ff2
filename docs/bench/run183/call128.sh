#!/bin/bash
# Twenty-second session, call 128: PyTorch's pillars again, its grid now
# in double as robocache's (call 127 passed it the float32 origin and
# voxel size, so it binned differently from NumPy and stopped).
set -u
OUT=$1; R=$OUT/r; mkdir -p $R
timeout 100 python3 -u tests/bench/torch_baseline.py --sweep voxelize --modes pillars --runs 20 --json $R/torch-pillars.json > $R/torch-pillars.txt 2>&1; echo rc=$? >> $R/torch-pillars.txt
grep -E "^sweep|rc=|differ|Error" $R/torch-pillars.txt | cut -c1-100
