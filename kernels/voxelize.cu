/* Voxelization on the GPU: the same per-point maths as the CPU reference
 * (voxelize-math.h), counts by atomics, statistics reduced per block before
 * one atomic each.  Clearing the grid and binning share one cooperative
 * launch where the device allows it. */
#include "internal.h"
#include "voxelize-math.h"

#include <cooperative_groups.h>
#include <cuda_runtime.h>
#include <stdlib.h>
#include <string.h>

#define BLOCK 256
#ifndef MAX
#define MAX(a, b) ((a) > (b) ? (a) : (b))
#endif
#ifndef MIN
#define MIN(a, b) ((a) < (b) ? (a) : (b))
#endif

/* Device-side copies of the statistics, in the tail of the scratch. */
typedef struct
{
  unsigned long long in_grid, out_of_range, invalid, occupied;
} device_stats;

static_assert (sizeof (device_stats) == sizeof (rc_voxelize_stats),
    "stats layouts must match for the copy back");

/* TRUE when x, y, z are float32 at offsets 0, 4, 8 of 4-byte aligned
 * points (KITTI, most drivers): then they are read as three aligned loads
 * instead of through the generic per-type field reader. */
static bool
xyz_is_packed_float (const rc_point_layout * layout, const void *points)
{
  return layout->x.type == RC_TYPE_FLOAT32 &&
      layout->y.type == RC_TYPE_FLOAT32 && layout->z.type == RC_TYPE_FLOAT32 &&
      layout->x.offset == 0 && layout->y.offset == 4 && layout->z.offset == 8
      && layout->point_step % 4 == 0 && ((uintptr_t) points & 3) == 0;
}

/* Zeroes a grid (and the mean's counts) with the threads of a launch: every
 * size here is a whole number of 32-bit words (rc_voxelize_output_size);
 * 16-byte stores where the grid allows. */
__device__ static void
clear_words (uint64_t first, uint64_t stride, uint32_t * __restrict__ grid,
    uint64_t grid_words, uint32_t * __restrict__ counts, uint64_t count_words)
{
  bool wide = ((uintptr_t) grid & 15) == 0;
  uint64_t n4 = wide ? grid_words / 4 : 0;

  for (uint64_t w = first; w < n4; w += stride)
    ((uint4 *) grid)[w] = make_uint4 (0, 0, 0, 0);
  for (uint64_t w = n4 * 4 + first; w < grid_words; w += stride)
    grid[w] = 0;
  for (uint64_t w = first; w < count_words; w += stride)
    counts[w] = 0;
}

/* Bins the points, each thread taking every stride-th.  With CLEAR_FIRST
 * the same launch clears the grid and the cloud's statistics first and
 * waits for every block at a grid-wide barrier (a cooperative launch): one
 * launch instead of two, and the points' loads are issued while the grid is
 * still being cleared.  The parameters stay in the constant bank
 * (__grid_constant__): taking their address copies nothing per thread. */
template < bool PACKED_XYZ, bool CLEAR_FIRST >
__global__ static void
voxelize_points (const __grid_constant__ rc_point_layout layout,
    const __grid_constant__ rc_voxel_grid grid,
    const uint8_t * __restrict__ points, uint64_t n_points,
    uint8_t * __restrict__ out, uint64_t out_words,
    uint32_t * __restrict__ counts, uint64_t count_words,
    device_stats * stats)
{
  __shared__ unsigned long long tally[4];
  uint64_t first = (uint64_t) blockIdx.x * blockDim.x + threadIdx.x;
  uint64_t stride = (uint64_t) gridDim.x * blockDim.x;
  unsigned n[4] = { 0, 0, 0, 0 };       /* in grid, out of range, invalid,
                                         * voxels this thread made occupied */

  if (threadIdx.x < 4)
    tally[threadIdx.x] = 0;
  if (CLEAR_FIRST) {
    clear_words (first, stride, (uint32_t *) out, out_words, counts,
        count_words);
    if (stats && first == 0) {
      device_stats zero = { 0, 0, 0, 0 };
      *stats = zero;
    }
    cooperative_groups::this_grid ().sync ();
  }
  __syncthreads ();

  for (uint64_t p = first; p < n_points; p += stride) {
    const uint8_t *point = points + p * layout.point_step;
    uint64_t v = 0;
    int where;
    bool made_occupied = false;

    if (PACKED_XYZ) {
      const float *xyz = (const float *) point;
      where = rc_voxel_locate_xyz (__ldg (xyz), __ldg (xyz + 1),
          __ldg (xyz + 2), &grid, &v);
    } else {
      where = rc_voxel_locate (point, &layout, &grid, &v);
    }
    n[where == RC_POINT_IN_GRID ? 0 : where == RC_POINT_OUT_OF_RANGE ?
        1 : 2]++;
    if (where != RC_POINT_IN_GRID)
      continue;
    switch (grid.mode) {
      case RC_VOXEL_OCCUPANCY:{
        /* The grid is padded to whole words (rc_voxelize_output_size), so
         * the word holding this byte is inside it. */
        unsigned shift = (unsigned) (v & 3) * 8;
        unsigned old = atomicOr ((unsigned *) (out + (v & ~(uint64_t) 3)),
            1u << shift);
        made_occupied = ((old >> shift) & 0xff) == 0;
        break;
      }
      case RC_VOXEL_COUNT:
        made_occupied = atomicAdd ((uint32_t *) out + v, 1u) == 0;
        break;
      case RC_VOXEL_MEAN:{
        uint64_t n_voxels = rc_voxel_grid_n_voxels_hd (&grid);
        made_occupied = atomicAdd (counts + v, 1u) == 0;
        for (uint32_t f = 0; f < layout.n_features; f++)
          atomicAdd ((float *) out + f * n_voxels + v,
              (float) rc_load_field (point, layout.features[f]));
        break;
      }
    }
    n[3] += made_occupied;
  }

  /* Per block, then one global atomic per counter. */
  for (int i = 0; i < 4; i++) {
    if (n[i])
      atomicAdd (&tally[i], (unsigned long long) n[i]);
  }
  __syncthreads ();
  if (threadIdx.x == 0 && stats) {
    if (tally[0])
      atomicAdd (&stats->in_grid, tally[0]);
    if (tally[1])
      atomicAdd (&stats->out_of_range, tally[1]);
    if (tally[2])
      atomicAdd (&stats->invalid, tally[2]);
    if (tally[3])
      atomicAdd (&stats->occupied, tally[3]);
  }
}

