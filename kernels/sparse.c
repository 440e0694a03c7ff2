/* Sparse ("hard") voxels and pillars on the CPU: the reference.
 *
 * One pass in input order gives each voxel its slot when its first point
 * comes (while slots remain) and appends each point to its voxel's rows
 * while the voxel has room: the first max_voxels voxels reached and the
 * first max_points points of each, as the CPU paths of mmcv and spconv
 * choose them.  A second pass over the slots computes the pillar channels
 * and writes the zero padding, so every output byte is written once the
 * call returns.  sparse.cu computes the same bytes on the GPU. */
#include "internal.h"
#include "sparse-math.h"

#include <string.h>

/* A slot per grid voxel in the scratch: not reached yet, or reached when
 * every slot was taken. */
#define SLOT_NONE (-1)
#define SLOT_DROPPED (-2)

uint32_t
rc_sparse_channels (const rc_point_layout * layout,
    const rc_sparse_params * params)
{
  return 3 + layout->n_features + rc_sparse_extra_channels (params->mode);
}

rc_status
rc_sparse_check (const rc_point_layout * layout,
    const rc_sparse_params * params)
{
  rc_voxel_grid grid;
  uint64_t row_bytes;

  if (!layout || !params)
    return RC_ERROR_INVALID_ARGUMENT;
  grid = params->grid;
  grid.mode = RC_VOXEL_COUNT;
  if (rc_voxelize_check (layout, &grid) != RC_OK)
    return RC_ERROR_INVALID_ARGUMENT;
  if ((unsigned) params->mode > RC_SPARSE_VOXELS)
    return RC_ERROR_INVALID_ARGUMENT;
  if (params->max_points == 0 || params->max_voxels == 0 ||
      params->max_voxels > INT32_MAX || params->max_points > INT32_MAX)
    return RC_ERROR_INVALID_ARGUMENT;
  /* Cells are 32-bit on the GPU, with one value kept for "none". */
  if (rc_voxel_grid_n_voxels (&grid) >= RC_SPARSE_NONE)
    return RC_ERROR_INVALID_ARGUMENT;
  row_bytes = (uint64_t) params->max_points * rc_sparse_channels (layout,
      params) * sizeof (float);
  if (row_bytes > (UINT64_C (1) << 62) / params->max_voxels)
    return RC_ERROR_INVALID_ARGUMENT;
  return RC_OK;
}

uint64_t
rc_sparse_features_size (const rc_point_layout * layout,
    const rc_sparse_params * params)
{
  return (uint64_t) params->max_voxels * params->max_points *
      rc_sparse_channels (layout, params) * sizeof (float);
}

uint64_t
rc_sparse_scratch_size (const rc_sparse_params * params)
{
  return rc_voxel_grid_n_voxels (&params->grid) * sizeof (int32_t);
}

/* The pass in input order: slots, coordinates and raw rows. */
static void
fill_slots (const rc_point_layout * layout, const rc_sparse_params * p,
    const uint8_t * points, uint64_t n_points, const rc_sparse_output * out,
    int32_t * slot_of, rc_sparse_stats * st)
{
  uint32_t c = rc_sparse_channels (layout, p);
  int32_t used = 0;

  for (uint64_t i = 0; i < n_points; i++) {
    const uint8_t *point = points + i * layout->point_step;
    uint64_t cell = 0;
    int where = rc_voxel_locate (point, layout, &p->grid, &cell);
    int32_t s;

    if (where != RC_POINT_IN_GRID) {
      st->invalid += where == RC_POINT_INVALID;
      st->out_of_range += where == RC_POINT_OUT_OF_RANGE;
      continue;
    }
    st->in_grid++;
    s = slot_of[cell];
    if (s == SLOT_NONE) {
      uint32_t ijk[3];

      st->voxels++;
      if ((uint32_t) used == p->max_voxels) {
        slot_of[cell] = SLOT_DROPPED;
        st->dropped_points++;
        continue;
      }
      s = slot_of[cell] = used++;
      rc_sparse_cell_ijk ((uint32_t) cell, &p->grid, ijk);
      for (int a = 0; a < 3; a++)
        out->coords[(uint64_t) s * 3 + a] = (int32_t) ijk[2 - a];
    }
    if (s == SLOT_DROPPED || (uint32_t) out->num_points[s] == p->max_points) {
      st->dropped_points++;
      continue;
    }
    rc_sparse_load_point (point, layout, out->features +
        ((uint64_t) s * p->max_points + (uint32_t) out->num_points[s]) * c);
    out->num_points[s]++;
  }
  *out->n_voxels = used;
}

/* Pillar channels of slot @s's rows, then zeros after them. */
static void
finish_slot (const rc_point_layout * layout, const rc_sparse_params * p,
    const rc_sparse_output * out, uint32_t s)
{
  uint32_t c = rc_sparse_channels (layout, p), raw = 3 + layout->n_features;
  uint32_t n = (uint32_t) out->num_points[s];
  float *rows = out->features + (uint64_t) s * p->max_points * c;

  if (p->mode != RC_SPARSE_VOXELS) {
    float sum[3] = { 0.0f, 0.0f, 0.0f }, mean[3];
    uint32_t ijk[3];

    for (uint32_t k = 0; k < n; k++)
      for (int a = 0; a < 3; a++)
        sum[a] = rc_sparse_fadd (sum[a], rows[(uint64_t) k * c + a]);
    for (int a = 0; a < 3; a++) {
      mean[a] = rc_sparse_fdiv (sum[a], (float) n);
      ijk[a] = (uint32_t) out->coords[(uint64_t) s * 3 + 2 - a];
    }
    for (uint32_t k = 0; k < n; k++)
      rc_sparse_decorate (rows + (uint64_t) k * c, raw, p->mode, mean,
          &p->grid, ijk);
  }
  memset (rows + (uint64_t) n * c, 0,
      (uint64_t) (p->max_points - n) * c * sizeof (float));
}

rc_status
rc_sparse_voxelize_cpu (const rc_point_layout * layout,
    const rc_sparse_params * params, const void *points, uint64_t n_points,
    const rc_sparse_output * out, void *scratch, rc_sparse_stats * stats)
{
  rc_sparse_stats st;
  uint32_t c;
  int32_t used;

  if (rc_sparse_check (layout, params) != RC_OK || !out || !out->features ||
      !out->coords || !out->num_points || !out->n_voxels || !scratch ||
      (n_points > 0 && !points) || n_points >= RC_SPARSE_NONE)
    return RC_ERROR_INVALID_ARGUMENT;
  c = rc_sparse_channels (layout, params);
  memset (&st, 0, sizeof (st));
  memset (scratch, 0xff, rc_sparse_scratch_size (params));
  memset (out->num_points, 0, (uint64_t) params->max_voxels * sizeof (int32_t));

  fill_slots (layout, params, (const uint8_t *) points, n_points, out,
      (int32_t *) scratch, &st);
  used = *out->n_voxels;
  for (int32_t s = 0; s < used; s++)
    finish_slot (layout, params, out, (uint32_t) s);
  memset (out->features + (uint64_t) used * params->max_points * c, 0,
      (uint64_t) (params->max_voxels - used) * params->max_points * c *
      sizeof (float));
  memset (out->coords + (uint64_t) used * 3, 0,
      (uint64_t) (params->max_voxels - used) * 3 * sizeof (int32_t));
  st.dropped_voxels = st.voxels - (uint64_t) used;
  if (stats)
    *stats = st;
  return RC_OK;
}
