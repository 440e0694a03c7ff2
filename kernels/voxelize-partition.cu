/* Counts of a large cloud into a grid larger than the L2 cache, on the GPU,
 * by partitioning the points by tile of the grid (rc_voxel_counts_partitioned)
 * instead of an atomic a point on the grid (voxelize.cu), each of which
 * there waits on DRAM or queues in the L2 cache's atomic units:
 *
 *   1. key_points: each point's voxel, and each block's points per tile
 *      added to the tiles' totals;
 *   2. place_points: each block sorts its points by tile in shared memory,
 *      takes a run in each tile it has points in (an atomic a tile), and
 *      writes each point's place in its tile (16 bits) there, neighbouring
 *      threads in neighbouring places;
 *   3. count_tiles: a block a tile counts its points in shared memory and
 *      writes the tile whole, so the grid needs no clear.  A crowded tile
 *      (a lidar sweep's voxels near the sensor) is split between blocks
 *      of CROWDED_POINTS points, which add to it after place_points has
 *      cleared it.
 *
 * On an H200 (run 185, against the atomics of 5020b6d), 256^3 counts of
 * 1,048,576, 2,097,152 and 4,194,304 uniform points in 55.1, 67.9 and
 * 93.3 us against 62.9, 92.0 and 148.4; a lidar sweep in the cube, its
 * points crowded near the sensor, 53.1, 71.9 and 107.0 against 64.0,
 * 94.3 and 151.5.  Below a million points the atomics were faster (the
 * probe of run 184: 524,288 uniform points 54 us against 42). */
#include "dependent-launch.cuh"
#include "voxelize-cuda.cuh"

#include <cub/block/block_reduce.cuh>
#include <cub/block/block_scan.cuh>

#define TILE_VOXELS (1u << RC_COUNT_TILE_BITS)
static_assert (RC_COUNT_TILE_BITS <= 16, "a place in a tile fits 16 bits");

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
#define CROWDED_POINTS 16384u
/* A point outside the grid (voxel indices stay below 2^27). */
#define NO_VOXEL (~0u)

typedef cub::BlockReduce < unsigned, KEY_BLOCK > KeyReduce;
typedef cub::BlockScan < uint32_t, KEY_BLOCK > KeyScan;

/* Where a partition's arrays lie in the scratch, as
 * rc_voxel_count_partition_bytes counts them. */
typedef struct
{
  uint32_t *totals, *taken;     /* points a tile, places taken; cleared */
  uint32_t *starts;             /* a tile's first place */
  uint32_t *extra_first;        /* the first further block of a crowded tile
                                 * (n_tiles + 1) */
  uint32_t *voxels;             /* a point's, or NO_VOXEL */
  uint16_t *places;             /* the points' places in their tiles, in
                                 * tile order */
} partition;

static partition
find_partition (uint8_t * at, uint32_t n_tiles, uint64_t n_points)
{
  partition p;

  p.totals = (uint32_t *) at;
  p.taken = p.totals + n_tiles;
  p.starts = p.taken + n_tiles;
  p.extra_first = p.starts + n_tiles;
  p.voxels = p.extra_first + n_tiles + 1;
  p.places = (uint16_t *) (p.voxels + n_points);
  return p;
}

/* Points a thread of the keying passes takes in a cloud of @n_points. */
static int
key_points_per_thread (uint64_t n_points)
{
  uint64_t k = n_points / ((uint64_t) KEY_BLOCK * KEY_MIN_BLOCKS);

  return (int) (k < 1 ? 1 : k > KEY_MAX_POINTS ? KEY_MAX_POINTS : k);
}

/* The block's @value summed over its threads, into @stats' @field (an
 * atomic from the first thread). */
