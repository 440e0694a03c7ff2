/* Voxelization, CPU reference: one pass over the points, no allocation
 * of its own.
 * Points are gathered into runs of consecutive points in one voxel, so the
 * large grid is touched once per run.  The mean adds its runs into a compact
 * table of the occupied voxels, a row for every voxel the cloud can reach,
 * while a second thread zeroes the output and then locates the cloud's
 * last points ahead of the first; then both write the means into it.  The
 * output is written once, and does not depend on which thread located
 * what.  The centroids use the same table and write its rows out in voxel
 * order: nothing the size of the grid is written but a bit mask. */
#include "voxelize-math.h"

#include <math.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <string.h>
#include <unistd.h>

#define ALWAYS_INLINE inline __attribute__ ((always_inline))
/* Loops over a run's features, fully unrolled where their count is a
 * constant (bin_points' specialisations): the sums then stay in registers,
 * which -O2 alone does not do. */
#define UNROLL_FEATURES _Pragma ("GCC unroll 8")

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
  if (rc_voxel_mode_averages (grid->mode) && layout->n_features == 0)
    return RC_ERROR_INVALID_ARGUMENT;
  if ((unsigned) grid->mode > RC_VOXEL_CENTROIDS)
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
    case RC_VOXEL_CENTROIDS:
      return n * layout->n_features * sizeof (float);
  }
  return 0;
}

/* The most voxels a cloud of @n_points can occupy. */
static uint64_t
reachable_voxels (const rc_voxel_grid * grid, uint64_t n_points)
{
  uint64_t n_voxels = rc_voxel_grid_n_voxels (grid);

  return n_points < n_voxels ? n_points : n_voxels;
}

uint64_t
rc_voxelize_centroids_size (const rc_point_layout * layout,
    const rc_voxel_grid * grid, uint64_t n_points)
{
  return reachable_voxels (grid, n_points) * layout->n_features *
      sizeof (float);
}

/* The mean's and the centroids' scratch: a bit per voxel (set on the
 * voxel's first point, so that nothing else needs clearing), a word per
 * voxel, valid only where the bit is set (the voxel's row in the table
 * below), then a table of the occupied voxels, a row for each voxel the
 * largest cloud can reach (reachable_voxels): their indices, point counts
 * and feature sums.  The table cannot overflow.  The mean's table once
 * stopped at 2^18 rows, and a cloud occupying more voxels was binned
 * again, summing in the planes, which then had to be read whole: a mean
 * of one feature into 256^3 took 11.5 ms at 262,144 points and 40.0 at
 * 393,216, now 10.0 and 16.3 (one thread, a 2-core AMD EPYC VM). */
static uint64_t
mean_mask_words (uint64_t n_voxels)
{
  return (n_voxels + 31) / 32;
}

/* The mean on two threads, where the output is large enough to pay for the
 * second (and there is a second processor to run it); the centroids, where
 * the cloud is. */
#define HELPER_MIN_BYTES (UINT64_C (1) << 22)
#define HELPER_MIN_POINTS (UINT64_C (1) << 15)

/* Points are located a block at a time, then gathered into runs: the
 * locating loop stays free of the grid's memory traffic. */
#define LOCATE_BLOCK 256

/* The last blocks of a cloud that the mean's second thread may locate once
 * it has zeroed the output, and their voxels' room at the end of the
 * scratch (8-aligned in a 4-aligned scratch). */
#define TAIL_BLOCKS 256
#define TAIL_BYTES (TAIL_BLOCKS * LOCATE_BLOCK * sizeof (uint64_t) + 4)

/* Whether a second thread would pay for itself on a cloud of @n_points
 * (rc_voxelize_check has accepted @grid). */
static int
helper_pays (const rc_point_layout * layout, const rc_voxel_grid * grid,
    uint64_t n_points)
{
  if (grid->mode == RC_VOXEL_CENTROIDS)
    return n_points >= HELPER_MIN_POINTS;
  return grid->mode == RC_VOXEL_MEAN
      && rc_voxelize_output_size (layout, grid) >= HELPER_MIN_BYTES;
}

