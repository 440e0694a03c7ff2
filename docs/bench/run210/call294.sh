#!/bin/bash
# Forty-sixth session, call 294, one H200: call 293's
# test_gpu_chunk_cuts failure (gst_harness_play: the element did not
# start, once, with 8 GPU tests at a time) looked for with the posted
# errors logged, and the resample tests whose sink caps now come before
# the first negotiation (so "system memory out" is that).
# 1. The GPU tests, 8 at a time, GST_DEBUG logging posted errors.
# 2. Eight test_gpu_chunk_cuts at once, twice, logged the same way.
# 3. Call 293's two mutants against the mended test_chunk_grid_times_exact.
CALL_SECONDS=560 . docs/bench/call-lib.sh "$1"
export GST_DEBUG="GST_ERROR_SYSTEM:4,robocache*:2"
meson_parallel gpu 220 "${GPU_TESTS[@]}"
for round in 1 2; do
  for i in $(seq 8); do
    GST_PLUGIN_PATH_1_0=$B/gst GST_REGISTRY_1_0=/tmp/rc-registry-new.bin \
      CK_DEFAULT_TIMEOUT=120 GST_CHECKS=test_gpu_chunk_cuts timeout 150 \
      "$B/tests/elements_resample" > "$R/cuts-$round-$i.txt" 2>&1 &
  done
  wait
done
for f in "$R"/cuts-*.txt; do
  echo "${f##*/}: $(grep -E '^[0-9]+%:' "$f")"
  grep -m3 -E ":E:|:F:|Bail|posting message|ERROR" "$f"
done | tee "$R/cuts.txt"
pack cuts
unset GST_DEBUG
for m in mut-devrows mut-hostrows; do
  GST_PLUGIN_PATH_1_0=$PWD/.device/$m GST_REGISTRY_1_0=/tmp/rc-registry-$m.bin \
    GST_CHECKS=test_chunk_grid_times_exact timeout 60 \
    "$B/tests/elements_resample" > "$R/$m.txt" 2>&1
  echo rc=$? >> "$R/$m.txt"
  echo "$m: $(grep -E '^[0-9]+%:|rc=' "$R/$m.txt" | tr '\n' ' ')"
  grep -m1 -E ":F:|:E:" "$R/$m.txt"
done | tee "$R/mutants.txt"
pack done
