/* Counts, and means of up to four features, of a large cloud into a grid
 * larger than the L2 cache, on the GPU, by partitioning the points by
 * tile of the grid (rc_voxel_partitioned) instead of an atomic a point on
 * the grid (voxelize.cu), each of which there waits on DRAM or queues in
 * the L2 cache's atomic units, or a radix sort by voxel (voxelize-sort.cu):
 *
 *   1. key_points: each point's voxel, and each block's points per tile
 *      added to the tiles' totals;
 *   2. place_points: each block sorts its points by tile in shared memory,
 *      takes a run in each tile it has points in (an atomic a tile), and
 *      writes each point's place in its tile (16 bits; a mean's features,
 *      read from the cloud, beside it, a plane each) there, neighbouring
 *      threads in neighbouring places;
 *   3. sum_tiles: a block a tile counts its points (and sums a mean's
 *      features, a slice of the tile at a time where they would not fit
 *      at once) in shared memory and writes the tile whole, counts or
 *      means, so the grid needs no clear.  A crowded tile (a lidar sweep's
 *      voxels near the sensor) is split between blocks of CROWDED_POINTS
 *      points, which add to it after place_points has cleared it; a
 *      mean's last block to finish divides it.
 *
 * On an H200 (run 188), 256^3 counts of 786,432, 1,048,576, 2,097,152
 * and 4,194,304 uniform points in 50.9, 52.8, 64.6 and 85.6 us, where
 * the atomics took 60.0 (in two slabs), 62.9, 92.0 and 148.4 (5020b6d,
 * runs 185 and 188); a lidar sweep in the cube, its points crowded near
 * the sensor, 52.5, 55.2, 69.2 and 100.4.  Up to 524,288 points the
 * atomics, in one slab, are faster (39.0 us against 48.1).  Means of one
 * feature from 131,072 to 4,194,304 points in 45.9 to 145.9 us, where the
 * listed and record-slab paths took 46.2 and 341.8 (d63fd00, run 187);
 * of x, y, z in 91.5 to 335.1 us, where the listed path and the radix
 * sort took 108.4 and 478.4, of x, y, z, intensity 115.8 to 455.8, where
 * they took 141.0 and 509.0 (run 193, call 176); since the features
 * are read from the cloud in pass 2, not kept in planes by pass 1, in
 * 89.6 to 283.7 and 113.9 to 381.5 (run 194, call 180), one feature in
 * 46.4 to 141.7 (call 182); since pass 3 loads its points a batch at a
 * time, x, y, z of 1 to 4 million points in 141.4 to 269.0 against 148.2
 * to 285.1, x, y, z, intensity 185.6 to 350.8 against 191.2 to 387.1
 * (run 195, call 183); since it divides by __fdividef, 129.5 to 250.5,
 * 170.4 to 326.3, and one feature 76.6 to 137.2 (call 186). */
#include "dependent-launch.cuh"
#include "launch-bounds.cuh"
#include "voxelize-cuda.cuh"
#include "wide-stores.cuh"

#include <cub/block/block_reduce.cuh>
#include <cub/block/block_scan.cuh>
#include <cuda_pipeline.h>

static_assert (RC_COUNT_TILE_BITS <= 16 && RC_MEAN_TILE_BITS <= 16,
    "a place in a tile fits 16 bits");

/* The keying passes' blocks, and the most points a thread of them takes:
 * fewer in smaller clouds, down to one, so that there are still
 * KEY_MIN_BLOCKS blocks. */
#define KEY_BLOCK 512
#define KEY_MAX_POINTS 16
#define KEY_MIN_BLOCKS 512
/* A tile's block, and the most points one block of a crowded tile takes
 * (4,096 split uniform clouds' tiles: 4 million points 261 us against 81,
 * run 184). */
#define TILE_BLOCK 1024
/* The points a thread of pass 3 loads at once: two took x, y, z of 4
 * million points 276.0 us, four 269.0 (run 195, call 183).  At 32
 * registers (two blocks an SM) four fit without a spill since the means
 * are divided by __fdividef. */
#define TILE_BATCH 4
#define CROWDED_POINTS 16384u
/* A tile's tallies in shared memory: its counts 16 bits each, two a word
 * (a block never counts more than CROWDED_POINTS points), and a mean's
 * float sums beside them, a plane a feature.  64 KiB for 2^15 counts, 96
 * KiB for 2^14 counts and sums of one feature; more features are summed a
 * slice of the tile at a time in at most RC_MEAN_TILE_BYTES: two blocks
 * an SM (run 188: one, in 128 KiB of 32-bit counts, left each SM waiting
 * on its one block's steps).  Smaller tiles instead, whole in 112 KiB
 * (2^13 voxels of three features, 2^12 of four), left pass 2 short runs
 * in twice and four times the tiles: it took 160 and 278 us of 4 million
 * points' 415 and 618 under ncu (run 193, call 173). */