uint64_t
rc_voxelize_scratch_size (const rc_point_layout * layout,
    const rc_voxel_grid * grid, uint64_t max_cloud_points)
{
  uint64_t n_voxels = rc_voxel_grid_n_voxels (grid);
  uint64_t size;

  if (!rc_voxel_mode_averages (grid->mode))
    return 0;
  size = (mean_mask_words (n_voxels) + n_voxels +
      reachable_voxels (grid, max_cloud_points) * (2 + layout->n_features)) *
      sizeof (uint32_t);
  if (helper_pays (layout, grid, max_cloud_points))
    size += TAIL_BYTES;
  return size;
}

uint64_t
rc_voxelize_cuda_stats_size (uint32_t n_clouds)
{
  return (uint64_t) n_clouds * sizeof (rc_voxelize_stats);
}

uint64_t
rc_voxelize_cuda_scratch_size (const rc_point_layout * layout,
    const rc_voxel_grid * grid, uint32_t n_clouds, uint64_t max_cloud_points)
{
  uint64_t size = RC_VOXELIZE_CUDA_HEADER +
      rc_voxelize_cuda_stats_size (n_clouds);
  uint64_t n_voxels = rc_voxel_grid_n_voxels (grid);
  uint64_t n_tiles = rc_centroid_tiles (n_voxels);
  uint64_t after_stats = size, sorted, partitioned, tail, records;

  /* After a header and the statistics, used by one cloud after another:
   * the point count per voxel; the mean's list of occupied voxels (a word
   * for 32 voxels: a marked cloud has at most a point for 32); the
   * centroids' sums (a record a voxel, 16-byte aligned: up to 15 bytes of
   * padding before them), the occupied voxels of each tile and a bit per
   * voxel; a sorted mean's ranks and records, or a partition's tiles and
   * points (voxelize.cu lays them out in this order; a mean either sorts
   * or is partitioned), or a mean's records in one slab, from the counts
   * on (rc_voxel_mean_record_bytes). */
  if (rc_voxel_mode_averages (grid->mode))
    size += n_voxels * sizeof (uint32_t);
  if (grid->mode == RC_VOXEL_MEAN)
    size += (n_voxels + 31) / 32 * sizeof (uint32_t);
  if (grid->mode == RC_VOXEL_CENTROIDS)
    size += 15 + n_voxels * rc_voxel_record_floats (layout->n_features) *
        sizeof (float) + (n_tiles + (n_voxels + 31) / 32) * sizeof (uint32_t);
  sorted = rc_voxel_mean_sort_bytes (layout, grid, max_cloud_points);
  partitioned = rc_voxel_partition_bytes (layout, grid, max_cloud_points);
  tail = sorted > partitioned ? sorted : partitioned;
  records = rc_voxel_mean_record_bytes (layout, grid, max_cloud_points);
  if (grid->mode == RC_VOXEL_MEAN && records > size - after_stats + tail)
    tail = records - (size - after_stats);
  return size + tail;
}

/* Consecutive points of a sweep mostly fall into the same voxel (a ring
 * crosses a 0.2 m voxel in several points): they are gathered into a run
 * and the grid is touched once per run, not once per point. */
typedef struct
{
  const rc_point_layout *layout;
  rc_voxel_mode mode;
  uint64_t n_voxels;
  uint8_t *out;
  /* The mean's scratch: the mask; a word per voxel (its table row); the
   * table. */
  uint32_t *mask, *row_of_voxel;
  uint32_t *row_voxel, *row_count;
  float *row_sums;              /* n_features per row */
  uint64_t occupied;
} voxel_sink;

