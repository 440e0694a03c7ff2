/* Probe (twenty-third session): 256^3 counts of a large cloud by a
 * partition of its points into tiles of the grid, each tile counted in
 * shared memory and written whole, against the library's clear and global
 * atomics.  No CUB sort (run 176's was 174 us against 150 at 4 million
 * points): one pass keys the points and counts each block's points per
 * tile, CUB scans those counts, a second pass puts each point's place in
 * its tile (16 bits) in tile order, and a block a tile (several for a
 * crowded one, whose tile is cleared first and added to) counts and
 * writes.  Every grid and the statistics are compared with the library's
 * before timing.
 *
 *   nvcc -O3 -arch=sm_90 -DTILE_BITS=15 -Ikernels -Ibuild/kernels \
 *     docs/bench/run184/partition.cu -Lbuild/kernels -lrobocache-kernels-1.0
 */
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <vector>

#include <cub/cub.cuh>

extern "C" {
#include "robocache-kernels.h"
}
#include "voxelize-math.h"

#ifndef TILE_BITS
#define TILE_BITS 15
#endif
#define TILE (1u << TILE_BITS)
#define KEY_BLOCK 512
#define KEY_PPT 16
#define KEY_POINTS (KEY_BLOCK * KEY_PPT)
/* Points a thread of the keying passes takes: up to KEY_PPT, fewer in
 * smaller clouds so that they still fill the GPU (KEY_MIN_BLOCKS). */
#ifndef KEY_MIN_BLOCKS
#define KEY_MIN_BLOCKS 512
#endif
static int
key_ppt (uint64_t n)
{
  uint64_t ppt = n / ((uint64_t) KEY_BLOCK * KEY_MIN_BLOCKS);
  return (int) std::max < uint64_t > (1, std::min < uint64_t > (KEY_PPT, ppt));
}
#ifndef COUNT_BLOCK
#define COUNT_BLOCK 1024
#endif
#ifndef EXTRA_FIRST
#define EXTRA_FIRST 0
#endif
#ifndef MATCH
#define MATCH 0
#endif
#ifndef CHUNK
#define CHUNK 16384u
#endif

#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { \
    fprintf (stderr, "%s:%d %s\n", __FILE__, __LINE__, \
        cudaGetErrorString (e_)); exit (1); } } while (0)

/* rc_voxel_axis without its division: the quotient by a multiplication
 * by the voxel size's reciprocal, which is within |q| * 3 * 2^-53 of the
 * correctly rounded quotient; only where that is within |q| * 2^-50 of an
 * integer (a voxel's face) can their floors differ, and there the division
 * decides. */
__device__ static int64_t
voxel_axis_fast (double coord, double origin, double size, double inv,
    uint32_t dim)
{
  double d = coord - origin;
  double q = __dmul_rn (d, inv);
  double below = floor (q), margin = fabs (q) * 0x1p-50;

  if (q - below <= margin || below + 1.0 - q <= margin)
    q = d / size;
  if (!(q >= 0.0) || q >= (double) dim)
    return -1;
  return (int64_t) q;
}

#ifndef FAST_AXIS
#define FAST_AXIS 1
#endif

__device__ static int
locate_fast (float x, float y, float z, const rc_voxel_grid * grid,
    const double *inv, uint64_t * index)
{
#if !FAST_AXIS
  return rc_voxel_locate_xyz (x, y, z, grid, index);
#else
  int64_t i, j, k;

  if (!isfinite (x) || !isfinite (y) || !isfinite (z))
    return RC_POINT_INVALID;
  i = voxel_axis_fast (x, grid->origin[0], grid->voxel_size[0], inv[0],
      grid->dims[0]);
  j = voxel_axis_fast (y, grid->origin[1], grid->voxel_size[1], inv[1],
      grid->dims[1]);
  k = voxel_axis_fast (z, grid->origin[2], grid->voxel_size[2], inv[2],
      grid->dims[2]);
  if (i < 0 || j < 0 || k < 0)
    return RC_POINT_OUT_OF_RANGE;
  *index = ((uint64_t) k * grid->dims[1] + (uint64_t) j) * grid->dims[0] +
      (uint64_t) i;
  return RC_POINT_IN_GRID;
#endif
}