static_assert (CROWDED_POINTS <= 0xffffu, "a block's counts fit 16 bits");
/* A point outside the grid (voxel indices stay below 2^27). */
#define NO_VOXEL (~0u)

typedef cub::BlockScan < uint32_t, KEY_BLOCK > KeyScan;
typedef cub::BlockReduce < unsigned, KEY_BLOCK > KeyReduce;

/* Where a partition's arrays lie in the scratch
 * (rc_voxel_partition_offsets). */
typedef struct
{
  uint32_t *totals, *taken;     /* points a tile, places taken; cleared */
  uint32_t *done;               /* a crowded tile's blocks done; cleared */
  uint32_t *starts;             /* a tile's first place */
  uint32_t *extra_first;        /* the first further block of a crowded tile
                                 * (n_tiles + 1) */
  uint32_t *voxels;             /* a point's, or NO_VOXEL */
  float *placed_features;       /* a mean's, in tile order, a plane a
                                 * feature */
  uint16_t *places;             /* the points' places in their tiles, in
                                 * tile order */
} partition;

/* What the passes share: the grid's tiles and the output. */
typedef struct
{
  uint32_t n_tiles, bits;
  uint32_t slice_bits;          /* of a tile, that a block sums at once */
  uint64_t n_voxels;
  uint64_t n_points;            /* a feature plane's points (partition) */
  uint32_t *grid;               /* the counts, or a mean's planes */
  uint32_t *counts;             /* a crowded tile of a mean's (scratch) */
} tiling;

static partition
find_partition (uint8_t * at, uint32_t n_tiles, uint64_t n_points,
    uint32_t n_features)
{
  uint64_t off[RC_PARTITION_ARRAYS + 1];
  bool mean = n_features > 0;
  partition p;

  rc_voxel_partition_offsets (n_tiles, n_points, n_features, off);
  p.totals = (uint32_t *) (at + off[RC_PARTITION_TOTALS]);
  p.taken = (uint32_t *) (at + off[RC_PARTITION_TAKEN]);
  p.done = (uint32_t *) (at + off[RC_PARTITION_DONE]);
  p.starts = (uint32_t *) (at + off[RC_PARTITION_STARTS]);
  p.extra_first = (uint32_t *) (at + off[RC_PARTITION_EXTRA_FIRST]);
  p.voxels = (uint32_t *) (at + off[RC_PARTITION_VOXELS]);
  p.placed_features = mean ?
      (float *) (at + off[RC_PARTITION_PLACED_FEATURES]) : NULL;
  p.places = (uint16_t *) (at + off[RC_PARTITION_PLACES]);
  return p;
}

/* Points a thread of the keying passes takes in a cloud of @n_points. */
static int
key_points_per_thread (uint64_t n_points)
{
  uint64_t k = n_points / ((uint64_t) KEY_BLOCK * KEY_MIN_BLOCKS);

  return (int) (k < 1 ? 1 : k > KEY_MAX_POINTS ? KEY_MAX_POINTS : k);
}

/* Pass 1: @k points a thread, four loaded at a time.  A programmatic
 * dependent of the clear of the totals and statistics: it locates its
 * points while the clear runs.  Two blocks an SM: the generic field
 * reader took 92 registers, and needs no spill at 64. */
