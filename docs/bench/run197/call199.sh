#!/bin/bash
# Thirty-third session, call 199: the fusion kernel's tile length after
# bc9d0db ("new", tiles of at least 6 ticks, halved while fewer than
# 2,048 tiles).  "s6": the same but shortened at once to the length that
# makes 2,048 tiles (halving took 100 ticks of 3 streams from 6 ticks to
# 3 and, with tiles of at least 8, from 8 to 2: 33.8 against 28.1 us in
# call 198); "v8s" and "v10s": that, with tiles of at least 8 and 10
# ticks (call 198's "v8": 8 streams 115.6 us against 120.8).  The fuse
# sweep and its odd rows, alternated.  Carried lean.
CALL_SECONDS=420 AB_MARGIN=25 . docs/bench/call-lib.sh "$1"
ab_bench fuse "new s6 v8s v10s v10s v8s s6 new" --sweep fuse --runs 30
ab_bench fodd "new v8s v10s v10s v8s new" --sweep fuse --fuse-channels 512,7,10 --runs 30
cat $R/ab-fuse.txt $R/ab-fodd.txt
cat $R/timeline.txt
