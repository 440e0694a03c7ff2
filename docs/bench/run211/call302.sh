#!/bin/bash
# Forty-seventh session, call 302, one H200: robocachefuse's kernel with
# each stream of a tile's sweep starting on the warp after those the
# streams before it fill (Args::first, "new", the build's), against the
# same code without (7011b11's fuse.cu, "base").  The fusion tests,
# memcheck and racecheck over them, then the row of 529 floats (512, 7,
# 10) and the quoted widths alternated.
CALL_SECONDS=420 AB_MARGIN=20 . docs/bench/call-lib.sh "$1"
export CK_DEFAULT_TIMEOUT=120
test_programs kernels_fuse_gpu kernels_fuse
sanitize memcheck kernels_fuse_gpu test_split_rows,test_misaligned,test_tiles,test_many_streams
sanitize racecheck kernels_fuse_gpu test_split_rows,test_many_streams
ab_bench fodd "new base base new new base base new" --sweep fuse \
  --fuse-channels 512,7,10 --runs 30
ab_bench fuse "new base base new" --sweep fuse --runs 30
cat $R/ab-fodd.txt $R/ab-fuse.txt
pack done