template < bool PACKED_XYZ >
__global__ static void
__launch_bounds__ (KEY_BLOCK, 2)
key_points (const __grid_constant__ rc_point_layout layout,
    const __grid_constant__ rc_voxel_grid grid,
    const uint8_t * __restrict__ points, uint64_t n_points, int k,
    const __grid_constant__ partition part, uint32_t n_tiles, uint32_t bits,
    device_stats * stats)
{
  extern __shared__ uint32_t block_totals[];
  uint64_t first = (uint64_t) blockIdx.x * KEY_BLOCK * k + threadIdx.x;
  __shared__ typename KeyReduce::TempStorage temp;
  unsigned in = 0, out = 0, invalid = 0;

  for (uint32_t t = threadIdx.x; t < n_tiles; t += KEY_BLOCK)
    block_totals[t] = 0;
  __syncthreads ();
  for (int k0 = 0; k0 < k; k0 += 4) {
    int where[4];
    uint32_t v[4];

#pragma unroll
    for (int j = 0; j < 4; j++) {
      uint64_t p = first + (uint64_t) (k0 + j) * KEY_BLOCK, voxel = 0;
      bool here = k0 + j < k && p < n_points;

      where[j] = here ? locate_point < PACKED_XYZ > (&layout, &grid, points,
          p, &voxel) : -1;
      v[j] = (uint32_t) voxel;
    }
#pragma unroll
    for (int j = 0; j < 4; j++) {
      uint64_t p = first + (uint64_t) (k0 + j) * KEY_BLOCK;
      bool kept = where[j] == RC_POINT_IN_GRID;

      if (kept)
        atomicAdd (&block_totals[v[j] >> bits], 1u);
      in += kept;
      out += where[j] == RC_POINT_OUT_OF_RANGE;
      invalid += where[j] == RC_POINT_INVALID;
      if (where[j] >= 0)
        part.voxels[p] = kept ? v[j] : NO_VOXEL;
    }
  }
  __syncthreads ();
  /* The totals and statistics are the clear's until here. */
  WAIT_FOR_PREVIOUS_GRID ();
  for (uint32_t t = threadIdx.x; t < n_tiles; t += KEY_BLOCK)
    if (block_totals[t])
      atomicAdd (part.totals + t, block_totals[t]);
  /* Three block sums, not the binning's one tally of 16-bit fields
   * (add_block_tally): 256^3 counts of 4 million points 84.9 against 86.2
   * us, a lidar sweep's million 54.8 against 55.6 (run 189, an H200). */
  in = KeyReduce (temp).Sum (in);
  __syncthreads ();
  out = KeyReduce (temp).Sum (out);
  __syncthreads ();
  invalid = KeyReduce (temp).Sum (invalid);
  add_block_counts (stats, in, out, invalid, 0);
  LET_DEPENDENTS_START ();
}

/* The exclusive sum of @n values from @in into @out (both may be shared
 * memory, and the same), by the whole block; returns the total. */
__device__ static uint32_t
block_scan (const uint32_t * in, uint32_t * out, uint32_t n,
    typename KeyScan::TempStorage & temp)
{
  __shared__ uint32_t carry;
  uint32_t total;

  if (threadIdx.x == 0)
    carry = 0;
  __syncthreads ();
  for (uint32_t t0 = 0; t0 < n; t0 += KEY_BLOCK) {
    uint32_t t = t0 + threadIdx.x, before, sum;

    KeyScan (temp).ExclusiveSum (t < n ? in[t] : 0u, before, sum);
    if (t < n)
      out[t] = carry + before;
    __syncthreads ();
    if (threadIdx.x == 0)
      carry += sum;
    __syncthreads ();
  }
  total = carry;
  __syncthreads ();
  return total;
}

/* Block 0 of pass 2, after its own points: each tile's first place and
 * the first further block of each crowded tile (their total last), in
 * @a and @b, shared memory of n_tiles words each. */
__device__ static void
plan_tiles (const partition * part, uint32_t n_tiles, uint32_t * a,
    uint32_t * b, typename KeyScan::TempStorage & temp)
{
  const uint32_t *totals = part->totals;
  uint32_t extra;

  for (uint32_t t = threadIdx.x; t < n_tiles; t += KEY_BLOCK)
    a[t] = totals[t] > CROWDED_POINTS ?
        (totals[t] + CROWDED_POINTS - 1) / CROWDED_POINTS - 1 : 0;
  __syncthreads ();
  extra = block_scan (a, b, n_tiles, temp);
  block_scan (totals, a, n_tiles, temp);
  for (uint32_t t = threadIdx.x; t < n_tiles; t += KEY_BLOCK) {
    part->extra_first[t] = b[t];
    part->starts[t] = a[t];
  }
  if (threadIdx.x == 0)
    part->extra_first[n_tiles] = extra;
}

/* Feature @f of this thread's @k points of pass 2 (from @first, a block
 * apart) copied from the cloud @points (a float32 field as it is, others
 * converted) into its slots of @arrived, a block apart, behind the
 * thread's pipeline; nothing for counts (@F 0).  Pass 1 kept the features
 * in planes for pass 2 to read until run 194: storing them took it 104.7
 * us of 4 million points of x, y, z under ncu, against 47.5 for the
 * voxels alone, and pass 2, reading the points' whole sectors for each
 * feature, takes 110.8 against 107.5 (call 180, an H200). */
template < int F >
__device__ static void
fetch_feature (const rc_point_layout * layout, const uint8_t * points, int f,
    uint64_t n_points, uint64_t first, int k, float *arrived)
{
  const rc_field field = layout->features[f];
  const uint8_t *at = points + field.offset;
  bool raw = field.type == RC_TYPE_FLOAT32 && layout->point_step % 4 == 0
      && ((uintptr_t) at & 3) == 0;

  for (int j = 0; F && j < k; j++) {
    uint64_t p = first + (uint64_t) j * KEY_BLOCK;
    float *slot = arrived + j * KEY_BLOCK + threadIdx.x;

    if (p >= n_points)
      continue;
    if (raw)
      __pipeline_memcpy_async (slot, at + p * layout->point_step,
          sizeof (float));
    else
      *slot = (float) rc_load_field (points + p * layout->point_step, field);
  }
  __pipeline_commit ();
}

