#!/bin/bash
# Forty-eighth session, call 312, one H200: test_fuse_fast_path keeping
# every input alive (call 311's pymut-fuseptr passed it: torch's allocator
# gave each call's tensors the addresses of the call before, so the
# addresses the mutant kept were right by chance), python-kernels-gpu and
# the two mutants again.
CALL_SECONDS=200 . docs/bench/call-lib.sh "$1"
meson_tests py python-kernels-gpu
py_mutants test_cuda.Kernels.test_fuse_fast_path pymut-fuseneg pymut-fuseptr
pack done
