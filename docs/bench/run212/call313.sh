#!/bin/bash
# Forty-eighth session, call 313, one H200, on the session's final code:
# the python suite, and the three Python benchmarks once each.
CALL_SECONDS=300 . docs/bench/call-lib.sh "$1"
meson_tests py --suite python
py_bench python_fuse pyfuse 1 python
py_bench python_voxelize pyvox 1 python
py_bench python_resample pyres 1 python
pack done