/* Zeroes the crowded tiles, which several blocks of pass 3 add to: the
 * grid's, and a mean's counts and @n_features planes (this block's share
 * of the tiles). */
__device__ static void
clear_crowded (const partition * part, const tiling * tl, int n_features)
{
  for (uint32_t t = blockIdx.x; t < tl->n_tiles; t += gridDim.x) {
    uint64_t v0 = (uint64_t) t << tl->bits;
    uint64_t n = MIN ((uint64_t) 1 << tl->bits, tl->n_voxels - v0);

    if (part->totals[t] <= CROWDED_POINTS)
      continue;
    for (uint64_t i = threadIdx.x; i < n; i += KEY_BLOCK) {
      tl->grid[v0 + i] = 0;
      for (int f = 1; f < n_features; f++)
        tl->grid[f * tl->n_voxels + v0 + i] = 0;
      if (n_features)
        tl->counts[v0 + i] = 0;
    }
  }
}

/* Pass 2: the block's points (@k a thread) sorted by tile in shared
 * memory (@stage, a mean's features in @stage_features, one at a time),
 * then written to their tiles' runs.  Two blocks an SM: a mean's took 92
 * registers, and needs no spill at 64. */
template < int F >
__global__ static void
__launch_bounds__ (KEY_BLOCK, 2)
place_points (const __grid_constant__ rc_point_layout layout,
    const uint8_t * __restrict__ points, uint64_t n_points, int k,
    const __grid_constant__ partition part, const __grid_constant__ tiling tl)
{
  extern __shared__ uint32_t room[];
  uint32_t n_tiles = tl.n_tiles, mask = (1u << tl.bits) - 1;
  uint32_t *own = room, *local = room + n_tiles, *run = room + 2 * n_tiles;
  uint32_t *stage = room + 3 * n_tiles;
  float *stage_features = (float *) (stage + KEY_BLOCK * k);
  float *arrived = stage_features + KEY_BLOCK * k;
  __shared__ typename KeyScan::TempStorage temp;
  uint32_t voxel[KEY_MAX_POINTS], rank[KEY_MAX_POINTS], n_own;
  uint64_t first = (uint64_t) blockIdx.x * KEY_BLOCK * k + threadIdx.x;

  for (uint32_t t = threadIdx.x; t < n_tiles; t += KEY_BLOCK)
    own[t] = 0;
  WAIT_FOR_PREVIOUS_GRID ();
  /* The tiles' totals, and a mean's first feature in the points' order,
   * copied to shared memory while the voxels are loaded and ranked: each
   * waited alone after them (run 188). */
  for (uint32_t t = threadIdx.x; t < n_tiles; t += KEY_BLOCK)
    __pipeline_memcpy_async (run + t, part.totals + t, sizeof (uint32_t));
  fetch_feature < F > (&layout, points, 0, n_points, first, k, arrived);
  clear_crowded (&part, &tl, F);
  __syncthreads ();
  /* Each point's rank among the block's in its tile; the voxels all
   * loaded first, so that their loads are in flight together. */
#pragma unroll
  for (int j = 0; j < KEY_MAX_POINTS; j++) {
    uint64_t p = first + (uint64_t) j * KEY_BLOCK;

    voxel[j] = j < k && p < n_points ? __ldcs (part.voxels + p) : NO_VOXEL;
  }
#pragma unroll
  for (int j = 0; j < KEY_MAX_POINTS; j++)
    if (voxel[j] != NO_VOXEL)
      rank[j] = atomicAdd (&own[voxel[j] >> tl.bits], 1u);
  __pipeline_wait_prior (0);
  __syncthreads ();
  /* The block's run in each tile: the tile's start (the same sum in every
   * block) and the places blocks before took. */
  block_scan (run, run, n_tiles, temp);
  for (uint32_t t = threadIdx.x; t < n_tiles; t += KEY_BLOCK)
    if (own[t])
      run[t] += atomicAdd (part.taken + t, own[t]);
  n_own = block_scan (own, local, n_tiles, temp);
  /* Each point's place among the block's, NO_VOXEL for none. */
#pragma unroll
  for (int j = 0; j < KEY_MAX_POINTS; j++) {
    rank[j] = voxel[j] == NO_VOXEL ? NO_VOXEL :
        local[voxel[j] >> tl.bits] + rank[j];
    if (rank[j] != NO_VOXEL)
      stage[rank[j]] = voxel[j];
  }
  /* The places with the first feature, then each further feature staged
   * while the one before is written, in the same shared memory. */
  for (int f = 0; f < (F > 0 ? F : 1); f++) {
#pragma unroll
    for (int j = 0; F && j < KEY_MAX_POINTS; j++)
      if (rank[j] != NO_VOXEL)
        stage_features[rank[j]] = arrived[j * KEY_BLOCK + threadIdx.x];
    __syncthreads ();
    if (f + 1 < F)
      fetch_feature < F > (&layout, points, f + 1, n_points, first, k,
          arrived);
    for (uint32_t i = threadIdx.x; i < n_own; i += KEY_BLOCK) {
      uint32_t v = stage[i], t = v >> tl.bits, at = run[t] + i - local[t];

      if (f == 0)
        part.places[at] = (uint16_t) (v & mask);
      if (F)
        part.placed_features[f * n_points + at] = stage_features[i];
    }
    if (f + 1 < F) {
      __pipeline_wait_prior (0);
      __syncthreads ();
    }
  }
  if (blockIdx.x == 0) {
    __syncthreads ();
    plan_tiles (&part, n_tiles, own, local, temp);
  }
  LET_DEPENDENTS_START ();
}