static ALWAYS_INLINE void
sink_run (voxel_sink * sink, uint64_t v, uint32_t n_points,
    uint32_t n_features, const float *sums)
{
  switch (sink->mode) {
    case RC_VOXEL_OCCUPANCY:
      sink->occupied += sink->out[v] == 0;
      sink->out[v] = 1;
      break;
    case RC_VOXEL_COUNT:{
      uint32_t *count = (uint32_t *) sink->out + v;
      sink->occupied += *count == 0;
      *count += n_points;
      break;
    }
    case RC_VOXEL_MEAN:
    case RC_VOXEL_CENTROIDS:{
      uint32_t bit = UINT32_C (1) << (v & 31);
      int first = !(sink->mask[v / 32] & bit);
      float *acc;

      /* A voxel's first run takes the next row and initialises its sums,
       * later runs add to them. */
      if (first) {
        sink->mask[v / 32] |= bit;
        sink->row_of_voxel[v] = (uint32_t) sink->occupied;
        sink->row_voxel[sink->occupied] = (uint32_t) v;
        sink->row_count[sink->occupied] = n_points;
        acc = sink->row_sums + sink->occupied * n_features;
        UNROLL_FEATURES
        for (uint32_t f = 0; f < n_features; f++)
          acc[f] = sums[f];
        sink->occupied++;
      } else {
        uint32_t row = sink->row_of_voxel[v];
        sink->row_count[row] += n_points;
        acc = sink->row_sums + (uint64_t) row * n_features;
        UNROLL_FEATURES
        for (uint32_t f = 0; f < n_features; f++)
          acc[f] += sums[f];
      }
      break;
    }
  }
}

/* Each occupied voxel of mask words [@first_word,
 * @end_word) gets its means, voxel by voxel along the mask rather than row
 * by row, so in address order: in the (zeroed) planes, or with @points as
 * consecutive points. */
static void
write_table_means (const voxel_sink * sink, uint64_t first_word,
    uint64_t end_word, float *points)
{
  float *planes = (float *) sink->out;
  uint32_t n_features = sink->layout->n_features;

  for (uint64_t w = first_word; w < end_word; w++) {
    for (uint32_t bits = sink->mask[w]; bits; bits &= bits - 1) {
      uint64_t v = w * 32 + (unsigned) __builtin_ctz (bits);
      uint32_t row = sink->row_of_voxel[v];
      const float *acc = sink->row_sums + (uint64_t) row * n_features;
      float n = (float) sink->row_count[row];

      for (uint32_t f = 0; f < n_features; f++) {
        if (points)
          *points++ = acc[f] / n;
        else
          planes[f * sink->n_voxels + v] = acc[f] / n;
      }
    }
  }
}

#define NO_VOXEL UINT64_MAX

/* Locating is bound by the divider, and a two-lane double division costs
 * what a scalar one does (divpd on x86-64, fdiv .2d on AArch64): so the x
 * and y of packed float32 points are divided as a pair, z alone.  The
 * quotients are rc_voxel_locate_xyz's, IEEE-rounded alike; a point that is
 * not plainly inside the grid takes rc_voxel_locate_xyz, which also
 * classifies it. */
typedef double double2 __attribute__ ((vector_size (16)));
typedef int64_t int64x2 __attribute__ ((vector_size (16)));
typedef float float2 __attribute__ ((vector_size (8)));

typedef struct
{
  double2 origin, size, dims, zero;
  double z_origin, z_size, z_dims;
} xy_pair_grid;

static void
xy_pair_grid_init (xy_pair_grid * p, const rc_voxel_grid * g)
{
  double2 origin = { g->origin[0], g->origin[1] };
  double2 size = { g->voxel_size[0], g->voxel_size[1] };
  double2 dims = { g->dims[0], g->dims[1] };
  double2 zero = { 0.0, 0.0 };

  p->origin = origin;
  p->size = size;
  p->dims = dims;
  p->zero = zero;
  p->z_origin = g->origin[2];
  p->z_size = g->voxel_size[2];
  p->z_dims = g->dims[2];
}

static ALWAYS_INLINE int
locate_packed_xyz (const uint8_t * point, const rc_voxel_grid * g,
    const xy_pair_grid * p, uint64_t * index)
{
  float2 xy;
  float z;
  double2 q;
  double qz;
  int64x2 inside;

  memcpy (&xy, point, sizeof (xy));
  memcpy (&z, point + 8, sizeof (z));
  q = (__builtin_convertvector (xy, double2) - p->origin) / p->size;
  qz = ((double) z - p->z_origin) / p->z_size;
  inside = (q >= p->zero) & (q < p->dims);
  if (inside[0] & inside[1] & (qz >= 0.0) & (qz < p->z_dims)) {
    *index = ((uint64_t) (int64_t) qz * g->dims[1] +
        (uint64_t) (int64_t) q[1]) * g->dims[0] + (uint64_t) (int64_t) q[0];
    return RC_POINT_IN_GRID;
  }
  return rc_voxel_locate_xyz (xy[0], xy[1], z, g, index);
}