__device__ static void
add_block_sum (unsigned value, unsigned long long *field,
    typename KeyReduce::TempStorage & temp)
{
  unsigned total = KeyReduce (temp).Sum (value);

  if (threadIdx.x == 0 && total)
    atomicAdd (field, (unsigned long long) total);
  __syncthreads ();
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
    uint32_t * __restrict__ voxels, uint32_t * __restrict__ totals,
    uint32_t n_tiles, device_stats * stats)
{
  extern __shared__ uint32_t block_totals[];
  __shared__ typename KeyReduce::TempStorage temp;
  uint64_t first = (uint64_t) blockIdx.x * KEY_BLOCK * k + threadIdx.x;
  unsigned in = 0, out = 0, invalid = 0;

  for (uint32_t t = threadIdx.x; t < n_tiles; t += KEY_BLOCK)
    block_totals[t] = 0;
  __syncthreads ();
  for (int k0 = 0; k0 < k; k0 += 4) {
    int where[4];
    uint64_t v[4];

#pragma unroll
    for (int j = 0; j < 4; j++) {
      uint64_t p = first + (uint64_t) (k0 + j) * KEY_BLOCK;
      where[j] = k0 + j < k && p < n_points ? locate_point < PACKED_XYZ >
          (&layout, &grid, points, p, &v[j]) : -1;
    }
#pragma unroll
    for (int j = 0; j < 4; j++) {
      uint64_t p = first + (uint64_t) (k0 + j) * KEY_BLOCK;

      if (where[j] == RC_POINT_IN_GRID)
        atomicAdd (&block_totals[v[j] >> RC_COUNT_TILE_BITS], 1u);
      in += where[j] == RC_POINT_IN_GRID;
      out += where[j] == RC_POINT_OUT_OF_RANGE;
      invalid += where[j] == RC_POINT_INVALID;
      if (where[j] >= 0)
        voxels[p] = where[j] == RC_POINT_IN_GRID ? (uint32_t) v[j] : NO_VOXEL;
    }
  }
  __syncthreads ();
  /* The totals and statistics are the clear's until here. */
  WAIT_FOR_PREVIOUS_GRID ();
  for (uint32_t t = threadIdx.x; t < n_tiles; t += KEY_BLOCK)
    if (block_totals[t])
      atomicAdd (totals + t, block_totals[t]);
  add_block_sum (in, &stats->in_grid, temp);
  add_block_sum (out, &stats->out_of_range, temp);
  add_block_sum (invalid, &stats->invalid, temp);
  LET_DEPENDENTS_START ();
}

/* The exclusive sum of @n values from @in into @out (both may be shared
 * memory), by the whole block; returns the total. */
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
plan_tiles (const uint32_t * totals, uint32_t n_tiles, uint32_t * starts,
    uint32_t * extra_first, uint32_t * a, uint32_t * b,
    typename KeyScan::TempStorage & temp)
{
  uint32_t extra;

  for (uint32_t t = threadIdx.x; t < n_tiles; t += KEY_BLOCK)
    a[t] = totals[t] > CROWDED_POINTS ?
        (totals[t] + CROWDED_POINTS - 1) / CROWDED_POINTS - 1 : 0;
  __syncthreads ();
  extra = block_scan (a, b, n_tiles, temp);
  block_scan (totals, a, n_tiles, temp);
  for (uint32_t t = threadIdx.x; t < n_tiles; t += KEY_BLOCK) {
    extra_first[t] = b[t];
    starts[t] = a[t];
  }
  if (threadIdx.x == 0)
    extra_first[n_tiles] = extra;
}

/* Pass 2: the block's points (@k a thread, as pass 1) sorted by tile in
 * shared memory (@stage), then written to their tiles' runs.  It also
 * clears the crowded tiles, which several blocks of pass 3 add to. */
__global__ static void
__launch_bounds__ (KEY_BLOCK)
place_points (const uint32_t * __restrict__ voxels, uint64_t n_points,
    int k, const uint32_t * __restrict__ totals, uint32_t * __restrict__ taken,
    uint32_t n_tiles, uint16_t * __restrict__ places,
    uint32_t * __restrict__ starts, uint32_t * __restrict__ extra_first,
    uint32_t * __restrict__ grid, uint64_t n_voxels)
{
  extern __shared__ uint32_t room[];
  uint32_t *own = room, *local = room + n_tiles, *run = room + 2 * n_tiles;
  uint32_t *stage = room + 3 * n_tiles;
  __shared__ typename KeyScan::TempStorage temp;
  uint32_t voxel[KEY_MAX_POINTS], rank[KEY_MAX_POINTS], n_own;
  uint64_t first = (uint64_t) blockIdx.x * KEY_BLOCK * k;

  for (uint32_t t = threadIdx.x; t < n_tiles; t += KEY_BLOCK)
    own[t] = 0;
  WAIT_FOR_PREVIOUS_GRID ();
  __syncthreads ();
  /* Each point's rank among the block's in its tile. */
#pragma unroll
  for (int j = 0; j < KEY_MAX_POINTS; j++) {
    uint64_t p = first + (uint64_t) j * KEY_BLOCK + threadIdx.x;

    voxel[j] = j < k && p < n_points ? __ldcs (voxels + p) : NO_VOXEL;
    if (voxel[j] != NO_VOXEL)
      rank[j] = atomicAdd (&own[voxel[j] >> RC_COUNT_TILE_BITS], 1u);
  }
  __syncthreads ();
  /* The block's run in each tile: the tile's start (the same sum in every
   * block) and the places blocks before took. */
  block_scan (totals, run, n_tiles, temp);
  for (uint32_t t = threadIdx.x; t < n_tiles; t += KEY_BLOCK)
    if (own[t])
      run[t] += atomicAdd (taken + t, own[t]);
  n_own = block_scan (own, local, n_tiles, temp);
#pragma unroll
  for (int j = 0; j < KEY_MAX_POINTS; j++)
    if (voxel[j] != NO_VOXEL)
      stage[local[voxel[j] >> RC_COUNT_TILE_BITS] + rank[j]] = voxel[j];
  __syncthreads ();
  for (uint32_t i = threadIdx.x; i < n_own; i += KEY_BLOCK) {
    uint32_t v = stage[i], t = v >> RC_COUNT_TILE_BITS;

    places[run[t] + i - local[t]] = (uint16_t) (v & (TILE_VOXELS - 1));
  }
  for (uint32_t t = blockIdx.x; t < n_tiles; t += gridDim.x) {
    uint64_t v0 = (uint64_t) t * TILE_VOXELS;

    if (totals[t] <= CROWDED_POINTS)
      continue;
    for (uint64_t i = threadIdx.x; i < MIN (TILE_VOXELS, n_voxels - v0);
        i += KEY_BLOCK)
      grid[v0 + i] = 0;
  }
  if (blockIdx.x == 0) {
    __syncthreads ();
    plan_tiles (totals, n_tiles, starts, extra_first, own, local, temp);
  }
  LET_DEPENDENTS_START ();
}

