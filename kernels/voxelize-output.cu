/* The passes around binning on the GPU (voxelize.cu): the clear before
 * it, and after it the divisions of a mean (every voxel of a slab, only
 * the voxels binning listed, or a slab of records into the planes) and
 * the centroids' compaction into voxel order.  Each leaves the scratch as
 * its header says for the next call. */
#include "dependent-launch.cuh"
#include "voxelize-cuda.cuh"

/* A few blocks per SM of any current GPU. */
#define CENTROIDS_CLEAR_BLOCKS 512u

/* Zeroes @n words from @words, this thread's share of a grid-stride loop:
 * 16-byte stores from the first 16-byte boundary on (a mean's counts and
 * its planes after the first start 4 or 8 bytes past one). */
__device__ static void
zero_words (uint32_t * __restrict__ words, uint64_t n, uint64_t i,
    uint64_t stride)
{
  uint64_t head = MIN (n, (16 - ((uintptr_t) words & 15)) / 4 % 4);
  uint64_t n4 = (n - head) / 4;
  uint4 *wide = (uint4 *) (words + head);

  if (i < head)
    words[i] = 0;
  for (uint64_t w = i; w < n4; w += stride)
    wide[w] = make_uint4 (0, 0, 0, 0);
  for (uint64_t w = head + n4 * 4 + i; w < n; w += stride)
    words[w] = 0;
}

/* Clears a grid (and the mean's counts) and, in the same launch, the
 * statistics of the call: one launch instead of two or three memsets, whose
 * gaps showed on small grids.  Every size here is a whole number of 32-bit
 * words (rc_voxelize_output_size); 16-byte stores where the grid allows.
 * With @key (the centroids, the mean), a scratch the header says is clear
 * for that key is left as it is (the grid too when it is the centroids'
 * sums, in the scratch); without, the header is reset. */
