#!/bin/bash
# Forty-fifth session, call 286, one H200: robocacheresample's chunks from
# CUDA memory after 7e74939 (the grid times written as one row copied per
# trajectory) and the next commit (the GPU checks the times' order and
# only each trajectory's ends come back, rc_times_disordered_cuda).
# 1. The GPU tests (tests/gpu-sanitize.sh --list), 8 at a time.
# 2. compute-sanitizer memcheck and initcheck over the two new tests.
# 3. Three mutants of gst/gstrobocacheresamplechunk.c
#    (call286-mutants.patch: tails_hold_cut always true, the GPU's order
#    flags ignored, an off-grid end trimmed from the ends alone) must fail
#    test_gpu_long_chunks_from_cuda.
# 4. bench-pipeline alternated 4 times: "head" (ff8d120's plugin), "rows"
#    (7e74939's resample chunk file, the grid-times fix alone) and "new"
#    (the build's).
CALL_SECONDS=560 . docs/bench/call-lib.sh "$1"
meson_parallel gpu 200 "${GPU_TESTS[@]}"
sanitize memcheck kernels_resample_gpu test_times_disordered
sanitize memcheck elements_resample test_gpu_long_chunks_from_cuda
sanitize initcheck elements_resample test_gpu_long_chunks_from_cuda
for m in mut-tails mut-order mut-trim; do
  GST_PLUGIN_PATH_1_0=$PWD/.device/$m GST_REGISTRY_1_0=/tmp/rc-registry-$m.bin \
    GST_CHECKS=test_gpu_long_chunks_from_cuda timeout 60 \
    "$B/tests/elements_resample" > "$R/$m.txt" 2>&1
  echo rc=$? >> "$R/$m.txt"
  echo "$m: $(grep -E '^[0-9]+%:|rc=' "$R/$m.txt" | tr '\n' ' ')"
  grep -m1 -E ":F:|:E:" "$R/$m.txt"
done | tee "$R/mutants.txt"
pack mutants
ab_plugins chunks 4 "head=$PWD/.device/headplug rows=$PWD/.device/rowsplug new=" \
  --sweeps 500 --fusion-seconds 1
pack done
