/* Sparse voxels and pillars on the GPU, byte for byte those of sparse.c.
 *
 * The CPU walks the points in order; here the same choice is made in
 * parallel with integer operations only, so that no output byte depends
 * on the order threads run in.  A point's voxel slot and its row in the
 * voxel are both counts of earlier points:
 *   1. tiles (one block per TILE_POINTS points in input order): each
 *      point's cell; within the tile, warps group equal cells
 *      (__match_any_sync) chunk after chunk in a shared hash table of
 *      per-warp counts, which gives each point its rank among the tile's
 *      points of its cell.  The tile's table of (cell, count) goes to
 *      scratch, and atomicMin of each cell's first point in the tile gives
 *      every cell its first point;
 *   2. an exclusive scan (CUB) of "this point is its cell's first" ranks
 *      the voxels in the order they were first reached: the CPU's slot
 *      numbers.  Slots >= M are dropped;
 *   3. a point's row is its rank in the tile plus its cell's counts in the
 *      tables of the earlier tiles, back to the tile of the cell's first
 *      point (and no further once K is reached): points with a row < K
 *      record themselves in their slot's list of K;
 *   4. a warp per slot writes its rows in order (the mean summed in row
 *      order, as sparse.c adds it), its coordinates and count, and the
 *      zero padding, 16 bytes a store: every output byte once.
 * Scratch is laid out once from the largest cloud; nothing is allocated
 * per call. */
#include "internal.h"
#include "sparse-math.h"

#include <cuda_runtime.h>
#include <cub/device/device_scan.cuh>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/transform_iterator.h>

#define BLOCK 256
#define ALIGN 256
#define FULL_MASK 0xffffffffu

/* A block per tile (sparse-math.h). */
#define TILE_WARPS RC_SPARSE_TILE_WARPS
#define TILE_CHUNKS RC_SPARSE_TILE_CHUNKS
#define TILE_POINTS RC_SPARSE_TILE_POINTS
#define TABLE_SIZE RC_SPARSE_TABLE_SIZE

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
  uint32_t *first;              /* per cell: its first point, or NONE */
  uint32_t *cell;               /* per point: its cell, or NONE */
  uint32_t *tile_rank;          /* per point: its rank in its tile's cell */
  uint32_t *slot;               /* per point + 1: first points before it */
  uint2 *tables;                /* per tile: TABLE_SIZE (cell, count) */
  uint32_t *members;            /* per slot: its first K points in order */
  uint32_t *counts;             /* per slot: its points stored */
  void *cub;
  size_t cub_bytes;
  uint64_t total;
} scratch_layout;

/* 1 where point @p is its cell's first, 0 elsewhere and after the last
 * point: the scan's input, computed as it reads. */
struct first_flag
{
  const uint32_t *cell, *first;
  uint32_t n;

  __device__ uint32_t operator() (uint32_t p) const
  {
    uint32_t c = p < n ? cell[p] : RC_SPARSE_NONE;

    return c != RC_SPARSE_NONE && first[c] == p;
  }
};

typedef thrust::transform_iterator < first_flag,
    thrust::counting_iterator < uint32_t >, uint32_t > flag_iterator;

static flag_iterator
flags_of (const uint32_t * cell, const uint32_t * first, uint32_t n)
{
  first_flag op = { cell, first, n };

  return flag_iterator (thrust::counting_iterator < uint32_t > (0), op);
}

static uint64_t
align_up (uint64_t n)
{
  return (n + ALIGN - 1) / ALIGN * ALIGN;
}

static uint64_t
tiles_for (uint64_t n)
{
  return (n + TILE_POINTS - 1) / TILE_POINTS;
}

