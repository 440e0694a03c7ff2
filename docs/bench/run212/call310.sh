#!/bin/bash
# Forty-eighth session, call 310, one H200: tests/bench/python_voxelize.py
# once on the build's package, after its raw pillars call became
# torch_pillars.py's kernel_call (the same prebuilt C call, and one
# _lib.check a call more).
CALL_SECONDS=120 . docs/bench/call-lib.sh "$1"
PYTHONPATH=$B/python:$PWD/tests/python timeout 100 python3 \
  tests/bench/python_voxelize.py --runs 200 --json "$R/pyvox.json" \
  > "$R/pyvox.txt" 2>&1
echo rc=$? >> "$R/pyvox.txt"
cat "$R/pyvox.txt"
pack done