/* Pass 3's block @b: its tile and which CROWDED_POINTS of the tile's
 * points (@part, 0 for the tile's first block); FALSE for a place of the
 * @n_extra for crowded tiles' further blocks that none needs. */
__device__ static bool
find_tile (const partition * p, uint32_t n_tiles, uint32_t n_extra,
    uint32_t b, uint32_t * tile, uint32_t * part)
{
  uint32_t lo = 0, hi = n_tiles;

  *tile = b - n_extra;
  *part = 0;
  if (b >= n_extra)
    return true;
  if (b >= p->extra_first[n_tiles])
    return false;
  while (hi - lo > 1) {
    uint32_t mid = (lo + hi) / 2;

    if (p->extra_first[mid] <= b)
      lo = mid;
    else
      hi = mid;
  }
  *tile = lo;
  *part = b - p->extra_first[lo] + 1;
  return true;
}

/* Voxel @i's count in a tile of 16-bit counts, two a word. */
__device__ static uint32_t
tile_count (const uint32_t * pairs, uint32_t i)
{
  return pairs[i >> 1] >> (i & 1) * 16 & 0xffffu;
}

/* The mean of @c values summing to @sum (0 for none): a reciprocal and a
 * product, within 2 ulp, not IEEE division's ten instructions, which
 * pass 3 spent on every voxel of the grid and every feature. */
__device__ static float
mean_of (float sum, uint32_t c)
{
  return c ? __fdividef (sum, (float) c) : 0.0f;
}

/* Voxel @i's word of the grid: its count, or a mean's mean of the
 * feature summed in @sums (0 where empty). */
template < bool MEAN >
__device__ static uint32_t
tile_value (const uint32_t * pairs, const float *sums, uint32_t i)
{
  uint32_t c = tile_count (pairs, i);

  if (!MEAN)
    return c;
  return __float_as_uint (mean_of (sums[i], c));
}

/* Bytes of a slice of 2^@bits voxels' counts and sums of @n_features. */
__host__ __device__ static uint32_t
slice_bytes (uint32_t n_features, unsigned bits)
{
  return (uint32_t) (sizeof (uint16_t) + n_features * sizeof (float)) << bits;
}

/* The largest slice of a tile of 2^@bits voxels of @n_features that
 * RC_MEAN_TILE_BYTES holds (counts: the tile). */
static unsigned
slice_bits (uint32_t n_features, unsigned bits)
{
  while (n_features && slice_bytes (n_features, bits) > RC_MEAN_TILE_BYTES)
    bits--;
  return bits;
}

/* A slice of @n voxels from shared memory (@pairs, a mean's @F planes of
 * @sums, @size apart) to the grid at @out (its planes @plane apart), 16
 * bytes a store.  Returns this thread's occupied voxels. */
template < int F >
__device__ static unsigned
write_slice (const uint32_t * pairs, const float *sums, uint32_t size,
    uint32_t n, uint32_t * out, uint64_t plane)
{
  unsigned occupied = 0;

  store_words < true, uint32_t > (out, n, threadIdx.x, TILE_BLOCK,
      [&](uint32_t i) {
        occupied += tile_count (pairs, i) != 0;
        return tile_value < (F > 0) > (pairs, sums, i);
      });
  /* The further planes a word a store (16 bytes a store spilled). */
  for (uint32_t i = threadIdx.x; F > 1 && i < n; i += TILE_BLOCK) {
    uint32_t c = tile_count (pairs, i);

#pragma unroll
    for (int f = 1; f < F; f++)
      __stcs ((float *) out + f * plane + i, mean_of (sums[f * size + i],
              c));
  }
  return occupied;
}

