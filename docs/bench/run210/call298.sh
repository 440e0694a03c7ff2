#!/bin/bash
# Forty-sixth session, call 298, one H200: rc_times_disordered_cuda with
# 1,024 threads a trajectory (call 297's 256 left 16 pairs a thread and
# no gain).
# 1. kernels-resample-gpu and elements-resample; memcheck over
#    test_times_disordered.
# 2. bench-pipeline alternated three times: "prev" (3764da0's plugin with
#    its own kernel library) and "new".
CALL_SECONDS=300 . docs/bench/call-lib.sh "$1"
meson_parallel gpu 150 kernels-resample-gpu elements-resample
sanitize memcheck kernels_resample_gpu test_times_disordered
ab_plugins threads 3 "prev=$PWD/.device/prevplug new=" \
  --sweeps 500 --fusion-seconds 1
pack done