__global__ static void
clear_outputs (uint32_t * __restrict__ grid, uint64_t grid_words,
    uint32_t n_planes, uint64_t plane_words, uint32_t * __restrict__ counts,
    uint64_t count_words, device_stats * __restrict__ stats,
    uint32_t n_stats, scratch_header * header, unsigned long long key,
    bool grid_in_scratch)
{
  uint64_t i = (uint64_t) blockIdx.x * blockDim.x + threadIdx.x;
  uint64_t stride = (uint64_t) gridDim.x * blockDim.x;

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
   * of every feature of a mean). */
  for (uint32_t p = 0; p < n_planes; p++)
    zero_words (grid + p * plane_words, grid_words, i, stride);
  zero_words (counts, count_words, i, stride);
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
    uint64_t count_words, device_stats * stats, uint32_t n_stats,
    scratch_header * header, unsigned long long key, bool grid_in_scratch,
    uint64_t words, cudaStream_t s)
{
  unsigned blocks = clear_blocks (words);

  if (grid_in_scratch)
    blocks = MIN (blocks, CENTROIDS_CLEAR_BLOCKS);
  clear_outputs <<< MAX (blocks, blocks_for (n_stats)), BLOCK, 0, s >>> (grid,
      grid_words, n_planes, plane_words, counts, count_words, stats, n_stats,
      header, key, grid_in_scratch);
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
 * stores stream past the L2 cache, which holds the next slab's records. */
__global__ static void
divide_records (const float *__restrict__ records, float *__restrict__ means,
    uint64_t n_voxels, uint32_t n_features, uint32_t record, uint64_t v_lo,
    uint64_t v_hi, device_stats * stats)
{
  uint64_t base = v_lo + (uint64_t) blockIdx.x * blockDim.x * DIVIDE_VOXELS +
      threadIdx.x;
  float n[DIVIDE_VOXELS];
  unsigned occupied = 0;

#pragma unroll
  for (int k = 0; k < DIVIDE_VOXELS; k++) {
    uint64_t v = base + (uint64_t) k * blockDim.x;
    n[k] = v < v_hi ? records[(v - v_lo) * record + n_features] : 0.0f;
    occupied += n[k] != 0.0f;
  }
  for (uint32_t f = 0; f < n_features; f++) {
    float sum[DIVIDE_VOXELS];

#pragma unroll
    for (int k = 0; k < DIVIDE_VOXELS; k++) {
      uint64_t v = base + (uint64_t) k * blockDim.x;
      sum[k] = n[k] != 0.0f ? records[(v - v_lo) * record + f] : 0.0f;
    }
#pragma unroll
    for (int k = 0; k < DIVIDE_VOXELS; k++) {
      uint64_t v = base + (uint64_t) k * blockDim.x;
      if (v < v_hi)
        __stcs (means + f * n_voxels + v, n[k] != 0.0f ? sum[k] / n[k] :
            0.0f);
    }
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
  uint64_t n_listed = header->listed;
  uint64_t base = (uint64_t) blockIdx.x * blockDim.x * DIVIDE_VOXELS +
      threadIdx.x;
  uint32_t v[DIVIDE_VOXELS], n[DIVIDE_VOXELS];

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

/* One block: the exclusive sum of the tiles' counts, a chunk of SCAN_BLOCK
 * tiles at a time (a few chunks for grids of millions of voxels). */
#define SCAN_BLOCK 1024

__global__ static void
scan_tiles (const uint32_t * __restrict__ tile_counts, uint64_t n_tiles,
    uint64_t * __restrict__ tile_first)
{
  __shared__ uint64_t warp_sums[SCAN_BLOCK / 32];
  __shared__ uint64_t chunk_base;
  unsigned lane = threadIdx.x % 32, warp = threadIdx.x / 32;

  if (threadIdx.x == 0)
    chunk_base = 0;
  for (uint64_t chunk = 0; chunk < n_tiles; chunk += SCAN_BLOCK) {
    uint64_t t = chunk + threadIdx.x;
    uint64_t own = t < n_tiles ? tile_counts[t] : 0;
    /* Inclusive sums within the warp, then of the warps' totals. */
    uint64_t sum = warp_inclusive_sum (own);

    if (lane == 31)
      warp_sums[warp] = sum;
    __syncthreads ();
    if (warp == 0) {
      uint64_t w = warp_inclusive_sum (lane < SCAN_BLOCK / 32 ?
          warp_sums[lane] : (uint64_t) 0);
      if (lane < SCAN_BLOCK / 32)
        warp_sums[lane] = w;
    }
    __syncthreads ();
    if (t < n_tiles)
      tile_first[t] = chunk_base + (warp ? warp_sums[warp - 1] : 0) + sum -
          own;
    __syncthreads ();
    if (threadIdx.x == SCAN_BLOCK - 1)
      chunk_base += warp_sums[SCAN_BLOCK / 32 - 1];
    __syncthreads ();
  }
}

/* Each tile writes its occupied voxels' means (their sums @record floats
 * a voxel) as consecutive points from its first point on, in voxel order,
 * and zeroes what binning wrote there (sums, counts, mask words, its tile
 * count): the scratch is clear again once this grid has finished, which
 * the header then says.  The tile's
 * 2048 voxels are ranked from its 256 bytes of mask, a byte per thread,
 * into a list of its occupied voxels, which the threads then share out:
 * only those voxels' counts and sums are read, a voxel per thread.  Empty
 * tiles return at once. */
__global__ static void
write_centroids (float *__restrict__ sums, uint32_t * __restrict__ counts,
    uint32_t * __restrict__ mask, uint64_t n_voxels, uint32_t n_features,
    uint32_t record, uint32_t * __restrict__ tile_counts,
    const uint64_t * __restrict__ tile_first, float *__restrict__ points,
    scratch_header * header, unsigned long long key)
{
  __shared__ uint16_t occupied[RC_CENTROID_TILE];
  uint64_t word = ((uint64_t) blockIdx.x * RC_CENTROID_TILE) / 32 +
      threadIdx.x / 4;
  uint64_t first = (uint64_t) blockIdx.x * RC_CENTROID_TILE +
      threadIdx.x * 8;
  uint32_t bits, before, total;
  uint64_t tile_point;

  /* Read only by a later launch, when every block has finished. */
  if (blockIdx.x == 0 && threadIdx.x == 0)
    header->clean_key = key;
  if (tile_counts[blockIdx.x] == 0)
    return;
  tile_point = tile_first[blockIdx.x];
  bits = first < n_voxels ? (mask[word] >> (threadIdx.x % 4 * 8)) & 0xff : 0;

  /* The tile's occupied voxels before this thread's. */
  before = block_exclusive_sum (__popc (bits), &total);
  for (uint32_t i = 0; bits; bits &= bits - 1, i++)
    occupied[before + i] = (uint16_t) (threadIdx.x * 8 + __ffs (bits) - 1);
  if (threadIdx.x % 4 == 0 && first < n_voxels)
    mask[word] = 0;
  if (threadIdx.x == 0)
    tile_counts[blockIdx.x] = 0;
  __syncthreads ();

  for (uint32_t k = threadIdx.x; k < total; k += BLOCK) {
    uint64_t v = (uint64_t) blockIdx.x * RC_CENTROID_TILE + occupied[k];
    float n = (float) counts[v];
    float *sum = sums + v * record;
    float *out = points + (tile_point + k) * n_features;

    for (uint32_t f = 0; f < n_features; f++)
      out[f] = sum[f] / n;
    if (record % 4 == 0) {
      for (uint32_t f = 0; f < record; f += 4)
        *(float4 *) (sum + f) = make_float4 (0, 0, 0, 0);
    } else {
      for (uint32_t f = 0; f < record; f++)
        sum[f] = 0.0f;
    }
    counts[v] = 0;
  }
}

rc_status
voxelize_launch_division (uint32_t * listed, uint64_t n_points,
    float *sums, uint32_t * counts, uint64_t n_voxels, uint32_t n_features,
    scratch_header * header, unsigned long long key, uint64_t v_lo,
    uint64_t v_hi, device_stats * stats, cudaStream_t s)
{
  if (listed)
    divide_listed_means <<< MAX (1u, blocks_for ((n_points + DIVIDE_VOXELS -
                1) / DIVIDE_VOXELS)), BLOCK, 0, s >>> (sums, counts, listed,
        n_voxels, n_features, header, key);
  else if (v_hi > v_lo)
    divide_means <<< blocks_for ((v_hi - v_lo + DIVIDE_VOXELS - 1) /
            DIVIDE_VOXELS), BLOCK, 0, s >>> (sums, counts, n_voxels,
        n_features, v_lo, v_hi, stats);
  return rc_check_launch ();
}

rc_status
voxelize_launch_centroids (float *sums, uint32_t * counts,
    uint32_t * mask, uint64_t n_voxels, uint32_t n_features,
    uint32_t * tile_counts, uint64_t * tile_first, float *points,
    scratch_header * header, unsigned long long key, cudaStream_t s)
{
  uint64_t n_tiles = rc_centroid_tiles (n_voxels);
  rc_status ret;

  scan_tiles <<< 1, SCAN_BLOCK, 0, s >>> (tile_counts, n_tiles, tile_first);
  ret = rc_check_launch ();
  if (ret != RC_OK)
    return ret;
  write_centroids <<< (unsigned) n_tiles, BLOCK, 0, s >>> (sums, counts,
      mask, n_voxels, n_features, rc_voxel_record_floats (n_features),
      tile_counts, tile_first, points, header, key);
  return rc_check_launch ();
}

rc_status
voxelize_launch_record_division (const float *records,
    float *means, uint64_t n_voxels, uint32_t n_features, uint32_t record,
    uint64_t v_lo, uint64_t v_hi, device_stats * stats, cudaStream_t s)
{
  divide_records <<< blocks_for ((v_hi - v_lo + DIVIDE_VOXELS - 1) /
          DIVIDE_VOXELS), BLOCK, 0, s >>> (records, means, n_voxels,
      n_features, record, v_lo, v_hi, stats);
  return rc_check_launch ();
}

/* A sorted mean's counts: the sum of each tile of SORT_TILE, a thread
 * taking 16 counts a warp's width apart, so that loads stay coalesced. */
__global__ static void
sum_count_tiles (const uint32_t * __restrict__ counts, uint64_t n_voxels,
    uint32_t * __restrict__ tile_sums)
{
  uint64_t base = (uint64_t) blockIdx.x * SORT_TILE + threadIdx.x;
  unsigned own = 0, total;

#pragma unroll
  for (int k = 0; k < SORT_TILE / BLOCK; k++) {
    uint64_t v = base + (uint64_t) k * BLOCK;
    own += v < n_voxels ? counts[v] : 0;
  }
  block_exclusive_sum (own, &total);
  if (threadIdx.x == 0)
    tile_sums[blockIdx.x] = total;
}

/* Each tile's counts replaced by their exclusive sum from the tile's first
 * slot on: a warp takes 16 rounds of 32 consecutive counts (coalesced; a
 * thread taking 16 consecutive counts made each load and store touch 32
 * sectors), summed within the warp round by round from the warp's first
 * slot.  The last tile also writes the total after the last count. */
__global__ static void
slot_count_tiles (uint32_t * __restrict__ counts, uint64_t n_voxels,
    const uint64_t * __restrict__ tile_slots)
{
  const int rounds = SORT_TILE / BLOCK;
  unsigned lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  uint64_t first = (uint64_t) blockIdx.x * SORT_TILE +
      (uint64_t) warp * 32 * rounds + lane;
  uint32_t n[rounds];
  unsigned own = 0, total, before, slot;

#pragma unroll
  for (int k = 0; k < rounds; k++) {
    uint64_t v = first + (uint64_t) k * 32;
    n[k] = v < n_voxels ? counts[v] : 0;
    own += n[k];
  }
  /* Lane 0's sum before it is the earlier warps' counts. */
  before = block_exclusive_sum (own, &total);
  slot = (unsigned) tile_slots[blockIdx.x] + __shfl_sync (0xffffffffu,
      before, 0);
#pragma unroll
  for (int k = 0; k < rounds; k++) {
    uint64_t v = first + (uint64_t) k * 32;
    unsigned upto = warp_inclusive_sum (n[k]);

    if (v < n_voxels)
      counts[v] = slot + upto - n[k];
    slot += __shfl_sync (0xffffffffu, upto, 31);
  }
  if (blockIdx.x == gridDim.x - 1 && threadIdx.x == 0)
    counts[n_voxels] = (unsigned) tile_slots[blockIdx.x] + total;
}

rc_status
voxelize_launch_count_scan (uint32_t * counts, uint64_t n_voxels,
    uint32_t * tile_sums, uint64_t * tile_slots, cudaStream_t s)
{
  uint64_t n_tiles = voxelize_sort_tiles (n_voxels);
  rc_status ret;

  sum_count_tiles <<< (unsigned) n_tiles, BLOCK, 0, s >>> (counts, n_voxels,
      tile_sums);
  ret = rc_check_launch ();
  if (ret != RC_OK)
    return ret;
  scan_tiles <<< 1, SCAN_BLOCK, 0, s >>> (tile_sums, n_tiles, tile_slots);
  ret = rc_check_launch ();
  if (ret != RC_OK)
    return ret;
  slot_count_tiles <<< (unsigned) n_tiles, BLOCK, 0, s >>> (counts, n_voxels,
      tile_slots);
  return rc_check_launch ();
}

/* A voxel's run of up to this many records is summed by its own thread;
 * a longer one (a crowded voxel of a real sweep) by its whole warp, so that
 * one voxel of thousands of points does not hold the launch. */
#define SORTED_RUN_ALONE 16

/* Adds the record of @R floats at @record to @sum. */
template < int R >
__device__ static void
add_record (float (&sum)[R], const float *__restrict__ record)
{
#pragma unroll
  for (int f = 0; f < R; f += 4) {
    float4 q = ((const float4 *) record)[f / 4];
    sum[f] += q.x;
    sum[f + 1] += q.y;
    sum[f + 2] += q.z;
    sum[f + 3] += q.w;
  }
}

/* Each voxel's run of records @R floats each, slots[v] to slots[v + 1],
 * summed and divided into the planes: every voxel written, 0 where empty,
 * the occupied counted.  A voxel a thread, consecutive threads on
 * consecutive voxels (coalesced stores, streaming past the L2 cache): many
 * threads, each run's loads in flight together.  Eight voxels a thread, one
 * run after another, with the scan's 16 consecutive counts a thread, kept
 * every size about 130 us above run 157's probe of a voxel a thread (run
 * 158); with both as now, four features of 524,288 points into 256^3 took
 * 290 us (run 160). */
template < int R >
__global__ static void
__launch_bounds__ (BLOCK)
divide_sorted (const uint32_t * __restrict__ slots,
    const float *__restrict__ sorted, uint64_t n_voxels, uint32_t n_features,
    float *__restrict__ means, device_stats * stats)
{
  uint64_t v = (uint64_t) blockIdx.x * blockDim.x + threadIdx.x;
  unsigned lane = threadIdx.x % 32;
  uint32_t lo = v < n_voxels ? slots[v] : 0;
  uint32_t hi = v < n_voxels ? slots[v + 1] : 0;
  uint32_t n = hi - lo;
  unsigned crowded = __ballot_sync (0xffffffffu, n > SORTED_RUN_ALONE);
  float sum[R];

#pragma unroll
  for (int f = 0; f < R; f++)
    sum[f] = 0.0f;
  if (n <= SORTED_RUN_ALONE)
    for (uint32_t i = lo; i < hi; i++)
      add_record < R > (sum, sorted + (uint64_t) i * R);
  while (crowded) {
    int owner = __ffs (crowded) - 1;
    uint32_t first = __shfl_sync (0xffffffffu, lo, owner);
    uint32_t last = __shfl_sync (0xffffffffu, hi, owner);
    float part[R];

    crowded &= crowded - 1;
#pragma unroll
    for (int f = 0; f < R; f++)
      part[f] = 0.0f;
    for (uint32_t i = first + lane; i < last; i += 32)
      add_record < R > (part, sorted + (uint64_t) i * R);
#pragma unroll
    for (int f = 0; f < R; f++) {
      for (int d = 16; d > 0; d /= 2)
        part[f] += __shfl_xor_sync (0xffffffffu, part[f], d);
      if (lane == (unsigned) owner)
        sum[f] = part[f];
    }
  }
#pragma unroll
  for (int f = 0; f < R; f++)
    if (f < (int) n_features && v < n_voxels)
      __stcs (means + f * n_voxels + v, n ? sum[f] / (float) n : 0.0f);
  add_block_occupied (n != 0, stats);
}

rc_status
voxelize_launch_sorted_division (const uint32_t * slots, const float *sorted,
    uint64_t n_voxels, uint32_t n_features, float *means,
    device_stats * stats, cudaStream_t s)
{
  unsigned blocks = blocks_for (n_voxels);

  if (rc_voxel_record_floats (n_features) == 4)
    divide_sorted < 4 > <<< blocks, BLOCK, 0, s >>> (slots, sorted, n_voxels,
        n_features, means, stats);
  else
    divide_sorted < 8 > <<< blocks, BLOCK, 0, s >>> (slots, sorted, n_voxels,
        n_features, means, stats);
  return rc_check_launch ();
}
