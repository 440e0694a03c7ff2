#!/bin/bash
# Forty-seventh session, call 301, one H200: a chunk's order flags and
# time ends read back in one launch of row copies into page-locked memory
# (a00cc07), after call 300's staging in one launch (67d732b).
# 1. The GPU tests (tests/gpu-sanitize.sh --list), 8 at a time.
# 2. memcheck over the row copies' tests (page-locked memory on either
#    side among them) and, with initcheck, elements-resample's GPU chunk
#    cases.
# 3. Two mutants of gst/gstrobocacheresamplechunkgpu.c, each of which
#    should fail the chunk cases: mut-noflags reads back no order flags,
#    mut-notail no trajectory's last times.
# 4. bench-pipeline alternated 4 times: "head" (7f556eb's plugin and
#    kernel library), "stage" (67d732b's plugin) and "new" (the build's).
# 5. Run 196's elemcross (backend=auto element to element), "head" and
#    "new" alternated twice.
CALL_SECONDS=540 . docs/bench/call-lib.sh "$1"
tar xJf .device/plugs.tar.xz -C .device
meson_parallel gpu 200 "${GPU_TESTS[@]}"
CASES=test_gpu_long_chunks,test_chunk_grid_times_exact,test_gpu_chunk_cuts
sanitize memcheck kernels_convert_gpu test_copy_rows,test_copy_rows_eight,test_copy_rows_host,test_repeat_rows
sanitize memcheck elements_resample $CASES
sanitize initcheck elements_resample $CASES
mutants elements_resample $CASES,test_gpu_matches_cpu mut-noflags mut-notail
ab_plugins stream 4 \
  "head=$PWD/.device/headplug stage=$PWD/.device/stageplug new=" \
  --sweeps 500 --fusion-seconds 1
for i in 1 2; do
  for p in head new; do
    [ $(left) -gt 45 ] || break 2
    dir=$B/gst
    [ $p = head ] && dir=$PWD/.device/headplug
    LD_LIBRARY_PATH=$([ $p = head ] && echo "$dir:")$BASE_LD \
      GST_PLUGIN_PATH_1_0=$dir GST_REGISTRY_1_0=/tmp/registry-elemcross-$p.bin \
      timeout 90 "$B/elemcross" 120 > "$R/elemcross-$p-$i.txt" \
      2> "$R/elemcross-$p-$i.err"
    echo rc=$? >> "$R/elemcross-$p-$i.txt"
    pack "elemcross $p $i"
    echo "$p $i: $(tail -2 "$R/elemcross-$p-$i.txt" | head -1)"
  done
done | tee "$R/elemcross-summary.txt"
pack done
