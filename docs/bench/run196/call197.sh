#!/bin/bash
# Thirty-second session, call 197: the whole suite on the code at the end
# of the session (the fusion kernel's rows of 2 mod 4 floats, d159132,
# the last change to code that runs on the GPU).  Carried whole
# (`carry: [".device", "build"]`).
CALL_SECONDS=400 . docs/bench/call-lib.sh "$1"
meson_tests all
cat $R/timeline.txt
