#!/bin/bash
# Forty-first session, call 248: why a fused row of 529 floats (512, 7, 10)
# costs 1.55 times its floor at 10,000 ticks where the quoted widths' row
# of 532 (512, 14, 6) costs 1.41: ncu of the fusion kernel at both, the
# L2 write sectors and requests (the odd row's stores in two or three
# pieces), DRAM bytes, shared-memory wavefronts, instructions and the warps'
# stall reasons.  The build's library (c574b0d's kernels).
CALL_SECONDS=300 . docs/bench/call-lib.sh "$1"
M=gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum
M=$M,lts__t_sectors_op_write.sum,lts__t_requests_op_write.sum
M=$M,lts__t_sectors_op_read.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared.sum
M=$M,smsp__inst_executed.sum,sm__warps_active.avg.pct_of_peak_sustained_active
M=$M,dram__throughput.avg.pct_of_peak_sustained_elapsed
M=$M,smsp__warp_issue_stalled_barrier_per_warp_active.pct
M=$M,smsp__warp_issue_stalled_long_scoreboard_per_warp_active.pct
M=$M,smsp__warp_issue_stalled_short_scoreboard_per_warp_active.pct
M=$M,smsp__warp_issue_stalled_lg_throttle_per_warp_active.pct
M=$M,smsp__warp_issue_stalled_mio_throttle_per_warp_active.pct
M=$M,smsp__warp_issue_stalled_drain_per_warp_active.pct
M=$M,smsp__warp_issue_stalled_membar_per_warp_active.pct
M=$M,smsp__warp_issue_stalled_wait_per_warp_active.pct
ncu_kernels quoted new fuse_kernel 3 $M --sweep fuse \
  --only 'sweep-fuse-f32-E64-T10000-S3' --runs 2 | tail -20
ncu_kernels odd new fuse_kernel 3 $M --sweep fuse --fuse-channels 512,7,10 \
  --only 'sweep-fuse-f32-E64-T10000-S3-C512.7.10' --runs 2 | tail -20
cat $R/timeline.txt
