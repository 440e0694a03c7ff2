#!/bin/bash
# Thirty-eighth session, call 232: call 231's runs of the sm_75 and sm_80
# libraries again, which ran the build's own library instead: meson test
# puts the build's folders first on LD_LIBRARY_PATH, so here a wrapper
# puts the variant's first inside it (and gst-env.sh's folders after).
# Each test program prints the architectures of the library it runs
# (tests/common/testutil.h).  One library after the other: the Python
# test of memory over ten thousand calls reads the whole device's.
CALL_SECONDS=400 . docs/bench/call-lib.sh "$1"
gpu_tests="kernels-voxelize-gpu kernels-resample-gpu kernels-fuse-gpu
  kernels-sparse-gpu kernels-bev-gpu kernels-convert-gpu elements-cuda
  elements-gpufaults elements-voxelize elements-pillars python-kernels-gpu"
for l in sm75 sm80; do
  ROBOCACHE_KERNELS_LIBRARY=$V/ms/$l/librobocache-kernels-1.0.so.0 \
    timeout 250 meson test -C "$B" --no-rebuild --print-errorlogs \
    --wrapper "env LD_LIBRARY_PATH=$(lib $l)" \
    --logbase "$l" $gpu_tests > "$R/meson-$l.txt" 2>&1
done
for l in sm75 sm80; do
  cp "$B"/meson-logs/$l*.txt "$R/$l-testlog.txt"
  echo "== $l: $(grep -c "cuda-architectures '${l#sm}'" "$R/$l-testlog.txt")" \
    "test programs ran its kernels," \
    "$(grep -c "cuda-architectures '90'" "$R/$l-testlog.txt") the build's"
  grep -E "^ *[0-9]+/[0-9]+ |^Ok:|^Fail:|^Skipped:" "$R/meson-$l.txt"
done | tee "$R/archs-summary.txt"
pack "sm75 sm80"
cat $R/timeline.txt
