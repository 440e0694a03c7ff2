/* Sparse voxels and pillars on the GPU, byte for byte those of sparse.c.
 *
 * The CPU walks the points in order; here the same choice is made in
 * parallel with integer operations only, so that no step depends on the
 * order threads run in:
 *   1. locate: each point's cell, and atomicMin of the point index into a
 *      dense per-cell array (cleared first): each cell's first point;
 *   2. a point is its voxel's first when that array holds its index; an
 *      exclusive scan of those flags (CUB) ranks the voxels in the order
 *      they were first reached: the CPU's slot numbers.  Slots >= M are
 *      dropped;
 *   3. a stable radix sort (CUB) of (slot, point index) pairs puts each
 *      kept voxel's points together, in input order;
 *   4. each sorted run's bounds, then a warp per slot writes its first K
 *      points' channels (the mean summed in slot order, one lane adding
 *      the lanes' values in turn, as sparse.c adds them), its coordinates
 *      and count, and the zero padding: every output byte once.
 * Scratch is laid out once from the largest cloud; nothing is allocated
 * per call. */
#include "internal.h"
#include "sparse-math.h"

#include <cuda_runtime.h>
#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_scan.cuh>

#define BLOCK 256
#define ALIGN 256

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
  uint32_t *rank;               /* per point + 1: first points before it */
  uint32_t *keys, *keys_sorted; /* per point: its slot, M if not kept */
  uint32_t *index, *index_sorted;       /* per point: its index */
  uint32_t *run_start, *run_end;        /* per slot: its sorted run */
  void *cub;
  size_t cub_bytes;
  uint64_t total;
} scratch_layout;

static uint64_t
align_up (uint64_t n)
{
  return (n + ALIGN - 1) / ALIGN * ALIGN;
}

/* Bits a key of at most @m needs. */
static int
key_bits (uint32_t m)
{
  int bits = 1;

  while (bits < 32 && (m >> bits) != 0)
    bits++;
  return bits;
}

/* The bytes CUB needs for a scan of @n + 1 and a sort of @n items. */
static rc_status
cub_bytes (uint64_t n, uint32_t m, size_t *bytes)
{
  size_t scan = 0, sort = 0;
  int items = (int) n;
  rc_status ret;

  ret = rc_check_cuda (cub::DeviceScan::ExclusiveSum (NULL, scan,
          (uint32_t *) NULL, (uint32_t *) NULL, items + 1));
  if (ret != RC_OK)
    return ret;
  ret = rc_check_cuda (cub::DeviceRadixSort::SortPairs (NULL, sort,
          (uint32_t *) NULL, (uint32_t *) NULL, (uint32_t *) NULL,
          (uint32_t *) NULL, items > 0 ? items : 1, 0, key_bits (m)));
  *bytes = scan > sort ? scan : sort;
  return ret;
}