struct Stats
{
  unsigned long long in_grid, out_of_range, invalid, occupied;
};

/* Keys each point by its voxel (~0 outside the grid) and adds the
 * block's points per tile to the tiles' totals. */
#ifndef KEY_MIN_RESIDENT
#define KEY_MIN_RESIDENT 3
#endif
__global__ void
__launch_bounds__ (KEY_BLOCK, KEY_MIN_RESIDENT)
key_points (const float4 * __restrict__ pts, uint64_t n,
    const __grid_constant__ rc_voxel_grid grid, uint32_t * __restrict__ keys,
    uint32_t * __restrict__ totals, uint32_t n_tiles, Stats * st, int ppt)
{
  extern __shared__ uint32_t h[];
  unsigned in = 0, oor = 0, inv = 0;
  const double recip[3] = { 1.0 / grid.voxel_size[0],
    1.0 / grid.voxel_size[1], 1.0 / grid.voxel_size[2]
  };

  for (uint32_t t = threadIdx.x; t < n_tiles; t += blockDim.x)
    h[t] = 0;
  __syncthreads ();
  uint64_t base = (uint64_t) blockIdx.x * KEY_BLOCK * ppt + threadIdx.x;
  for (int k0 = 0; k0 < ppt; k0 += 4) {
    float4 p[4];
#pragma unroll
    for (int k = 0; k < 4; k++) {
      uint64_t i = base + (uint64_t) (k0 + k) * KEY_BLOCK;
      p[k] = k0 + k < ppt && i < n ? __ldcs (pts + i) :
          make_float4 (NAN, 0, 0, 0);
    }
#pragma unroll
    for (int k = 0; k < 4; k++) {
      uint64_t i = base + (uint64_t) (k0 + k) * KEY_BLOCK, v;
      if (k0 + k >= ppt || i >= n)
        break;
      int where = locate_fast (p[k].x, p[k].y, p[k].z, &grid, recip, &v);
      uint32_t key = ~0u;
      if (where == RC_POINT_IN_GRID) {
        key = (uint32_t) v;
        atomicAdd (&h[key >> TILE_BITS], 1u);
        in++;
      } else if (where == RC_POINT_OUT_OF_RANGE)
        oor++;
      else
        inv++;
      keys[i] = key;
    }
  }
  __syncthreads ();
  for (uint32_t t = threadIdx.x; t < n_tiles; t += blockDim.x)
    if (h[t])
      atomicAdd (totals + t, h[t]);
  typedef cub::BlockReduce < unsigned, KEY_BLOCK > R;
  __shared__ typename R::TempStorage tmp;
  unsigned a = R (tmp).Sum (in);
  __syncthreads ();
  unsigned b = R (tmp).Sum (oor);
  __syncthreads ();
  unsigned c = R (tmp).Sum (inv);
  if (threadIdx.x == 0) {
    if (a)
      atomicAdd (&st->in_grid, a);
    if (b)
      atomicAdd (&st->out_of_range, b);
    if (c)
      atomicAdd (&st->invalid, c);
  }
}

typedef cub::BlockScan < uint32_t, KEY_BLOCK > KeyScan;

/* Exclusive sum of @n values of @in into @out (shared memory), by the
 * whole block; returns the total. */
