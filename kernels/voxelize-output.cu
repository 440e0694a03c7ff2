/* The passes around binning on the GPU (voxelize.cu): the clear before
 * it, and after it the divisions of a mean (every voxel of a slab, only
 * the voxels binning listed, or a slab of records into the planes) and
 * the centroids' compaction into voxel order.  Each leaves the scratch as
 * its header says for the next call. */
#include "dependent-launch.cuh"
#include "voxelize-cuda.cuh"
#include "wide-stores.cuh"

#include <cub/block/block_reduce.cuh>

/* A few blocks per SM of any current GPU. */
#define CENTROIDS_CLEAR_BLOCKS 512u

/* Clears a grid (and the mean's counts) and, in the same launch, the
 * statistics of the call: one launch instead of two or three memsets, whose
 * gaps showed on small grids.  Every size here is a whole number of 32-bit
 * words (rc_voxelize_output_size); 16-byte stores where the grid allows.
 * With @key (the centroids, the mean), a scratch the header says is clear
 * for that key is left as it is (the grid too when it is in the scratch:
 * the centroids' sums, a mean's records); without, the header is reset.
 * The centroids' @n_tiles tile counts are zeroed every time: their writer
 * reads them to the end. */
__global__ static void
clear_outputs (uint32_t * __restrict__ grid, uint64_t grid_words,
    uint32_t n_planes, uint64_t plane_words, uint32_t * __restrict__ counts,
    uint64_t count_words, uint32_t * __restrict__ tile_counts,
    uint64_t n_tiles, device_stats * __restrict__ stats, uint32_t n_stats,
    scratch_header * header, unsigned long long key, bool grid_in_scratch)
{
  uint64_t i = (uint64_t) blockIdx.x * blockDim.x + threadIdx.x;
  uint64_t stride = (uint64_t) gridDim.x * blockDim.x;
  auto zero_word =[](uint64_t) {
    return 0u;
  };

  /* The binning launch may be scheduled now: it writes nothing before this
   * grid has finished. */
  LET_DEPENDENTS_START ();
  if (i == 0)
    header->listed = 0;
  if (key == 0 && i == 0)
    header->clean_key = 0;
  if (key != 0 && header->clean_key == key) {
    count_words = 0;
    if (grid_in_scratch)
      n_planes = 0;
  }
  /* @grid_words words from each plane's start, @plane_words apart (a slab
   * of every feature of a mean); a mean's counts and its planes after the
   * first may start off a 16-byte boundary. */
  for (uint32_t p = 0; p < n_planes; p++)
    store_words < false, uint64_t > (grid + p * plane_words, grid_words, i,
        stride, zero_word);
  store_words < false, uint64_t > (counts, count_words, i, stride,
      zero_word);
  for (uint64_t t = i; t < n_tiles; t += stride)
    tile_counts[t] = 0;
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

rc_status
voxelize_launch_clear (uint32_t * grid, uint64_t grid_words,
    uint32_t n_planes, uint64_t plane_words, uint32_t * counts,
    uint64_t count_words, uint32_t * tile_counts, uint64_t n_tiles,
    device_stats * stats, uint32_t n_stats, scratch_header * header,
    unsigned long long key, bool grid_in_scratch, uint64_t words,
    cudaStream_t s)
{
  unsigned blocks = clear_blocks (words);

  if (grid_in_scratch)
    blocks = MIN (blocks, CENTROIDS_CLEAR_BLOCKS);
  clear_outputs <<< MAX (blocks, blocks_for (n_stats)), BLOCK, 0, s >>> (grid,
      grid_words, n_planes, plane_words, counts, count_words, tile_counts,
      n_tiles, stats, n_stats, header, key, grid_in_scratch);
  return rc_check_launch ();
}

/* Adds the block's @occupied voxels (each thread's) to @stats: one
 * atomic a block.  Every thread of the BLOCK calls it, once a launch. */
__device__ static void
add_block_occupied (unsigned occupied, device_stats * stats)
{
  unsigned total;

  block_exclusive_sum (occupied, &total);
  if (threadIdx.x == 0 && total)
    atomicAdd (&stats->occupied, (unsigned long long) total);
}

/* Every voxel's sums from @v_lo to @v_hi divided by its count, where it
 * has points, and those voxels counted into @stats (binning did not):
 * DIVIDE_VOXELS voxels a thread, their counts loaded together, so that
 * enough bytes are in flight to read the counts at DRAM's speed (a voxel
 * a thread: 256^3 counts read in 70 us, run 134, H100). */
#define DIVIDE_VOXELS 8

__global__ static void
divide_means (float *__restrict__ sums, const uint32_t * __restrict__ counts,
    uint64_t n_voxels, uint32_t n_features, uint64_t v_lo, uint64_t v_hi,
    device_stats * stats)
{
  uint64_t base = v_lo + (uint64_t) blockIdx.x * blockDim.x * DIVIDE_VOXELS +
      threadIdx.x;
  uint32_t n[DIVIDE_VOXELS];
  unsigned occupied = 0;

  WAIT_FOR_PREVIOUS_GRID ();
#pragma unroll
  for (int k = 0; k < DIVIDE_VOXELS; k++) {
    uint64_t v = base + (uint64_t) k * blockDim.x;
    n[k] = v < v_hi ? counts[v] : 0;
  }
#pragma unroll
  for (int k = 0; k < DIVIDE_VOXELS; k++) {
    uint64_t v = base + (uint64_t) k * blockDim.x;

    occupied += n[k] != 0;
    for (uint32_t f = 0; n[k] && f < n_features; f++)
      sums[f * n_voxels + v] /= (float) n[k];
  }
  add_block_occupied (occupied, stats);
}

/* Records [@v_lo, @v_hi) of @record floats (a voxel's sums, then its
 * count) divided into the mean's planes: every voxel written, 0 where
 * empty, so that the planes need no clear; the occupied counted into
 * @stats.  DIVIDE_VOXELS voxels a thread, consecutive threads on
 * consecutive voxels, so that each plane's stores are coalesced; those
 * stores stream past the L2 cache, which holds the next slab's records.
 * The occupied records are then zeroed, the others being zero already:
 * the next slab's or call's clear finds them clear for @key and stores
 * nothing, where it stored every record (the KITTI region's records of
 * intensity, 22.5 MB: 10.2 us of a million points' 44.5 under ncu, run
 * 192).  Records of two or four floats (one feature or three) are read
 * in one vector load each, through the read-only path (each thread reads
 * its records before it zeroes them, and no other thread writes them):
 * 56 and 60 registers a thread where reading a float at a time took 79,
 * the KITTI means' division a million points ring by ring 9.8 us against
 * 13.2 under ncu, the whole call 28.8 against 30.7 (run 192, call 171;
 * four voxels a thread were no faster). */

template < int RECORD >
__global__ static void
divide_records (float *__restrict__ records, float *__restrict__ means,
    uint64_t n_voxels, uint32_t n_features, uint32_t record, uint64_t v_lo,
    uint64_t v_hi, device_stats * stats, scratch_header * header,
    unsigned long long key)
{
  const int K = DIVIDE_VOXELS;
  uint64_t base = v_lo + (uint64_t) blockIdx.x * blockDim.x * K +
      threadIdx.x;
  /* RECORD's sums, of one feature or three. */
  float n[K], sums[K][3];
  unsigned occupied = 0;

  WAIT_FOR_PREVIOUS_GRID ();
  /* Read only by a later launch, when every block has finished. */
  if (blockIdx.x == 0 && threadIdx.x == 0)
    header->clean_key = key;
#pragma unroll
  for (int k = 0; k < K; k++) {
    uint64_t v = base + (uint64_t) k * blockDim.x;
    const float *r = records + (v - v_lo) * record;

    if (RECORD == 2) {
      float2 q = v < v_hi ? __ldg ((const float2 *) r) : make_float2 (0, 0);

      sums[k][0] = q.x;
      n[k] = q.y;
    } else if (RECORD == 4) {
      float4 q = v < v_hi ? __ldg ((const float4 *) r) :
          make_float4 (0, 0, 0, 0);

      sums[k][0] = q.x;
      sums[k][1] = q.y;
      sums[k][2] = q.z;
      n[k] = q.w;
    } else {
      n[k] = v < v_hi ? __ldg (r + n_features) : 0.0f;
    }
    occupied += n[k] != 0.0f;
  }
  /* (Unrolled where RECORD is known, the sums then in registers.) */
#pragma unroll
  for (uint32_t f = 0; f < (RECORD ? RECORD - 1u : n_features); f++) {
    float sum[K];

#pragma unroll
    for (int k = 0; k < K; k++) {
      uint64_t v = base + (uint64_t) k * blockDim.x;
      sum[k] = RECORD ? sums[k][f] : n[k] != 0.0f ?
          __ldg (records + (v - v_lo) * record + f) : 0.0f;
    }
#pragma unroll
    for (int k = 0; k < K; k++) {
      uint64_t v = base + (uint64_t) k * blockDim.x;
      if (v < v_hi)
        __stcs (means + f * n_voxels + v, n[k] != 0.0f ? sum[k] / n[k] :
            0.0f);
    }
  }
#pragma unroll
  for (int k = 0; k < K; k++) {
    float *r = records + (base + (uint64_t) k * blockDim.x - v_lo) * record;

    if (n[k] == 0.0f)
      continue;
    if (record == 2)
      *(float2 *) r = make_float2 (0, 0);
    else
      for (uint32_t f = 0; f < record; f += 4)
        *(float4 *) (r + f) = make_float4 (0, 0, 0, 0);
  }
  add_block_occupied (occupied, stats);
}

/* The voxels binning listed, DIVIDE_VOXELS a thread: their sums divided
 * by their counts, then those counts zeroed, so that the scratch is clear
 * again once this grid has finished, which the header then says.  Each
 * thread's loads are issued together: threads walking a mask of the grid,
 * most of them finding nothing, took 70 to 74 us for 131,072 voxels of
 * 256^3 (runs 138 and 139, H100), waiting on one load after another; 14
 * so (run 141). */
__global__ static void
divide_listed_means (float *__restrict__ sums, uint32_t * __restrict__ counts,
    const uint32_t * __restrict__ listed, uint64_t n_voxels,
    uint32_t n_features, scratch_header * header, unsigned long long key)
{
  uint64_t n_listed, base = (uint64_t) blockIdx.x * blockDim.x *
      DIVIDE_VOXELS + threadIdx.x;
  uint32_t v[DIVIDE_VOXELS], n[DIVIDE_VOXELS];

  WAIT_FOR_PREVIOUS_GRID ();
  n_listed = header->listed;

  /* Read only by a later launch, when every block has finished. */
  if (blockIdx.x == 0 && threadIdx.x == 0)
    header->clean_key = key;
#pragma unroll
  for (int k = 0; k < DIVIDE_VOXELS; k++) {
    uint64_t i = base + (uint64_t) k * blockDim.x;
    v[k] = i < n_listed ? listed[i] : 0;
  }
#pragma unroll
  for (int k = 0; k < DIVIDE_VOXELS; k++) {
    uint64_t i = base + (uint64_t) k * blockDim.x;
    n[k] = i < n_listed ? counts[v[k]] : 0;
  }
  for (uint32_t f = 0; f < n_features; f++) {
    float *plane = sums + f * n_voxels;
    float sum[DIVIDE_VOXELS];

#pragma unroll
    for (int k = 0; k < DIVIDE_VOXELS; k++)
      sum[k] = n[k] ? plane[v[k]] : 0.0f;
#pragma unroll
    for (int k = 0; k < DIVIDE_VOXELS; k++)
      if (n[k])
        plane[v[k]] = sum[k] / (float) n[k];
  }
#pragma unroll
  for (int k = 0; k < DIVIDE_VOXELS; k++)
    if (n[k])
      counts[v[k]] = 0;
}

/* The centroids' tile is read from the occupancy mask a byte per thread:
 * 8 voxels each, in voxel order by thread. */
static_assert (RC_CENTROID_TILE == BLOCK * 8, "a mask byte per thread");

/* Each tile writes its occupied voxels' means (their sums @record floats
 * a voxel) as consecutive points from its first point on, in voxel order,
 * and zeroes what binning wrote there (sums, counts, mask words): the
 * scratch is clear again once this grid has finished, which the header
 * then says, but for the tile counts, which every tile reads and the next
 * clear zeroes.  A tile's first point is the sum of the counts of the
 * tiles before it, a few words a thread (1,339 tiles in the KITTI
 * region's 0.2 m voxels), where a one-block scan had a launch of its own:
 * the KITTI region's centroids of 131,072 lidar points 20.2 us against
 * 23.8, of 4 million 136 against 146 (run 190, H200).  The tile's 2048
 * voxels are ranked from its 256 bytes of mask, a byte per thread, into a
 * list of its occupied voxels, which the threads then share out: only
 * those voxels' counts and sums are read, a voxel per thread (the count
 * in the record's float @count_at, or with UINT32_MAX in @counts).  Empty
 * tiles return at once. */
__global__ static void
write_centroids (float *__restrict__ sums, uint32_t * __restrict__ counts,
    uint32_t * __restrict__ mask, uint64_t n_voxels, uint32_t n_features,
    uint32_t record, uint32_t count_at,
    const uint32_t * __restrict__ tile_counts,
    float *__restrict__ points, scratch_header * header,
    unsigned long long key)
{
  typedef cub::BlockReduce < unsigned long long, BLOCK > tile_sum_t;
  __shared__ typename tile_sum_t::TempStorage tile_sum;
  __shared__ unsigned long long tile_start;
  __shared__ uint16_t occupied[RC_CENTROID_TILE];
  uint64_t word = ((uint64_t) blockIdx.x * RC_CENTROID_TILE) / 32 +
      threadIdx.x / 4;
  uint64_t first = (uint64_t) blockIdx.x * RC_CENTROID_TILE +
      threadIdx.x * 8;
  uint32_t bits, before, total;
  unsigned long long earlier = 0;

  /* Launched as binning's dependent: binning lets it start as its blocks
   * end, not before (it would hold SMs that binning's last waves need). */
  WAIT_FOR_PREVIOUS_GRID ();
  /* Read only by a later launch, when every block has finished. */
  if (blockIdx.x == 0 && threadIdx.x == 0)
    header->clean_key = key;
  if (tile_counts[blockIdx.x] == 0)
    return;
  bits = first < n_voxels ? (mask[word] >> (threadIdx.x % 4 * 8)) & 0xff : 0;
  for (uint32_t t = threadIdx.x; t < blockIdx.x; t += BLOCK)
    earlier += tile_counts[t];
  earlier = tile_sum_t (tile_sum).Sum (earlier);
  if (threadIdx.x == 0)
    tile_start = earlier;

  /* The tile's occupied voxels before this thread's. */
  before = block_exclusive_sum (__popc (bits), &total);
  for (uint32_t i = 0; bits; bits &= bits - 1, i++)
    occupied[before + i] = (uint16_t) (threadIdx.x * 8 + __ffs (bits) - 1);
  if (threadIdx.x % 4 == 0 && first < n_voxels)
    mask[word] = 0;
  __syncthreads ();

  for (uint32_t k = threadIdx.x; k < total; k += BLOCK) {
    uint64_t v = (uint64_t) blockIdx.x * RC_CENTROID_TILE + occupied[k];
    float *sum = sums + v * record;
    float n = count_at < record ? sum[count_at] : (float) counts[v];
    float *out = points + (tile_start + k) * n_features;

    for (uint32_t f = 0; f < n_features; f++)
      out[f] = sum[f] / n;
    if (record % 4 == 0) {
      for (uint32_t f = 0; f < record; f += 4)
        *(float4 *) (sum + f) = make_float4 (0, 0, 0, 0);
    } else {
      for (uint32_t f = 0; f < record; f++)
        sum[f] = 0.0f;
    }
    if (count_at >= record)
      counts[v] = 0;
  }
}

rc_status
voxelize_launch_division (uint32_t * listed, uint64_t n_points,
    float *sums, uint32_t * counts, uint64_t n_voxels, uint32_t n_features,
    scratch_header * header, unsigned long long key, uint64_t v_lo,
    uint64_t v_hi, device_stats * stats, bool early, cudaStream_t s)
{
  if (listed)
    return rc_launch (early, MAX (1u, blocks_for ((n_points + DIVIDE_VOXELS -
                    1) / DIVIDE_VOXELS)), BLOCK, s, divide_listed_means, sums,
        counts, listed, n_voxels, n_features, header, key);
  if (v_hi > v_lo)
    return rc_launch (early, blocks_for ((v_hi - v_lo + DIVIDE_VOXELS - 1) /
            DIVIDE_VOXELS), BLOCK, s, divide_means, sums, counts, n_voxels,
        n_features, v_lo, v_hi, stats);
  return RC_OK;
}

rc_status
voxelize_launch_centroids (float *sums, uint32_t * counts,
    uint32_t * mask, uint64_t n_voxels, uint32_t n_features,
    uint32_t count_at, const uint32_t * tile_counts, float *points,
    scratch_header * header, unsigned long long key, bool early,
    cudaStream_t s)
{
  return rc_launch (early, (unsigned) rc_centroid_tiles (n_voxels), BLOCK, s,
      write_centroids, sums, counts, mask, n_voxels, n_features,
      rc_voxel_record_floats (n_features), count_at, tile_counts, points,
      header, key);
}

rc_status
voxelize_launch_record_division (float *records, float *means,
    uint64_t n_voxels, uint32_t n_features, uint32_t record, uint64_t v_lo,
    uint64_t v_hi, device_stats * stats, scratch_header * header,
    unsigned long long key, bool early, cudaStream_t s)
{
  auto kernel = record == 2 ? divide_records < 2 > : record == 4 ?
      divide_records < 4 > : divide_records < 0 >;

  return rc_launch (early, blocks_for ((v_hi - v_lo + DIVIDE_VOXELS - 1) /
          DIVIDE_VOXELS), BLOCK, s, kernel, records, means, n_voxels,
      n_features, record, v_lo, v_hi, stats, header, key);
}

/* The block of RC_MEAN_SORT_BLOCK_VOXELS voxels that sorted key @key falls
 * in; @n_blocks for a point outside the grid. */
__device__ static uint64_t
sorted_block (uint32_t key, uint64_t n_voxels, uint64_t n_blocks)
{
  return key >= n_voxels ? n_blocks : key / RC_MEAN_SORT_BLOCK_VOXELS;
}

/* Each block of voxels' first sorted point into @starts, up to
 * starts[n_blocks], where the points outside the grid begin: a thread a
 * sorted point (and one past the last) writes the blocks after its
 * predecessor's up to its own. */
__global__ static void
find_block_starts (const uint32_t * __restrict__ keys, uint64_t n_points,
    uint64_t n_voxels, uint64_t n_blocks, uint32_t * __restrict__ starts)
{
  uint64_t i = (uint64_t) blockIdx.x * blockDim.x + threadIdx.x;
  uint64_t from, to;

  if (i > n_points)
    return;
  from = i == 0 ? 0 : sorted_block (keys[i - 1], n_voxels, n_blocks) + 1;
  to = i == n_points ? n_blocks : sorted_block (keys[i], n_voxels, n_blocks);
  for (uint64_t b = from; b <= to; b++)
    starts[b] = (uint32_t) i;
}

static_assert (RC_MEAN_SORT_BLOCK_VOXELS % BLOCK == 0 &&
    RC_MEAN_SORT_BLOCK_VOXELS <= 65536, "whole rounds of a block's threads, "
    "a voxel of the block in 16 bits");

/* Each sorted point in the grid's record of @R floats into @records, in
 * sorted order: consecutive threads write consecutive records, each
 * reading its point wherever it lies in the cloud, every read in flight
 * at once (gathered inside the division, behind its block's other loads,
 * the division took 275 us for three features of 4,194,304 points, run
 * 166). */
template < int R >
__global__ static void
__launch_bounds__ (BLOCK)
gather_sorted (const __grid_constant__ rc_point_layout layout,
    const uint8_t * __restrict__ points, const uint32_t * __restrict__ index,
    const uint32_t * __restrict__ in_grid, float *__restrict__ records)
{
  uint64_t i = (uint64_t) blockIdx.x * blockDim.x + threadIdx.x;
  const uint8_t *point;
  float4 *record;

  if (i >= *in_grid)
    return;
  point = points + (uint64_t) index[i] * layout.point_step;
  record = (float4 *) (records + i * R);
#pragma unroll
  for (int f = 0; f < R; f += 4)
    record[f / 4] = make_float4 (record_value (&layout, point, f, UINT32_MAX),
        record_value (&layout, point, f + 1, UINT32_MAX),
        record_value (&layout, point, f + 2, UINT32_MAX),
        record_value (&layout, point, f + 3, UINT32_MAX));
}

/* A voxel's run of up to this many points is summed by its own thread; a
 * longer one (a crowded voxel of a real sweep) by the whole block, so that
 * one voxel of thousands of points does not hold the launch. */
#define SORTED_RUN_ALONE 32

/* Adds @records' record @i of @R floats to @sum. */
template < int R >
__device__ static void
add_sorted_record (float (&sum)[R], const float *__restrict__ records,
    uint32_t i)
{
  const float4 *record = (const float4 *) (records + (uint64_t) i * R);

#pragma unroll
  for (int f = 0; f < R; f += 4) {
    float4 q = record[f / 4];
    sum[f] += q.x;
    sum[f + 1] += q.y;
    sum[f + 2] += q.z;
    sum[f + 3] += q.w;
  }
}

/* Writes voxel @v's means, @sum over @n points (0 where empty). */
template < int R >
__device__ static void
write_sorted_means (const float (&sum)[R], uint32_t n, uint64_t v,
    uint64_t n_voxels, uint32_t n_features, float *means)
{
#pragma unroll
  for (int f = 0; f < R; f++)
    if (f < (int) n_features)
      __stcs (means + f * n_voxels + v, n ? sum[f] / (float) n : 0.0f);
}

/* A block of RC_MEAN_SORT_BLOCK_VOXELS voxels, each thread's a block's
 * width apart (coalesced stores): the runs of its sorted points found
 * where the key changes (no atomics, whatever the crowding), then each
 * voxel's run of records summed in the points' order (the sort is stable)
 * and divided.  Crowded voxels are summed by the whole block after, a
 * fixed share a thread: one order of summation, so the same means run to
 * run. */
template < int R >
__global__ static void
__launch_bounds__ (BLOCK)
divide_sorted (const uint32_t * __restrict__ keys,
    const float *__restrict__ sorted_records,
    const uint32_t * __restrict__ starts, uint64_t n_voxels,
    uint32_t n_features, float *__restrict__ means, device_stats * stats)
{
  const int per_thread = RC_MEAN_SORT_BLOCK_VOXELS / BLOCK;
  __shared__ uint32_t run_first[RC_MEAN_SORT_BLOCK_VOXELS];
  __shared__ uint32_t run_end[RC_MEAN_SORT_BLOCK_VOXELS];
  __shared__ uint16_t crowded[RC_MEAN_SORT_BLOCK_VOXELS];
  __shared__ unsigned n_crowded;
  __shared__ float warp_sums[BLOCK / 32][R];
  uint64_t base = (uint64_t) blockIdx.x * RC_MEAN_SORT_BLOCK_VOXELS;
  uint32_t lo = starts[blockIdx.x];
  uint32_t n = starts[blockIdx.x + 1] - lo;
  const float *records = sorted_records + (uint64_t) lo * R;
  unsigned occupied = 0;

  keys += lo;
#pragma unroll
  for (int k = 0; k < per_thread; k++)
    run_first[threadIdx.x + k * BLOCK] = run_end[threadIdx.x + k * BLOCK] = 0;
  if (threadIdx.x == 0)
    n_crowded = 0;
  __syncthreads ();
  for (uint32_t i = threadIdx.x; i < n; i += BLOCK) {
    uint32_t key = keys[i];

    if (i == 0 || keys[i - 1] != key)
      run_first[key - base] = i;
    if (i == n - 1 || keys[i + 1] != key)
      run_end[key - base] = i + 1;
  }
  __syncthreads ();
#pragma unroll
  for (int k = 0; k < per_thread; k++) {
    uint32_t j = threadIdx.x + k * BLOCK;
    uint64_t v = base + j;
    uint32_t first = run_first[j], count = run_end[j] - first;
    float sum[R];

    if (count > SORTED_RUN_ALONE) {
      crowded[atomicAdd (&n_crowded, 1u)] = (uint16_t) j;
      continue;
    }
#pragma unroll
    for (int f = 0; f < R; f++)
      sum[f] = 0.0f;
    for (uint32_t i = first; i < first + count; i++)
      add_sorted_record < R > (sum, records, i);
    if (v < n_voxels) {
      write_sorted_means < R > (sum, count, v, n_voxels, n_features, means);
      occupied += count != 0;
    }
  }
  __syncthreads ();
  for (unsigned c = 0; c < n_crowded; c++) {
    uint32_t j = crowded[c];
    uint32_t first = run_first[j], end = run_end[j];
    float sum[R];

#pragma unroll
    for (int f = 0; f < R; f++)
      sum[f] = 0.0f;
    for (uint32_t i = first + threadIdx.x; i < end; i += BLOCK)
      add_sorted_record < R > (sum, records, i);
#pragma unroll
    for (int f = 0; f < R; f++) {
      for (int d = 16; d > 0; d /= 2)
        sum[f] += __shfl_xor_sync (0xffffffffu, sum[f], d);
      if (threadIdx.x % 32 == 0)
        warp_sums[threadIdx.x / 32][f] = sum[f];
    }
    __syncthreads ();
    if (threadIdx.x == 0) {
#pragma unroll
      for (int f = 0; f < R; f++) {
        sum[f] = 0.0f;
        for (int w = 0; w < BLOCK / 32; w++)
          sum[f] += warp_sums[w][f];
      }
      write_sorted_means < R > (sum, end - first, base + j, n_voxels,
          n_features, means);
      occupied++;
    }
    __syncthreads ();
  }
  add_block_occupied (occupied, stats);
}

/* The gather and the division of records of @R floats. */
template < int R >
static rc_status
launch_sorted_records (const rc_point_layout * layout, const uint8_t * points,
    const uint32_t * keys, const uint32_t * index, uint64_t n_points,
    uint64_t n_voxels, const uint32_t * starts, uint64_t n_blocks,
    float *records, float *means, device_stats * stats, cudaStream_t s)
{
  rc_status ret;

  gather_sorted < R > <<< blocks_for (n_points), BLOCK, 0, s >>> (*layout,
      points, index, starts + n_blocks, records);
  ret = rc_check_launch ();
  if (ret != RC_OK)
    return ret;
  divide_sorted < R > <<< (unsigned) n_blocks, BLOCK, 0, s >>> (keys,
      records, starts, n_voxels, layout->n_features, means, stats);
  return rc_check_launch ();
}

rc_status
voxelize_launch_sorted_division (const rc_point_layout * layout,
    const uint8_t * points, const uint32_t * keys, const uint32_t * index,
    uint64_t n_points, uint64_t n_voxels, uint32_t * starts, float *records,
    float *means, device_stats * stats, cudaStream_t s)
{
  uint64_t n_blocks = (n_voxels + RC_MEAN_SORT_BLOCK_VOXELS - 1) /
      RC_MEAN_SORT_BLOCK_VOXELS;
  rc_status ret;

  find_block_starts <<< blocks_for (n_points + 1), BLOCK, 0, s >>> (keys,
      n_points, n_voxels, n_blocks, starts);
  ret = rc_check_launch ();
  if (ret != RC_OK)
    return ret;
  if (rc_voxel_record_floats (layout->n_features) == 4)
    return launch_sorted_records < 4 > (layout, points, keys, index,
        n_points, n_voxels, starts, n_blocks, records, means, stats, s);
  return launch_sorted_records < 8 > (layout, points, keys, index, n_points,
      n_voxels, starts, n_blocks, records, means, stats, s);
}
