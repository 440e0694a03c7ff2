/* Sparse voxels and pillars on the GPU, byte for byte those of sparse.c.
 *
 * The CPU walks the points in order; here the same choice is made in
 * parallel, so that no output byte depends on the order threads run in:
 *   1. locate: each point's cell; per cell (cleared first) atomicMin of
 *      the point index (each cell's first point) and atomicAdd of one
 *      (its point count; the old value is the point's place in the cell's
 *      bucket, in arrival order), a warp's run of neighbouring points in
 *      one cell in one atomic each;
 *   2. one exclusive scan over the points of (1, the cell's count) at
 *      each cell's first point: the high half ranks the voxels in the
 *      order they were first reached (the CPU's slot numbers, slots >= M
 *      dropped), the low half is where each voxel's bucket starts, the
 *      buckets in slot order.  One launch writes the items, each tile's
 *      total and (by an atomic a tile) each group of tiles' total, a
 *      second scans each tile from the totals of the groups before its
 *      own and of its group's tiles before it: where CUB's device scan
 *      took two launches, its tiles each waiting on the one before (4
 *      million points 253 against 278 us, run 190, H200);
 *   3. place: each point of a kept voxel goes to its bucket at its place;
 *   4. a warp per slot sorts its bucket (a bitonic sort in registers up
 *      to 32 points, else the smallest indices 32 at a time), which gives
 *      the first K points in input order whatever the arrival order was,
 *      and writes their channels (the mean summed in row order, as
 *      sparse.c adds them), the coordinates, the count and the zero
 *      padding, 16 bytes a store: every output byte once.
 * Six launches, no sort over the whole cloud; on Hopper and later each
 * after the first is a programmatic dependent of the one before, so that
 * its launch and start overlap that grid's last blocks.  Scratch is laid
 * out once from the largest cloud; nothing is allocated per call. */
#include "dependent-launch.cuh"
#include "launch-bounds.cuh"
#include "internal.h"
#include "sparse-math.h"
#include "warp-runs.cuh"
#include "wide-stores.cuh"

#include <cuda_runtime.h>
#include <cub/block/block_load.cuh>
#include <cub/block/block_reduce.cuh>
#include <cub/block/block_scan.cuh>
#include <cub/block/block_store.cuh>

#define BLOCK 256
#define ALIGN 256
#define FULL 0xffffffffu
#define SCAN_ITEMS 4            /* step 2's items per thread */
#define SCAN_TILE (BLOCK * SCAN_ITEMS)
/* Clouds larger than this look before a cell's first-point atomic
 * (add_to_cell). */
#define SPARSE_LOOK_POINTS 524288u

typedef unsigned long long u64;

/* rc_sparse_stats on the device, filled by atomics. */
typedef struct
{
  u64 in_grid, out_of_range, invalid, voxels, dropped_voxels, dropped_points;
} device_stats;

static_assert (sizeof (device_stats) == sizeof (rc_sparse_stats),
    "stats layouts must match for the copy back");

/* Where each piece of the scratch starts, for clouds of up to @n points. */
typedef struct
{
  device_stats *stats;
  uint2 *cells;                 /* per cell: first point (or NONE), count */
  uint32_t *cell;               /* per point: its cell, or NONE */
  uint32_t *place;              /* per point: its place in its bucket */
  u64 *prefix;                  /* per point + 1: step 2's items, then
                                   their scan, in place */
  u64 *tile_total;              /* per tile of step 2's items: their sum */
  u64 *group_total;             /* per group of tiles: their sum */
  uint32_t *bucket;             /* kept voxels' points, by slot */
  uint32_t *sorted;             /* beside bucket: the first K, in order, of
                                   voxels of more than 32 points */
  uint4 *slot;                  /* per slot: bucket start, count, cell */
  uint64_t total;
} scratch_layout;

static uint64_t
align_up (uint64_t n)
{
  return (n + ALIGN - 1) / ALIGN * ALIGN;
}

/* The tiles of step 2's n + 1 items. */
static uint64_t
scan_tiles (uint64_t n)
{
  return (n + 1 + SCAN_TILE - 1) / SCAN_TILE;
}

/* Step 2's tiles a group, as a power of two: the smallest whose square
 * covers the tiles, so that a tile adds up at most about twice the square
 * root of the tiles' totals (those of the groups before its own, and of
 * its group's tiles before it), where adding up every tile before it grew
 * as the square of the tiles. */
static uint32_t
scan_group_shift (uint64_t tiles)
{
  uint32_t shift = 0;

  while ((1ull << (2 * shift)) < tiles)
    shift++;
  return shift;
}

/* The groups of step 2's tiles.  A smaller cloud may have more groups
 * than a larger one (fewer tiles a group): the scratch, laid out for the
 * largest cloud, holds a group total a tile. */
