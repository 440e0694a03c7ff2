#!/bin/bash
# Forty-sixth session, call 297, one H200: a chunk's order check and ends
# in three CUDA calls instead of five (33c3c14: rc_times_disordered_cuda
# writes every flag, no clearing memset, and each trajectory's first time,
# read back with the flags in one copy).
# 1. The GPU tests, 8 at a time.
# 2. memcheck and initcheck over kernels-resample-gpu's
#    test_times_disordered and elements-resample's GPU chunk cases.
# 3. A mutant that leaves the first times where they were
#    (mut-firsts) must fail test_gpu_long_chunks.
# 4. bench-pipeline alternated three times: "prev" (3764da0's plugin with
#    its own kernel library) and "new".
CALL_SECONDS=560 . docs/bench/call-lib.sh "$1"
meson_parallel gpu 220 "${GPU_TESTS[@]}"
sanitize memcheck kernels_resample_gpu test_times_disordered
CASES=test_gpu_long_chunks,test_chunk_grid_times_exact
sanitize memcheck elements_resample $CASES
sanitize initcheck elements_resample $CASES
for m in mut-firsts; do
  GST_PLUGIN_PATH_1_0=$PWD/.device/$m GST_REGISTRY_1_0=/tmp/rc-registry-$m.bin \
    GST_CHECKS=test_gpu_long_chunks timeout 120 \
    "$B/tests/elements_resample" > "$R/$m.txt" 2>&1
  echo rc=$? >> "$R/$m.txt"
  echo "$m: $(grep -E '^[0-9]+%:|rc=' "$R/$m.txt" | tr '\n' ' ')"
  grep -m1 -E ":F:|:E:" "$R/$m.txt"
done | tee "$R/mutants.txt"
pack mutants
ab_plugins calls 3 "prev=$PWD/.device/prevplug new=" \
  --sweeps 500 --fusion-seconds 1
pack done