/* Pass 3: a block a tile, then one for each further CROWDED_POINTS points
 * of a crowded tile (@n_extra places for those, launched first so that
 * they are not the last wave's).  Counts the tile's points in shared
 * memory, then writes it whole, or adds to it (crowded), counting its
 * occupied voxels. */
__global__ static void
__launch_bounds__ (TILE_BLOCK)
count_tiles (const uint16_t * __restrict__ places,
    const uint32_t * __restrict__ starts, const uint32_t * __restrict__ totals,
    const uint32_t * __restrict__ extra_first, uint32_t n_tiles,
    uint32_t n_extra, uint32_t * __restrict__ grid, uint64_t n_voxels,
    device_stats * stats)
{
  extern __shared__ uint4 tile4[];
  uint32_t *tile = (uint32_t *) tile4;
  typedef cub::BlockReduce < unsigned, TILE_BLOCK > TileReduce;
  __shared__ typename TileReduce::TempStorage temp;
  uint32_t t = blockIdx.x - n_extra, part = 0, begin, end, n_in_tile;
  unsigned occupied = 0;
  uint64_t v0;
  bool crowded;

  for (uint32_t i = threadIdx.x; i < TILE_VOXELS / 4; i += TILE_BLOCK)
    tile4[i] = make_uint4 (0, 0, 0, 0);
  WAIT_FOR_PREVIOUS_GRID ();
  if (blockIdx.x < n_extra) {
    /* The crowded tile whose further blocks hold this one. */
    uint32_t e = blockIdx.x, lo = 0, hi = n_tiles;

    if (e >= extra_first[n_tiles])
      return;
    while (hi - lo > 1) {
      uint32_t mid = (lo + hi) / 2;

      if (extra_first[mid] <= e)
        lo = mid;
      else
        hi = mid;
    }
    t = lo;
    part = e - extra_first[lo] + 1;
  }
  n_in_tile = totals[t];
  crowded = n_in_tile > CROWDED_POINTS;
  begin = starts[t] + part * CROWDED_POINTS;
  end = MIN (starts[t] + n_in_tile, begin + CROWDED_POINTS);
  __syncthreads ();
  for (uint32_t i = begin + threadIdx.x; i < end; i += TILE_BLOCK)
    atomicAdd (&tile[places[i]], 1u);
  __syncthreads ();
  v0 = (uint64_t) t * TILE_VOXELS;
  uint32_t n = (uint32_t) MIN ((uint64_t) TILE_VOXELS, n_voxels - v0);
  if (!crowded) {
    /* 16-byte stores from the tile's first 16-byte boundary: the grid of
     * a cloud after the first of a call may start 4, 8 or 12 bytes past
     * one (every tile the same, TILE_VOXELS words apart), and its counts
     * are then read a word at a time. */
    uint32_t head = MIN (n, (uint32_t) ((16 - ((uintptr_t) (grid + v0) &
                    15)) / 4 % 4));
    uint32_t n4 = (n - head) / 4;
    uint4 *wide = (uint4 *) (grid + v0 + head);

    for (uint32_t i = threadIdx.x; i < n4; i += TILE_BLOCK) {
      const uint32_t *c4 = tile + head + 4 * i;
      uint4 c = head == 0 ? tile4[i] : make_uint4 (c4[0], c4[1], c4[2],
          c4[3]);

      __stcs (wide + i, c);
      occupied += (c.x != 0) + (c.y != 0) + (c.z != 0) + (c.w != 0);
    }
    for (uint32_t i = threadIdx.x; i < n - n4 * 4; i += TILE_BLOCK) {
      uint32_t at = i < head ? i : n4 * 4 + i;

      grid[v0 + at] = tile[at];
      occupied += tile[at] != 0;
    }
  } else {
    for (uint32_t i = threadIdx.x; i < n; i += TILE_BLOCK)
      if (tile[i])
        occupied += atomicAdd (grid + v0 + i, tile[i]) == 0;
  }
  occupied = TileReduce (temp).Sum (occupied);
  if (threadIdx.x == 0 && occupied)
    atomicAdd (&stats->occupied, (unsigned long long) occupied);
}