static uint64_t
scan_groups (uint64_t n)
{
  uint64_t tiles = scan_tiles (n);
  uint32_t shift = scan_group_shift (tiles);

  return (tiles + (1ull << shift) - 1) >> shift;
}

/* Lays out @base (NULL: only counts) for clouds of up to @n points. */
static rc_status
layout_scratch (const rc_sparse_params * p, uint64_t n, uint8_t * base,
    scratch_layout * l)
{
  uint64_t cells = rc_voxel_grid_n_voxels (&p->grid), at = 0;
  uint32_t **per_point[] = { &l->cell, &l->place, &l->bucket, &l->sorted };

#define TAKE(ptr, type, bytes) \
  do { (ptr) = (type) (base ? base + at : NULL); at += align_up (bytes); } \
  while (0)
  TAKE (l->stats, device_stats *, sizeof (device_stats));
  TAKE (l->cells, uint2 *, cells * sizeof (uint2));
  for (unsigned i = 0; i < sizeof (per_point) / sizeof (per_point[0]); i++)
    TAKE (*per_point[i], uint32_t *, n * 4);
  TAKE (l->prefix, u64 *, (n + 1) * sizeof (u64));
  TAKE (l->tile_total, u64 *, scan_tiles (n) * sizeof (u64));
  TAKE (l->group_total, u64 *, scan_tiles (n) * sizeof (u64));
  TAKE (l->slot, uint4 *, (uint64_t) p->max_voxels * sizeof (uint4));
#undef TAKE
  l->total = at;
  return RC_OK;
}

extern "C" rc_status
rc_sparse_cuda_scratch_size (const rc_point_layout * layout,
    const rc_sparse_params * params, uint64_t max_points, uint64_t * size)
{
  scratch_layout l;
  rc_status ret;

  if (!size || rc_sparse_check (layout, params) != RC_OK ||
      max_points >= RC_SPARSE_NONE || max_points > INT32_MAX - 1)
    return RC_ERROR_INVALID_ARGUMENT;
  ret = layout_scratch (params, max_points, NULL, &l);
  /* Room to align a base that is not 256-byte aligned. */
  *size = l.total + ALIGN;
  return ret;
}

/* Every cell empty, the statistics and step 2's group totals zero. */
__global__ static void
clear_cells (uint2 * __restrict__ cells, uint64_t n_cells,
    u64 * __restrict__ group_total, uint64_t n_groups, device_stats * stats)
{
  uint64_t i = (uint64_t) blockIdx.x * blockDim.x + threadIdx.x;
  uint64_t stride = (uint64_t) gridDim.x * blockDim.x;

  LET_DEPENDENTS_START ();
  if (i == 0) {
    device_stats zero = { 0, 0, 0, 0, 0, 0 };
    *stats = zero;
  }
  for (uint64_t g = i; g < n_groups; g += stride)
    group_total[g] = 0;
  for (; i < n_cells; i += stride)
    cells[i] = make_uint2 (RC_SPARSE_NONE, 0);
}

__device__ static void
count_block (u64 * counter, bool mine)
{
  int n = __syncthreads_count (mine);

  if (threadIdx.x == 0 && n)
    atomicAdd (counter, (u64) n);
}

/* TRUE when x, y, z and the layout's fields are float32 at 4-byte
 * aligned offsets of 4-byte aligned points (KITTI, most drivers): then
 * they are read as aligned loads, not through the generic per-type
 * reader, whose byte loads and type switch were most of a row's work. */
static bool
fields_are_aligned_floats (const rc_point_layout * layout, const void *points)
{
  const rc_field *fields[3 + RC_VOXELIZE_MAX_FEATURES] =
      { &layout->x, &layout->y, &layout->z };

  for (uint32_t f = 0; f < layout->n_features; f++)
    fields[3 + f] = &layout->features[f];
  for (uint32_t f = 0; f < 3 + layout->n_features; f++) {
    if (fields[f]->type != RC_TYPE_FLOAT32 || fields[f]->offset % 4 != 0)
      return false;
  }
  return layout->point_step % 4 == 0 && ((uintptr_t) points & 3) == 0;
}

/* One field of @point as a float, as (float) rc_load_field gives it. */
template < bool FLOATS >
__device__ static float
load_field (const uint8_t * point, rc_field field)
{
  if (FLOATS)
    return *(const float *) (point + field.offset);
  return (float) rc_load_field (point, field);
}

/* One coordinate of @point in double, as the CPU locates it: a float64 or
 * integer coordinate rounded to float first could cross a voxel face. */
