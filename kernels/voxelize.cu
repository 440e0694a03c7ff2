/* Voxelization on the GPU: one thread per point, the same per-point maths as
 * the CPU reference (voxelize-math.h), counts by atomics, statistics reduced
 * per block before one atomic each.
 *
 * Each cloud is a clear then a binning launch.  On Hopper and later the
 * binning launch is a programmatic dependent of the clear: its blocks start
 * while the clear's last blocks run, read and locate their points, and wait
 * for the clear (griddepcontrol.wait) only before they write.  Elsewhere
 * the two launches are ordered by the stream as usual. */
#include "internal.h"
#include "voxelize-math.h"

#include <cuda_runtime.h>

#define BLOCK 256

/* Programmatic dependent launch (sm_90 and later): the dependent waits for
 * the whole previous grid to finish and its writes to be visible; the
 * previous grid lets dependents start early.  Without a programmatic launch
 * both are no-ops. */
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
#define WAIT_FOR_PREVIOUS_GRID() \
  asm volatile ("griddepcontrol.wait;" ::: "memory")
#define LET_DEPENDENTS_START() \
  asm volatile ("griddepcontrol.launch_dependents;")
#else
#define WAIT_FOR_PREVIOUS_GRID() do { } while (0)
#define LET_DEPENDENTS_START() do { } while (0)
#endif

#ifndef MAX
#define MAX(a, b) ((a) > (b) ? (a) : (b))
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

/* The parameters stay in the constant bank (__grid_constant__): taking
 * their address no longer copies them to local memory per thread. */
template < bool PACKED_XYZ >
__global__ static void
bin_points (const __grid_constant__ rc_point_layout layout,
    const __grid_constant__ rc_voxel_grid grid,
    const uint8_t * __restrict__ points, uint64_t n_points,
    uint8_t * __restrict__ out, uint32_t * __restrict__ counts,
    device_stats * stats)
{
  uint64_t p = (uint64_t) blockIdx.x * blockDim.x + threadIdx.x;
  int where = RC_POINT_OUT_OF_RANGE;
  bool first = false;           /* this point made its voxel occupied */
  uint64_t v = 0;
  int n_in, n_out, n_invalid, n_first;

  if (p < n_points) {
    const uint8_t *point = points + p * layout.point_step;
    if (PACKED_XYZ) {
      const float *xyz = (const float *) point;
      where = rc_voxel_locate_xyz (__ldg (xyz), __ldg (xyz + 1),
          __ldg (xyz + 2), &grid, &v);
    } else {
      where = rc_voxel_locate (point, &layout, &grid, &v);
    }
  }
  /* Everything above only reads; the grid and the statistics are the
   * clear's until here. */
  WAIT_FOR_PREVIOUS_GRID ();
  if (p < n_points) {
    const uint8_t *point = points + p * layout.point_step;
    if (where == RC_POINT_IN_GRID) {
      switch (grid.mode) {
        case RC_VOXEL_OCCUPANCY:{
          /* The grid is padded to whole words (rc_voxelize_output_size), so
           * the word holding this byte is inside it. */
          unsigned shift = (unsigned) (v & 3) * 8;
          unsigned old = atomicOr ((unsigned *) (out + (v & ~(uint64_t) 3)),
              1u << shift);
          first = ((old >> shift) & 0xff) == 0;
          break;
        }
        case RC_VOXEL_COUNT:
          first = atomicAdd ((uint32_t *) out + v, 1u) == 0;
          break;
        case RC_VOXEL_MEAN:{
          uint64_t n_voxels = rc_voxel_grid_n_voxels_hd (&grid);
          first = atomicAdd (counts + v, 1u) == 0;
          for (uint32_t f = 0; f < layout.n_features; f++)
            atomicAdd ((float *) out + f * n_voxels + v,
                (float) rc_load_field (point, layout.features[f]));
          break;
        }
      }
    }
  }

  n_in = __syncthreads_count (p < n_points && where == RC_POINT_IN_GRID);
  n_out = __syncthreads_count (p < n_points && where == RC_POINT_OUT_OF_RANGE);
  n_invalid = __syncthreads_count (p < n_points && where == RC_POINT_INVALID);
  n_first = __syncthreads_count (first);
  if (threadIdx.x == 0 && stats) {
    if (n_in)
      atomicAdd (&stats->in_grid, (unsigned long long) n_in);
    if (n_out)
      atomicAdd (&stats->out_of_range, (unsigned long long) n_out);
    if (n_invalid)
      atomicAdd (&stats->invalid, (unsigned long long) n_invalid);
    if (n_first)
      atomicAdd (&stats->occupied, (unsigned long long) n_first);
  }
}

