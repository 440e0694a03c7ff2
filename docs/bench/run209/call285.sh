#!/bin/bash
# Forty-fifth session, call 285, one H200: call 284 put 300 µs of a
# resample chunk in compute_chunk and 120 to 350 µs in check_order.  The
# probe plugin (.device/probeplug) is now built from
# docs/bench/run209/probe-chunk-2.patch: call 284's steps, compute_chunk
# split into its parts, and a branch-free order check timed just before
# the one kept (so that one then reads warm data).
CALL_SECONDS=300 . docs/bench/call-lib.sh "$1"
ab_plugins probe 2 "probe=$PWD/.device/probeplug" \
  --sweeps 500 --fusion-seconds 1
python3 docs/bench/run209/probe_summary.py "$R"/pipeline-probe-*.err |
  tee "$R/probe-summary.txt"
pack done
