#!/bin/bash
# Forty-fifth session, call 287, one H200, on the session's final resample
# code (the grid times as rows, the times' order checked on the GPU):
# 1. memcheck and initcheck over elements-resample's chunk cases on the GPU
#    (call 286 ran them without the plugin on GStreamer's path);
# 2. bench-kernels --json beside run 208's;
# 3. bench-pipeline twice with the build's plugin, alternated with
#    .device/probeplug (probe-chunk-3.patch: the final chunk path timed
#    step by step), and the probe's medians;
# 4. the whole suite, 8 at a time, in what time is left.
CALL_SECONDS=570 . docs/bench/call-lib.sh "$1"
checks=test_gpu_long_chunks_from_cuda,test_gpu_chunk_cuts
sanitize memcheck elements_resample $checks
sanitize initcheck elements_resample $checks
timeout 120 "$B/tests/bench-kernels" --json "$R/kernels.json" \
  > "$R/kernels.txt" 2>&1
echo rc=$? >> "$R/kernels.txt"
pack kernels
grep -E "^resample|^voxelize-count|^fuse" "$R/kernels.txt" | head -8
ab_plugins final 2 "new= probe=$PWD/.device/probeplug" \
  --sweeps 500 --fusion-seconds 2
python3 docs/bench/run209/probe_summary.py "$R"/pipeline-probe-*.err |
  grep "^cuda in" | tee "$R/probe-summary.txt"
meson_parallel suite $(( $(left) - 15 ))
pack done
