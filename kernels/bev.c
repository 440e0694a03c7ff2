/* Bird's-eye view on the CPU: the reference the GPU matches byte for byte.
 * Two passes, as on the GPU: every column's value into the column plane
 * (with the range over the non-empty ones), then every pixel. */
#include "bev-math.h"
#include "bev-colormaps.h"
#include "internal.h"

rc_status
rc_bev_check (const rc_bev_params * p)
{
  const rc_voxel_grid *g;

  if (!p)
    return RC_ERROR_INVALID_ARGUMENT;
  g = &p->grid;
  if (p->input != RC_BEV_INPUT_DENSE)
    return RC_ERROR_INVALID_ARGUMENT;
  if (g->mode != RC_VOXEL_OCCUPANCY && g->mode != RC_VOXEL_COUNT
      && g->mode != RC_VOXEL_MEAN)
    return RC_ERROR_INVALID_ARGUMENT;
  if (g->dims[0] < 1 || g->dims[1] < 1 || g->dims[2] < 1
      || g->dims[0] > RC_BEV_MAX_SIZE || g->dims[1] > RC_BEV_MAX_SIZE
      || (uint64_t) g->dims[0] * g->dims[1] * g->dims[2] > UINT32_MAX)
    return RC_ERROR_INVALID_ARGUMENT;
  if (p->width < 1 || p->height < 1 || p->width > RC_BEV_MAX_SIZE
      || p->height > RC_BEV_MAX_SIZE)
    return RC_ERROR_INVALID_ARGUMENT;
  if (g->mode == RC_VOXEL_MEAN && (p->n_features < 1
          || p->feature >= p->n_features))
    return RC_ERROR_INVALID_ARGUMENT;
  if (p->value == RC_BEV_FEATURE && g->mode != RC_VOXEL_MEAN)
    return RC_ERROR_INVALID_ARGUMENT;
  if (p->value != RC_BEV_DENSITY && p->value != RC_BEV_HEIGHT
      && p->value != RC_BEV_FEATURE)
    return RC_ERROR_INVALID_ARGUMENT;
  if (p->colormap != RC_BEV_COLORMAP_TURBO
      && p->colormap != RC_BEV_COLORMAP_DENSITY)
    return RC_ERROR_INVALID_ARGUMENT;
  if (!p->auto_range && (!isfinite (p->range_min)
          || !isfinite (p->range_max)))
    return RC_ERROR_INVALID_ARGUMENT;
  return RC_OK;
}

uint64_t
rc_bev_input_size (const rc_bev_params * p)
{
  uint64_t voxels = rc_bev_columns (p) * p->grid.dims[2];

  switch (p->grid.mode) {
    case RC_VOXEL_OCCUPANCY:
      return (voxels + 3) / 4 * 4;
    case RC_VOXEL_COUNT:
      return voxels * 4;
    default:
      return voxels * 4 * p->n_features;
  }
}

uint64_t
rc_bev_scratch_size (const rc_bev_params * p)
{
  return rc_bev_columns (p) * sizeof (double);
}

/* The range the pixels are coloured over. */
static void
frame_range (const rc_bev_params * p, const rc_bev_stats * stats,
    double *lo, double *hi)
{
  if (p->auto_range) {
    *lo = stats->min;
    *hi = stats->max;
  } else {
    *lo = p->range_min;
    *hi = p->range_max;
  }
}

rc_status
rc_bev_render_cpu (const rc_bev_params * p, const void *grid,
    const uint8_t * overlay, void *out, size_t out_pitch, void *scratch,
    rc_bev_stats * stats)
{
  double *columns = scratch, lo, hi;
  uint64_t n = 0, min_key = UINT64_MAX, max_key = 0;
  const uint8_t (*table)[4];
  rc_bev_stats st;

  if (rc_bev_check (p) != RC_OK || !grid || !out || !scratch
      || out_pitch < (size_t) p->width * 4)
    return RC_ERROR_INVALID_ARGUMENT;
  for (uint64_t c = 0; c < rc_bev_columns (p); c++) {
    double v = rc_bev_column_value (p, grid, c);

    columns[c] = v;
    if (v == v) {
      uint64_t key = rc_bev_key (v);

      n++;
      min_key = key < min_key ? key : min_key;
      max_key = key > max_key ? key : max_key;
    }
  }
  st.columns = n;
  st.min = n ? rc_bev_unkey (min_key) : 0.0;
  st.max = n ? rc_bev_unkey (max_key) : 0.0;
  frame_range (p, &st, &lo, &hi);

  table = p->colormap == RC_BEV_COLORMAP_DENSITY ? rc_bev_density :
      rc_bev_turbo;
  for (uint32_t py = 0; py < p->height; py++) {
    uint8_t *row = (uint8_t *) out + py * out_pitch;

    for (uint32_t px = 0; px < p->width; px++)
      rc_bev_pixel (p, columns, overlay, table, lo, hi, px, py, row + px * 4);
  }
  if (stats)
    *stats = st;
  return RC_OK;
}