__device__ static uint32_t
block_scan (const uint32_t * in, uint32_t * out, uint32_t n,
    typename KeyScan::TempStorage & tmp)
{
  __shared__ uint32_t carry;
  uint32_t total;

  if (threadIdx.x == 0)
    carry = 0;
  __syncthreads ();
  for (uint32_t t0 = 0; t0 < n; t0 += KEY_BLOCK) {
    uint32_t t = t0 + threadIdx.x, x, sum;
    KeyScan (tmp).ExclusiveSum (t < n ? in[t] : 0u, x, sum);
    if (t < n)
      out[t] = carry + x;
    __syncthreads ();
    if (threadIdx.x == 0)
      carry += sum;
    __syncthreads ();
  }
  total = carry;
  __syncthreads ();
  return total;
}

/* Sorts the block's keys by tile in shared memory, reserves the block's
 * run in each tile (one atomic a tile it has points in), and writes each
 * point's place in its tile (16 bits) there: runs of neighbouring
 * threads.  Clears the crowded tiles, which several blocks will add to;
 * block 0 numbers their extra blocks and the tiles' starts. */
__global__ void
__launch_bounds__ (KEY_BLOCK)
scatter_keys (const uint32_t * __restrict__ keys, uint64_t n,
    const uint32_t * __restrict__ totals, uint32_t * __restrict__ fills,
    uint16_t * __restrict__ sorted, uint32_t n_tiles,
    uint32_t * __restrict__ out, uint64_t n_voxels,
    uint32_t * __restrict__ starts, uint32_t * __restrict__ extra_start,
    int ppt)
{
  extern __shared__ uint32_t sh[];
  uint32_t *own = sh, *local = sh + n_tiles, *base = sh + 2 * n_tiles,
      *stage = sh + 3 * n_tiles;
  __shared__ typename KeyScan::TempStorage tmp;
  uint32_t key[KEY_PPT], rank[KEY_PPT];
  uint64_t first = (uint64_t) blockIdx.x * KEY_BLOCK * ppt;
  uint32_t n_block = (uint32_t) min ((uint64_t) KEY_BLOCK * ppt, n - first);

  for (uint32_t t = threadIdx.x; t < n_tiles; t += blockDim.x)
    own[t] = 0;
  __syncthreads ();
#pragma unroll
  for (int k = 0; k < KEY_PPT; k++) {
    uint32_t j = k * KEY_BLOCK + threadIdx.x;
    key[k] = k < ppt && j < n_block ? __ldcs (keys + first + j) : ~0u;
  }
#pragma unroll
  for (int k = 0; k < KEY_PPT; k++)
    if (key[k] != ~0u)
      rank[k] = atomicAdd (&own[key[k] >> TILE_BITS], 1u);
  __syncthreads ();
  /* The tiles' starts (every block the same), the block's run in each. */
  block_scan (totals, base, n_tiles, tmp);
  for (uint32_t t = threadIdx.x; t < n_tiles; t += blockDim.x)
    if (own[t])
      base[t] += atomicAdd (fills + t, own[t]);
  uint32_t n_kept = block_scan (own, local, n_tiles, tmp);
#pragma unroll
  for (int k = 0; k < KEY_PPT; k++)
    if (key[k] != ~0u)
      stage[local[key[k] >> TILE_BITS] + rank[k]] = key[k];
  __syncthreads ();
  for (uint32_t j = threadIdx.x; j < n_kept; j += blockDim.x) {
    uint32_t k = stage[j], t = k >> TILE_BITS;
    sorted[base[t] + (j - local[t])] = (uint16_t) (k & (TILE - 1));
  }
  for (uint32_t t = blockIdx.x; t < n_tiles; t += gridDim.x) {
    if (totals[t] <= CHUNK)
      continue;
    uint64_t v0 = (uint64_t) t * TILE;
    uint64_t nv = min ((uint64_t) TILE, n_voxels - v0);
    for (uint64_t i = threadIdx.x; i < nv; i += blockDim.x)
      out[v0 + i] = 0;
  }
  if (blockIdx.x == 0) {
    __syncthreads ();
    /* own, local: free now. */
    for (uint32_t t = threadIdx.x; t < n_tiles; t += blockDim.x)
      own[t] = totals[t] > CHUNK ? (totals[t] + CHUNK - 1) / CHUNK - 1 : 0;
    __syncthreads ();
    uint32_t extra = block_scan (own, local, n_tiles, tmp);
    block_scan (totals, base, n_tiles, tmp);
    for (uint32_t t = threadIdx.x; t < n_tiles; t += blockDim.x) {
      extra_start[t] = local[t];
      starts[t] = base[t];
    }
    if (threadIdx.x == 0)
      extra_start[n_tiles] = extra;
  }
}

