#!/bin/bash
# Thirty-second session, call 190: autocross.c as it is now (seven kinds:
# float32 linear, cubic and nearest, bfloat16 linear and cubic, float64
# linear and cubic; 15 shapes by 7 channel counts; the GPU path with its
# host arrays page-locked, as the element has them, and plain), twice with
# other inputs, for backend=auto's cost model (rc_resample_prefers_cpu,
# its first constants from call 189); then resample's tests on the GPU.
# Carried whole (`carry: [".device", "build"]`); build/autocross built
# here.
CALL_SECONDS=560 . docs/bench/call-lib.sh "$1"
for seed in 196 7; do
  timeout 150 $B/autocross 41 $seed > $R/autocross-$seed.txt 2>&1; echo rc=$? >> $R/autocross-$seed.txt; pack autocross $seed
  grep -E "rc_resample_prefers|rc=" $R/autocross-$seed.txt
done
meson_tests resample kernels-resample kernels-resample-gpu elements-resample
cat $R/timeline.txt
