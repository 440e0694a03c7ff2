#!/bin/bash
# Thirty-second session, call 196: the fusion kernel reading four channels
# at a time into rows of 2 mod 4 floats ("new"; their stores two of 8
# bytes in the rows where 16 would be misaligned), where it read two
# (6227c05, "base"): 2 and 8 streams of the sweep took 1.55 and 1.71 times
# their floor, 4 and 16 streams 1.47 and 1.52; call 195 gained 6 % at 8
# streams but lost 2 % at 3 to a run-time check of every store, now a
# template argument (a separate instantiation).  The fusion tests and
# memcheck over the new and vectorised cases, then the fuse sweep against
# base, alternated.  Carried lean.
CALL_SECONDS=400 AB_MARGIN=40 . docs/bench/call-lib.sh "$1"
test_programs kernels_fuse_gpu kernels_fuse
sanitize memcheck kernels_fuse_gpu test_split_rows,test_vectorised,test_misaligned
ab_bench fuse "base new new base" --sweep fuse --runs 30
cat $R/ab-fuse.txt
cat $R/timeline.txt