template < bool FLOATS >
__device__ static double
load_coord (const uint8_t * point, rc_field field)
{
  if (FLOATS)
    return *(const float *) (point + field.offset);
  return rc_load_field (point, field);
}

/* Point @p (@mine when in the grid) into cell @v: the cell's first
 * point and count, the point's place in the cell's bucket.  A run of
 * neighbouring lanes in one cell (a sweep in scan order: a wall or the
 * ground near the sensor fills a pillar with dozens of neighbours) adds
 * its count in one atomic from its first lane, which also holds the run's
 * smallest index; its lanes take consecutive places from the old count.
 * 4 million points ring by ring 155 us against 227, column by column 271
 * against 308; points in no order unchanged (run 190, H200).  With @look
 * (clouds of more than SPARSE_LOOK_POINTS), whose cells are crowded, the
 * count comes first and a cell reached before skips the first point's
 * atomic where L1 shows an earlier one: 4 million points 250.8 us
 * against 256.9 in no order, 257.8 against 270.6 column by column, 1 and
 * 2 million 2 to 4 % faster (run 198, H200, call 212).  Smaller clouds
 * were 0.3 to 0.6 us slower so (call 211): the atomic then waits on the
 * count.  Every lane of the warp calls it. */
__device__ static void
add_to_cell (bool mine, uint32_t p, uint64_t v, uint32_t * __restrict__ place,
    uint2 * __restrict__ cells, bool look)
{
  unsigned end, lane = threadIdx.x % 32;
  bool runs, head = find_run (mine, v, &end, &runs);
  uint32_t first = 0;

  if (head && !look) {
    atomicMin (&cells[v].x, p);
    first = atomicAdd (&cells[v].y, end - lane);
  } else if (head) {
    /* A cell reached before has a first point; where a load through L1
     * shows one before @p, the atomic would change nothing.  A first
     * point only ever falls, so a stale look costs only the atomic. */
    first = atomicAdd (&cells[v].y, end - lane);
    if (first == 0 || __ldca (&cells[v].x) > p)
      atomicMin (&cells[v].x, p);
  }
  /* Warp-uniform: a warp of one-point runs (a cloud in no order) skips
   * the ballot and shuffle. */
  if (runs) {
    unsigned h = run_head (__ballot_sync (FULL, head));

    first = __shfl_sync (FULL, first, h) + (lane - h);
  }
  if (mine)
    place[p] = first;
}

/* Step 1: each point's cell and place, each cell's first point and
 * count. */
template < bool FLOATS >
__global__ static void
locate_points (const __grid_constant__ rc_point_layout layout,
    const __grid_constant__ rc_voxel_grid grid,
    const uint8_t * __restrict__ points, uint32_t n,
    uint32_t * __restrict__ cell, uint32_t * __restrict__ place,
    uint2 * __restrict__ cells, device_stats * stats, bool look)
{
  uint32_t p = blockIdx.x * blockDim.x + threadIdx.x;
  int where = -1;
  uint64_t v = 0;

  LET_DEPENDENTS_START ();
  if (p < n) {
    const uint8_t *point = points + (uint64_t) p * layout.point_step;

    where = rc_voxel_locate_xyz (load_coord < FLOATS > (point, layout.x),
        load_coord < FLOATS > (point, layout.y),
        load_coord < FLOATS > (point, layout.z), &grid, &v);
    cell[p] = where == RC_POINT_IN_GRID ? (uint32_t) v : RC_SPARSE_NONE;
  }
  /* The points read and located while the clear ran; the cells and the
   * statistics are the clear's. */
  WAIT_FOR_PREVIOUS_GRID ();
  add_to_cell (where == RC_POINT_IN_GRID, p, v, place, cells, look);
  count_block (&stats->in_grid, where == RC_POINT_IN_GRID);
  count_block (&stats->out_of_range, where == RC_POINT_OUT_OF_RANGE);
  count_block (&stats->invalid, where == RC_POINT_INVALID);
}

/* Step 2's items: for each point (and 0 after the last), at a voxel's
 * first point the voxel and its point count, else nothing; and the sum of
 * each tile's items, also added to its group's (2^@group_shift tiles).  A
 * thread marks every BLOCK-th point of its tile, so that each round of
 * loads is coalesced. */
