/* Sparse voxels and pillars: the maths shared by sparse.c and sparse.cu.
 * Every floating-point operation is one IEEE-rounded operation on both
 * sides (explicit _rn intrinsics on the GPU, -ffp-contract=off on the
 * CPU), in the same order, so that the features agree to the byte. */
#ifndef ROBOCACHE_SPARSE_MATH_H
#define ROBOCACHE_SPARSE_MATH_H

#include "voxelize-math.h"

/* Point index meaning "no point" (and the largest cloud is one less). */
#define RC_SPARSE_NONE 0xffffffffu

RC_HD float
rc_sparse_fadd (float a, float b)
{
#ifdef __CUDA_ARCH__
  return __fadd_rn (a, b);
#else
  return a + b;
#endif
}

RC_HD float
rc_sparse_fsub (float a, float b)
{
#ifdef __CUDA_ARCH__
  return __fsub_rn (a, b);
#else
  return a - b;
#endif
}

RC_HD float
rc_sparse_fdiv (float a, float b)
{
#ifdef __CUDA_ARCH__
  return __fdiv_rn (a, b);
#else
  return a / b;
#endif
}

/* The centre of voxel @i along an axis: origin + (i + 0.5) * size in
 * double (no fused multiply-add), rounded to float. */
RC_HD float
rc_sparse_centre (double origin, double size, uint32_t i)
{
#ifdef __CUDA_ARCH__
  return (float) __dadd_rn (origin, __dmul_rn ((double) i + 0.5, size));
#else
  return (float) (origin + ((double) i + 0.5) * size);
#endif
}

/* Channels after x, y, z and the layout's fields. */
RC_HD uint32_t
rc_sparse_extra_channels (rc_sparse_mode mode)
{
  return mode == RC_SPARSE_PILLARS_10 ? 6 : mode == RC_SPARSE_PILLARS_9 ? 5 : 0;
}

/* The raw channels of one point: x, y, z, then the layout's fields, as
 * float32. */
RC_HD void
rc_sparse_load_point (const uint8_t * point, const rc_point_layout * layout,
    float *row)
{
  row[0] = (float) rc_load_field (point, layout->x);
  row[1] = (float) rc_load_field (point, layout->y);
  row[2] = (float) rc_load_field (point, layout->z);
  for (uint32_t f = 0; f < layout->n_features; f++)
    row[3 + f] = (float) rc_load_field (point, layout->features[f]);
}

/* The pillar channels of a stored point @row (raw channels filled, @raw of
 * them), given its voxel's mean and the voxel (i, j, k). */
RC_HD void
rc_sparse_decorate (float *row, uint32_t raw, rc_sparse_mode mode,
    const float mean[3], const rc_voxel_grid * grid, const uint32_t ijk[3])
{
  uint32_t n_centre = mode == RC_SPARSE_PILLARS_10 ? 3 : 2;

  for (uint32_t a = 0; a < 3; a++)
    row[raw + a] = rc_sparse_fsub (row[a], mean[a]);
  for (uint32_t a = 0; a < n_centre; a++)
    row[raw + 3 + a] = rc_sparse_fsub (row[a],
        rc_sparse_centre (grid->origin[a], grid->voxel_size[a], ijk[a]));
}

/* (i, j, k) of cell @cell of @grid, whose cells number below 2^32
 * (rc_sparse_check): 32-bit division, which a GPU does in a few
 * instructions where a 64-bit one is a long emulated routine. */
RC_HD void
rc_sparse_cell_ijk (uint32_t cell, const rc_voxel_grid * grid, uint32_t ijk[3])
{
  uint32_t row = cell / grid->dims[0];

  ijk[0] = cell - row * grid->dims[0];
  ijk[1] = row % grid->dims[1];
  ijk[2] = row / grid->dims[1];
}

#endif
