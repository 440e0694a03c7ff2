#!/bin/bash
# Twenty-eighth session, call 168: call 167 found the KITTI means in
# records (new) faster in no order and column by column but slower ring by
# ring, by about 4 us at every size.  ncu's time, DRAM bytes and L2
# atomics of the clear, binning and division kernels at a million points,
# ring by ring and in no order, base and new.
CALL_SECONDS=220 . docs/bench/call-lib.sh "$1"
M=gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum,lts__t_sectors_op_red.sum,lts__t_sectors_op_atom.sum
for order in rows shuffled; do
  for l in base new; do
    [ $(left) -gt 30 ] || break
    ncu_kernels $order-$l $l "clear_outputs|bin_points|divide" 12 $M --sweep voxelize --modes mean --points 1048576 --only "sweep-voxelize-mean-kitti0.2-$order-n1048576" --runs 3 | tail -15
  done
done
cat $R/timeline.txt
