#!/bin/bash
# Forty-sixth session, call 293, one H200: a chunk's times read back on
# the download stream (beside the previous chunk's kernel, not behind it
# on the kernel stream), after call 292's grid-times row.
# 1. The GPU tests (tests/gpu-sanitize.sh --list), 8 at a time.
# 2. memcheck and initcheck over elements-resample's GPU chunk cases.
# 3. Two mutants of gst/gstrobocacheresamplechunkgpu.c must fail
#    test_chunk_grid_times_exact: mut-devrows leaves out the device's
#    rc_repeat_rows_cuda (CUDA memory out), mut-hostrows the host's
#    rc_repeat_rows_cpu (CUDA memory in, system memory out).
# 4. bench-pipeline alternated 4 times: "head" (ab28b58's plugin), "rows"
#    (74ef5a7's, call 292's "new") and "new" (the build's).
CALL_SECONDS=560 . docs/bench/call-lib.sh "$1"
meson_parallel gpu 220 "${GPU_TESTS[@]}"
CASES=test_gpu_long_chunks,test_chunk_grid_times_exact,test_gpu_chunk_cuts
sanitize memcheck elements_resample $CASES
sanitize initcheck elements_resample $CASES
for m in mut-devrows mut-hostrows; do
  GST_PLUGIN_PATH_1_0=$PWD/.device/$m GST_REGISTRY_1_0=/tmp/rc-registry-$m.bin \
    GST_CHECKS=test_chunk_grid_times_exact timeout 60 \
    "$B/tests/elements_resample" > "$R/$m.txt" 2>&1
  echo rc=$? >> "$R/$m.txt"
  echo "$m: $(grep -E '^[0-9]+%:|rc=' "$R/$m.txt" | tr '\n' ' ')"
  grep -m1 -E ":F:|:E:" "$R/$m.txt"
done | tee "$R/mutants.txt"
pack mutants
ab_plugins stream 4 \
  "head=$PWD/.device/headplug rows=$PWD/.device/rowsplug new=" \
  --sweeps 500 --fusion-seconds 1
pack done