__global__ static void
mark_starts (const uint32_t * __restrict__ cell,
    const uint2 * __restrict__ cells, uint32_t n, u64 * __restrict__ item,
    u64 * __restrict__ tile_total, u64 * __restrict__ group_total,
    uint32_t group_shift)
{
  typedef cub::BlockReduce < u64, BLOCK > reduce_t;
  __shared__ typename reduce_t::TempStorage reduce;
  uint64_t tile = (uint64_t) blockIdx.x * SCAN_TILE;
  u64 sum = 0;

  LET_DEPENDENTS_START ();
  WAIT_FOR_PREVIOUS_GRID ();
#pragma unroll
  for (uint32_t k = 0; k < SCAN_ITEMS; k++) {
    uint64_t p = tile + k * BLOCK + threadIdx.x;
    uint32_t c = p < n ? cell[p] : RC_SPARSE_NONE;
    u64 mark = 0;

    if (c != RC_SPARSE_NONE) {
      uint2 e = cells[c];

      mark = e.x == p ? (1ull << 32) | e.y : 0;
    }
    if (p <= n)
      item[p] = mark;
    sum += mark;
  }
  sum = reduce_t (reduce).Sum (sum);
  if (threadIdx.x == 0) {
    tile_total[blockIdx.x] = sum;
    atomicAdd (&group_total[blockIdx.x >> group_shift], sum);
  }
}

/* Step 2's scan, in place: each tile's items scanned from the sum of the
 * groups before its own and of its group's tiles before it. */
__global__ static void
scan_items (u64 * __restrict__ item, const u64 * __restrict__ tile_total,
    const u64 * __restrict__ group_total, uint32_t group_shift, uint32_t n)
{
  typedef cub::BlockLoad < u64, BLOCK, SCAN_ITEMS,
      cub::BLOCK_LOAD_TRANSPOSE > load_t;
  typedef cub::BlockStore < u64, BLOCK, SCAN_ITEMS,
      cub::BLOCK_STORE_TRANSPOSE > store_t;
  typedef cub::BlockScan < u64, BLOCK > scan_t;
  typedef cub::BlockReduce < u64, BLOCK > reduce_t;
  __shared__ union
  {
    typename load_t::TempStorage load;
    typename store_t::TempStorage store;
    typename scan_t::TempStorage scan;
    typename reduce_t::TempStorage reduce;
  } temp;
  __shared__ u64 carry;
  uint64_t first = (uint64_t) blockIdx.x * SCAN_TILE;
  int valid = (int) min ((uint64_t) SCAN_TILE, (uint64_t) n + 1 - first);
  uint32_t group = blockIdx.x >> group_shift;
  u64 v[SCAN_ITEMS], before = 0;

  LET_DEPENDENTS_START ();
  WAIT_FOR_PREVIOUS_GRID ();
  for (uint32_t g = threadIdx.x; g < group; g += BLOCK)
    before += group_total[g];
  for (uint32_t t = (group << group_shift) + threadIdx.x; t < blockIdx.x;
      t += BLOCK)
    before += tile_total[t];
  before = reduce_t (temp.reduce).Sum (before);
  if (threadIdx.x == 0)
    carry = before;
  __syncthreads ();
  load_t (temp.load).Load (item + first, v, valid, 0ull);
  __syncthreads ();
  scan_t (temp.scan).ExclusiveSum (v, v);
#pragma unroll
  for (uint32_t k = 0; k < SCAN_ITEMS; k++)
    v[k] += carry;
  __syncthreads ();
  store_t (temp.store).Store (item + first, v, valid);
}

/* Step 3: each point of a kept voxel into its bucket; each voxel's first
 * point describes its slot.  Points of voxels beyond M are counted. */
__global__ static void
place_points (const uint32_t * __restrict__ cell,
    const uint32_t * __restrict__ place, const uint2 * __restrict__ cells,
    const u64 * __restrict__ prefix, uint32_t n, uint32_t m,
    uint32_t * __restrict__ bucket, uint4 * __restrict__ slot,
    device_stats * stats)
{
  uint32_t p = blockIdx.x * blockDim.x + threadIdx.x, c;
  bool dropped = false;

  LET_DEPENDENTS_START ();
  WAIT_FOR_PREVIOUS_GRID ();
  c = p < n ? cell[p] : RC_SPARSE_NONE;
  if (c != RC_SPARSE_NONE) {
    uint2 e = cells[c];
    u64 r = prefix[e.x];
    uint32_t s = (uint32_t) (r >> 32), start = (uint32_t) r;

    dropped = s >= m;
    if (!dropped) {
      bucket[start + place[p]] = p;
      if (e.x == p)
        slot[s] = make_uint4 (start, e.y, c, 0);
    }
  }
  count_block (&stats->dropped_points, dropped);
}

/* A bitonic sort of one value per lane across the warp, ascending by
 * lane (or descending). */
__device__ static uint32_t
warp_sort (uint32_t v, bool descending)
{
  uint32_t lane = threadIdx.x % 32;

#pragma unroll
  for (uint32_t k = 2; k <= 32; k <<= 1) {
#pragma unroll
    for (uint32_t j = k >> 1; j > 0; j >>= 1) {
      uint32_t o = __shfl_xor_sync (FULL, v, j);
      bool up = ((lane & k) == 0) != descending, low = (lane & j) == 0;

      v = low == up ? min (v, o) : max (v, o);
    }
  }
  return v;
}