/* A crowded tile's last block, once every block has added its counts and
 * sums at @counts and @means (@F planes @plane apart): the means divided
 * in place.  Returns this thread's occupied voxels. */
template < int F >
__device__ static unsigned
divide_crowded (const uint32_t * counts, float *means, uint32_t n,
    uint64_t plane)
{
  unsigned occupied = 0;

  for (uint32_t i = threadIdx.x; i < n; i += TILE_BLOCK) {
    uint32_t c = __ldcg (counts + i);

    occupied += c != 0;
#pragma unroll
    for (int f = 0; f < F; f++)
      means[f * plane + i] = mean_of (__ldcg (means + f * plane + i), c);
  }
  return occupied;
}

/* A slice of a mean's crowded tile: this block's counts and sums (@F
 * planes @size apart) added to the cleared grid at @counts and @means
 * (planes @plane apart). */
template < int F >
__device__ static void
add_crowded_slice (const uint32_t * pairs, const float *sums, uint32_t size,
    uint32_t n, uint32_t * counts, float *means, uint64_t plane)
{
  for (uint32_t i = threadIdx.x; i < n; i += TILE_BLOCK) {
    uint32_t c = tile_count (pairs, i);

    if (c) {
      atomicAdd (counts + i, c);
#pragma unroll
      for (int f = 0; f < F; f++)
        atomicAdd (means + f * plane + i, sums[f * size + i]);
    }
  }
}

/* A mean's crowded tile of @n voxels, once this block has added every
 * slice: the last of its blocks to finish (of @n_parts) divides it.
 * Returns this thread's occupied voxels. */
template < int F >
__device__ static unsigned
finish_crowded_mean (const uint32_t * counts, float *means, uint32_t n,
    uint64_t plane, uint32_t * done, uint32_t n_parts)
{
  __shared__ bool last;

  __threadfence ();
  __syncthreads ();
  if (threadIdx.x == 0)
    last = atomicAdd (done, 1u) == n_parts - 1;
  __syncthreads ();
  if (!last)
    return 0;
  __threadfence ();
  return divide_crowded < F > (counts, means, n, plane);
}

/* Voxels [@lo, @lo + @n) of the tile at @v0 (@size of them a slice), from
 * its points [@begin, @end): counted (and a mean's @F features summed) in
 * shared memory, cleared, at @pairs and @sums, then written, or added to
 * the grid where the tile is @crowded.  Returns this thread's occupied
 * voxels, but for a mean's crowded tile. */
template < int F >
__device__ static unsigned
sum_slice (const partition * part, const tiling * tl, uint32_t * pairs,
    float *sums, uint32_t size, uint32_t begin, uint32_t end, uint64_t v0,
    uint32_t lo, uint32_t n, bool crowded)
{
  unsigned occupied = 0;

  __syncthreads ();
  /* TILE_BATCH points at a time: their places loaded together, then their
   * features, so that a thread waits on two loads a batch, not two a
   * point.  A place below the slice wraps past it. */
  for (uint32_t i0 = begin + threadIdx.x; i0 < end;
      i0 += TILE_BATCH * TILE_BLOCK) {
    uint32_t at[TILE_BATCH];
    float value[TILE_BATCH][F > 0 ? F : 1];

#pragma unroll
    for (int j = 0; j < TILE_BATCH; j++) {
      uint32_t i = i0 + j * TILE_BLOCK;

      at[j] = i < end ? part->places[i] - lo : ~0u;
    }
#pragma unroll
    for (int j = 0; j < TILE_BATCH; j++)
#pragma unroll
      for (int f = 0; f < F; f++)
        value[j][f] = at[j] < size ? part->placed_features[f * tl->n_points
            + i0 + j * TILE_BLOCK] : 0.0f;
#pragma unroll
    for (int j = 0; j < TILE_BATCH; j++) {
      if (at[j] >= size)
        continue;
      atomicAdd (&pairs[at[j] >> 1], 1u << (at[j] & 1) * 16);
#pragma unroll
      for (int f = 0; f < F; f++)
        atomicAdd (&sums[f * size + at[j]], value[j][f]);
    }
  }
  __syncthreads ();
  if (crowded && F) {
    add_crowded_slice < F > (pairs, sums, size, n, tl->counts + v0 + lo,
        (float *) tl->grid + v0 + lo, tl->n_voxels);
  } else if (crowded) {
    for (uint32_t i = threadIdx.x; i < n; i += TILE_BLOCK) {
      uint32_t c = tile_count (pairs, i);

      if (c)
        occupied += atomicAdd (tl->grid + v0 + lo + i, c) == 0;
    }
  } else {
    occupied = write_slice < F > (pairs, sums, size, n, tl->grid + v0 + lo,
        tl->n_voxels);
  }
  return occupied;
}

