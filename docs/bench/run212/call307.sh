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
# BENCH_ONLY=1 skips 1 and 2; ROUNDS (2) sets 3's rounds.  (Call-lib's
# py_mutants and py_bench since call 311: the same steps.)
CALL_SECONDS=420 . docs/bench/call-lib.sh "$1"
if [ "${BENCH_ONLY:-0}" != 1 ]; then
  meson_tests py --suite python
  py_mutants test_cuda.Kernels.test_voxelize_fast_path pymut-nomode \
    pymut-noneg
fi
py_bench python_voxelize pyvox "${ROUNDS:-2}" "pybase python"
pack done