/* A block a tile (and one more for each further CHUNK points of a crowded
 * tile): counts in shared memory, then writes the tile whole, or adds to
 * the cleared crowded tile. */
__global__ void
__launch_bounds__ (COUNT_BLOCK)
count_tiles (const uint16_t * __restrict__ sorted,
    const uint32_t * __restrict__ starts, const uint32_t * __restrict__ totals,
    const uint32_t * __restrict__ extra_start, uint32_t n_tiles,
    uint32_t * __restrict__ out, uint64_t n_voxels, Stats * st)
{
  extern __shared__ uint4 smem4[];
  uint32_t *t_counts = (uint32_t *) smem4;
  uint32_t u = blockIdx.x, tile, chunk;
#if EXTRA_FIRST
  /* The crowded tiles' further blocks first, so that they are not the
   * last wave's: gridDim.x - n_tiles of them at most. */
  uint32_t n_slots = gridDim.x - n_tiles;
  u = u < n_slots ? n_tiles + u : u - n_slots;
#endif

  if (u < n_tiles) {
    tile = u;
    chunk = 0;
  } else {
    uint32_t e = u - n_tiles;
    if (e >= extra_start[n_tiles])
      return;
    uint32_t lo = 0, hi = n_tiles;      /* last t with extra_start[t] <= e */
    while (hi - lo > 1) {
      uint32_t mid = (lo + hi) / 2;
      if (extra_start[mid] <= e)
        lo = mid;
      else
        hi = mid;
    }
    tile = lo;
    chunk = e - extra_start[lo] + 1;
  }
  uint32_t start = starts[tile], cnt = totals[tile];
  bool crowded = cnt > CHUNK;
  uint32_t lo = start + chunk * CHUNK, hi = min (start + cnt, lo + CHUNK);

  for (uint32_t i = threadIdx.x; i < TILE / 4; i += blockDim.x)
    smem4[i] = make_uint4 (0, 0, 0, 0);
  __syncthreads ();
  for (uint32_t i = lo + threadIdx.x; i < hi; i += blockDim.x) {
    uint32_t k = sorted[i];
#if MATCH
    /* A crowded tile's voxels near the sensor take hundreds of points:
     * a warp's points in one voxel add once. */
    if (crowded) {
      unsigned peers = __match_any_sync (__activemask (), k);
      if (threadIdx.x % 32 == (unsigned) __ffs (peers) - 1)
        atomicAdd (&t_counts[k], (uint32_t) __popc (peers));
      continue;
    }
#endif
    atomicAdd (&t_counts[k], 1u);
  }
  __syncthreads ();
  uint64_t v0 = (uint64_t) tile * TILE;
  uint32_t nv = (uint32_t) min ((uint64_t) TILE, n_voxels - v0);
  unsigned occ = 0;
  if (!crowded) {
    uint4 *o4 = (uint4 *) (out + v0);
    for (uint32_t i = threadIdx.x; i < nv / 4; i += blockDim.x) {
      uint4 c = smem4[i];
      __stcs (o4 + i, c);
      occ += (c.x != 0) + (c.y != 0) + (c.z != 0) + (c.w != 0);
    }
    for (uint32_t i = nv / 4 * 4 + threadIdx.x; i < nv; i += blockDim.x) {
      out[v0 + i] = t_counts[i];
      occ += t_counts[i] != 0;
    }
  } else {
    for (uint32_t i = threadIdx.x; i < nv; i += blockDim.x)
      if (t_counts[i])
        occ += atomicAdd (out + v0 + i, t_counts[i]) == 0;
  }
  typedef cub::BlockReduce < unsigned, COUNT_BLOCK > R;
  __shared__ typename R::TempStorage tmp;
  unsigned o = R (tmp).Sum (occ);
  if (threadIdx.x == 0 && o)
    atomicAdd (&st->occupied, o);
}

