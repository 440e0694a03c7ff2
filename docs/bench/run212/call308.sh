#!/bin/bash
# Forty-eighth session, call 308, one H200: call 307 again on the fast
# path as committed, which makes its kernel call through the general
# path's _voxelize_into and _sparse_into instead of a copy of them (the
# two mutants rebuilt from it).
exec bash docs/bench/run212/call307.sh "$1"
