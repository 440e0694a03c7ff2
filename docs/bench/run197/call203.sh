#!/bin/bash
# Thirty-third session, call 203: call 202's "new" (two channels an access
# in odd rows) against "head" (a1c12e3) on the quoted widths, alternated
# twice: call 202 ran each once, 10,000 ticks 469.9 against 474.9 us,
# which no path of these rows takes.  Carried lean.
CALL_SECONDS=200 AB_MARGIN=20 . docs/bench/call-lib.sh "$1"
ab_bench fuse "new head head new" --sweep fuse --runs 30
cat $R/ab-fuse.txt
cat $R/timeline.txt