/* The statistics, the tiles' totals and fills: cleared together. */
struct Partition
{
  uint64_t max_points, n_voxels;
  uint32_t n_tiles;
  uint32_t *keys, *starts, *extra_start, *totals, *fills;
  uint16_t *sorted;
  Stats *st;
  size_t cleared;
};

static void
partition_init (Partition * p, const rc_voxel_grid * g, uint64_t max_points)
{
  uint8_t *c;

  p->max_points = max_points;
  p->n_voxels = rc_voxel_grid_n_voxels (g);
  p->n_tiles = (uint32_t) ((p->n_voxels + TILE - 1) / TILE);
  CK (cudaMalloc (&p->keys, max_points * 4));
  CK (cudaMalloc (&p->sorted, max_points * 2));
  CK (cudaMalloc (&p->starts, p->n_tiles * 4));
  CK (cudaMalloc (&p->extra_start, (p->n_tiles + 1) * 4));
  p->cleared = sizeof (Stats) + 2 * p->n_tiles * 4;
  CK (cudaMalloc (&c, p->cleared));
  p->st = (Stats *) c;
  p->totals = (uint32_t *) (c + sizeof (Stats));
  p->fills = p->totals + p->n_tiles;
  CK (cudaFuncSetAttribute (count_tiles,
          cudaFuncAttributeMaxDynamicSharedMemorySize, TILE * 4));
  CK (cudaFuncSetAttribute (scatter_keys,
          cudaFuncAttributeMaxDynamicSharedMemorySize,
          (3 * p->n_tiles + KEY_POINTS) * 4));
}

static void
partition_count (Partition * p, const rc_voxel_grid * g, const void *pts,
    uint64_t n, uint32_t * out, cudaStream_t s, cudaEvent_t * marks = NULL)
{
  int ppt = key_ppt (n);
  uint32_t n_blocks = (uint32_t) ((n + KEY_BLOCK * ppt - 1) /
      (KEY_BLOCK * ppt));

  if (marks)
    CK (cudaEventRecord (marks[0], s));
  CK (cudaMemsetAsync (p->st, 0, p->cleared, s));
  if (marks)
    CK (cudaEventRecord (marks[1], s));
  key_points <<< n_blocks, KEY_BLOCK, p->n_tiles * 4, s >>> ((const float4 *)
      pts, n, *g, p->keys, p->totals, p->n_tiles, p->st, ppt);
  if (marks)
    CK (cudaEventRecord (marks[2], s));
  scatter_keys <<< n_blocks, KEY_BLOCK, (3 * p->n_tiles + KEY_BLOCK * ppt) *
      4, s >>> (p->keys, n, p->totals, p->fills, p->sorted, p->n_tiles, out,
      p->n_voxels, p->starts, p->extra_start, ppt);
  if (marks)
    CK (cudaEventRecord (marks[3], s));
  count_tiles <<< p->n_tiles + (uint32_t) (n / CHUNK) + 1, COUNT_BLOCK,
      TILE * 4, s >>> (p->sorted, p->starts, p->totals, p->extra_start,
      p->n_tiles, out, p->n_voxels, p->st);
  if (marks)
    CK (cudaEventRecord (marks[4], s));
  CK (cudaGetLastError ());
}

/* ---- clouds, as bench-kernels makes them ---- */

static std::mt19937_64 rng (184);
static double
unit ()
{
  return (rng () >> 11) * (1.0 / 9007199254740992.0);
}