/* Pass 3: a block a tile, then one for each further CROWDED_POINTS points
 * of a crowded tile (@n_extra places for those, launched first so that
 * they are not the last wave's).  Counts the tile's points (and sums a
 * mean's @F features) in shared memory, a slice of the tile at a time,
 * then writes each slice whole, or adds it to the grid (crowded),
 * counting its occupied voxels. */
template < int F >
__global__ static void
__launch_bounds__ (TILE_BLOCK, RC_MIN_BLOCKS (TILE_BLOCK, 2))
sum_tiles (const __grid_constant__ partition part,
    const __grid_constant__ tiling tl, uint32_t n_extra, device_stats * stats)
{
  extern __shared__ uint4 tile4[];
  uint32_t *pairs = (uint32_t *) tile4, size = 1u << tl.slice_bits;
  float *sums = (float *) (pairs + size / 2);
  typedef cub::BlockReduce < unsigned, TILE_BLOCK > TileReduce;
  __shared__ typename TileReduce::TempStorage temp;
  /* A tile of one slice: its bits known when compiled. */
  uint32_t words = slice_bytes (F, F > 1 ? tl.slice_bits :
      F ? RC_MEAN_TILE_BITS : RC_COUNT_TILE_BITS) / 16;
  uint32_t t, n_part, begin, end, n;
  unsigned occupied = 0;
  bool crowded;
  uint64_t v0;

  for (uint32_t i = threadIdx.x; i < words; i += TILE_BLOCK)
    tile4[i] = make_uint4 (0, 0, 0, 0);
  WAIT_FOR_PREVIOUS_GRID ();
  if (!find_tile (&part, tl.n_tiles, n_extra, blockIdx.x, &t, &n_part))
    return;
  begin = part.starts[t] + n_part * CROWDED_POINTS;
  end = MIN (part.starts[t] + part.totals[t], begin + CROWDED_POINTS);
  v0 = (uint64_t) t << tl.bits;
  n = (uint32_t) MIN ((uint64_t) 1 << tl.bits, tl.n_voxels - v0);
  crowded = part.totals[t] > CROWDED_POINTS;
  /* A tile of one feature or none is one slice, summed with no loop: a
   * loop cost a mean of one feature 2 to 8 us (run 193, calls 174 and
   * 175). */
  if (F <= 1)
    occupied = sum_slice < F > (&part, &tl, pairs, sums, size, begin, end,
        v0, 0, n, crowded);
  for (uint32_t lo = 0; F > 1 && lo < n; lo += size) {
    if (lo > 0) {
      __syncthreads ();
      for (uint32_t i = threadIdx.x; i < words; i += TILE_BLOCK)
        tile4[i] = make_uint4 (0, 0, 0, 0);
    }
    occupied += sum_slice < F > (&part, &tl, pairs, sums, size, begin, end,
        v0, lo, MIN (size, n - lo), crowded);
  }
  if (crowded && F)
    occupied = finish_crowded_mean < F > (tl.counts + v0,
        (float *) tl.grid + v0, n, tl.n_voxels, part.done + t,
        (part.totals[t] + CROWDED_POINTS - 1) / CROWDED_POINTS);
  occupied = TileReduce (temp).Sum (occupied);
  if (threadIdx.x == 0 && occupied)
    atomicAdd (&stats->occupied, (unsigned long long) occupied);
}

/* Shared memory of pass 2: the block's counts, places and runs a tile,
 * and its points' voxels (and a mean's features as they arrive and in
 * tile order). */
static size_t
place_shared_bytes (uint32_t n_tiles, int k, bool mean)
{
  return (3 * (size_t) n_tiles + (size_t) KEY_BLOCK * k * (mean ? 3 : 1)) *
      sizeof (uint32_t);
}

/* The kernels of a counts or a mean partition, their shared memory
 * allowed; FALSE (nothing set) on a GPU of too little shared memory a
 * block.  Set on every call, not once a device: a kernel's attributes
 * belong to a CUDA context, and one process may hold several on a device
 * (a pipeline's own GstCudaContext, the primary context torch uses). */
