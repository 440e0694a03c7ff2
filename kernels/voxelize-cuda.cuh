/* What the parts of the GPU voxelization share: binning (voxelize.cu),
 * which scatters a cloud's points into a grid or the scratch, the passes
 * around it (voxelize-output.cu), which clear before it and turn what it
 * left into the output after it, and the paths that sort the points by
 * voxel first (voxelize-sort.cu): the block size, where a point falls,
 * the scratch's layout, header and statistics, block-wide sums, and the
 * launches of those passes; and the counts and means partitioned by tile
 * (voxelize-partition.cu). */
#ifndef ROBOCACHE_KERNELS_VOXELIZE_CUDA_CUH
#define ROBOCACHE_KERNELS_VOXELIZE_CUDA_CUH

#include "internal.h"
#include "voxelize-math.h"

#include <cuda_runtime.h>

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

/* The start of the scratch: which centroids or mean call, if any, left
 * its scratch (sums, counts, mask; or a mean's records) all zero.  Any
 * other call, and every binning, sets it to 0 first; the last kernel of a
 * centroids or mean call sets it to the call's key (scratch_key), which a
 * later call's clear reads.  Then how many voxels a marked mean's binning
 * has listed (zeroed by each clear). */
typedef struct
{
  unsigned long long clean_key;
  unsigned long long listed;
} scratch_header;

static_assert (sizeof (scratch_header) == RC_VOXELIZE_CUDA_HEADER,
    "the header's size as voxelize.c counts it");

/* The sum of @value over this lane and the warp's lanes before it. */
template < typename T > __device__ static T
warp_inclusive_sum (T value)
{
  unsigned lane = threadIdx.x % 32;

  for (unsigned d = 1; d < 32; d *= 2) {
    T up = __shfl_up_sync (0xffffffffu, value, d);
    if (lane >= d)
      value += up;
  }
  return value;
}

/* The sum of @own over the block's threads before this one, and in
 * @total over all of them: within the warp, then the warps'.  Every
 * thread of the BLOCK must call it, once a launch (a barrier inside). */
__device__ static unsigned
block_exclusive_sum (unsigned own, unsigned *total)
{
  __shared__ unsigned warp_sums[BLOCK / 32];
  unsigned lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  unsigned before = warp_inclusive_sum (own);

  if (lane == 31)
    warp_sums[warp] = before;
  __syncthreads ();
  before -= own;
  *total = 0;
  for (unsigned w = 0; w < BLOCK / 32; w++) {
    before += w < warp ? warp_sums[w] : 0;
    *total += warp_sums[w];
  }
  return before;
}

static inline unsigned
blocks_for (uint64_t n)
{
  return (unsigned) ((n + BLOCK - 1) / BLOCK);
}

/* TRUE when x, y, z are float32 at offsets 0, 4, 8 of 4-byte aligned
 * points (KITTI, most drivers): then they are read as three aligned loads
 * instead of through the generic per-type field reader. */
static inline bool
xyz_is_packed_float (const rc_point_layout * layout, const void *points)
{
  return layout->x.type == RC_TYPE_FLOAT32 &&
      layout->y.type == RC_TYPE_FLOAT32 && layout->z.type == RC_TYPE_FLOAT32 &&
      layout->x.offset == 0 && layout->y.offset == 4 && layout->z.offset == 8
      && layout->point_step % 4 == 0 && ((uintptr_t) points & 3) == 0;
}

/* Where point @p of the cloud falls (RC_POINT_*), and its voxel.  Each
 * point is read once a launch: streaming loads (evict first), so that the
 * cloud does not push the grid out of the L2 cache (a count grid's two
 * slabs of 4,194,304 points 185 us against 206, run 133 on an H100). */
template < bool PACKED_XYZ >
__device__ static int
locate_point (const rc_point_layout * layout, const rc_voxel_grid * grid,
    const uint8_t * __restrict__ points, uint64_t p, uint64_t * v)
{
  const uint8_t *point = points + p * layout->point_step;

  if (PACKED_XYZ) {
    const float *xyz = (const float *) point;
    return rc_voxel_locate_xyz (__ldcs (xyz), __ldcs (xyz + 1),
        __ldcs (xyz + 2), grid, v);
  }
  return rc_voxel_locate (point, layout, grid, v);
}

/* A block's statistics into the call's, an atomic each. */
__device__ static void
add_block_counts (device_stats * stats, unsigned long long n_in,
    unsigned long long n_out, unsigned long long n_invalid,
    unsigned long long n_first)
{
  if (threadIdx.x != 0 || !stats)
    return;
  if (n_in)
    atomicAdd (&stats->in_grid, n_in);
  if (n_out)
    atomicAdd (&stats->out_of_range, n_out);
  if (n_invalid)
    atomicAdd (&stats->invalid, n_invalid);
  if (n_first)
    atomicAdd (&stats->occupied, n_first);
}

/* Where each part of a call's scratch lies, as
 * rc_voxelize_cuda_scratch_size counts it. */
typedef struct
{
  scratch_header *header;
  device_stats *stats;
  uint32_t *counts, *tile_counts, *mask;        /* the mask: the centroids' */
  uint32_t *listed;             /* a marked mean's occupied voxels */
  float *records;               /* a large mean's slab, in the same room */
  uint8_t *sort_tail;           /* a sorted mean's, past the list */
  uint8_t *partition;           /* a partition's: counts' past the
                                 * statistics, a mean's at the sort's */
  float *sums;                  /* the centroids', binned as the mean */
  unsigned long long key;       /* the centroids' or the mean's, else 0 */
  unsigned long long records_key;       /* the mean's records', else 0 */
} call_scratch;

