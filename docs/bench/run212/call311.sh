#!/bin/bash
# Forty-eighth session, call 311, one H200: robocache.fuse's fast path for
# torch CUDA tensors (python/robocache/_kernels.py, not yet committed).
# 1. The python suite (python-kernels-gpu's new test_fuse_fast_path).
# 2. Two mutants of the package, each of which should fail that test:
#    pymut-fuseneg lets a view with torch's negative bit take the fast
#    path, pymut-fuseptr gives the kernel only the first stream's new
#    addresses.
# 3. tests/bench/python_fuse.py (bench-kernels' fusion reference: the
#    Python call against the raw C call), "pybase" (4f0ccd2's package) and
#    "python" (the build's) alternated three times.
# 4. python_voxelize.py and python_resample.py once each on the build's
#    package, their arguments now parsed by python_resample's
#    bench_arguments.
CALL_SECONDS=420 . docs/bench/call-lib.sh "$1"
meson_tests py --suite python
py_mutants test_cuda.Kernels.test_fuse_fast_path pymut-fuseneg pymut-fuseptr
py_bench python_fuse pyfuse 3 "pybase python"
py_bench python_voxelize pyvox 1 python
py_bench python_resample pyres 1 python
pack done
