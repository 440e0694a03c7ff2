#!/bin/bash
# Thirty-ninth session, call 238: the whole suite on the session's final
# code (since call 237: masked arrays told by isinstance, which NumPy 2
# needs; call 237's one failure).
CALL_SECONDS=300 . docs/bench/call-lib.sh "$1"
python3 -c "import numpy; print('numpy', numpy.__version__)" | tee -a "$R/gpu.txt"
meson_tests all
cp "$B/meson-logs/testlog.txt" "$R/all-testlog.txt"
grep -E "RSS grew|unconsumed" "$R/all-testlog.txt" | head -3
cat $R/timeline.txt
