/* Per-point voxelization maths, shared by voxelize.c and voxelize.cu. */
#ifndef ROBOCACHE_VOXELIZE_MATH_H
#define ROBOCACHE_VOXELIZE_MATH_H

#include <math.h>
#include <stdint.h>
#include <string.h>

#include "hostdevice.h"
#include "robocache-kernels.h"

/* Where a point falls. */
enum
{
  RC_POINT_IN_GRID,
  RC_POINT_OUT_OF_RANGE,
  RC_POINT_INVALID
};

/* Reads one field of any PointCloud2 type as a double.  memcpy keeps
 * unaligned fields (packed layouts) legal. */
RC_HD double
rc_load_field (const uint8_t * point, rc_field field)
{
  const uint8_t *p = point + field.offset;
  switch (field.type) {
    case RC_TYPE_INT8:{
      int8_t v;
      memcpy (&v, p, 1);
      return v;
    }
    case RC_TYPE_UINT8:
      return p[0];
    case RC_TYPE_INT16:{
      int16_t v;
      memcpy (&v, p, 2);
      return v;
    }
    case RC_TYPE_UINT16:{
      uint16_t v;
      memcpy (&v, p, 2);
      return v;
    }
    case RC_TYPE_INT32:{
      int32_t v;
      memcpy (&v, p, 4);
      return v;
    }
    case RC_TYPE_UINT32:{
      uint32_t v;
      memcpy (&v, p, 4);
      return v;
    }
    case RC_TYPE_FLOAT32:{
      float v;
      memcpy (&v, p, 4);
      return v;
    }
    case RC_TYPE_FLOAT64:{
      double v;
      memcpy (&v, p, 8);
      return v;
    }
    case RC_TYPE_BFLOAT16:{
      uint16_t b;
      uint32_t u;
      float v;
      memcpy (&b, p, 2);
      u = (uint32_t) b << 16;
      memcpy (&v, &u, 4);
      return v;
    }
    default:
      return NAN;
  }
}

/* Bins one axis coordinate.  Division in double on both CPU and GPU (IEEE
 * exact rounding on both), so that boundary points land in the same voxel
 * everywhere.  Returns -1 when outside [0, dim). */
RC_HD int64_t
rc_voxel_axis (double coord, double origin, double size, uint32_t dim)
{
  double f = (coord - origin) / size;
  if (!(f >= 0.0) || f >= (double) dim)
    return -1;
  return (int64_t) f;
}

RC_HD uint64_t
rc_voxel_grid_n_voxels_hd (const rc_voxel_grid * grid)
{
  return (uint64_t) grid->dims[0] * grid->dims[1] * grid->dims[2];
}

/* Modes that average feature fields: the dense mean and the centroids. */
RC_HD int
rc_voxel_mode_averages (rc_voxel_mode mode)
{
  return mode == RC_VOXEL_MEAN || mode == RC_VOXEL_CENTROIDS;
}

/* The GPU writes the centroids a tile of voxels per block: each tile's
 * occupied voxels are counted, then each tile sums the counts before it
 * into its first output point and writes its points in order. */
#define RC_CENTROID_TILE 2048

/* The CUDA scratch starts with a header of this size (voxelize.cu). */
#define RC_VOXELIZE_CUDA_HEADER 16

RC_HD uint64_t
rc_centroid_tiles (uint64_t n_voxels)
{
  return (n_voxels + RC_CENTROID_TILE - 1) / RC_CENTROID_TILE;
}

/* The GPU sums a voxel's @n_values side by side, in a record of this many
 * floats (16-byte aligned in the scratch): the centroids' features, a
 * large mean's features and count.  More than two values are padded to
 * whole float4s, which Hopper adds in one atomic. */
RC_HD uint32_t
rc_voxel_record_floats (uint32_t n_values)
{
  return n_values <= 2 ? n_values : (n_values + 3) & ~3u;
}

