#!/bin/bash
# Forty-eighth session, call 305, one H200.
# 1. The GPU tests (tests/gpu-sanitize.sh --list), 8 at a time, on 4aeaf30
#    (a chunk's order flags and time ends in one launch) and the build's
#    fuse.cu (each thread's sweep item stepped by additions, no division
#    an item: "new").
# 2. memcheck over the changed kernels' tests and elements-resample's GPU
#    chunk cases.
# 3. Kernel mutants, each of which should fail: mut-noends copies no
#    trajectory's first time, mut-noflag misses a decrease at the first
#    pair, mut-item steps an item past its row's last unit.
# 4. bench-kernels' fuse sweeps, the row of 529 floats (512, 7, 10) and
#    the quoted widths: "new", "base" (4f0ccd2's fuse.cu) and "idx32"
#    (new, with staged rows indexed in 32 bits) alternated.
# 5. bench-pipeline alternated 4 times: "head" (4f0ccd2's plugin and
#    kernel library) and "new".
CALL_SECONDS=540 AB_MARGIN=20 . docs/bench/call-lib.sh "$1"
export CK_DEFAULT_TIMEOUT=120
tar xJf .device/plugs.tar.xz -C .device
meson_parallel gpu 200 "${GPU_TESTS[@]}"
sanitize memcheck kernels_resample_gpu test_times_disordered
sanitize memcheck kernels_fuse_gpu test_split_rows,test_misaligned,test_tiles,test_many_streams
sanitize memcheck elements_resample \
  test_gpu_long_chunks,test_chunk_grid_times_exact,test_gpu_chunk_cuts
mutants kernels_resample_gpu test_times_disordered mut-noends mut-noflag
mutants kernels_fuse_gpu test_odd_channels,test_split_rows,test_misaligned,test_tiles mut-item
ab_bench fodd "new base idx32 idx32 base new" --sweep fuse \
  --fuse-channels 512,7,10 --runs 30
ab_bench fuse "new base idx32" --sweep fuse --runs 30
ab_plugins stream 4 "head=$PWD/.device/headplug new=" \
  --sweeps 500 --fusion-seconds 1
cat $R/ab-fodd.txt $R/ab-fuse.txt
pack done
