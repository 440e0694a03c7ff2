#!/bin/bash
# Thirty-fourth session, call 213: the whole suite on fc433ac, carried
# whole (the kernel library and build/tests packed into .device/ to keep
# the carry small): `meson test -C build --no-rebuild`.
CALL_SECONDS=280 . docs/bench/call-lib.sh "$1"
meson_tests all
cat $R/timeline.txt
