#!/bin/bash
# Thirty-sixth session, call 224: the whole suite on the session's code
# (NumPy results writable and other Python input checks, the recordings'
# time origin, MCAP files whose summary does not repeat schemas and
# channels, ros2idl schemas, resample's GPU test helper), carried whole;
# then the Python kernel tests twice more on fresh inputs.
CALL_SECONDS=330 . docs/bench/call-lib.sh "$1"
meson_tests all
meson_tests python python-kernels python-kernels-gpu python-sparse \
  python-pipeline-gpu
meson_tests python2 python-kernels python-kernels-gpu
cat $R/timeline.txt