/* A bitonic sequence across the warp, sorted ascending. */
__device__ static uint32_t
warp_merge (uint32_t v)
{
  uint32_t lane = threadIdx.x % 32;

#pragma unroll
  for (uint32_t j = 16; j > 0; j >>= 1) {
    uint32_t o = __shfl_xor_sync (FULL, v, j);

    v = (lane & j) == 0 ? min (v, o) : max (v, o);
  }
  return v;
}

/* The 32 smallest of @v and the sorted @best (their union's, sorted):
 * @v sorted the other way, the lane-wise minimum holds the 32 smallest as
 * a bitonic sequence. */
__device__ static uint32_t
keep_smallest (uint32_t best, uint32_t v)
{
  return warp_merge (min (best, warp_sort (v, true)));
}

#define UNROLL 4

/* The @keep smallest of the @count indices in @bucket, ascending, into
 * @sorted: 32 at a time, each round the 32 smallest above the last
 * round's.  Chunks without a candidate cost a load and a vote. */
__device__ static void
select_smallest (const uint32_t * bucket, uint32_t count, uint32_t keep,
    uint32_t * sorted)
{
  uint32_t lane = threadIdx.x % 32, floor = 0;

  for (uint32_t done = 0; done < keep; done += 32) {
    uint32_t best = RC_SPARSE_NONE;

    for (uint32_t base = 0; base < count; base += 32 * UNROLL) {
      uint32_t v[UNROLL];

#pragma unroll
      for (int u = 0; u < UNROLL; u++) {
        uint32_t i = base + 32 * u + lane;

        v[u] = i < count ? bucket[i] : RC_SPARSE_NONE;
      }
#pragma unroll
      for (int u = 0; u < UNROLL; u++) {
        uint32_t x = v[u] >= floor ? v[u] : RC_SPARSE_NONE;

        if (__any_sync (FULL, x < __shfl_sync (FULL, best, 31)))
          best = keep_smallest (best, x);
      }
    }
    if (done + lane < keep)
      sorted[done + lane] = best;
    floor = __shfl_sync (FULL, best, 31) + 1;
  }
  __syncwarp ();
}

/* The index of a slot's row base + lane in input order (NONE past
 * @keep): from @first for the first 32 rows, from @sorted after. */
__device__ static uint32_t
row_point (uint32_t base, uint32_t first, const uint32_t * sorted,
    uint32_t keep)
{
  uint32_t k = base + threadIdx.x % 32;

  if (k >= keep)
    return RC_SPARSE_NONE;
  return base == 0 ? first : sorted[k];
}

#define MAX_CHANNELS (3 + RC_VOXELIZE_MAX_FEATURES + 6)

/* The sums over the first @count lanes of x, y and z in @row, added in
 * lane order onto @sum; every lane gets the same sums.  The three axes in
 * one loop: one loop's control for three shuffles. */
template < int N >
__device__ static void
add_in_lane_order (float (&sum)[3], const float (&row)[N], uint32_t count)
{
  for (uint32_t j = 0; j < count; j++) {
#pragma unroll
    for (int a = 0; a < 3; a++)
      sum[a] = rc_sparse_fadd (sum[a], __shfl_sync (FULL, row[a], j));
  }
}

/* x, y, z and the layout's fields of point @p (zeros for NONE), as
 * rc_sparse_load_point gives them, with every index known at compile
 * time so that @row stays in registers.  FEATURES bounds the layout's
 * fields: the slot writers are built for one (x, y, z, intensity, the
 * common lidar layout) and for the most, since registers and
 * instructions for unused fields are what bound them. */
template < uint32_t FEATURES, bool FLOATS >
__device__ static void
load_raw (const uint8_t * points, uint32_t p, const rc_point_layout * layout,
    float row[3 + FEATURES])
{
  const uint8_t *point = points + (uint64_t) p * layout->point_step;

#pragma unroll
  for (uint32_t ch = 0; ch < 3 + FEATURES; ch++)
    row[ch] = 0.0f;
  if (p == RC_SPARSE_NONE)
    return;
  row[0] = load_field < FLOATS > (point, layout->x);
  row[1] = load_field < FLOATS > (point, layout->y);
  row[2] = load_field < FLOATS > (point, layout->z);
#pragma unroll
  for (uint32_t f = 0; f < FEATURES; f++) {
    if (f < layout->n_features)
      row[3 + f] = load_field < FLOATS > (point, layout->features[f]);
  }
}

