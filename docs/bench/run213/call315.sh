#!/bin/bash
# Forty-ninth session, call 315, one H200.
# The build ("new"): robocachefuse's rows that some stream cannot store
# 16 bytes at an aligned time (a row of 529 floats: 512, 7 and 10) blended
# into an output tile in shared memory, written by one bulk copy (sm_90's
# TMA) and a few edge stores a tile.
# 1. The GPU tests (tests/gpu-sanitize.sh --list), 8 at a time.
# 2. memcheck, racecheck and synccheck over kernels-fuse-gpu's odd rows.
# 3. Kernel mutants, each of which should fail: mut-nohead and mut-notail
#    leave out the tile's floats before its first and after its last
#    16-byte unit.
# 4. bench-kernels' fuse sweep of the row of 529 floats: "new", "base"
#    (no output tile: the code before), "ot4k" (tiles of 4,096 floats, 4
#    blocks an SM) and "otall" (every row through the tile), alternated.
# 5. The quoted widths (512, 14, 6: no odd row) through the tile or not.
CALL_SECONDS=560 AB_MARGIN=25 . docs/bench/call-lib.sh "$1"
export CK_DEFAULT_TIMEOUT=120
meson_parallel gpu 200 "${GPU_TESTS[@]}"
ODD=test_odd_channels,test_split_rows,test_misaligned,test_tiles,test_tiny
sanitize memcheck kernels_fuse_gpu $ODD
sanitize racecheck kernels_fuse_gpu test_odd_channels,test_misaligned
sanitize synccheck kernels_fuse_gpu test_odd_channels,test_misaligned
mutants kernels_fuse_gpu $ODD mut-nohead mut-notail
ab_bench fodd "new base ot4k otall base new otall ot4k" --sweep fuse \
  --fuse-channels 512,7,10 --runs 30
ab_bench fuse "otall base base otall" --sweep fuse --runs 30
cat $R/ab-fodd.txt $R/ab-fuse.txt
pack done