/* A dense mean of at least three features of a large, sparse cloud (more
 * than 262,144 points, at most one for four voxels) is put in voxel order
 * on the GPU by a radix sort of its points by voxel, each voxel's run then
 * summed in the points' order, instead of adding each feature with a float
 * atomic (voxelize.cu), where it is not partitioned
 * (rc_voxel_partitioned, which runs first).  One feature fits a record
 * that one vector atomic adds, which the sort did not beat (run 164). */
#define RC_MEAN_SORT_MIN_FEATURES 3
#define RC_MEAN_SORT_MIN_POINTS 262145
#define RC_MEAN_SORT_VOXELS_PER_POINT 4
/* Voxels a block of the sorted division takes. */
#define RC_MEAN_SORT_BLOCK_VOXELS 1024

RC_HD int
rc_voxel_mean_sorts (const rc_point_layout * layout,
    const rc_voxel_grid * grid, uint64_t n_points)
{
  return grid->mode == RC_VOXEL_MEAN &&
      layout->n_features >= RC_MEAN_SORT_MIN_FEATURES &&
      n_points >= RC_MEAN_SORT_MIN_POINTS &&
      n_points <= rc_voxel_grid_n_voxels_hd (grid) /
      RC_MEAN_SORT_VOXELS_PER_POINT;
}

/* A mean of more than RC_MEAN_SLAB_POINTS points, too many to list its
 * voxels, is cleared, binned and divided on the GPU a slab of its sums
 * and counts at a time, RC_MEAN_SLAB_BYTES a slab, while the L2 cache
 * holds it (voxelize.cu).  256^3 means of one feature (134 MB, four
 * slabs), run 134 on an H100, against one slab: 4,194,304 points 501 us
 * against 578, a million 218 against 254, 300,000 154 against 159; slabs
 * of 48 MiB gave 551, 229 and 150.  On Hopper and later one or three
 * features bin in records of their sums and count, which are floats:
 * exact up to 2^24 points a voxel, so for clouds up to
 * RC_MEAN_RECORD_POINTS. */
#ifndef RC_MEAN_SLAB_BYTES
#define RC_MEAN_SLAB_BYTES (32ull << 20)
#endif
#define RC_MEAN_SLAB_POINTS 262144
#define RC_MEAN_RECORD_POINTS (1ull << 24)

/* Bytes, 16-byte alignment included, that the records of a mean of up to
 * @n_points take where they fit one slab: a record a voxel of its sums and
 * its count (rc_voxel_record_floats of one feature more, unpadded: one or
 * three features).  They lie from the scratch's counts on, over the list
 * and what follows it (rc_voxelize_cuda_scratch_size); 0 where no cloud
 * of up to @n_points is binned so. */
RC_HD uint64_t
rc_voxel_mean_record_bytes (const rc_point_layout * layout,
    const rc_voxel_grid * grid, uint64_t n_points)
{
  uint32_t record = rc_voxel_record_floats (layout->n_features + 1);
  uint64_t bytes = rc_voxel_grid_n_voxels_hd (grid) * record * sizeof (float);

  return grid->mode == RC_VOXEL_MEAN && n_points > RC_MEAN_SLAB_POINTS &&
      record == layout->n_features + 1 && bytes <= RC_MEAN_SLAB_BYTES ?
      15 + bytes : 0;
}

/* GPU counts, and means of up to RC_PARTITION_MAX_FEATURES features, of a
 * large cloud into a grid larger than the L2 cache are partitioned
 * (voxelize-partition.cu): the points put in order of their tile of the
 * grid, each tile then counted (and a mean's features summed) in shared
 * memory and written whole, with no atomic on the grid and no clear.
 * Tiles of 2^15 voxels for counts, 2^14 for a mean; a block sums a mean's
 * tile in parts whose 16-bit counts and float sums fit
 * RC_MEAN_TILE_BYTES, so that two blocks share an SM: one part for one
 * feature, two for two or three, four for four.  From
 * RC_COUNT_PARTITION_POINTS points for counts, RC_MEAN_PARTITION_POINTS
 * for a mean, into more than RC_PARTITION_GRID_BYTES of grid (4 bytes a
 * voxel) of at most RC_PARTITION_MAX_TILES tiles, whose tallies a block
 * holds in shared memory.  Counts of more than 524,288 points, where the
 * atomics would take the grid in two slabs (COUNT_SLAB_POINTS,
 * voxelize.cu): 786,432 uniform points into 256^3 in 51.4 us against
 * 60.5, and 524,288 in 48.1 against 39.0 with one slab (H200, run 188).
 * Means from 131,072 points: 45.5 us against 46.3 there.  Means of more
 * features keep the sorted path or their atomics. */