/* The grid's clear as a launch of its own, where no cooperative launch is
 * possible; it also zeroes the statistics of every cloud of the call. */
__global__ static void
clear_outputs (uint32_t * __restrict__ grid, uint64_t grid_words,
    uint32_t * __restrict__ counts, uint64_t count_words,
    device_stats * __restrict__ stats, uint32_t n_stats)
{
  uint64_t i = (uint64_t) blockIdx.x * blockDim.x + threadIdx.x;

  clear_words (i, (uint64_t) gridDim.x * blockDim.x, grid, grid_words,
      counts, count_words);
  if (stats && i < n_stats) {
    device_stats zero = { 0, 0, 0, 0 };
    stats[i] = zero;
  }
}

/* Enough blocks to cover the words with a few stores each, capped so that
 * the grid-stride loop, not the launch, does the work. */
static unsigned
clear_blocks (uint64_t words)
{
  uint64_t blocks = (words / 4 + BLOCK - 1) / BLOCK;
  return (unsigned) (blocks < 1 ? 1 : blocks > 8192 ? 8192 : blocks);
}

/* How many blocks of @kernel fit on the current device at once: the size
 * of a cooperative launch.  0 where the device cannot launch cooperatively
 * or ROBOCACHE_CUDA_COOPERATIVE=0 asks for separate clear and bin launches
 * (kept for comparison and as a way around a misbehaving driver).  A failed
 * query only selects the two-launch path. */
static unsigned
cooperative_blocks (const void *kernel)
{
  const char *env = getenv ("ROBOCACHE_CUDA_COOPERATIVE");
  int device, cooperative = 0, sms = 0, per_sm = 0;

  if (env && strcmp (env, "0") == 0)
    return 0;
  if (cudaGetDevice (&device) != cudaSuccess ||
      cudaDeviceGetAttribute (&cooperative, cudaDevAttrCooperativeLaunch,
          device) != cudaSuccess || !cooperative ||
      cudaDeviceGetAttribute (&sms, cudaDevAttrMultiProcessorCount,
          device) != cudaSuccess ||
      cudaOccupancyMaxActiveBlocksPerMultiprocessor (&per_sm, kernel, BLOCK,
          0) != cudaSuccess) {
    (void) cudaGetLastError ();
    return 0;
  }
  return (unsigned) (sms * per_sm);
}