/* The points in the block starting at point @base: LOCATE_BLOCK, fewer at
 * the end of the cloud. */
static uint32_t
block_points (uint64_t n_points, uint64_t base)
{
  return n_points - base < LOCATE_BLOCK ? (uint32_t) (n_points - base) :
      LOCATE_BLOCK;
}

/* Gives each of the @n points of @block its voxel, or NO_VOXEL; counts the
 * others. */
static ALWAYS_INLINE void
locate_block (const rc_point_layout * layout, const rc_voxel_grid * g,
    const xy_pair_grid * pair, const uint8_t * block, uint32_t n,
    int packed_xyz, uint64_t * voxels, uint64_t * invalid,
    uint64_t * out_of_range)
{
  uint32_t step = layout->point_step;
  uint64_t n_invalid = 0, n_out = 0;

  for (uint32_t i = 0; i < n; i++) {
    const uint8_t *point = block + (uint64_t) i * step;
    uint64_t v = NO_VOXEL;
    int where;

    if (packed_xyz)
      where = locate_packed_xyz (point, g, pair, &v);
    else
      where = rc_voxel_locate (point, layout, g, &v);
    n_invalid += where == RC_POINT_INVALID;
    n_out += where == RC_POINT_OUT_OF_RANGE;
    voxels[i] = where == RC_POINT_IN_GRID ? v : NO_VOXEL;
  }
  *invalid += n_invalid;
  *out_of_range += n_out;
}

/* The blocks of a cloud's tail, shared by the caller, who bins every block
 * in order, and the mean's second thread, who locates tail blocks from the
 * last one down once it has zeroed the output.  Each block is claimed once
 * (compare-and-swap from TAIL_FREE); the caller waits for a block the
 * helper claimed to be TAIL_LOCATED.  The voxels are the same whoever
 * locates them, so the result does not depend on timing. */
enum
{
  TAIL_FREE,
  TAIL_CALLER,
  TAIL_HELPER,
  TAIL_LOCATED
};

typedef struct
{
  uint64_t first_block;         /* the tail's first block in the cloud */
  uint32_t n_blocks;
  uint64_t *voxels;             /* LOCATE_BLOCK per tail block */
  atomic_uchar state[TAIL_BLOCKS];
  uint64_t invalid, out_of_range;       /* the helper's blocks' counts */
} cloud_tail;

/* For the caller at block @b: the helper's voxels for it (waiting for them
 * if the helper is at work on it), or NULL if the caller locates it. */
static const uint64_t *
tail_voxels (cloud_tail * tail, uint64_t b)
{
  atomic_uchar *state;
  unsigned char expected = TAIL_FREE;

  if (!tail || b < tail->first_block)
    return NULL;
  state = &tail->state[b - tail->first_block];
  if (atomic_compare_exchange_strong_explicit (state, &expected, TAIL_CALLER,
          memory_order_relaxed, memory_order_relaxed))
    return NULL;
  /* A block takes the helper a microsecond or so: spin, yielding now and
   * then in case it is not running. */
  for (unsigned spins = 1; atomic_load_explicit (state,
          memory_order_acquire) != TAIL_LOCATED; spins++) {
    if (spins % 256 == 0)
      sched_yield ();
  }
  return tail->voxels + (b - tail->first_block) * LOCATE_BLOCK;
}

/* Inlined for each combination of the flags and for small constant
 * @n_features, so that the common layouts (float32 x, y, z at offsets 0, 4,
 * 8; a few float32 features) read their fields directly instead of through
 * the per-type field reader, and a run's sums stay in registers. */