#define RC_COUNT_TILE_BITS 15
#define RC_MEAN_TILE_BITS 14
#define RC_MEAN_TILE_BYTES (112u << 10)
#define RC_PARTITION_MAX_FEATURES 4
#define RC_COUNT_PARTITION_POINTS 524289
#define RC_MEAN_PARTITION_POINTS 131072
#define RC_PARTITION_GRID_BYTES (48ull << 20)
#define RC_PARTITION_MAX_TILES 4096u

/* The features a partition of @grid sums: 0 for counts. */
RC_HD uint32_t
rc_voxel_partition_features (const rc_point_layout * layout,
    const rc_voxel_grid * grid)
{
  return grid->mode == RC_VOXEL_MEAN ? layout->n_features : 0;
}

RC_HD unsigned
rc_voxel_partition_tile_bits (const rc_voxel_grid * grid)
{
  return grid->mode == RC_VOXEL_MEAN ? RC_MEAN_TILE_BITS : RC_COUNT_TILE_BITS;
}

RC_HD uint64_t
rc_voxel_partition_tiles (const rc_voxel_grid * grid)
{
  unsigned bits = rc_voxel_partition_tile_bits (grid);

  return (rc_voxel_grid_n_voxels_hd (grid) + (1u << bits) - 1) >> bits;
}

RC_HD int
rc_voxel_partitioned (const rc_point_layout * layout,
    const rc_voxel_grid * grid, uint64_t n_points)
{
  uint64_t least = grid->mode == RC_VOXEL_COUNT ? RC_COUNT_PARTITION_POINTS :
      grid->mode == RC_VOXEL_MEAN &&
      layout->n_features <= RC_PARTITION_MAX_FEATURES ?
      RC_MEAN_PARTITION_POINTS : 0;

  return least && n_points >= least && n_points < (1ull << 32) &&
      rc_voxel_grid_n_voxels_hd (grid) * sizeof (uint32_t) >
      RC_PARTITION_GRID_BYTES &&
      rc_voxel_partition_tiles (grid) <= RC_PARTITION_MAX_TILES;
}

/* A partition's arrays in the scratch, in this order: a word a tile for
 * its points, its places taken and its crowded blocks done (cleared
 * together), its first place, the first further block of a crowded tile
 * (one word more); then a point's voxel, a mean's features in tile order
 * (a plane a feature), and a point's place in its tile. */
typedef enum
{
  RC_PARTITION_TOTALS,
  RC_PARTITION_TAKEN,
  RC_PARTITION_DONE,
  RC_PARTITION_STARTS,
  RC_PARTITION_EXTRA_FIRST,
  RC_PARTITION_VOXELS,
  RC_PARTITION_PLACED_FEATURES,
  RC_PARTITION_PLACES,
  RC_PARTITION_ARRAYS
} rc_voxel_partition_array;

/* Each array's byte offset for @n_tiles tiles and up to @n_points points
 * of @n_features features (0 for counts) into @at, and the bytes of them
 * all into at[RC_PARTITION_ARRAYS]. */
RC_HD void
rc_voxel_partition_offsets (uint64_t n_tiles, uint64_t n_points,
    uint32_t n_features, uint64_t at[RC_PARTITION_ARRAYS + 1])
{
  const uint64_t bytes[RC_PARTITION_ARRAYS] = {
    n_tiles * sizeof (uint32_t), n_tiles * sizeof (uint32_t),
    n_tiles * sizeof (uint32_t), n_tiles * sizeof (uint32_t),
    (n_tiles + 1) * sizeof (uint32_t), n_points * sizeof (uint32_t),
    n_points * n_features * sizeof (float), n_points * sizeof (uint16_t)
  };
  int i;

  at[0] = 0;
  for (i = 0; i < RC_PARTITION_ARRAYS; i++)
    at[i + 1] = at[i] + bytes[i];
}

