#!/bin/bash
# Forty-sixth session, call 296, one H200: where a resample chunk from CUDA
# memory spends its time now (after calls 292 and 293): .device/probeplug
# is the build's plugin with gstrobocacheresamplechunk.c and
# gstrobocacheresamplechunkgpu.c as probe-chunk.py writes them (a PROBE
# line on stderr per step of each chunk), alternated twice with the
# build's plugin in bench-pipeline; run 209's probe_summary.py takes the
# medians.
CALL_SECONDS=300 . docs/bench/call-lib.sh "$1"
ab_plugins probe 2 "new= probe=$PWD/.device/probeplug" \
  --sweeps 500 --fusion-seconds 1
python3 docs/bench/run209/probe_summary.py "$R"/pipeline-probe-*.err |
  grep -E "^==|^cuda in" | tee "$R/probe-summary.txt"
pack done