static ALWAYS_INLINE void
bin_points (const rc_point_layout * layout,
    const rc_voxel_grid * grid, const uint8_t * points, uint64_t n_points,
    int packed_xyz, int float_features, uint32_t n_features,
    voxel_sink * sink, cloud_tail * tail, rc_voxelize_stats * s)
{
  uint32_t step = layout->point_step;
  uint64_t run_voxel = NO_VOXEL;
  uint32_t run_points = 0;
  float sums[RC_VOXELIZE_MAX_FEATURES] = { 0 };
  uint64_t voxels[LOCATE_BLOCK];
  uint64_t invalid = 0, out_of_range = 0, in_grid = 0;
  /* Local copies, which the stores below cannot alias. */
  const rc_voxel_grid g = *grid;
  xy_pair_grid pair;

  /* rc_voxelize_check saw to it; said again for the unrolled loops. */
  if (n_features > RC_VOXELIZE_MAX_FEATURES)
    return;
  xy_pair_grid_init (&pair, grid);

  for (uint64_t base = 0; base < n_points; base += LOCATE_BLOCK) {
    const uint8_t *block = points + base * step;
    uint32_t n = block_points (n_points, base);
    const uint64_t *located = tail_voxels (tail, base / LOCATE_BLOCK);

    if (!located) {
      locate_block (layout, &g, &pair, block, n, packed_xyz, voxels,
          &invalid, &out_of_range);
      located = voxels;
    }

    for (uint32_t i = 0; i < n; i++) {
      const uint8_t *point = block + (uint64_t) i * step;
      uint64_t v = located[i];

      if (v == NO_VOXEL)
        continue;
      in_grid++;
      if (v != run_voxel) {
        if (run_points)
          sink_run (sink, run_voxel, run_points, n_features, sums);
        run_voxel = v;
        run_points = 0;
        UNROLL_FEATURES
        for (uint32_t f = 0; f < n_features; f++)
          sums[f] = 0.0f;
      }
      run_points++;
      UNROLL_FEATURES
      for (uint32_t f = 0; f < n_features; f++) {
        if (float_features) {
          float value;
          memcpy (&value, point + layout->features[f].offset, sizeof (value));
          sums[f] += value;
        } else {
          sums[f] += (float) rc_load_field (point, layout->features[f]);
        }
      }
    }
  }
  if (run_points)
    sink_run (sink, run_voxel, run_points, n_features, sums);
  s->invalid += invalid;
  s->out_of_range += out_of_range;
  s->in_grid += in_grid;
}

/* x, y, z are float32 at offsets 0, 4, 8 (KITTI, most drivers). */
static int
xyz_is_packed_float (const rc_point_layout * layout)
{
  return layout->x.type == RC_TYPE_FLOAT32
      && layout->y.type == RC_TYPE_FLOAT32 && layout->z.type == RC_TYPE_FLOAT32
      && layout->x.offset == 0 && layout->y.offset == 4
      && layout->z.offset == 8;
}

/* Bins one cloud into @sink, with the specialisation of bin_points that
 * fits its layout; @tail, if not NULL, shares the cloud's last blocks with
 * the mean's second thread. */
static void
bin_cloud (const rc_point_layout * layout, const rc_voxel_grid * grid,
    const uint8_t * points, uint64_t n_points, voxel_sink * sink,
    cloud_tail * tail, rc_voxelize_stats * s)
{
  int packed_xyz = xyz_is_packed_float (layout), float_features = 1;
  uint32_t n_features;

  n_features = rc_voxel_mode_averages (grid->mode) ? layout->n_features : 0;
  for (uint32_t f = 0; f < n_features; f++)
    float_features &= layout->features[f].type == RC_TYPE_FLOAT32;
  if (packed_xyz && float_features) {
    switch (n_features) {
      case 0:
        bin_points (layout, grid, points, n_points, 1, 1, 0, sink, tail, s);
        break;
      case 1:
        bin_points (layout, grid, points, n_points, 1, 1, 1, sink, tail, s);
        break;
      case 3:
        bin_points (layout, grid, points, n_points, 1, 1, 3, sink, tail, s);
        break;
      case 4:
        bin_points (layout, grid, points, n_points, 1, 1, 4, sink, tail, s);
        break;
      default:
        bin_points (layout, grid, points, n_points, 1, 1, n_features, sink,
            tail, s);
        break;
    }
  } else {
    bin_points (layout, grid, points, n_points, packed_xyz, float_features,
        n_features, sink, tail, s);
  }
}

/* The mean on two threads: the helper zeroes the output while the caller
 * bins the points; then, while the caller is still binning, the helper
 * locates the cloud's last blocks for it (cloud_tail); then each writes the
 * means of half of the grid.  The centroids have no grid to zero, nor one
 * to split: the helper only locates. */
