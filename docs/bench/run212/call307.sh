#!/bin/bash
# Forty-eighth session, call 307, one H200: robocache.voxelize's fast path
# for torch CUDA tensors (a call already seen with the same columns and
# options skips the general path's checks; python/robocache/_kernels.py).
# 1. The python suite (python-kernels-gpu's new test_voxelize_fast_path,
#    and python-sparse's CUDA part among them).
# 2. Two mutants of the package, each of which should fail that test:
#    pymut-nomode leaves the mode out of the plan's key, pymut-noneg lets
#    a view with torch's negative bit take the fast path.
# 3. tests/bench/python_voxelize.py (counts of 130,000 points, pillars of
#    120,000: the Python call against the raw C call), "pybase" (4f0ccd2's
#    package) and "python" (the build's) alternated twice.
# BENCH_ONLY=1 skips 1 and 2; ROUNDS (2) sets 3's rounds.
CALL_SECONDS=420 . docs/bench/call-lib.sh "$1"
[ "${BENCH_ONLY:-0}" = 1 ] || meson_tests py --suite python
for m in nomode noneg; do
  [ "${BENCH_ONLY:-0}" = 1 ] && break
  PYTHONPATH=$B/pymut-$m:$PWD/tests/python timeout 120 python3 \
    tests/python/test_cuda.py Kernels.test_voxelize_fast_path \
    > "$R/pymut-$m.txt" 2>&1
  echo rc=$? >> "$R/pymut-$m.txt"
  echo "pymut-$m: $(grep -E '^(OK|FAILED)|^rc=' "$R/pymut-$m.txt" |
    tr '\n' ' ')" | tee -a "$R/mutants.txt"
done
pack mutants
for i in $(seq "${ROUNDS:-2}"); do
  for p in pybase python; do
    [ $(left) -gt 40 ] || break 2
    PYTHONPATH=$B/$p:$PWD/tests/python timeout 120 python3 \
      tests/bench/python_voxelize.py --runs 200 \
      --json "$R/pyvox-$p-$i.json" > "$R/pyvox-$p-$i.txt" 2>&1
    echo rc=$? >> "$R/pyvox-$p-$i.txt"
    pack "pyvox $p $i"
    echo "== $p $i"; cat "$R/pyvox-$p-$i.txt"
  done
done
pack done
