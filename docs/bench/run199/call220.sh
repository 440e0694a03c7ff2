#!/bin/bash
# Thirty-fifth session, call 220: the whole suite on the session's last
# code (8ebc651's kernels: the resample kernel of two targets' rows where
# the wide one's warps do not fit at once), carried whole as in call 216.
CALL_SECONDS=280 . docs/bench/call-lib.sh "$1"
meson_tests all
cat $R/timeline.txt
