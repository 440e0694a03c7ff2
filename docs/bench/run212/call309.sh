#!/bin/bash
# Forty-eighth session, call 309, one H200: call 308's benchmark alone,
# three rounds alternated, the host having been noisy in call 308's first
# round (its raw C calls 12 µs against 9 in the second).
BENCH_ONLY=1 ROUNDS=3 exec bash docs/bench/run212/call307.sh "$1"