static void
lidar_point (uint64_t ring, double az, double r, double noise, float v[3])
{
  const double height = 1.73;
  double el = (-24.8 + 26.8 * ring / 63.0) * M_PI / 180;
  if (el < 0)
    r = std::min (r, height / tan (-el) * (1 - noise + 2 * noise * unit ()));
  v[0] = (float) (r * cos (el) * cos (az));
  v[1] = (float) (r * cos (el) * sin (az));
  v[2] = (float) (r * sin (el));
}

static void
make_points (const rc_voxel_grid * g, uint64_t n, float *dst, bool lidar)
{
  for (uint64_t i = 0; i < n; i++) {
    float *v = dst + 4 * i;
    if (!lidar) {
      for (int a = 0; a < 3; a++) {
        double span = g->dims[a] * g->voxel_size[a];
        v[a] = (float) (g->origin[a] + span * (-0.05 + 1.1 * unit ()));
      }
    } else {
      double az = 2 * M_PI * unit ();
      uint64_t ring = rng () % 64;
      double u = unit ();
      lidar_point (ring, az, 2 + 78 * u * u, 0.02, v);
    }
    v[3] = (float) unit ();
    /* Points on (or a rounding away from) voxels' faces. */
    if (i % 61 == 5)
      v[i % 3] = (float) (g->origin[i % 3] + g->voxel_size[i % 3] *
          (double) (rng () % (g->dims[i % 3] + 1)));
    if (i % 997 == 13)          /* some invalid points */
      v[i % 3] = NAN;
  }
}

static double
median (std::vector < float >v)
{
  std::sort (v.begin (), v.end ());
  return v[v.size () / 2];
}