template < int F >
static rc_status
allow_shared (const tiling * tl, bool *fits)
{
  size_t place = place_shared_bytes (tl->n_tiles, KEY_MAX_POINTS, F > 0);
  size_t tile = slice_bytes (F, tl->slice_bits);
  int dev = 0, most = 0;
  rc_status ret = rc_check_cuda (cudaGetDevice (&dev));

  *fits = false;
  if (ret == RC_OK)
    ret = rc_check_cuda (cudaDeviceGetAttribute (&most,
            cudaDevAttrMaxSharedMemoryPerBlockOptin, dev));
  /* The kernels' own shared memory: under 1 KiB. */
  if (ret != RC_OK || (size_t) most < MAX (tile, place) + 1024)
    return ret;
  *fits = true;
  ret = rc_check_cuda (cudaFuncSetAttribute (place_points < F >,
          cudaFuncAttributeMaxDynamicSharedMemorySize, (int) place));
  if (ret == RC_OK)
    ret = rc_check_cuda (cudaFuncSetAttribute (sum_tiles < F >,
            cudaFuncAttributeMaxDynamicSharedMemorySize, (int) tile));
  return ret;
}

template < int F >
static rc_status
launch_passes (const rc_point_layout * layout, const rc_voxel_grid * grid,
    const uint8_t * cloud, uint64_t n_points, const partition * part,
    const tiling * tl, device_stats * stats, bool early, cudaStream_t s)
{
  int k = key_points_per_thread (n_points);
  unsigned key_blocks = (unsigned) ((n_points + (uint64_t) KEY_BLOCK * k -
          1) / ((uint64_t) KEY_BLOCK * k));
  /* At most one further block for each CROWDED_POINTS points. */
  uint32_t n_extra = (uint32_t) (n_points / CROWDED_POINTS);
  rc_status ret;

  ret = rc_launch_shared (early, key_blocks, KEY_BLOCK,
      tl->n_tiles * sizeof (uint32_t), s,
      xyz_is_packed_float (layout, cloud) ? key_points < true > :
      key_points < false >, *layout, *grid, cloud, n_points, k, *part,
      tl->n_tiles, tl->bits, stats);
  if (ret == RC_OK)
    ret = rc_launch_shared (early, key_blocks, KEY_BLOCK,
        place_shared_bytes (tl->n_tiles, k, F > 0), s, place_points < F >,
        *layout, cloud, n_points, k, *part, *tl);
  if (ret == RC_OK)
    ret = rc_launch_shared (early, n_extra + tl->n_tiles, TILE_BLOCK,
        slice_bytes (F, tl->slice_bits), s, sum_tiles < F >, *part, *tl,
        n_extra, stats);
  return ret;
}

/* The partition's passes of a mean of @F features, or counts (0). */
template < int F >
static rc_status
partition_features (const rc_point_layout * layout,
    const rc_voxel_grid * grid, const uint8_t * cloud, uint64_t n_points,
    const partition * part, const tiling * tl, const call_scratch * cs,
    device_stats * all_stats, uint32_t n_clouds, device_stats * stats,
    bool early, cudaStream_t s, bool *done)
{
  rc_status ret = allow_shared < F > (tl, done);

  if (ret != RC_OK || !*done)
    return ret;
  /* The header's key reset: a mean's counts are left dirty. */
  ret = voxelize_launch_clear (NULL, 0, 1, 0, part->totals, 3 * tl->n_tiles,
      NULL, 0, all_stats, n_clouds, cs->header, 0, false, 3 * tl->n_tiles, s);
  if (ret == RC_OK)
    ret = launch_passes < F > (layout, grid, cloud, n_points, part, tl,
        stats, early, s);
  return ret;
}

rc_status
voxelize_partition (const rc_point_layout * layout,
    const rc_voxel_grid * grid, const uint8_t * cloud, uint64_t n_points,
    void *out, const call_scratch * cs, device_stats * all_stats,
    uint32_t n_clouds, device_stats * stats, bool early, cudaStream_t s,
    bool *done)
{
  uint32_t n_features = rc_voxel_partition_features (layout, grid);
  unsigned bits = rc_voxel_partition_tile_bits (grid);
  tiling tl = { (uint32_t) rc_voxel_partition_tiles (grid), bits,
    slice_bits (n_features, bits), rc_voxel_grid_n_voxels (grid), n_points,
    (uint32_t *) out, n_features ? cs->counts : NULL
  };
  partition part = find_partition (cs->partition, tl.n_tiles, n_points,
      n_features);
  decltype (&partition_features < 0 >) passes = n_features == 0 ?
      partition_features < 0 > : n_features == 1 ? partition_features < 1 > :
      n_features == 2 ? partition_features < 2 > : n_features == 3 ?
      partition_features < 3 > : partition_features < 4 >;

  static_assert (RC_PARTITION_MAX_FEATURES == 4,
      "the passes of each number of features");
  *done = false;
  if (n_features > RC_PARTITION_MAX_FEATURES)
    return RC_OK;
  return passes (layout, grid, cloud, n_points, &part, &tl, cs, all_stats,
      n_clouds, stats, early, s, done);
}