/* Clears a grid (and the mean's counts) and, in the same launch, the
 * statistics of the call: one launch instead of two or three memsets, whose
 * gaps showed on small grids.  Every size here is a whole number of 32-bit
 * words (rc_voxelize_output_size); 16-byte stores where the grid allows. */
__global__ static void
clear_outputs (uint32_t * __restrict__ grid, uint64_t grid_words,
    uint32_t * __restrict__ counts, uint64_t count_words,
    device_stats * __restrict__ stats, uint32_t n_stats)
{
  uint64_t i = (uint64_t) blockIdx.x * blockDim.x + threadIdx.x;
  uint64_t stride = (uint64_t) gridDim.x * blockDim.x;
  bool wide = ((uintptr_t) grid & 15) == 0;
  uint64_t n4 = wide ? grid_words / 4 : 0;

  /* The binning launch may be scheduled now: it writes nothing before this
   * grid has finished. */
  LET_DEPENDENTS_START ();
  for (uint64_t w = i; w < n4; w += stride)
    ((uint4 *) grid)[w] = make_uint4 (0, 0, 0, 0);
  for (uint64_t w = n4 * 4 + i; w < grid_words; w += stride)
    grid[w] = 0;
  for (uint64_t w = i; w < count_words; w += stride)
    counts[w] = 0;
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

/* Bins one cloud after the clear launched just before it on @s; with
 * @early, as a programmatic dependent of that clear. */
template < bool PACKED_XYZ >
static rc_status
launch_binning (const rc_point_layout * layout, const rc_voxel_grid * grid,
    const uint8_t * points, uint64_t n_points, uint8_t * out,
    uint32_t * counts, device_stats * stats, bool early, cudaStream_t s)
{
  cudaLaunchConfig_t config = { };
  cudaLaunchAttribute attr = { };

  config.gridDim = dim3 (blocks_for (n_points));
  config.blockDim = dim3 (BLOCK);
  config.stream = s;
  if (early) {
    attr.id = cudaLaunchAttributeProgrammaticStreamSerialization;
    attr.val.programmaticStreamSerializationAllowed = 1;
    config.attrs = &attr;
    config.numAttrs = 1;
  }
  return rc_check_cuda (cudaLaunchKernelEx (&config, bin_points < PACKED_XYZ >,
          *layout, *grid, points, n_points, out, counts, stats));
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
  int major = 0;
  bool early;

  if (ret != RC_OK)
    return ret;
  if (n_clouds == 0)
    return RC_OK;
  if (!out || !cloud_sizes || !scratch)
    return RC_ERROR_INVALID_ARGUMENT;

  ret = rc_device_compute_major (&major);
  if (ret != RC_OK)
    return ret;
  early = major >= 9;

  out_size = rc_voxelize_output_size (layout, grid);
  n_voxels = rc_voxel_grid_n_voxels (grid);
  /* The scratch as rc_voxelize_cuda_scratch_size counts it. */
  counts_size = grid->mode == RC_VOXEL_MEAN ? n_voxels * sizeof (uint32_t) : 0;
  /* Statistics first: their 64-bit atomics need 8-byte alignment, which an
   * odd number of 4-byte counts before them would break. */
  dstats = (device_stats *) scratch;
  if (counts_size)
    counts = (uint32_t *) ((uint8_t *) scratch +
        rc_voxelize_cuda_stats_size (n_clouds));

  for (uint32_t c = 0; c < n_clouds && ret == RC_OK; c++) {
    uint8_t *grid_out = (uint8_t *) out + c * out_size;
    uint64_t words = MAX (out_size, counts_size) / 4;

    if (cloud_sizes[c] > 0 && !cloud)
      return RC_ERROR_INVALID_ARGUMENT;
    /* The first clear also zeroes every cloud's statistics. */
    clear_outputs <<< MAX (clear_blocks (words), (n_clouds + BLOCK - 1) /
        BLOCK), BLOCK, 0, s >>> ((uint32_t *) grid_out, out_size / 4,
        counts, counts ? counts_size / 4 : 0, c == 0 ? dstats : NULL,
        n_clouds);
    ret = rc_check_launch ();
    if (ret != RC_OK)
      break;
    if (cloud_sizes[c] > 0) {
      if (xyz_is_packed_float (layout, cloud))
        ret = launch_binning < true > (layout, grid, cloud, cloud_sizes[c],
            grid_out, counts, dstats + c, early, s);
      else
        ret = launch_binning < false > (layout, grid, cloud, cloud_sizes[c],
            grid_out, counts, dstats + c, early, s);
    }
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
