#!/bin/bash
# Thirty-ninth session, call 239: the Python suite on the GPU after
# Exported stopped keeping its capsule (the last change to code the GPU
# tests run).
CALL_SECONDS=240 . docs/bench/call-lib.sh "$1"
meson_tests python --suite python
grep -E "RSS grew|^ *[0-9]+/" "$R/meson-python.txt" | head -12