/* A sorted mean (rc_voxel_mean_sorts) of one cloud into @means
 * (voxelize-sort.cu); *@sorted is FALSE, and nothing is launched, where
 * the sort's scratch would not fit its room. */
rc_status voxelize_sort_mean (const rc_point_layout * layout,
    const rc_voxel_grid * grid, const uint8_t * cloud, uint64_t n_points,
    float *means, const call_scratch * cs, device_stats * all_stats,
    uint32_t n_clouds, device_stats * stats, cudaStream_t s, bool *sorted);

/* Counts or a mean of up to four features, partitioned
 * (rc_voxel_partitioned), of one cloud into @out (with @all_stats, every
 * cloud's statistics zeroed first; voxelize-partition.cu); with @early,
 * each launch a programmatic dependent of the one before.  *@done is FALSE, and nothing is launched,
 * on a GPU of too little shared memory a block for its tiles. */
rc_status voxelize_partition (const rc_point_layout * layout,
    const rc_voxel_grid * grid, const uint8_t * cloud, uint64_t n_points,
    void *out, const call_scratch * cs, device_stats * all_stats,
    uint32_t n_clouds, device_stats * stats, bool early, cudaStream_t s,
    bool *done);

/* Clears @grid_words words of each of @n_planes planes @plane_words
 * apart from @grid, @count_words counts, the centroids' @n_tiles tile
 * counts, and the @n_stats clouds' statistics where @stats is given
 * (clear_outputs): enough blocks for @words words in all, fewer where the
 * grid is in the scratch (the centroids' sums, a mean's records), mostly
 * clear already. */
rc_status voxelize_launch_clear (uint32_t * grid, uint64_t grid_words,
    uint32_t n_planes, uint64_t plane_words, uint32_t * counts,
    uint64_t count_words, uint32_t * tile_counts, uint64_t n_tiles,
    device_stats * stats, uint32_t n_stats, scratch_header * header,
    unsigned long long key, bool grid_in_scratch, uint64_t words,
    cudaStream_t s);

/* Divides one cloud's mean sums by their counts: with @listed only the
 * voxels binning listed there, at most @n_points, leaving the scratch
 * clear for @key; else every voxel from @v_lo to @v_hi, counting the
 * occupied ones into @stats and leaving the counts for the next clear (the
 * header says so since binning). */
rc_status voxelize_launch_division (uint32_t * listed, uint64_t n_points,
    float *sums, uint32_t * counts, uint64_t n_voxels, uint32_t n_features,
    scratch_header * header, unsigned long long key, uint64_t v_lo,
    uint64_t v_hi, device_stats * stats, bool early, cudaStream_t s);

/* Divides a slab of records, voxels [@v_lo, @v_hi) of @record floats
 * each, into the mean's planes, leaving the records clear for @key
 * (divide_records). */
rc_status voxelize_launch_record_division (float *records, float *means,
    uint64_t n_voxels, uint32_t n_features, uint32_t record, uint64_t v_lo,
    uint64_t v_hi, device_stats * stats, scratch_header * header,
    unsigned long long key, bool early, cudaStream_t s);

/* Puts one cloud's centroids, summed in @sums and counted per tile while
 * binning, into @points, leaving the scratch clear for @key but for the
 * tile counts, which the next clear zeroes; with @early a programmatic
 * dependent of binning.  Each voxel's count is float @count_at of its
 * record, or with UINT32_MAX in @counts. */
rc_status voxelize_launch_centroids (float *sums, uint32_t * counts,
    uint32_t * mask, uint64_t n_voxels, uint32_t n_features,
    uint32_t count_at, const uint32_t * tile_counts, float *points,
    scratch_header * header, unsigned long long key, bool early,
    cudaStream_t s);

/* Float @f of @point's record: its feature @f, 1 at @count_at (a mean
 * record's count, past the features), 0 past them (padding). */
__device__ static float
record_value (const rc_point_layout * layout, const uint8_t * point,
    uint32_t f, uint32_t count_at)
{
  return f < layout->n_features ?
      (float) rc_load_field (point, layout->features[f]) :
      f == count_at ? 1.0f : 0.0f;
}

/* A sorted mean's division (rc_voxel_mean_sorts): the @n_points points of
 * @points sorted by voxel, their voxels in @keys (n_voxels, last, for a
 * point outside the grid) and their indices in @index.  Each block of
 * RC_MEAN_SORT_BLOCK_VOXELS voxels finds its first point (into @starts),
 * the points' records are gathered in sorted order into @records
 * (16-byte aligned), then each voxel's run of records is summed in the
 * points' order and divided into @means' planes (0 where empty), the
 * occupied counted into @stats. */
rc_status voxelize_launch_sorted_division (const rc_point_layout * layout,
    const uint8_t * points, const uint32_t * keys, const uint32_t * index,
    uint64_t n_points, uint64_t n_voxels, uint32_t * starts, float *records,
    float *means, device_stats * stats, cudaStream_t s);

#endif /* ROBOCACHE_KERNELS_VOXELIZE_CUDA_CUH */