typedef struct
{
  const voxel_sink *sink;
  size_t out_size;              /* 0 for the centroids */
  const rc_point_layout *layout;
  const rc_voxel_grid *grid;
  const uint8_t *points;
  uint64_t n_points;
  cloud_tail *tail;             /* NULL: nothing to share */
  pthread_barrier_t binned;     /* the caller has binned every point */
} mean_helper;

/* The helper's share of the binning: tail blocks from the last one down,
 * until it meets a block the caller has claimed. */
static void
locate_tail (const mean_helper * h)
{
  cloud_tail *tail = h->tail;
  const rc_point_layout *layout = h->layout;
  int packed_xyz = xyz_is_packed_float (layout);
  const rc_voxel_grid g = *h->grid;
  xy_pair_grid pair;

  xy_pair_grid_init (&pair, h->grid);
  for (uint32_t t = tail->n_blocks; t-- > 0;) {
    uint64_t base = (tail->first_block + t) * LOCATE_BLOCK;
    uint32_t n = block_points (h->n_points, base);
    const uint8_t *block = h->points + base * layout->point_step;
    uint64_t *voxels = tail->voxels + (uint64_t) t * LOCATE_BLOCK;
    unsigned char expected = TAIL_FREE;

    if (!atomic_compare_exchange_strong_explicit (&tail->state[t],
            &expected, TAIL_HELPER, memory_order_relaxed,
            memory_order_relaxed))
      break;
    if (packed_xyz)
      locate_block (layout, &g, &pair, block, n, 1, voxels, &tail->invalid,
          &tail->out_of_range);
    else
      locate_block (layout, &g, &pair, block, n, 0, voxels, &tail->invalid,
          &tail->out_of_range);
    atomic_store_explicit (&tail->state[t], TAIL_LOCATED,
        memory_order_release);
  }
}

static void *
help_with_mean (void *data)
{
  mean_helper *h = data;
  const voxel_sink *sink = h->sink;
  uint64_t n_words = mean_mask_words (sink->n_voxels);

  if (h->out_size)
    memset (sink->out, 0, h->out_size);
  if (h->tail)
    locate_tail (h);
  if (!h->out_size)
    return NULL;
  pthread_barrier_wait (&h->binned);
  write_table_means (sink, n_words / 2, n_words, NULL);
  return NULL;
}

static int processors;

static void
count_processors (void)
{
  processors = (int) sysconf (_SC_NPROCESSORS_ONLN);
}

static int
helper_worthwhile (const rc_point_layout * layout, const rc_voxel_grid * grid,
    uint64_t n_points)
{
  static pthread_once_t once = PTHREAD_ONCE_INIT;

  if (!helper_pays (layout, grid, n_points))
    return 0;
  pthread_once (&once, count_processors);
  return processors >= 2;
}

/* The cloud's last blocks, up to TAIL_BLOCKS, all free; their voxels go to
 * @room (TAIL_BYTES of scratch). */
static void
cloud_tail_init (cloud_tail * tail, uint64_t n_points, void *room)
{
  uint64_t n_blocks = (n_points + LOCATE_BLOCK - 1) / LOCATE_BLOCK;

  tail->n_blocks = (uint32_t) (n_blocks < TAIL_BLOCKS ? n_blocks :
      TAIL_BLOCKS);
  tail->first_block = n_blocks - tail->n_blocks;
  tail->voxels = (uint64_t *) (((uintptr_t) room + 7) & ~(uintptr_t) 7);
  for (uint32_t t = 0; t < TAIL_BLOCKS; t++)
    atomic_init (&tail->state[t], TAIL_FREE);
  tail->invalid = tail->out_of_range = 0;
}

/* Lays the mean's or the centroids' scratch out (rc_voxelize_scratch_size)
 * with @rows table rows; only the mask needs clearing. */
static void
table_init (voxel_sink * sink, uint32_t * scratch, uint64_t rows)
{
  uint64_t n_words = mean_mask_words (sink->n_voxels);

  sink->mask = scratch;
  sink->row_of_voxel = scratch + n_words;
  sink->row_voxel = sink->row_of_voxel + sink->n_voxels;
  sink->row_count = sink->row_voxel + rows;
  sink->row_sums = (float *) (sink->row_count + rows);
  memset (sink->mask, 0, n_words * sizeof (uint32_t));
}

