/* Bounds for bench-kernels: kernels that do only part of a workload, to
 * show what limits the whole.  Not part of robocache. */
#ifndef ROBOCACHE_BENCH_BOUNDS_H
#define ROBOCACHE_BENCH_BOUNDS_H

#include "robocache-kernels.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A target's neighbours, located on the host beforehand: the kind of the
 * result (resample-math.h's RC_RS_INTERP, RC_RS_PICK or RC_RS_NAN), the
 * two source rows counted from the start of the whole batch, and the
 * weight of the second. */
typedef struct
{
  uint32_t kind, row1, row2;
  float w;
} bench_row_pair;

/* Linear resampling of float32 rows of @channels (a multiple of 4, rows
 * and out 16-byte aligned) with every target already located: only the
 * row loads, the interpolation and the stores. */
rc_status bench_gather_rows_f32 (const bench_row_pair * pairs,
    uint64_t n_targets, const float *rows, uint32_t channels, float *out,
    void *stream);

/* An occupancy grid (@grid in RC_VOXEL_OCCUPANCY mode) from float32 x, y,
 * z at offsets 0, 4, 8 of 16-byte points, without the statistics that
 * rc_voxelize_cuda() keeps: a clear, then plain byte stores started as a
 * programmatic dependent of it (sm_90 and later). */
rc_status bench_occupancy_without_stats (const void *points,
    uint64_t n_points, const rc_voxel_grid * grid, void *out,
    uint64_t out_size, void *stream);

#ifdef __cplusplus
}
#endif
#endif
