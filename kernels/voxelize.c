/* Voxelization, CPU reference: one pass over the points, no allocation. */
#include "voxelize-math.h"

#include <math.h>
#include <string.h>

static int
field_fits (const rc_field * field, uint32_t point_step)
{
  size_t size = rc_scalar_type_size (field->type);
  return size > 0 && (uint64_t) field->offset + size <= point_step;
}

static int
is_float_type (rc_scalar_type type)
{
  return type == RC_TYPE_FLOAT32 || type == RC_TYPE_FLOAT64;
}

/* The grid size above which an index no longer fits the 32-bit counters
 * the kernels use. */
#define RC_VOXELIZE_MAX_VOXELS (UINT64_C (1) << 32)

rc_status
rc_voxelize_check (const rc_point_layout * layout, const rc_voxel_grid * grid)
{
  if (!layout || !grid || layout->point_step == 0)
    return RC_ERROR_INVALID_ARGUMENT;
  if (!is_float_type (layout->x.type) || !is_float_type (layout->y.type) ||
      !is_float_type (layout->z.type))
    return RC_ERROR_INVALID_ARGUMENT;
  if (!field_fits (&layout->x, layout->point_step) ||
      !field_fits (&layout->y, layout->point_step) ||
      !field_fits (&layout->z, layout->point_step))
    return RC_ERROR_INVALID_ARGUMENT;
  if (layout->n_features > RC_VOXELIZE_MAX_FEATURES)
    return RC_ERROR_INVALID_ARGUMENT;
  for (uint32_t f = 0; f < layout->n_features; f++) {
    if (!field_fits (&layout->features[f], layout->point_step))
      return RC_ERROR_INVALID_ARGUMENT;
  }
  if (grid->mode == RC_VOXEL_MEAN && layout->n_features == 0)
    return RC_ERROR_INVALID_ARGUMENT;
  if ((unsigned) grid->mode > RC_VOXEL_MEAN)
    return RC_ERROR_INVALID_ARGUMENT;
  for (int a = 0; a < 3; a++) {
    if (!(grid->voxel_size[a] > 0.0) || !isfinite (grid->voxel_size[a]) ||
        !isfinite (grid->origin[a]) || grid->dims[a] == 0)
      return RC_ERROR_INVALID_ARGUMENT;
  }
  /* Each factor is below 2^32, so the first product cannot overflow. */
  if ((uint64_t) grid->dims[0] * grid->dims[1] >
      RC_VOXELIZE_MAX_VOXELS / grid->dims[2])
    return RC_ERROR_INVALID_ARGUMENT;
  return RC_OK;
}

uint64_t
rc_voxel_grid_n_voxels (const rc_voxel_grid * grid)
{
  return rc_voxel_grid_n_voxels_hd (grid);
}

uint64_t
rc_voxelize_output_size (const rc_point_layout * layout,
    const rc_voxel_grid * grid)
{
  uint64_t n = rc_voxel_grid_n_voxels (grid);
  switch (grid->mode) {
    case RC_VOXEL_OCCUPANCY:
      /* Whole 32-bit words, so that the GPU can mark voxels with atomics. */
      return (n + 3) & ~(uint64_t) 3;
    case RC_VOXEL_COUNT:
      return n * sizeof (uint32_t);
    case RC_VOXEL_MEAN:
      return n * layout->n_features * sizeof (float);
  }
  return 0;
}

uint64_t
rc_voxelize_scratch_size (const rc_point_layout * layout,
    const rc_voxel_grid * grid)
{
  (void) layout;
  /* The mean needs a point count per voxel beside the sums. */
  if (grid->mode == RC_VOXEL_MEAN)
    return rc_voxel_grid_n_voxels (grid) * sizeof (uint32_t);
  return 0;
}

uint64_t
rc_voxelize_cuda_stats_size (uint32_t n_clouds)
{
  return (uint64_t) n_clouds * sizeof (rc_voxelize_stats);
}

static void
voxelize_one (const rc_point_layout * layout, const rc_voxel_grid * grid,
    const uint8_t * points, uint64_t n_points, uint8_t * out,
    uint32_t * counts, rc_voxelize_stats * stats)
{
  uint64_t n_voxels = rc_voxel_grid_n_voxels (grid);
  float *sums = (float *) out;
  rc_voxelize_stats s = { 0, 0, 0, 0 };

  memset (out, 0, rc_voxelize_output_size (layout, grid));
  /* Scratch is only the mean's: other modes may be given a smaller one. */
  if (grid->mode == RC_VOXEL_MEAN)
    memset (counts, 0, n_voxels * sizeof (uint32_t));

  for (uint64_t p = 0; p < n_points; p++) {
    const uint8_t *point = points + p * layout->point_step;
    uint64_t v;

    switch (rc_voxel_locate (point, layout, grid, &v)) {
      case RC_POINT_INVALID:
        s.invalid++;
        continue;
      case RC_POINT_OUT_OF_RANGE:
        s.out_of_range++;
        continue;
      default:
        s.in_grid++;
        break;
    }

    switch (grid->mode) {
      case RC_VOXEL_OCCUPANCY:
        s.occupied += out[v] == 0;
        out[v] = 1;
        break;
      case RC_VOXEL_COUNT:
        s.occupied += ((uint32_t *) out)[v]++ == 0;
        break;
      case RC_VOXEL_MEAN:
        s.occupied += counts[v]++ == 0;
        for (uint32_t f = 0; f < layout->n_features; f++)
          sums[f * n_voxels + v] +=
              (float) rc_load_field (point, layout->features[f]);
        break;
    }
  }

  if (grid->mode == RC_VOXEL_MEAN) {
    for (uint64_t v = 0; v < n_voxels; v++) {
      if (counts[v] == 0)
        continue;
      for (uint32_t f = 0; f < layout->n_features; f++)
        sums[f * n_voxels + v] /= (float) counts[v];
    }
  }
  if (stats)
    *stats = s;
}

rc_status
rc_voxelize_cpu (const rc_point_layout * layout, const rc_voxel_grid * grid,
    const void *points, const uint64_t * cloud_sizes, uint32_t n_clouds,
    void *out, void *scratch, rc_voxelize_stats * stats)
{
  rc_status ret = rc_voxelize_check (layout, grid);
  const uint8_t *cloud = (const uint8_t *) points;
  uint64_t out_size;

  if (ret != RC_OK)
    return ret;
  if (n_clouds == 0)
    return RC_OK;
  if (!out || !cloud_sizes || (grid->mode == RC_VOXEL_MEAN && !scratch))
    return RC_ERROR_INVALID_ARGUMENT;
  out_size = rc_voxelize_output_size (layout, grid);

  for (uint32_t c = 0; c < n_clouds; c++) {
    if (cloud_sizes[c] > 0 && !cloud)
      return RC_ERROR_INVALID_ARGUMENT;
    voxelize_one (layout, grid, cloud, cloud_sizes[c],
        (uint8_t *) out + c * out_size, (uint32_t *) scratch,
        stats ? &stats[c] : NULL);
    cloud += cloud_sizes[c] * layout->point_step;
  }
  return RC_OK;
}