static void
voxelize_one (const rc_point_layout * layout, const rc_voxel_grid * grid,
    const uint8_t * points, uint64_t n_points, uint8_t * out,
    uint32_t * scratch, rc_voxelize_stats * stats)
{
  uint64_t n_voxels = rc_voxel_grid_n_voxels (grid);
  int centroids = grid->mode == RC_VOXEL_CENTROIDS;
  uint64_t out_size = centroids ? 0 : rc_voxelize_output_size (layout, grid);
  voxel_sink sink = { layout, grid->mode, n_voxels, out };
  rc_voxelize_stats s = { 0, 0, 0, 0 };
  mean_helper h = { &sink, out_size, layout, grid, points, n_points };
  uint64_t n_words = mean_mask_words (n_voxels);
  uint64_t rows = reachable_voxels (grid, n_points);
  cloud_tail tail;
  pthread_t helper;
  int helping = 0;

  if (!rc_voxel_mode_averages (grid->mode)) {
    memset (out, 0, out_size);
    bin_cloud (layout, grid, points, n_points, &sink, NULL, &s);
    s.occupied = sink.occupied;
    if (stats)
      *stats = s;
    return;
  }

  /* The centroids bin as the mean does. */
  sink.mode = RC_VOXEL_MEAN;
  table_init (&sink, scratch, rows);
  if (helper_worthwhile (layout, grid, n_points)
      && pthread_barrier_init (&h.binned, NULL, 2) == 0) {
    /* The tail's room follows the table (rc_voxelize_scratch_size). */
    cloud_tail_init (&tail, n_points, sink.row_sums +
        rows * layout->n_features);
    h.tail = &tail;
    helping = pthread_create (&helper, NULL, help_with_mean, &h) == 0;
    if (!helping)
      pthread_barrier_destroy (&h.binned);
  }
  /* Centroids are listed below (out_size 0), where an empty cloud may
   * pass no output at all. */
  if (!helping && out_size > 0)
    memset (out, 0, out_size);
  bin_cloud (layout, grid, points, n_points, &sink, helping ? &tail : NULL,
      &s);
  if (helping) {
    if (!centroids) {
      pthread_barrier_wait (&h.binned);
      write_table_means (&sink, 0, n_words / 2, NULL);
    }
    pthread_join (helper, NULL);
    pthread_barrier_destroy (&h.binned);
    s.invalid += tail.invalid;
    s.out_of_range += tail.out_of_range;
  } else if (!centroids) {
    write_table_means (&sink, 0, n_words, NULL);
  }
  /* Centroids: the points in voxel order, a few tens of thousands. */
  if (centroids)
    write_table_means (&sink, 0, n_words, (float *) out);
  s.occupied = sink.occupied;
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

  if (ret != RC_OK)
    return ret;
  if (n_clouds == 0)
    return RC_OK;
  /* Empty clouds' centroids take no room: @out may then be NULL. */
  if ((!out && grid->mode != RC_VOXEL_CENTROIDS) || !cloud_sizes
      || (rc_voxel_mode_averages (grid->mode) && (!scratch
              || ((uintptr_t) scratch & 3))))
    return RC_ERROR_INVALID_ARGUMENT;
  if (grid->mode == RC_VOXEL_CENTROIDS && ((uintptr_t) out & 3))
    return RC_ERROR_INVALID_ARGUMENT;

  for (uint32_t c = 0; c < n_clouds; c++) {
    if (cloud_sizes[c] > 0 && (!cloud || !out))
      return RC_ERROR_INVALID_ARGUMENT;
    voxelize_one (layout, grid, cloud, cloud_sizes[c], (uint8_t *) out,
        (uint32_t *) scratch, stats ? &stats[c] : NULL);
    out = (uint8_t *) out + (grid->mode == RC_VOXEL_CENTROIDS ?
        rc_voxelize_centroids_size (layout, grid, cloud_sizes[c]) :
        rc_voxelize_output_size (layout, grid));
    cloud += cloud_sizes[c] * layout->point_step;
  }
  return RC_OK;
}
