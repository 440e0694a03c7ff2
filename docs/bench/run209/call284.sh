#!/bin/bash
# Forty-fifth session, call 284, one H200: where a resample chunk from
# CUDA memory spends its 600 to 700 µs (run 208: a 13 µs kernel, 2 MB of
# timestamps read back).  .device/probeplug is the build's plugin with
# gst/gstrobocacheresamplechunk.c timed step by step (clock_gettime, a
# "PROBE step ns" line on stderr per step and chunk; the probe's source is
# docs/bench/run209/probe-chunk.patch); .device/headplug is the build's
# plugin unchanged, alternated with it so that the probe's own cost shows.
CALL_SECONDS=300 . docs/bench/call-lib.sh "$1"
ab_plugins probe 3 "head=$PWD/.device/headplug probe=$PWD/.device/probeplug" \
  --sweeps 500 --fusion-seconds 1
python3 docs/bench/run209/probe_summary.py "$R"/pipeline-probe-*.err |
  tee "$R/probe-summary.txt"
pack done
