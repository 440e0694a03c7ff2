#!/bin/bash
# Forty-eighth session, call 314, one H200: the python suite after the
# call caches' bound moved into one helper (_keep in _kernels.py).
CALL_SECONDS=200 . docs/bench/call-lib.sh "$1"
meson_tests py --suite python
pack done