/* Bytes a partition of up to @n_points takes in the scratch; 0 where the
 * cloud is not partitioned. */
RC_HD uint64_t
rc_voxel_partition_bytes (const rc_point_layout * layout,
    const rc_voxel_grid * grid, uint64_t n_points)
{
  uint64_t at[RC_PARTITION_ARRAYS + 1];

  if (!rc_voxel_partitioned (layout, grid, n_points))
    return 0;
  rc_voxel_partition_offsets (rc_voxel_partition_tiles (grid), n_points,
      rc_voxel_partition_features (layout, grid), at);
  return at[RC_PARTITION_ARRAYS];
}

/* Room for the radix sort's own scratch (CUB's DeviceRadixSort) of
 * @n_points: 0.12 to 0.2 bytes a point on an H200 (run 164); the sort
 * checks its need against it and, where it would not fit, the mean is
 * binned as if unsorted. */
RC_HD uint64_t
rc_voxel_mean_sort_temp_bytes (uint64_t n_points)
{
  return 65536 + n_points / 2;
}

/* Bytes a sorted mean of up to @n_points points takes past the rest of
 * the scratch: the first sorted point of each block of voxels, the radix
 * sort's scratch (256-byte aligned), then each point's record of features
 * in sorted order (rc_voxel_record_floats: four or eight floats, 16-byte
 * aligned).  The points' keys and indices, twice (the sort's two
 * buffers), 16 bytes a point, lie in the counts' room: 4 bytes a voxel,
 * four voxels or more a point. */
RC_HD uint64_t
rc_voxel_mean_sort_bytes (const rc_point_layout * layout,
    const rc_voxel_grid * grid, uint64_t n_points)
{
  uint64_t n_voxels = rc_voxel_grid_n_voxels_hd (grid);
  uint64_t most = n_voxels / RC_MEAN_SORT_VOXELS_PER_POINT;
  uint64_t blocks = (n_voxels + RC_MEAN_SORT_BLOCK_VOXELS - 1) /
      RC_MEAN_SORT_BLOCK_VOXELS;

  n_points = n_points < most ? n_points : most;
  if (!rc_voxel_mean_sorts (layout, grid, n_points))
    return 0;
  return (blocks + 1) * sizeof (uint32_t) + 255 +
      rc_voxel_mean_sort_temp_bytes (n_points) + 15 +
      n_points * rc_voxel_record_floats (layout->n_features) * sizeof (float);
}

/* Classifies a point given its coordinates and, when it is in the grid,
 * gives its voxel index. */
RC_HD int
rc_voxel_locate_xyz (double x, double y, double z,
    const rc_voxel_grid * grid, uint64_t * index)
{
  int64_t i, j, k;

  if (!isfinite (x) || !isfinite (y) || !isfinite (z))
    return RC_POINT_INVALID;
  i = rc_voxel_axis (x, grid->origin[0], grid->voxel_size[0], grid->dims[0]);
  j = rc_voxel_axis (y, grid->origin[1], grid->voxel_size[1], grid->dims[1]);
  k = rc_voxel_axis (z, grid->origin[2], grid->voxel_size[2], grid->dims[2]);
  if (i < 0 || j < 0 || k < 0)
    return RC_POINT_OUT_OF_RANGE;
  *index = ((uint64_t) k * grid->dims[1] + (uint64_t) j) * grid->dims[0] +
      (uint64_t) i;
  return RC_POINT_IN_GRID;
}

/* The same, reading the coordinates through the point layout. */
RC_HD int
rc_voxel_locate (const uint8_t * point, const rc_point_layout * layout,
    const rc_voxel_grid * grid, uint64_t * index)
{
  return rc_voxel_locate_xyz (rc_load_field (point, layout->x),
      rc_load_field (point, layout->y), rc_load_field (point, layout->z),
      grid, index);
}

#endif