/* Shared memory of pass 2 (the block's counts, places and runs a tile,
 * and its points) and pass 3 (a tile's counts). */
static size_t
place_shared_bytes (uint32_t n_tiles, int k)
{
  return (3 * (size_t) n_tiles + (size_t) KEY_BLOCK * k) * sizeof (uint32_t);
}

#define TILE_SHARED_BYTES (TILE_VOXELS * sizeof (uint32_t))

rc_status
voxelize_partition_counts (const rc_point_layout * layout,
    const rc_voxel_grid * grid, const uint8_t * cloud, uint64_t n_points,
    uint32_t * counts, const call_scratch * cs, device_stats * all_stats,
    uint32_t n_clouds, device_stats * stats, bool early, cudaStream_t s,
    bool *done)
{
  uint64_t n_voxels = rc_voxel_grid_n_voxels (grid);
  uint32_t n_tiles = (uint32_t) rc_voxel_count_tiles (n_voxels);
  partition p = find_partition (cs->partition, n_tiles, n_points);
  int k = key_points_per_thread (n_points), dev = 0, most = 0;
  unsigned key_blocks = (unsigned) ((n_points + (uint64_t) KEY_BLOCK * k -
          1) / ((uint64_t) KEY_BLOCK * k));
  /* At most one further block for each CROWDED_POINTS points. */
  uint32_t n_extra = (uint32_t) (n_points / CROWDED_POINTS);
  bool packed = xyz_is_packed_float (layout, cloud);
  rc_status ret;

  *done = false;
  ret = rc_check_cuda (cudaGetDevice (&dev));
  if (ret == RC_OK)
    ret = rc_check_cuda (cudaDeviceGetAttribute (&most,
            cudaDevAttrMaxSharedMemoryPerBlockOptin, dev));
  /* GPUs of less shared memory a block (sm_86, sm_89) bin with atomics. */
  if (ret != RC_OK || (size_t) most < TILE_SHARED_BYTES + 1024 ||
      (size_t) most < place_shared_bytes (n_tiles, KEY_MAX_POINTS) + 1024)
    return ret;
  *done = true;
  ret = rc_check_cuda (cudaFuncSetAttribute (place_points,
          cudaFuncAttributeMaxDynamicSharedMemorySize,
          (int) place_shared_bytes (n_tiles, KEY_MAX_POINTS)));
  if (ret == RC_OK)
    ret = rc_check_cuda (cudaFuncSetAttribute (count_tiles,
            cudaFuncAttributeMaxDynamicSharedMemorySize,
            (int) TILE_SHARED_BYTES));
  if (ret == RC_OK)
    ret = voxelize_launch_clear (NULL, 0, 1, 0, p.totals, 2 * n_tiles,
        all_stats, n_clouds, cs->header, 0, false, 2 * n_tiles, s);
  if (ret == RC_OK)
    ret = rc_launch_shared (early, key_blocks, KEY_BLOCK,
        n_tiles * sizeof (uint32_t), s, packed ? key_points < true > :
        key_points < false >, *layout, *grid, cloud, n_points, k, p.voxels,
        p.totals, n_tiles, stats);
  if (ret == RC_OK)
    ret = rc_launch_shared (early, key_blocks, KEY_BLOCK,
        place_shared_bytes (n_tiles, k), s, place_points,
        (const uint32_t *) p.voxels, n_points, k, (const uint32_t *) p.totals,
        p.taken, n_tiles, p.places, p.starts, p.extra_first, counts,
        n_voxels);
  if (ret == RC_OK)
    ret = rc_launch_shared (early, n_extra + n_tiles, TILE_BLOCK,
        TILE_SHARED_BYTES, s, count_tiles, (const uint16_t *) p.places,
        (const uint32_t *) p.starts, (const uint32_t *) p.totals,
        (const uint32_t *) p.extra_first, n_tiles, n_extra, counts,
        n_voxels, stats);
  return ret;
}
