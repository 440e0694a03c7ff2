/* Bird's-eye view on the GPU, byte for byte the CPU's (bev.c): the same
 * per-column and per-pixel functions (bev-math.h).  One thread per column
 * fills the column plane in scratch and reduces the frame's range (integer
 * keys: min and max whatever the order); then one thread per pixel colours
 * it.  A clear of the 16-byte header before them: three operations on the
 * stream, no allocation. */
#include "internal.h"
#include "bev-math.h"
#include "bev-colormaps.h"

#include <cuda_runtime.h>

#define COLUMN_BLOCK 256
#define PIXEL_BLOCK_X 32
#define PIXEL_BLOCK_Y 8

/* The start of the scratch, cleared before every frame: the range as
 * keys (the minimum stored inverted, so that zero is "none yet" for both)
 * and the non-empty columns; then the decoded statistics. */
typedef struct
{
  unsigned long long inv_min_key, max_key, columns, pad;
  rc_bev_stats stats;
} bev_header;

/* The columns start at this offset, 8-byte aligned. */
#define HEADER_SIZE ((sizeof (bev_header) + 15) / 16 * 16)

uint64_t
rc_bev_cuda_scratch_size (const rc_bev_params * p)
{
  return HEADER_SIZE + rc_bev_scratch_size (p);
}

__device__ static unsigned long long
warp_max (unsigned long long v)
{
  for (int d = 16; d > 0; d /= 2) {
    unsigned long long o = __shfl_down_sync (0xffffffffu, v, d);
    v = o > v ? o : v;
  }
  return v;
}

__device__ static unsigned long long
warp_sum (unsigned long long v)
{
  for (int d = 16; d > 0; d /= 2)
    v += __shfl_down_sync (0xffffffffu, v, d);
  return v;
}

__global__ static void
bev_columns (const __grid_constant__ rc_bev_params p,
    const uint8_t * __restrict__ grid, double *__restrict__ columns,
    bev_header * header)
{
  uint64_t c = (uint64_t) blockIdx.x * blockDim.x + threadIdx.x;
  unsigned long long inv_min = 0, max = 0, n = 0;

  if (c < rc_bev_columns (&p)) {
    double v = rc_bev_column_value (&p, grid, c);

    columns[c] = v;
    if (v == v) {
      unsigned long long key = rc_bev_key (v);

      inv_min = ~key;
      max = key;
      n = 1;
    }
  }
  /* Whole warps reach here (no early return). */
  inv_min = warp_max (inv_min);
  max = warp_max (max);
  n = warp_sum (n);
  if ((threadIdx.x & 31) == 0 && n > 0) {
    atomicMax (&header->inv_min_key, inv_min);
    atomicMax (&header->max_key, max);
    atomicAdd (&header->columns, n);
  }
}

__global__ static void
bev_pixels (const __grid_constant__ rc_bev_params p,
    const double *__restrict__ columns, const uint8_t * __restrict__ overlay,
    uint8_t * __restrict__ out, size_t out_pitch, bev_header * header)
{
  uint32_t px = blockIdx.x * blockDim.x + threadIdx.x;
  uint32_t py = blockIdx.y * blockDim.y + threadIdx.y;
  unsigned long long n = header->columns;
  rc_bev_stats st;
  double lo, hi;
  uint8_t rgba[4];

  st.columns = n;
  st.min = n ? rc_bev_unkey (~header->inv_min_key) : 0.0;
  st.max = n ? rc_bev_unkey (header->max_key) : 0.0;
  lo = p.auto_range ? st.min : p.range_min;
  hi = p.auto_range ? st.max : p.range_max;
  if (px == 0 && py == 0)
    header->stats = st;
  if (px >= p.width || py >= p.height)
    return;
  rc_bev_pixel (&p, columns, overlay,
      p.colormap == RC_BEV_COLORMAP_DENSITY ? rc_bev_density : rc_bev_turbo,
      lo, hi, px, py, rgba);
  memcpy (out + py * out_pitch + (size_t) px * 4, rgba, 4);
}

extern "C" rc_status
rc_bev_render_cuda (const rc_bev_params * p, const void *grid,
    const uint8_t * overlay, void *out, size_t out_pitch, void *scratch,
    rc_bev_stats * stats, void *stream)
{
  cudaStream_t s = (cudaStream_t) stream;
  bev_header *header = (bev_header *) scratch;
  double *columns = (double *) ((uint8_t *) scratch + HEADER_SIZE);
  uint64_t n_columns;
  dim3 block (PIXEL_BLOCK_X, PIXEL_BLOCK_Y);
  dim3 blocks;
  rc_status ret;

  if (rc_bev_check (p) != RC_OK || !grid || !out || !scratch
      || out_pitch < (size_t) p->width * 4)
    return RC_ERROR_INVALID_ARGUMENT;
  n_columns = rc_bev_columns (p);
  ret = rc_check_cuda (cudaMemsetAsync (header, 0, sizeof (bev_header), s));
  if (ret != RC_OK)
    return ret;
  bev_columns <<< (unsigned) ((n_columns + COLUMN_BLOCK - 1) / COLUMN_BLOCK),
      COLUMN_BLOCK, 0, s >>> (*p, (const uint8_t *) grid, columns, header);
  ret = rc_check_launch ();
  if (ret != RC_OK)
    return ret;
  blocks = dim3 ((p->width + PIXEL_BLOCK_X - 1) / PIXEL_BLOCK_X,
      (p->height + PIXEL_BLOCK_Y - 1) / PIXEL_BLOCK_Y);
  bev_pixels <<< blocks, block, 0, s >>> (*p, columns, overlay,
      (uint8_t *) out, out_pitch, header);
  ret = rc_check_launch ();
  if (ret != RC_OK || !stats)
    return ret;
  return rc_check_cuda (cudaMemcpyAsync (stats, &header->stats,
          sizeof (rc_bev_stats), cudaMemcpyDeviceToHost, s));
}
