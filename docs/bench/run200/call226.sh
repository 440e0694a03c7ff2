#!/bin/bash
# Thirty-sixth session, call 226: after call 225, the fusion element's
# live ticks, rate and durations, the embedding API's merge, checks and
# pkg-config, robocachebev's errors and the live sources' latency; their
# tests on the GPU (carried whole), with python-pipeline-gpu, which pulls
# through the changed merge.
CALL_SECONDS=200 . docs/bench/call-lib.sh "$1"
meson_tests elements elements-fuse elements-bev elements-embed \
  elements-cuda elements-transfers elements-lidarsrc elements-jointsrc \
  elements-livefaults python-pipeline python-pipeline-gpu examples-pkgconfig
cat $R/timeline.txt