/* Lays out @base (NULL: only counts) for clouds of up to @n points. */
static rc_status
layout_scratch (const rc_sparse_params * p, uint64_t n, uint8_t * base,
    scratch_layout * l)
{
  uint64_t cells = rc_voxel_grid_n_voxels (&p->grid), at = 0;
  uint32_t **per_point[] = { &l->cell, &l->keys_sorted, &l->index,
    &l->index_sorted
  };
  rc_status ret = cub_bytes (n, p->max_voxels, &l->cub_bytes);

  if (ret != RC_OK)
    return ret;
#define TAKE(ptr, type, bytes) \
  do { (ptr) = (type) (base ? base + at : NULL); at += align_up (bytes); } \
  while (0)
  TAKE (l->stats, device_stats *, sizeof (device_stats));
  TAKE (l->first, uint32_t *, cells * 4);
  TAKE (l->rank, uint32_t *, (n + 1) * 4);
  TAKE (l->keys, uint32_t *, (n + 1) * 4);      /* the flags first */
  for (unsigned i = 0; i < sizeof (per_point) / sizeof (per_point[0]); i++)
    TAKE (*per_point[i], uint32_t *, n * 4);
  TAKE (l->run_start, uint32_t *, (uint64_t) p->max_voxels * 4);
  TAKE (l->run_end, uint32_t *, (uint64_t) p->max_voxels * 4);
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

/* Every cell empty, the statistics zero. */
__global__ static void
clear_cells (uint32_t * __restrict__ first, uint64_t cells,
    device_stats * stats)
{
  uint64_t i = (uint64_t) blockIdx.x * blockDim.x + threadIdx.x;
  uint64_t stride = (uint64_t) gridDim.x * blockDim.x;

  if (i == 0) {
    device_stats zero = { 0, 0, 0, 0, 0, 0 };
    *stats = zero;
  }
  for (; i < cells; i += stride)
    first[i] = RC_SPARSE_NONE;
}

__device__ static void
count_block (u64 * counter, bool mine)
{
  int n = __syncthreads_count (mine);

  if (threadIdx.x == 0 && n)
    atomicAdd (counter, (u64) n);
}

/* Step 1: each point's cell, each cell's first point. */
__global__ static void
locate_points (const __grid_constant__ rc_point_layout layout,
    const __grid_constant__ rc_voxel_grid grid,
    const uint8_t * __restrict__ points, uint32_t n,
    uint32_t * __restrict__ cell, uint32_t * __restrict__ first,
    device_stats * stats)
{
  uint32_t p = blockIdx.x * blockDim.x + threadIdx.x;
  int where = -1;
  uint64_t v = 0;

  if (p < n) {
    where = rc_voxel_locate (points + (uint64_t) p * layout.point_step,
        &layout, &grid, &v);
    cell[p] = where == RC_POINT_IN_GRID ? (uint32_t) v : RC_SPARSE_NONE;
    if (where == RC_POINT_IN_GRID)
      atomicMin (first + v, p);
  }
  count_block (&stats->in_grid, where == RC_POINT_IN_GRID);
  count_block (&stats->out_of_range, where == RC_POINT_OUT_OF_RANGE);
  count_block (&stats->invalid, where == RC_POINT_INVALID);
}

/* Step 2, before the scan: 1 where a point is its voxel's first (and 0
 * after the last point, so the scan's last value is the voxel count). */
__global__ static void
flag_first_points (const uint32_t * __restrict__ cell,
    const uint32_t * __restrict__ first, uint32_t n,
    uint32_t * __restrict__ flags)
{
  uint32_t p = blockIdx.x * blockDim.x + threadIdx.x;

  if (p < n)
    flags[p] = cell[p] != RC_SPARSE_NONE && first[cell[p]] == p;
  else if (p == n)
    flags[p] = 0;
}

/* Step 3, before the sort: each point's slot (M when not kept). */
__global__ static void
make_keys (const uint32_t * __restrict__ cell,
    const uint32_t * __restrict__ first, const uint32_t * __restrict__ rank,
    uint32_t n, uint32_t m, uint32_t * __restrict__ keys,
    uint32_t * __restrict__ index, device_stats * stats)
{
  uint32_t p = blockIdx.x * blockDim.x + threadIdx.x;
  uint32_t key = m;

  if (p < n) {
    if (cell[p] != RC_SPARSE_NONE)
      key = min (rank[first[cell[p]]], m);
    keys[p] = key;
    index[p] = p;
  }
  /* Points of voxels beyond M. */
  count_block (&stats->dropped_points, p < n && cell[p] != RC_SPARSE_NONE
      && key == m);
}

/* Step 4a: where each kept slot's run of sorted points starts and ends. */
__global__ static void
find_runs (const uint32_t * __restrict__ keys, uint32_t n, uint32_t m,
    uint32_t * __restrict__ run_start, uint32_t * __restrict__ run_end)
{
  uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
  uint32_t key;

  if (i >= n)
    return;
  key = keys[i];
  if (key >= m)
    return;
  if (i == 0 || keys[i - 1] != key)
    run_start[key] = i;
  if (i == n - 1 || keys[i + 1] != key)
    run_end[key] = i + 1;
}

#define MAX_CHANNELS (3 + RC_VOXELIZE_MAX_FEATURES + 6)

/* The sum over the first @count lanes of @value, added in lane order,
 * onto @sum; every lane gets the same result. */
__device__ static float
add_in_lane_order (float sum, float value, uint32_t count)
{
  for (uint32_t j = 0; j < count; j++)
    sum = rc_sparse_fadd (sum, __shfl_sync (0xffffffffu, value, j));
  return sum;
}

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

/* A warp's rows, 32 at a time: each lane makes one row and leaves it in
 * the warp's part of shared memory, then the warp stores the 32 rows as
 * one contiguous run (a lane storing its own row, c floats from its
 * neighbours', would take c scattered stores).  The values are
 * rc_sparse_decorate's; rows from @count on are zeros. */
__device__ static void
write_rows (const rc_point_layout * layout, const rc_sparse_params * params,
    const uint8_t * points, const uint32_t * index_sorted, uint32_t count,
    uint32_t c, const float mean[3], const uint32_t ijk[3], float *rows)
{
  __shared__ float stage[BLOCK / 32][32 * MAX_CHANNELS];
  float *mine = stage[threadIdx.x / 32];
  uint32_t lane = threadIdx.x % 32, k_max = params->max_points, base;
  uint32_t raw = 3 + layout->n_features;
  uint32_t n_centre = params->mode == RC_SPARSE_PILLARS_10 ? 3 : 2;
  uint64_t i, zeros;

  for (base = 0; base < count; base += 32) {
    uint32_t k = base + lane, rows_here = min (k_max - base, 32u);
    float row[RAW_MAX], *dst = mine + lane * c;

#pragma unroll
    for (uint32_t ch = 0; ch < RAW_MAX; ch++)
      row[ch] = 0.0f;
    if (k < count)
      load_raw (points + (uint64_t) index_sorted[k] * layout->point_step,
          layout, row);
    if (lane < rows_here) {
#pragma unroll
      for (uint32_t ch = 0; ch < RAW_MAX; ch++) {
        if (ch < raw)
          dst[ch] = row[ch];
      }
      if (params->mode != RC_SPARSE_VOXELS) {
#pragma unroll
        for (uint32_t a = 0; a < 3; a++) {
          dst[raw + a] = k < count ? rc_sparse_fsub (row[a], mean[a]) : 0.0f;
          if (a < n_centre)
            dst[raw + 3 + a] = k < count ? rc_sparse_fsub (row[a],
                rc_sparse_centre (params->grid.origin[a],
                    params->grid.voxel_size[a], ijk[a])) : 0.0f;
        }
      }
    }
    __syncwarp ();
    for (i = lane; i < (uint64_t) rows_here * c; i += 32)
      rows[(uint64_t) base * c + i] = mine[i];
    __syncwarp ();
  }
  /* The padding after the last run that held points. */
  zeros = (uint64_t) (k_max - min (base, k_max)) * c;
  rows += (uint64_t) min (base, k_max) * c;
  for (i = lane; i < zeros; i += 32)
    rows[i] = 0.0f;
}

/* Step 4b: a warp per slot writes its rows, coordinates and count. */
__global__ static void
write_slots (const __grid_constant__ rc_point_layout layout,
    const __grid_constant__ rc_sparse_params params,
    const uint8_t * __restrict__ points, uint32_t n,
    const uint32_t * __restrict__ cell, const uint32_t * __restrict__ rank,
    const uint32_t * __restrict__ index_sorted,
    const uint32_t * __restrict__ run_start,
    const uint32_t * __restrict__ run_end, const rc_sparse_output out,
    device_stats * stats)
{
  uint32_t lane = threadIdx.x % 32;
  uint64_t s = ((uint64_t) blockIdx.x * blockDim.x + threadIdx.x) / 32;
  uint32_t m = params.max_voxels, k_max = params.max_points;
  uint32_t c = 3 + layout.n_features + rc_sparse_extra_channels (params.mode);
  uint32_t voxels = rank[n], used = min (voxels, m), start = 0, count = 0;
  float mean[3] = { 0.0f, 0.0f, 0.0f };
  uint32_t ijk[3] = { 0, 0, 0 };
  float *rows;

  if (s == 0 && lane == 0) {
    *out.n_voxels = (int32_t) used;
    stats->voxels = voxels;
    stats->dropped_voxels = voxels - used;
  }
  if (s >= m)
    return;
  rows = out.features + s * k_max * c;
  if (s < used) {
    uint32_t total;

    start = run_start[s];
    total = run_end[s] - start;
    count = min (total, k_max);
    rc_sparse_cell_ijk (cell[index_sorted[start]], &params.grid, ijk);
    if (lane == 0 && total > count)
      atomicAdd (&stats->dropped_points, (u64) (total - count));
  }
  if (lane < 3)
    out.coords[s * 3 + lane] = (int32_t) ijk[2 - lane];
  if (lane == 0)
    out.num_points[s] = (int32_t) count;

  if (params.mode != RC_SPARSE_VOXELS && count > 0) {
    float sum[3] = { 0.0f, 0.0f, 0.0f };
    for (uint32_t base = 0; base < count; base += 32) {
      float xyz[3] = { 0.0f, 0.0f, 0.0f };
      uint32_t here = min (count - base, 32u);
      if (base + lane < count) {
        const uint8_t *point = points + (uint64_t) index_sorted[start + base
            + lane] * layout.point_step;
        xyz[0] = (float) rc_load_field (point, layout.x);
        xyz[1] = (float) rc_load_field (point, layout.y);
        xyz[2] = (float) rc_load_field (point, layout.z);
      }
      for (int a = 0; a < 3; a++)
        sum[a] = add_in_lane_order (sum[a], xyz[a], here);
    }
    for (int a = 0; a < 3; a++)
      mean[a] = rc_sparse_fdiv (sum[a], (float) count);
  }
  write_rows (&layout, &params, points, index_sorted + start, count, c,
      mean, ijk, rows);
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
  size_t bytes = l->cub_bytes;
  uint64_t clear = blocks_for (cells / 4 + 1);
  rc_status ret;

  clear_cells <<< (unsigned) (clear > 4096 ? 4096 : clear), BLOCK, 0, s >>>
      (l->first, cells, l->stats);
  ret = rc_check_launch ();
  if (ret == RC_OK && n > 0) {
    locate_points <<< blocks_for (n), BLOCK, 0, s >>> (*layout, p->grid,
        points, n, l->cell, l->first, l->stats);
    ret = rc_check_launch ();
  }
  if (ret != RC_OK)
    return ret;
  /* The flags go where the keys go later. */
  flag_first_points <<< blocks_for ((uint64_t) n + 1), BLOCK, 0, s >>>
      (l->cell, l->first, n, l->keys);
  ret = rc_check_launch ();
  if (ret != RC_OK)
    return ret;
  return rc_check_cuda (cub::DeviceScan::ExclusiveSum (l->cub, bytes,
          l->keys, l->rank, (int) n + 1, s));
}

/* Steps 3 and 4. */
static rc_status
sort_and_write (const rc_point_layout * layout, const rc_sparse_params * p,
    const uint8_t * points, uint32_t n, const rc_sparse_output * out,
    const scratch_layout * l, cudaStream_t s)
{
  size_t bytes = l->cub_bytes;
  uint32_t m = p->max_voxels;
  rc_status ret = RC_OK;

  if (n > 0) {
    make_keys <<< blocks_for (n), BLOCK, 0, s >>> (l->cell, l->first,
        l->rank, n, m, l->keys, l->index, l->stats);
    ret = rc_check_launch ();
    if (ret == RC_OK)
      ret = rc_check_cuda (cub::DeviceRadixSort::SortPairs (l->cub, bytes,
              l->keys, l->keys_sorted, l->index, l->index_sorted, (int) n, 0,
              key_bits (m), s));
    if (ret == RC_OK) {
      find_runs <<< blocks_for (n), BLOCK, 0, s >>> (l->keys_sorted, n, m,
          l->run_start, l->run_end);
      ret = rc_check_launch ();
    }
  }
  if (ret != RC_OK)
    return ret;
  write_slots <<< blocks_for ((uint64_t) m * 32), BLOCK, 0, s >>> (*layout,
      *p, points, n, l->cell, l->rank, l->index_sorted, l->run_start,
      l->run_end, *out, l->stats);
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
    ret = sort_and_write (layout, params, pts, (uint32_t) n_points, out, &l,
        s);
  if (ret == RC_OK && stats)
    ret = rc_device_copy_async (stats, l.stats, sizeof (device_stats),
        RC_COPY_DEVICE_TO_HOST, stream);
  return ret;
}