template < bool PACKED_XYZ >
static rc_status
launch_cloud (const rc_point_layout * layout, const rc_voxel_grid * grid,
    const uint8_t * cloud, uint64_t n_points, uint8_t * grid_out,
    uint64_t out_words, uint32_t * counts, uint64_t count_words,
    device_stats * dstats, uint32_t c, uint32_t n_clouds, cudaStream_t s)
{
  const void *fused = (const void *) voxelize_points < PACKED_XYZ, true >;
  uint64_t clear_words = MAX (out_words, count_words);
  unsigned fit = cooperative_blocks (fused);
  rc_status ret;

  if (fit > 0) {
    unsigned blocks = MAX (clear_blocks (clear_words),
        (unsigned) MIN ((n_points + BLOCK - 1) / BLOCK, (uint64_t) 1 << 31));
    device_stats *stats = dstats + c;
    void *args[] = { (void *) layout, (void *) grid, (void *) &cloud,
      (void *) &n_points, (void *) &grid_out, (void *) &out_words,
      (void *) &counts, (void *) &count_words, (void *) &stats
    };
    return rc_check_cuda_error (cudaLaunchCooperativeKernel (fused,
            MIN (blocks, fit), BLOCK, args, 0, s));
  }

  /* The first clear also zeroes every cloud's statistics. */
  clear_outputs <<< MAX (clear_blocks (clear_words), (n_clouds + BLOCK - 1) /
      BLOCK), BLOCK, 0, s >>> ((uint32_t *) grid_out, out_words, counts,
      count_words, c == 0 ? dstats : NULL, n_clouds);
  ret = rc_check_launch ();
  if (ret != RC_OK || n_points == 0)
    return ret;
  voxelize_points < PACKED_XYZ, false >
      <<< (unsigned) MIN ((n_points + BLOCK - 1) / BLOCK,
      (uint64_t) 1 << 31), BLOCK, 0, s >>> (*layout, *grid, cloud, n_points,
      grid_out, out_words, counts, count_words, dstats + c);
  return rc_check_launch ();
}

__global__ static void
divide_means (float *__restrict__ sums, const uint32_t * __restrict__ counts,
    uint64_t n_voxels, uint32_t n_features)
{
  uint64_t v = (uint64_t) blockIdx.x * blockDim.x + threadIdx.x;
  uint32_t n;

  if (v >= n_voxels)
    return;
  n = counts[v];
  if (n == 0)
    return;
  for (uint32_t f = 0; f < n_features; f++)
    sums[f * n_voxels + v] /= (float) n;
}

static unsigned
blocks_for (uint64_t n)
{
  return (unsigned) ((n + BLOCK - 1) / BLOCK);
}

extern "C" rc_status
rc_voxelize_cuda (const rc_point_layout * layout, const rc_voxel_grid * grid,
    const void *points, const uint64_t * cloud_sizes, uint32_t n_clouds,
    void *out, void *scratch, rc_voxelize_stats * stats, void *stream)
{
  cudaStream_t s = (cudaStream_t) stream;
  rc_status ret = rc_voxelize_check (layout, grid);
  const uint8_t *cloud = (const uint8_t *) points;
  uint64_t out_size, n_voxels, counts_size;
  uint32_t *counts = NULL;
  device_stats *dstats;

  if (ret != RC_OK)
    return ret;
  if (n_clouds == 0)
    return RC_OK;
  if (!out || !cloud_sizes || !scratch)
    return RC_ERROR_INVALID_ARGUMENT;

  out_size = rc_voxelize_output_size (layout, grid);
  n_voxels = rc_voxel_grid_n_voxels (grid);
  /* Of the CPU's scratch the GPU uses only the per-voxel counts. */
  counts_size = grid->mode == RC_VOXEL_MEAN ? n_voxels * sizeof (uint32_t) : 0;
  /* Statistics first: their 64-bit atomics need 8-byte alignment, which an
   * odd number of 4-byte counts before them would break. */
  dstats = (device_stats *) scratch;
  if (counts_size)
    counts = (uint32_t *) ((uint8_t *) scratch +
        rc_voxelize_cuda_stats_size (n_clouds));

  for (uint32_t c = 0; c < n_clouds && ret == RC_OK; c++) {
    uint8_t *grid_out = (uint8_t *) out + c * out_size;

    if (cloud_sizes[c] > 0 && !cloud)
      return RC_ERROR_INVALID_ARGUMENT;
    if (xyz_is_packed_float (layout, cloud))
      ret = launch_cloud < true > (layout, grid, cloud, cloud_sizes[c],
          grid_out, out_size / 4, counts, counts_size / 4, dstats, c,
          n_clouds, s);
    else
      ret = launch_cloud < false > (layout, grid, cloud, cloud_sizes[c],
          grid_out, out_size / 4, counts, counts_size / 4, dstats, c,
          n_clouds, s);
    if (ret == RC_OK && grid->mode == RC_VOXEL_MEAN) {
      divide_means <<< blocks_for (n_voxels), BLOCK, 0, s >>> ((float *)
          grid_out, counts, n_voxels, layout->n_features);
      ret = rc_check_launch ();
    }
    cloud += cloud_sizes[c] * layout->point_step;
  }
  if (ret == RC_OK && stats)
    ret = rc_device_copy_async (stats, dstats,
        rc_voxelize_cuda_stats_size (n_clouds), RC_COPY_DEVICE_TO_HOST,
        stream);
  return ret;
}