/* Lays out @base (NULL: only counts) for clouds of up to @n points. */
static rc_status
layout_scratch (const rc_sparse_params * p, uint64_t n, uint8_t * base,
    scratch_layout * l)
{
  uint64_t cells = rc_voxel_grid_n_voxels (&p->grid), at = 0;
  uint32_t **per_point[] = { &l->cell, &l->tile_rank };
  rc_status ret;

  l->cub_bytes = 0;
  ret = rc_check_cuda (cub::DeviceScan::ExclusiveSum (NULL, l->cub_bytes,
          flags_of (NULL, NULL, 0), (uint32_t *) NULL, (int) n + 1));
  if (ret != RC_OK)
    return ret;
#define TAKE(ptr, type, bytes) \
  do { (ptr) = (type) (base ? base + at : NULL); at += align_up (bytes); } \
  while (0)
  TAKE (l->stats, device_stats *, sizeof (device_stats));
  TAKE (l->first, uint32_t *, cells * 4);
  for (unsigned i = 0; i < sizeof (per_point) / sizeof (per_point[0]); i++)
    TAKE (*per_point[i], uint32_t *, n * 4);
  TAKE (l->slot, uint32_t *, (n + 1) * 4);
  TAKE (l->tables, uint2 *, tiles_for (n) * TABLE_SIZE * sizeof (uint2));
  TAKE (l->members, uint32_t *, (uint64_t) p->max_voxels * p->max_points * 4);
  TAKE (l->counts, uint32_t *, (uint64_t) p->max_voxels * 4);
  TAKE (l->cub, void *, l->cub_bytes);
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

/* Every cell empty, every slot's count zero, the statistics zero. */
__global__ static void
clear_scratch (uint32_t * __restrict__ first, uint64_t cells,
    uint32_t * __restrict__ counts, uint32_t m, device_stats * stats)
{
  uint64_t i = (uint64_t) blockIdx.x * blockDim.x + threadIdx.x;
  uint64_t stride = (uint64_t) gridDim.x * blockDim.x;

  if (i == 0) {
    device_stats zero = { 0, 0, 0, 0, 0, 0 };
    *stats = zero;
  }
  for (uint64_t j = i; j < cells; j += stride)
    first[j] = RC_SPARSE_NONE;
  for (uint64_t j = i; j < m; j += stride)
    counts[j] = 0;
}

__device__ static void
count_block (u64 * counter, bool mine)
{
  int n = __syncthreads_count (mine);

  if (threadIdx.x == 0 && n)
    atomicAdd (counter, (u64) n);
}

/* Adds each lane's @v into @counter, one atomic a warp. */
__device__ static void
count_warp (u64 * counter, uint32_t v)
{
  for (int d = 16; d > 0; d /= 2)
    v += __shfl_xor_sync (FULL_MASK, v, d);
  if (threadIdx.x % 32 == 0 && v)
    atomicAdd (counter, (u64) v);
}

/* A tile's cells in shared memory: open addressing on the cell, and per
 * entry one byte of count per warp (only that warp writes its byte). */
typedef struct
{
  uint32_t keys[TABLE_SIZE];
  union
  {
    u64 all;
    uint8_t warp[TILE_WARPS];
  } counts[TABLE_SIZE];
} tile_table;

static_assert (TILE_WARPS * 32 == BLOCK && TILE_WARPS == 8 &&
    TILE_CHUNKS * 32 < 256 && TABLE_SIZE >= 2 * TILE_POINTS,
    "a warp's counts are the bytes of one 64-bit word");

/* The sum of the eight bytes of @v. */
__device__ static uint32_t
byte_sum (u64 v)
{
  v = (v & 0x00ff00ff00ff00ffull) + ((v >> 8) & 0x00ff00ff00ff00ffull);
  v = (v & 0x0000ffff0000ffffull) + ((v >> 16) & 0x0000ffff0000ffffull);
  return (uint32_t) ((v & 0xffffffffull) + (v >> 32));
}

/* @cell's entry in @keys, taking an empty one if it has none. */
__device__ static uint32_t
table_insert (uint32_t * keys, uint32_t cell)
{
  uint32_t i = rc_sparse_table_hash (cell);

  for (;;) {
    uint32_t old = atomicCAS (keys + i, RC_SPARSE_NONE, cell);
    if (old == RC_SPARSE_NONE || old == cell)
      return i;
    i = (i + 1) & (TABLE_SIZE - 1);
  }
}

/* @cell's count in a tile's table in scratch (0 if the tile has none). */
__device__ static uint32_t
table_count (const uint2 * table, uint32_t cell)
{
  uint32_t i = rc_sparse_table_hash (cell);

  for (;;) {
    uint2 e = table[i];
    if (e.x == cell)
      return e.y;
    if (e.x == RC_SPARSE_NONE)
      return 0;
    i = (i + 1) & (TABLE_SIZE - 1);
  }
}

/* One chunk of a warp's points, in order after the warp's earlier chunks:
 * the lanes of each cell in @t (@entry), and each lane's rank among the
 * warp's points of its cell so far (@rank). */
__device__ static void
rank_chunk (tile_table * t, uint32_t cell, uint32_t warp, uint32_t * entry,
    uint32_t * rank)
{
  uint32_t lane = threadIdx.x % 32;
  uint32_t group = __match_any_sync (FULL_MASK, cell);
  uint32_t leader = __ffs (group) - 1, e = 0, before = 0;

  if (cell != RC_SPARSE_NONE && lane == leader) {
    e = table_insert (t->keys, cell);
    before = t->counts[e].warp[warp];
    t->counts[e].warp[warp] = (uint8_t) (before + __popc (group));
  }
  *entry = __shfl_sync (FULL_MASK, e, leader);
  *rank = __shfl_sync (FULL_MASK, before, leader) +
      __popc (group & ((1u << lane) - 1));
  /* The next chunk's leader of a cell may be another lane. */
  __syncwarp ();
}

/* Point @p's cell, or NONE (beyond @n, outside the grid, not finite);
 * counted in @in, @out, @bad. */
__device__ static uint32_t
locate_cell (const rc_point_layout * layout, const rc_voxel_grid * grid,
    const uint8_t * points, uint32_t n, uint32_t p, uint32_t * in,
    uint32_t * out, uint32_t * bad)
{
  uint64_t v = 0;
  int where;

  if (p >= n)
    return RC_SPARSE_NONE;
  where = rc_voxel_locate (points + (uint64_t) p * layout->point_step,
      layout, grid, &v);
  *in += where == RC_POINT_IN_GRID;
  *out += where == RC_POINT_OUT_OF_RANGE;
  *bad += where == RC_POINT_INVALID;
  return where == RC_POINT_IN_GRID ? (uint32_t) v : RC_SPARSE_NONE;
}

/* Step 1: a block per tile. */
__global__ static void
rank_in_tiles (const __grid_constant__ rc_point_layout layout,
    const __grid_constant__ rc_voxel_grid grid,
    const uint8_t * __restrict__ points, uint32_t n,
    uint32_t * __restrict__ cell, uint32_t * __restrict__ tile_rank,
    uint32_t * first, uint2 * __restrict__ tables, device_stats * stats)
{
  __shared__ tile_table t;
  uint32_t warp = threadIdx.x / 32, in = 0, out = 0, bad = 0;
  uint32_t p0 = blockIdx.x * TILE_POINTS + warp * 32 * TILE_CHUNKS +
      threadIdx.x % 32;
  uint32_t c[TILE_CHUNKS], entry[TILE_CHUNKS], rank[TILE_CHUNKS];
  uint2 *table = tables + (uint64_t) blockIdx.x * TABLE_SIZE;

  for (uint32_t i = threadIdx.x; i < TABLE_SIZE; i += BLOCK) {
    t.keys[i] = RC_SPARSE_NONE;
    t.counts[i].all = 0;
  }
#pragma unroll
  for (int r = 0; r < TILE_CHUNKS; r++)
    c[r] = locate_cell (&layout, &grid, points, n, p0 + r * 32, &in, &out,
        &bad);
  __syncthreads ();
#pragma unroll
  for (int r = 0; r < TILE_CHUNKS; r++)
    rank_chunk (&t, c[r], warp, &entry[r], &rank[r]);
  __syncthreads ();

#pragma unroll
  for (int r = 0; r < TILE_CHUNKS; r++) {
    uint32_t p = p0 + r * 32;
    if (p >= n)
      continue;
    /* Plus the tile's earlier warps' points of the cell. */
    rank[r] += byte_sum (t.counts[entry[r]].all & ((1ull << (8 * warp)) -
            1));
    cell[p] = c[r];
    tile_rank[p] = rank[r];
    if (c[r] != RC_SPARSE_NONE && rank[r] == 0)
      atomicMin (first + c[r], p);
  }
  for (uint32_t i = threadIdx.x; i < TABLE_SIZE; i += BLOCK)
    table[i] = make_uint2 (t.keys[i], byte_sum (t.counts[i].all));
  count_warp (&stats->in_grid, in);
  count_warp (&stats->out_of_range, out);
  count_warp (&stats->invalid, bad);
}

/* Step 3: each point's row in its slot, from its rank in its tile and its
 * cell's counts in the earlier tiles. */
__global__ static void
place_points (const uint32_t * __restrict__ cell,
    const uint32_t * __restrict__ tile_rank,
    const uint32_t * __restrict__ first, const uint32_t * __restrict__ slot,
    const uint2 * __restrict__ tables, uint32_t n, uint32_t m,
    uint32_t k_max, uint32_t * __restrict__ members,
    uint32_t * __restrict__ counts, device_stats * stats)
{
  uint32_t p = blockIdx.x * blockDim.x + threadIdx.x;
  bool dropped = false;

  if (p < n && cell[p] != RC_SPARSE_NONE) {
    uint32_t c = cell[p], f = first[c], s = slot[f], row = tile_rank[p];

    /* The tiles before the first point's have none of the cell. */
    for (uint32_t u = p / TILE_POINTS; s < m && row < k_max &&
        u > f / TILE_POINTS; u--)
      row += table_count (tables + (uint64_t) (u - 1) * TABLE_SIZE, c);
    if (s < m && row < k_max) {
      members[(uint64_t) s * k_max + row] = p;
      atomicMax (counts + s, row + 1);
    } else {
      dropped = true;
    }
  }
  count_block (&stats->dropped_points, dropped);
}

#define MAX_CHANNELS (3 + RC_VOXELIZE_MAX_FEATURES + 6)
#define RAW_MAX (3 + RC_VOXELIZE_MAX_FEATURES)

/* x, y, z and the layout's fields of one point (rc_sparse_load_point's
 * values), with every index known at compile time so that @row stays in
 * registers. */
__device__ static void
load_raw (const uint8_t * point, const rc_point_layout * layout,
    float row[RAW_MAX])
{
  row[0] = (float) rc_load_field (point, layout->x);
  row[1] = (float) rc_load_field (point, layout->y);
  row[2] = (float) rc_load_field (point, layout->z);
#pragma unroll
  for (uint32_t f = 0; f < RC_VOXELIZE_MAX_FEATURES; f++) {
    if (f < layout->n_features)
      row[3 + f] = (float) rc_load_field (point, layout->features[f]);
  }
}

/* The warp stores @len floats at @dst from @src (shared memory; NULL:
 * zeros), 16 bytes a store between an unaligned head and tail. */
__device__ static void
warp_store (float *dst, const float *src, uint64_t len)
{
  uint32_t lane = threadIdx.x % 32;
  uint64_t head = ((16 - ((uintptr_t) dst & 15)) & 15) / 4, body, i;
  bool vec_src;

  head = head < len ? head : len;
  body = (len - head) / 4;
  vec_src = src && ((uintptr_t) (src + head) & 15) == 0;
  if (lane < head)
    dst[lane] = src ? src[lane] : 0.0f;
  for (i = lane; i < body; i += 32) {
    float4 v = make_float4 (0.0f, 0.0f, 0.0f, 0.0f);
    if (src) {
      const float *s = src + head + 4 * i;
      v = vec_src ? *(const float4 *) s : make_float4 (s[0], s[1], s[2],
          s[3]);
    }
    ((float4 *) (dst + head))[i] = v;
  }
  i = head + body * 4 + lane;
  if (i < len)
    dst[i] = src ? src[i] : 0.0f;
}

/* The mean of the slot's @count points (@index, in row order), summed in
 * row order as sparse.c sums them: each lane adds every value, read back
 * from shared memory. */
__device__ static void
slot_mean (const rc_point_layout * layout, const uint8_t * points,
    const uint32_t * index, uint32_t count, float mean[3])
{
  __shared__ float xyz[BLOCK / 32][3][32];
  float (*mine)[32] = xyz[threadIdx.x / 32];
  uint32_t lane = threadIdx.x % 32;
  float sum[3] = { 0.0f, 0.0f, 0.0f };

  for (uint32_t base = 0; base < count; base += 32) {
    uint32_t here = min (count - base, 32u);
    if (lane < here) {
      const uint8_t *point = points + (uint64_t) index[base + lane] *
          layout->point_step;
      mine[0][lane] = (float) rc_load_field (point, layout->x);
      mine[1][lane] = (float) rc_load_field (point, layout->y);
      mine[2][lane] = (float) rc_load_field (point, layout->z);
    }
    __syncwarp ();
    for (uint32_t j = 0; j < here; j++)
      for (int a = 0; a < 3; a++)
        sum[a] = rc_sparse_fadd (sum[a], mine[a][j]);
    __syncwarp ();
  }
  for (int a = 0; a < 3; a++)
    mean[a] = rc_sparse_fdiv (sum[a], (float) count);
}

/* One row in @dst: rc_sparse_decorate's values for @row, the point's raw
 * channels (zeros if it has no point). */
__device__ static void
make_row (const float row[RAW_MAX], bool live, uint32_t raw,
    const rc_sparse_params * params, const float mean[3],
    const uint32_t ijk[3], float *dst)
{
  uint32_t n_centre = params->mode == RC_SPARSE_PILLARS_10 ? 3 : 2;

#pragma unroll
  for (uint32_t ch = 0; ch < RAW_MAX; ch++) {
    if (ch < raw)
      dst[ch] = row[ch];
  }
  if (params->mode == RC_SPARSE_VOXELS)
    return;
#pragma unroll
  for (uint32_t a = 0; a < 3; a++) {
    dst[raw + a] = live ? rc_sparse_fsub (row[a], mean[a]) : 0.0f;
    if (a < n_centre)
      dst[raw + 3 + a] = live ? rc_sparse_fsub (row[a],
          rc_sparse_centre (params->grid.origin[a],
              params->grid.voxel_size[a], ijk[a])) : 0.0f;
  }
}

/* A slot's K rows, 32 at a time: each lane makes one row in the warp's
 * part of shared memory, then the warp stores the rows as one run; rows
 * from @count on are zeros. */
__device__ static void
write_rows (const rc_point_layout * layout, const rc_sparse_params * params,
    const uint8_t * points, const uint32_t * index, uint32_t count,
    uint32_t c, const float mean[3], const uint32_t ijk[3], float *rows)
{
  __shared__ __align__ (16) float stage[BLOCK / 32][32 * MAX_CHANNELS];
  float *mine = stage[threadIdx.x / 32];
  uint32_t lane = threadIdx.x % 32, k_max = params->max_points, base;
  uint32_t raw = 3 + layout->n_features;

  for (base = 0; base < count; base += 32) {
    uint32_t k = base + lane, rows_here = min (k_max - base, 32u);
    float row[RAW_MAX];

#pragma unroll
    for (uint32_t ch = 0; ch < RAW_MAX; ch++)
      row[ch] = 0.0f;
    if (k < count)
      load_raw (points + (uint64_t) index[k] * layout->point_step, layout,
          row);
    if (lane < rows_here)
      make_row (row, k < count, raw, params, mean, ijk, mine + lane * c);
    __syncwarp ();
    warp_store (rows + (uint64_t) base * c, mine, (uint64_t) rows_here * c);
    __syncwarp ();
  }
  /* The padding after the last run that held points. */
  if (base < k_max)
    warp_store (rows + (uint64_t) base * c, NULL,
        (uint64_t) (k_max - base) * c);
}

/* Step 4: a warp per slot writes its rows, coordinates and count. */
__global__ static void
write_slots (const __grid_constant__ rc_point_layout layout,
    const __grid_constant__ rc_sparse_params params,
    const uint8_t * __restrict__ points, uint32_t n,
    const uint32_t * __restrict__ cell, const uint32_t * __restrict__ slot,
    const uint32_t * __restrict__ members,
    const uint32_t * __restrict__ counts, const rc_sparse_output out,
    device_stats * stats)
{
  uint32_t lane = threadIdx.x % 32;
  uint64_t s = ((uint64_t) blockIdx.x * blockDim.x + threadIdx.x) / 32;
  uint32_t m = params.max_voxels, k_max = params.max_points;
  uint32_t c = 3 + layout.n_features + rc_sparse_extra_channels (params.mode);
  uint32_t voxels = slot[n], count;
  float mean[3] = { 0.0f, 0.0f, 0.0f };
  uint32_t ijk[3] = { 0, 0, 0 };
  const uint32_t *index;

  if (s == 0 && lane == 0) {
    *out.n_voxels = (int32_t) min (voxels, m);
    stats->voxels = voxels;
    stats->dropped_voxels = voxels - min (voxels, m);
  }
  if (s >= m)
    return;
  /* Every kept slot holds its first point, row 0. */
  index = members + s * k_max;
  count = counts[s];
  if (count > 0)
    rc_sparse_cell_ijk (cell[index[0]], &params.grid, ijk);
  if (lane < 3)
    out.coords[s * 3 + lane] = (int32_t) ijk[2 - lane];
  if (lane == 0)
    out.num_points[s] = (int32_t) count;
  if (params.mode != RC_SPARSE_VOXELS && count > 0)
    slot_mean (&layout, points, index, count, mean);
  write_rows (&layout, &params, points, index, count, c, mean, ijk,
      out.features + s * k_max * c);
}

static unsigned
blocks_for (uint64_t n)
{
  return (unsigned) ((n + BLOCK - 1) / BLOCK);
}

/* Steps 1 and 2. */
static rc_status
rank_voxels (const rc_point_layout * layout, const rc_sparse_params * p,
    const uint8_t * points, uint32_t n, const scratch_layout * l,
    cudaStream_t s)
{
  uint64_t cells = rc_voxel_grid_n_voxels (&p->grid);
  uint64_t most = cells > p->max_voxels ? cells : p->max_voxels;
  uint64_t clear = blocks_for (most / 4 + 1);
  size_t bytes = l->cub_bytes;
  rc_status ret;

  clear_scratch <<< (unsigned) (clear > 4096 ? 4096 : clear), BLOCK, 0, s >>>
      (l->first, cells, l->counts, p->max_voxels, l->stats);
  ret = rc_check_launch ();
  if (ret == RC_OK && n > 0) {
    rank_in_tiles <<< (unsigned) tiles_for (n), BLOCK, 0, s >>> (*layout,
        p->grid, points, n, l->cell, l->tile_rank, l->first, l->tables,
        l->stats);
    ret = rc_check_launch ();
  }
  if (ret != RC_OK)
    return ret;
  return rc_check_cuda (cub::DeviceScan::ExclusiveSum (l->cub, bytes,
          flags_of (l->cell, l->first, n), l->slot, (int) n + 1, s));
}

/* Steps 3 and 4. */
static rc_status
place_and_write (const rc_point_layout * layout, const rc_sparse_params * p,
    const uint8_t * points, uint32_t n, const rc_sparse_output * out,
    const scratch_layout * l, cudaStream_t s)
{
  rc_status ret = RC_OK;

  if (n > 0) {
    place_points <<< blocks_for (n), BLOCK, 0, s >>> (l->cell, l->tile_rank,
        l->first, l->slot, l->tables, n, p->max_voxels, p->max_points,
        l->members, l->counts, l->stats);
    ret = rc_check_launch ();
  }
  if (ret != RC_OK)
    return ret;
  write_slots <<< blocks_for ((uint64_t) p->max_voxels * 32), BLOCK, 0, s >>>
      (*layout, *p, points, n, l->cell, l->slot, l->members, l->counts, *out,
      l->stats);
  return rc_check_launch ();
}

extern "C" rc_status
rc_sparse_voxelize_cuda (const rc_point_layout * layout,
    const rc_sparse_params * params, const void *points, uint64_t n_points,
    const rc_sparse_output * out, void *scratch, uint64_t scratch_size,
    rc_sparse_stats * stats, void *stream)
{
  cudaStream_t s = (cudaStream_t) stream;
  const uint8_t *pts = (const uint8_t *) points;
  scratch_layout l;
  uint8_t *base;
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

  ret = rank_voxels (layout, params, pts, (uint32_t) n_points, &l, s);
  if (ret == RC_OK)
    ret = place_and_write (layout, params, pts, (uint32_t) n_points, out, &l,
        s);
  if (ret == RC_OK && stats)
    ret = rc_device_copy_async (stats, l.stats, sizeof (device_stats),
        RC_COPY_DEVICE_TO_HOST, stream);
  return ret;
}
