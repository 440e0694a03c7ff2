/* Bird's-eye-view maths, shared by bev.c and bev.cu so that CPU and GPU
 * draw the same bytes: a column's value (integer sums, exact), the colour
 * index (one subtraction, one exact multiplication by 256 and one
 * division, in double, which no compiler contracts into an FMA), the
 * overlay blend (integers), and the order-preserving keys that make the
 * automatic range a min/max independent of the order of reduction. */
#ifndef ROBOCACHE_BEV_MATH_H
#define ROBOCACHE_BEV_MATH_H

#include <math.h>
#include <stdint.h>
#include <string.h>

#include "hostdevice.h"
#include "robocache-kernels.h"

RC_HD uint64_t
rc_bev_columns (const rc_bev_params * p)
{
  return (uint64_t) p->grid.dims[0] * p->grid.dims[1];
}

/* Voxel @index of the grid: nonzero when it is not empty, with its value
 * in *value (mean grids: the feature, -0 made +0; others: unused). */
RC_HD int
rc_bev_voxel (const rc_bev_params * p, const void *grid, uint64_t index,
    double *value)
{
  switch (p->grid.mode) {
    case RC_VOXEL_OCCUPANCY:
      *value = ((const uint8_t *) grid)[index];
      return *value != 0.0;
    case RC_VOXEL_COUNT:
      *value = ((const uint32_t *) grid)[index];
      return *value != 0.0;
    default:{
      uint64_t voxels = rc_bev_columns (p) * p->grid.dims[2];
      float v = ((const float *) grid)[(uint64_t) p->feature * voxels + index];

      *value = (double) v + 0.0;
      return isfinite (v) && v != 0.0f;
    }
  }
}

/* The value of column @column, or NaN when it is empty. */
RC_HD double
rc_bev_column_value (const rc_bev_params * p, const void *grid, uint64_t column)
{
  uint64_t plane = rc_bev_columns (p);
  double v, sum = 0.0;

  if (p->value == RC_BEV_DENSITY) {
    /* Integers below 2^53: exact in any order. */
    for (uint32_t k = 0; k < p->grid.dims[2]; k++) {
      if (rc_bev_voxel (p, grid, k * plane + column, &v))
        sum += p->grid.mode == RC_VOXEL_COUNT ? v : 1.0;
    }
    return sum > 0.0 ? sum : NAN;
  }
  for (uint32_t k = p->grid.dims[2]; k-- > 0;) {
    if (rc_bev_voxel (p, grid, k * plane + column, &v))
      return p->value == RC_BEV_HEIGHT ? (double) k : v;
  }
  return NAN;
}

/* Order-preserving keys of finite doubles, for min and max as integers. */
RC_HD uint64_t
rc_bev_key (double v)
{
  uint64_t bits;

  memcpy (&bits, &v, sizeof (bits));
  return (bits >> 63) ? ~bits : bits | (1ull << 63);
}

RC_HD double
rc_bev_unkey (uint64_t key)
{
  uint64_t bits = (key >> 63) ? key & ~(1ull << 63) : ~key;
  double v;

  memcpy (&v, &bits, sizeof (v));
  return v;
}

/* The colour index of a non-empty column's value @v in [lo, hi]. */
RC_HD uint32_t
rc_bev_index (double v, double lo, double hi)
{
  double q;

  if (!(hi > lo))
    return RC_BEV_COLORS - 1;
  q = ((v - lo) * (double) RC_BEV_COLORS) / (hi - lo);
  if (!(q >= 0.0))
    return 0;
  if (q >= (double) (RC_BEV_COLORS - 1))
    return RC_BEV_COLORS - 1;
  return (uint32_t) q;
}

/* The columns [*first, *end) along an axis of @dims columns that pixel
 * @pixel of @pixels covers: one where the picture is at least as large as
 * the grid, every one it covers where smaller.  Both at most
 * RC_BEV_MAX_SIZE (2^14): the products fit 32 bits, whose division the
 * GPU does in a fraction of a 64-bit one's instructions. */
RC_HD void
rc_bev_pixel_span (uint32_t dims, uint32_t pixels, uint32_t pixel,
    uint32_t * first, uint32_t * end)
{
  *first = pixel * dims / pixels;
  *end = pixels >= dims ? *first + 1 : (pixel + 1) * dims / pixels;
}

/* The value pixel (px, py) shows: the largest of the columns it covers
 * (a grid finer than the picture loses no occupied column), NaN when
 * they are all empty. */
RC_HD double
rc_bev_pixel_value (const rc_bev_params * p, const double *columns,
    uint32_t px, uint32_t py)
{
  uint32_t i0, i1, r0, r1;
  double best = NAN;

  rc_bev_pixel_span (p->grid.dims[0], p->width, px, &i0, &i1);
  rc_bev_pixel_span (p->grid.dims[1], p->height, py, &r0, &r1);
  for (uint32_t r = r0; r < r1; r++) {
    const double *row = columns +
        (uint64_t) (p->grid.dims[1] - 1 - r) * p->grid.dims[0];

    for (uint32_t i = i0; i < i1; i++)
      if (row[i] == row[i] && !(row[i] <= best))
        best = row[i];
  }
  return best;
}

/* Pixel (px, py): the colour of its value from @table (or the
 * background), then @overlay (may be NULL) over it. */
RC_HD void
rc_bev_pixel (const rc_bev_params * p, const double *columns,
    const uint8_t * overlay, const uint8_t (*table)[4], double lo, double hi,
    uint32_t px, uint32_t py, uint8_t out[4])
{
  double v = rc_bev_pixel_value (p, columns, px, py);
  const uint8_t *c = v == v ? table[rc_bev_index (v, lo, hi)] : p->background;

  if (overlay) {
    const uint8_t *o = overlay + ((uint64_t) py * p->width + px) * 4;
    uint32_t a = o[3];

    for (int ch = 0; ch < 3; ch++)
      out[ch] = (uint8_t) ((o[ch] * a + c[ch] * (255 - a) + 127) / 255);
    out[3] = (uint8_t) ((255 * a + c[3] * (255 - a) + 127) / 255);
  } else {
    memcpy (out, c, 4);
  }
}

#endif
