/* Runs of a warp's neighbouring lanes whose points fall in one voxel or
 * cell.  A lidar sweep in the order its driver publishes it (ring by
 * ring, or column by column) puts neighbouring points in one voxel; the
 * kernels that add a point per atomic add a run in one instead, from its
 * first lane, so that the run's atomics stop waiting on each other. */
#ifndef ROBOCACHE_KERNELS_WARP_RUNS_CUH
#define ROBOCACHE_KERNELS_WARP_RUNS_CUH

#include <cuda_runtime.h>
#include <stdint.h>

/* The run of neighbouring lanes of the warp whose points, each @mine when
 * it is binned here, share voxel @v: TRUE for its first lane.  *@end is
 * the lane past the caller's run (its lane + 1 where the caller is not
 * binning), *@runs (when not NULL) FALSE where every run of the warp is
 * one point.  Every lane of the warp calls it. */
__device__ static bool
find_run (bool mine, uint64_t v, unsigned *end, bool *runs)
{
  unsigned lane = threadIdx.x % 32;
  unsigned long long key = mine ? v : ~0ull;
  unsigned long long before = __shfl_up_sync (0xffffffffu, key, 1);
  bool head = mine && (lane == 0 || before != key);
  /* Where runs end: at the next head, or at a lane not binning here. */
  unsigned bounds = __ballot_sync (0xffffffffu, head || !mine);
  unsigned later = lane == 31 ? 0 : bounds & (0xffffffffu << (lane + 1));

  *end = later ? (unsigned) __ffs (later) - 1 : 32;
  if (runs)
    *runs = bounds != 0xffffffffu;
  return head;
}

/* The first lane of the caller's run, given the warp's heads (a ballot of
 * find_run's results); meaningless for a lane not binning.  Every lane of
 * the warp may call it. */
__device__ static unsigned
run_head (unsigned heads)
{
  unsigned lane = threadIdx.x % 32;
  unsigned upto = heads & (0xffffffffu >> (31 - lane));

  return upto ? 31 - (unsigned) __clz (upto) : lane;
}

#endif /* ROBOCACHE_KERNELS_WARP_RUNS_CUH */
