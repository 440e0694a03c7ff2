#!/bin/bash
# Session 2026-11-27 (eighth), call G: the final code (39ea600): the
# elements and python suites.
set -u
OUT=$1; B=$PWD/build
export GST_PLUGIN_PATH_1_0=$B/gst GST_REGISTRY_1_0=/tmp/reg.bin
export LD_LIBRARY_PATH=$B/gst:$B/kernels:${LD_LIBRARY_PATH:-}
export PYTHONPATH=$B/python:$PWD/tests/python
R=$OUT/r; mkdir -p $R
meson test -C build --no-rebuild --num-processes 16 --suite elements --suite python --print-errorlogs > $R/suite.txt 2>&1
echo rc=$? >> $R/suite.txt
grep -E "^(Ok|Fail|Skipped|Timeout):| FAIL | TIMEOUT |rc=" $R/suite.txt