/* The mean of the slot's first @keep points, summed in row order. */
template < uint32_t FEATURES, bool FLOATS >
__device__ static void
slot_mean (const rc_point_layout * layout, const uint8_t * points,
    uint32_t first, const uint32_t * sorted, uint32_t keep, float mean[3])
{
  float sum[3] = { 0.0f, 0.0f, 0.0f };

  for (uint32_t base = 0; base < keep; base += 32) {
    float row[3 + FEATURES];

    load_raw < FEATURES, FLOATS > (points, row_point (base, first, sorted,
            keep), layout, row);
    add_in_lane_order (sum, row, min (keep - base, 32u));
  }
#pragma unroll
  for (int a = 0; a < 3; a++)
    mean[a] = rc_sparse_fdiv (sum[a], (float) keep);
}

/* @count floats from @src (shared memory; NULL: zeros) to @dst by the
 * warp, 16 bytes a store where dst allows. */
__device__ static void
store_run (float *dst, const float *src, uint64_t count)
{
  /* A run of whole 16-byte units from a 16-byte aligned start (a slot of
   * 32 rows of 10 channels), the stage's units (a warp's stage is aligned)
   * copied as they are: 32-bit indices and one shared load a store, where
   * the general loop below took a word at a time in 64-bit arithmetic. */
  if (((uintptr_t) dst & 15) == 0 && count % 4 == 0 && count < (1ull << 32)) {
    uint32_t units = (uint32_t) (count / 4);

    for (uint32_t i = threadIdx.x % 32; i < units; i += 32)
      ((uint4 *) dst)[i] = src ? ((const uint4 *) src)[i] :
          make_uint4 (0, 0, 0, 0);
    return;
  }
  store_words < false, uint64_t > ((uint32_t *) dst, count,
      threadIdx.x % 32, 32, [=](uint64_t i) {
        return src ? __float_as_uint (src[i]) : 0u;
      });
}

/* What write_rows needs about a slot. */
typedef struct
{
  uint32_t keep, first;         /* rows with points; row 0's point */
  const uint32_t *sorted;
  float mean[3];
  uint32_t ijk[3];
} slot_rows;

/* A warp's slot rows, 32 at a time: each lane makes one row and leaves
 * it in the warp's part of shared memory, then the warp stores the 32
 * rows as one contiguous run; then the padding.  The values are
 * rc_sparse_decorate's; rows from @r->keep on are zeros. */
template < uint32_t FEATURES, bool FLOATS >
__device__ static void
write_rows (const rc_point_layout * layout, const rc_sparse_params * params,
    const uint8_t * points, slot_rows * r, float *rows)
{
  __shared__ __align__ (16) float stage[BLOCK / 32][32 * MAX_CHANNELS];
  float *mine = stage[threadIdx.x / 32];
  uint32_t lane = threadIdx.x % 32, k_max = params->max_points, base;
  uint32_t raw = 3 + layout->n_features, c = raw +
      rc_sparse_extra_channels (params->mode);
  uint32_t n_centre = params->mode == RC_SPARSE_PILLARS_10 ? 3 : 2;
  bool pillars = params->mode != RC_SPARSE_VOXELS;
  float centre[3];

#pragma unroll
  for (uint32_t a = 0; a < 3; a++)
    centre[a] = rc_sparse_centre (params->grid.origin[a],
        params->grid.voxel_size[a], r->ijk[a]);
  for (base = 0; base < r->keep; base += 32) {
    uint32_t k = base + lane, rows_here = min (k_max - base, 32u);
    float row[3 + FEATURES], *dst = mine + lane * c;

    load_raw < FEATURES, FLOATS > (points, row_point (base, r->first, r->sorted,
            r->keep), layout, row);
    /* Up to 32 points: the mean from the rows in hand. */
    if (pillars && r->keep <= 32) {
      float sum[3] = { 0.0f, 0.0f, 0.0f };

      add_in_lane_order (sum, row, r->keep);
#pragma unroll
      for (int a = 0; a < 3; a++)
        r->mean[a] = rc_sparse_fdiv (sum[a], (float) r->keep);
    }
    if (lane < rows_here) {
#pragma unroll
      for (uint32_t ch = 0; ch < 3 + FEATURES; ch++) {
        if (ch < raw)
          dst[ch] = row[ch];
      }
    }
    if (lane < rows_here && pillars) {
#pragma unroll
      for (uint32_t a = 0; a < 3; a++) {
        dst[raw + a] = k < r->keep ? rc_sparse_fsub (row[a], r->mean[a]) :
            0.0f;
        if (a < n_centre)
          dst[raw + 3 + a] = k < r->keep ? rc_sparse_fsub (row[a],
              centre[a]) : 0.0f;
      }
    }
    __syncwarp ();
    store_run (rows + (uint64_t) base * c, mine, (uint64_t) rows_here * c);
    __syncwarp ();
  }
  if (base < k_max)
    store_run (rows + (uint64_t) base * c, NULL, (uint64_t) (k_max - base) *
        c);
}