int
main (int argc, char **argv)
{
  const rc_voxel_grid cube = { {-25.6, -25.6, -25.6}, {0.2, 0.2, 0.2},
  {256, 256, 256}, RC_VOXEL_COUNT
  };
  const rc_point_layout layout = {
    16, {0, RC_TYPE_FLOAT32}, {4, RC_TYPE_FLOAT32}, {8, RC_TYPE_FLOAT32}, 1,
    {{12, RC_TYPE_FLOAT32}}
  };
  const uint64_t sizes[] = { 131072, 262144, 524288, 1048576, 2097152,
    4194304
  };
  const int runs = argc > 1 ? atoi (argv[1]) : 30, sets = 3;
  /* A second argument: that one size of uniform points only (profiles). */
  const uint64_t only = argc > 2 ? strtoull (argv[2], NULL, 10) : 0;
  uint64_t max_n = 4194304, nv = rc_voxel_grid_n_voxels (&cube);
  cudaStream_t s;
  cudaEvent_t e0, e1;
  void *lib_scratch, *pts[sets];
  uint32_t *out_lib, *out_new;
  rc_voxelize_stats *lib_stats;
  Partition p;
  int failures = 0;

  CK (cudaStreamCreate (&s));
  CK (cudaEventCreate (&e0));
  CK (cudaEventCreate (&e1));
  uint64_t scratch_bytes = rc_voxelize_cuda_scratch_size (&layout, &cube, 1,
      max_n);
  CK (cudaMalloc (&lib_scratch, scratch_bytes));
  if (rc_voxelize_cuda_scratch_reset (lib_scratch, s) != RC_OK)
    return 1;
  if (rc_host_alloc ((void **) &lib_stats, sizeof (*lib_stats)) != RC_OK)
    return 1;
  CK (cudaMalloc (&out_lib, nv * 4));
  CK (cudaMalloc (&out_new, nv * 4));
  for (int k = 0; k < sets; k++)
    CK (cudaMalloc (&pts[k], max_n * 16));
  partition_init (&p, &cube, max_n);
  std::vector < float >host (max_n * 4);
  std::vector < uint32_t > a (nv), b (nv);

  printf ("TILE_BITS %d CHUNK %u MATCH %d\n", TILE_BITS, CHUNK, MATCH);
  for (int lidar = 0; lidar < (only ? 1 : 2); lidar++) {
    for (uint64_t n:sizes) {
      if (only && n != only)
        continue;
      for (int k = 0; k < sets; k++) {
        make_points (&cube, n, host.data (), lidar);
        CK (cudaMemcpy (pts[k], host.data (), n * 16,
                cudaMemcpyHostToDevice));
      }
      /* Check every set. */
      for (int k = 0; k < sets; k++) {
        Stats st;
        CK (cudaMemset (out_new, 0xab, nv * 4));
        if (rc_voxelize_cuda (&layout, &cube, pts[k], &n, 1, out_lib,
                lib_scratch, lib_stats, s) != RC_OK)
          return 1;
        partition_count (&p, &cube, pts[k], n, out_new, s);
        CK (cudaStreamSynchronize (s));
        CK (cudaMemcpy (a.data (), out_lib, nv * 4, cudaMemcpyDeviceToHost));
        CK (cudaMemcpy (b.data (), out_new, nv * 4, cudaMemcpyDeviceToHost));
        CK (cudaMemcpy (&st, p.st, sizeof (st), cudaMemcpyDeviceToHost));
        if (a != b || st.in_grid != lib_stats->in_grid ||
            st.out_of_range != lib_stats->out_of_range ||
            st.invalid != lib_stats->invalid ||
            st.occupied != lib_stats->occupied) {
          printf ("DIFFER %s n=%lu set %d: grids %s, in %llu/%lu oor "
              "%llu/%lu inv %llu/%lu occ %llu/%lu\n", lidar ? "lidar" :
              "uniform", n, k, a == b ? "same" : "differ", st.in_grid,
              lib_stats->in_grid, st.out_of_range, lib_stats->out_of_range,
              st.invalid, lib_stats->invalid, st.occupied,
              lib_stats->occupied);
          failures++;
        }
      }
      /* Time, alternating, a fresh set each call. */
      std::vector < float >t_lib, t_new;
      for (int r = 0; r < runs + 3; r++) {
        for (int which = 0; which < 2; which++) {
          float ms;
          CK (cudaEventRecord (e0, s));
          if (which == 0)
            rc_voxelize_cuda (&layout, &cube, pts[r % sets], &n, 1, out_lib,
                lib_scratch, NULL, s);
          else
            partition_count (&p, &cube, pts[r % sets], n, out_new, s);
          CK (cudaEventRecord (e1, s));
          CK (cudaEventSynchronize (e1));
          CK (cudaEventElapsedTime (&ms, e0, e1));
          if (r >= 3)
            (which ? t_new : t_lib).push_back (ms * 1000);
        }
      }
      printf ("%-8s n=%8lu  library %7.1f us  partition %7.1f us  (%.2fx)",
          lidar ? "lidar" : "uniform", n, median (t_lib), median (t_new),
          median (t_lib) / median (t_new));
      /* Each pass alone: events between the launches. */
      {
        cudaEvent_t m[5];
        std::vector < float >ph[4];
        for (int i = 0; i < 5; i++)
          CK (cudaEventCreate (&m[i]));
        for (int r = 0; r < runs; r++) {
          partition_count (&p, &cube, pts[r % sets], n, out_new, s, m);
          CK (cudaEventSynchronize (m[4]));
          for (int i = 0; i < 4; i++) {
            float ms;
            CK (cudaEventElapsedTime (&ms, m[i], m[i + 1]));
            ph[i].push_back (ms * 1000);
          }
        }
        printf ("  passes: clear %.1f keys %.1f scatter %.1f tiles %.1f\n",
            median (ph[0]), median (ph[1]), median (ph[2]), median (ph[3]));
        for (int i = 0; i < 5; i++)
          CK (cudaEventDestroy (m[i]));
      }
      fflush (stdout);
    }
  }
  printf ("failures %d\n", failures);
  return failures != 0;
}
