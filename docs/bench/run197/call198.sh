#!/bin/bash
# Thirty-third session, call 198: the fusion kernel without its planning
# warp ("new"): the locating threads take each stream's lowest and
# highest row by shared-memory atomics, and every thread plans the stage
# for itself as it stages, so one barrier a tile and the one warp's
# serial plan are gone (ncu, runs 147 and 152: 43 to 52 % of the stall
# samples at a tile's barriers; 8 streams at 1.59x the floor).  "v8": the
# same with tiles of at least 8 ticks.  "base": 1836123's library.  The
# fusion tests, memcheck and racecheck over the staged and multi-stream
# cases, then the fuse sweep and its odd rows, alternated.  Carried lean.
CALL_SECONDS=420 AB_MARGIN=30 . docs/bench/call-lib.sh "$1"
test_programs kernels_fuse_gpu kernels_fuse
sanitize memcheck kernels_fuse_gpu test_tiles,test_split_rows,test_many_streams,test_long_and_wide
sanitize racecheck kernels_fuse_gpu test_tiles,test_split_rows
ab_bench fuse "base new v8 new base v8" --sweep fuse --runs 30
ab_bench fodd "base new new base" --sweep fuse --fuse-channels 512,7,10 --runs 30
cat $R/ab-fuse.txt $R/ab-fodd.txt
cat $R/timeline.txt