/* Step 4's first part: slot @s's bucket (@info) in input order, its cell
 * and count. */
__device__ static void
order_slot (const rc_sparse_params * params, uint4 info,
    const uint32_t * bucket, uint32_t * sorted, slot_rows * r)
{
  uint32_t lane = threadIdx.x % 32;

  r->keep = min (info.y, params->max_points);
  r->sorted = sorted + info.x;
  rc_sparse_cell_ijk (info.z, &params->grid, r->ijk);
  if (info.y <= 32) {
    uint32_t v = lane < info.y ? bucket[info.x + lane] : RC_SPARSE_NONE;
    uint32_t next = __shfl_down_sync (FULL, v, 1);

    /* Single points, and buckets that arrived in order, as they are. */
    r->first = __all_sync (FULL, lane == 31 || v <= next) ? v :
        warp_sort (v, false);
    return;
  }
  select_smallest (bucket + info.x, info.y, r->keep, sorted + info.x);
  r->first = lane < r->keep ? r->sorted[lane] : RC_SPARSE_NONE;
}

/* Slot @s's coordinates, (z, y, x), and its point count. */
__device__ static void
write_slot_head (const rc_sparse_output * out, uint64_t s,
    const slot_rows * r)
{
  uint32_t lane = threadIdx.x % 32;

  if (lane < 3)
    out->coords[s * 3 + lane] = (int32_t) (lane == 0 ? r->ijk[2] :
        lane == 1 ? r->ijk[1] : r->ijk[0]);
  if (lane == 0)
    out->num_points[s] = (int32_t) r->keep;
}

/* Step 4: a warp per slot writes its rows, coordinates and count, for
 * layouts of at most FEATURES fields. */
template < uint32_t FEATURES, bool FLOATS >
__global__ static void
/* Four blocks an SM, 64 registers: since ac48a47 faster than five (48
 * registers, 56 bytes spilled; 131,072 points 40.2 against 41.3 us, run
 * 189 on an H200) or six (40 registers, 48.2 us). */
__launch_bounds__ (BLOCK, RC_MIN_BLOCKS (BLOCK, 4))
write_slots (const __grid_constant__ rc_point_layout layout,
    const __grid_constant__ rc_sparse_params params,
    const uint8_t * __restrict__ points, uint32_t n,
    const u64 * __restrict__ prefix, const uint4 * __restrict__ slot,
    const uint32_t * __restrict__ bucket, uint32_t * __restrict__ sorted,
    const rc_sparse_output out, device_stats * stats)
{
  uint32_t lane = threadIdx.x % 32, m = params.max_voxels;
  /* Below max-voxels, itself below 2^31. */
  uint32_t s = blockIdx.x * (BLOCK / 32) + threadIdx.x / 32;
  uint32_t c = 3 + layout.n_features + rc_sparse_extra_channels (params.mode);
  uint32_t voxels, used;
  slot_rows r = { 0, RC_SPARSE_NONE, NULL, {0.0f, 0.0f, 0.0f}, {0, 0, 0} };
  uint4 info;

  WAIT_FOR_PREVIOUS_GRID ();
  voxels = (uint32_t) (prefix[n] >> 32);
  used = min (voxels, m);
  if (s == 0 && lane == 0) {
    *out.n_voxels = (int32_t) used;
    stats->voxels = voxels;
    stats->dropped_voxels = voxels - used;
  }
  if (s >= m)
    return;
  /* Loaded beside prefix[n]; slots from used on were not written. */
  info = slot[s];
  if (s >= used) {
    /* Most slots of a sparse sweep: zeros, and none of a voxel's work. */
    write_slot_head (&out, s, &r);
    store_run (out.features + (uint64_t) s * params.max_points * c, NULL,
        (uint64_t) params.max_points * c);
    return;
  }
  order_slot (&params, info, bucket, sorted, &r);
  if (lane == 0 && info.y > r.keep)
    atomicAdd (&stats->dropped_points, (u64) (info.y - r.keep));
  write_slot_head (&out, s, &r);
  if (params.mode != RC_SPARSE_VOXELS && r.keep > 32)
    slot_mean < FEATURES, FLOATS > (&layout, points, r.first, r.sorted, r.keep,
        r.mean);
  write_rows < FEATURES, FLOATS > (&layout, &params, points, &r,
      out.features + (uint64_t) s * params.max_points * c);
}

