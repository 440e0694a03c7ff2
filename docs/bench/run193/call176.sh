#!/bin/bash
# Twenty-ninth session, call 176: the whole suite on the committed code
# (means of two to four features partitioned, a tile of one feature or
# none summed with no slice loop and its clear's length known when
# compiled), then 256^3 means of one, three and four features against
# 397b1f4 ("base"), alternated.  Carried whole (build/ stripped).
CALL_SECONDS=440 AB_MARGIN=45 . docs/bench/call-lib.sh "$1"
meson_tests suite
ab_bench means "base new new base" --sweep voxelize --modes mean --points 131072,262144,1048576,4194304 --only 'sweep-voxelize-mean-*256cube-*' --runs 30
cat $R/ab-means.txt
cat $R/timeline.txt