static unsigned
blocks_for (uint64_t n)
{
  return (unsigned) ((n + BLOCK - 1) / BLOCK);
}

/* Step 4's launch, for layouts of at most FEATURES fields. */
template < uint32_t FEATURES, bool FLOATS >
static rc_status
launch_write (const rc_point_layout * layout, const rc_sparse_params * p,
    const uint8_t * points, uint32_t n, const rc_sparse_output * out,
    const scratch_layout * l, bool dependent, cudaStream_t s)
{
  return rc_launch (dependent, blocks_for ((uint64_t) p->max_voxels * 32),
      BLOCK, s, write_slots < FEATURES, FLOATS >, *layout, *p, points, n,
      l->prefix, l->slot, l->bucket, l->sorted, *out, l->stats);
}

/* The six launches, each after the first a programmatic dependent of the
 * one before on Hopper and later (@dependent). */
static rc_status
launch_steps (const rc_point_layout * layout, const rc_sparse_params * p,
    const uint8_t * points, uint32_t n, const rc_sparse_output * out,
    const scratch_layout * l, bool dependent, cudaStream_t s)
{
  uint64_t cells = rc_voxel_grid_n_voxels (&p->grid);
  uint64_t clear = blocks_for (cells / 4 + 1), tiles = scan_tiles (n);
  uint32_t group_shift = scan_group_shift (tiles);
  bool floats = fields_are_aligned_floats (layout, points);
  bool few = layout->n_features <= 1;
  rc_status ret;

  ret = rc_launch (false, (unsigned) (clear > 4096 ? 4096 : clear), BLOCK, s,
      clear_cells, l->cells, cells, l->group_total, scan_groups (n),
      l->stats);
  if (ret == RC_OK && n > 0)
    ret = rc_launch (dependent, blocks_for (n), BLOCK, s, floats ?
        locate_points < true > : locate_points < false >, *layout, p->grid,
        points, n, l->cell, l->place, l->cells, l->stats,
        n > SPARSE_LOOK_POINTS);
  if (ret == RC_OK)
    ret = rc_launch (dependent, (unsigned) tiles, BLOCK, s, mark_starts,
        l->cell, l->cells, n, l->prefix, l->tile_total, l->group_total,
        group_shift);
  if (ret == RC_OK)
    ret = rc_launch (dependent, (unsigned) tiles, BLOCK, s, scan_items,
        l->prefix, l->tile_total, l->group_total, group_shift, n);
  if (ret == RC_OK && n > 0)
    ret = rc_launch (dependent, blocks_for (n), BLOCK, s, place_points,
        l->cell, l->place, l->cells, l->prefix, n, p->max_voxels, l->bucket,
        l->slot, l->stats);
  if (ret != RC_OK)
    return ret;
  if (few && floats)
    return launch_write < 1, true > (layout, p, points, n, out, l, dependent,
        s);
  if (few)
    return launch_write < 1, false > (layout, p, points, n, out, l,
        dependent, s);
  if (floats)
    return launch_write < RC_VOXELIZE_MAX_FEATURES, true > (layout, p,
        points, n, out, l, dependent, s);
  return launch_write < RC_VOXELIZE_MAX_FEATURES, false > (layout, p, points,
      n, out, l, dependent, s);
}

extern "C" rc_status
rc_sparse_voxelize_cuda (const rc_point_layout * layout,
    const rc_sparse_params * params, const void *points, uint64_t n_points,
    const rc_sparse_output * out, void *scratch, uint64_t scratch_size,
    rc_sparse_stats * stats, void *stream)
{
  cudaStream_t s = (cudaStream_t) stream;
  scratch_layout l;
  uint8_t *base;
  int major = 0;
  rc_status ret;

  if (rc_sparse_check (layout, params) != RC_OK || !out || !out->features ||
      !out->coords || !out->num_points || !out->n_voxels || !scratch ||
      (n_points > 0 && !points) || n_points > INT32_MAX - 1)
    return RC_ERROR_INVALID_ARGUMENT;
  base = (uint8_t *) align_up ((uintptr_t) scratch);
  ret = layout_scratch (params, n_points, base, &l);
  if (ret != RC_OK)
    return ret;
  if (l.total + (uint64_t) (base - (uint8_t *) scratch) > scratch_size)
    return RC_ERROR_INVALID_ARGUMENT;

  ret = rc_kernels_compute_major (&major);
  if (ret == RC_OK)
    ret = launch_steps (layout, params, (const uint8_t *) points,
        (uint32_t) n_points, out, &l, major >= 9, s);
  if (ret == RC_OK && stats)
    ret = rc_device_copy_async (stats, l.stats, sizeof (device_stats),
        RC_COPY_DEVICE_TO_HOST, stream);
  return ret;
}
