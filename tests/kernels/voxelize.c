/* Voxelization on the CPU reference: hand-computed cases per mode, the
 * boundaries, invalid points and rejected parameters. */
#include <gst/check/gstcheck.h>
#include <math.h>
#include <string.h>

#include "testutil.h"
#include "voxelize-math.h"      /* the per-point binning, for the recount */

typedef struct
{
  float x, y, z, intensity;
} PointXYZI;

static const rc_point_layout xyzi = {
  .point_step = 16,
  .x = {0, RC_TYPE_FLOAT32},
  .y = {4, RC_TYPE_FLOAT32},
  .z = {8, RC_TYPE_FLOAT32},
  .n_features = 1,
  .features = {{12, RC_TYPE_FLOAT32}},
};

/* 4 x 3 x 2 unit voxels from (0, 0, 0). */
static rc_voxel_grid
small_grid (rc_voxel_mode mode)
{
  rc_voxel_grid g = { {0, 0, 0}, {1, 1, 1}, {4, 3, 2}, mode };
  return g;
}

static uint64_t
idx (uint32_t i, uint32_t j, uint32_t k)
{
  return ((uint64_t) k * 3 + j) * 4 + i;
}

static const PointXYZI hand_points[] = {
  {0.5f, 0.5f, 0.5f, 1.0f},     /* voxel (0,0,0) */
  {0.0f, 0.0f, 0.0f, 3.0f},     /* (0,0,0): the lower bound is inside */
  {3.9f, 2.9f, 1.9f, 5.0f},     /* (3,2,1) */
  {4.0f, 1.0f, 1.0f, 7.0f},     /* x = 4: the upper bound is outside */
  {-0.1f, 1.0f, 1.0f, 7.0f},    /* outside below */
  {1.5f, 1.5f, 1.5f, 2.0f},     /* (1,1,1) */
  {NAN, 1.0f, 1.0f, 1.0f},      /* invalid */
  {1.0f, INFINITY, 1.0f, 1.0f}, /* invalid */
  {1.2f, 1.7f, 1.1f, 4.0f},     /* (1,1,1) */
};

#define N_HAND G_N_ELEMENTS (hand_points)

GST_START_TEST (test_occupancy_hand)
{
  rc_voxel_grid grid = small_grid (RC_VOXEL_OCCUPANCY);
  uint64_t n = N_HAND;
  uint8_t out[24 + 4];
  rc_voxelize_stats stats;

  fail_unless_equals_int (rc_voxelize_output_size (&xyzi, &grid), 24);
  memset (out, 0xAB, sizeof (out));
  fail_unless_equals_int (rc_voxelize_cpu (&xyzi, &grid, hand_points, &n, 1,
          out, NULL, &stats), RC_OK);
  for (uint64_t v = 0; v < 24; v++) {
    int expected = v == idx (0, 0, 0) || v == idx (3, 2, 1) ||
        v == idx (1, 1, 1);
    fail_unless_equals_int (out[v], expected);
  }
  fail_unless_equals_int (out[24], 0xAB);       /* nothing past the grid */
  fail_unless_equals_int (stats.in_grid, 5);
  fail_unless_equals_int (stats.out_of_range, 2);
  fail_unless_equals_int (stats.invalid, 2);
  fail_unless_equals_int (stats.occupied, 3);
}

GST_END_TEST;

GST_START_TEST (test_count_hand)
{
  rc_voxel_grid grid = small_grid (RC_VOXEL_COUNT);
  uint64_t n = N_HAND;
  uint32_t out[24];
  rc_voxelize_stats stats;

  memset (out, 0xAB, sizeof (out));
  fail_unless_equals_int (rc_voxelize_cpu (&xyzi, &grid, hand_points, &n, 1,
          out, NULL, &stats), RC_OK);
  for (uint64_t v = 0; v < 24; v++) {
    uint32_t expected = v == idx (0, 0, 0) ? 2 : v == idx (3, 2, 1) ? 1 :
        v == idx (1, 1, 1) ? 2 : 0;
    fail_unless_equals_int (out[v], expected);
  }
  fail_unless_equals_int (stats.occupied, 3);
}

GST_END_TEST;

GST_START_TEST (test_mean_hand)
{
  rc_voxel_grid grid = small_grid (RC_VOXEL_MEAN);
  rc_point_layout layout = xyzi;
  uint64_t n = N_HAND;
  float out[24 * 2];
  /* A bit per voxel, a word per voxel, and a table row for each voxel the
   * 9 points can reach: its index, count and two sums. */
  uint32_t scratch[1 + 24 + N_HAND * (2 + 2)];

  /* Two features: intensity and x. */
  layout.n_features = 2;
  layout.features[1] = layout.x;
  fail_unless_equals_int (rc_voxelize_scratch_size (&layout, &grid, N_HAND),
      sizeof (scratch));
  /* No more rows than voxels, however large the cloud. */
  fail_unless_equals_int (rc_voxelize_scratch_size (&layout, &grid, 1000),
      (1 + 24 + 24 * (2 + 2)) * sizeof (uint32_t));
  memset (out, 0xAB, sizeof (out));
  fail_unless_equals_int (rc_voxelize_cpu (&layout, &grid, hand_points, &n, 1,
          out, scratch, NULL), RC_OK);
  fail_unless_equals_float (out[idx (0, 0, 0)], 2.0f);
  fail_unless_equals_float (out[idx (3, 2, 1)], 5.0f);
  fail_unless_equals_float (out[idx (1, 1, 1)], 3.0f);
  fail_unless_equals_float (out[24 + idx (0, 0, 0)], 0.25f);
  fail_unless (fabsf (out[24 + idx (1, 1, 1)] - 1.35f) < 1e-6f);
  fail_unless_equals_float (out[idx (2, 0, 0)], 0.0f);  /* empty voxel */
  fail_unless_equals_float (out[24 + idx (2, 0, 0)], 0.0f);
}

GST_END_TEST;

/* The same points as centroids: a point per occupied voxel, in voxel
 * order, the room past them left alone; two clouds, the second empty, then
 * the first again. */
GST_START_TEST (test_centroids_hand)
{
  rc_voxel_grid grid = small_grid (RC_VOXEL_CENTROIDS);
  rc_point_layout layout = xyzi;
  uint64_t sizes[3] = { N_HAND, 0, N_HAND };
  float out[2 * 2 * N_HAND + 1];        /* two clouds of 9 points of 2 floats */
  /* The mask, a word per voxel, and a row for each of the 9 points. */
  uint32_t scratch[1 + 24 + N_HAND * (2 + 2)];
  rc_voxelize_stats stats[3];
  const float want[3][2] = { {2.0f, 0.25f}, {3.0f, 1.35f}, {5.0f, 3.9f} };
  PointXYZI twice[2 * N_HAND];

  memcpy (twice, hand_points, sizeof (hand_points));
  memcpy (twice + N_HAND, hand_points, sizeof (hand_points));
  layout.n_features = 2;
  layout.features[1] = layout.x;
  fail_unless_equals_int (rc_voxelize_scratch_size (&layout, &grid, N_HAND),
      sizeof (scratch));
  /* A cloud of 9 points reaches at most 9 of the 24 voxels. */
  fail_unless_equals_int (rc_voxelize_centroids_size (&layout, &grid,
          N_HAND), N_HAND * 8);
  fail_unless_equals_int (rc_voxelize_centroids_size (&layout, &grid, 1000),
      24 * 8);
  fail_unless_equals_int (rc_voxelize_centroids_size (&layout, &grid, 0), 0);
  memset (out, 0xAB, sizeof (out));
  fail_unless_equals_int (rc_voxelize_cpu (&layout, &grid, twice, sizes, 3,
          out, scratch, stats), RC_OK);
  for (int c = 0; c < 3; c += 2) {
    const float *points = out + c / 2 * N_HAND * 2;
    fail_unless_equals_int (stats[c].occupied, 3);
    fail_unless_equals_int (stats[c].in_grid, 5);
    fail_unless_equals_int (stats[c].invalid, 2);
    fail_unless_equals_int (stats[c].out_of_range, 2);
    for (int p = 0; p < 3; p++) {
      fail_unless (fabsf (points[2 * p] - want[p][0]) < 1e-6f);
      fail_unless (fabsf (points[2 * p + 1] - want[p][1]) < 1e-6f);
    }
    for (guint i = 6; i < N_HAND * 2; i++)
      fail_unless (((const uint32_t *) points)[i] == 0xABABABABu,
          "room past the centroids written");
  }
  fail_unless_equals_int (stats[1].occupied, 0);
  fail_unless (((const uint32_t *) out)[4 * N_HAND] == 0xABABABABu);
}

GST_END_TEST;

/* Stride 32, float64 coordinates, a uint16 ring field averaged. */
GST_START_TEST (test_stride32_float64)
{
  guint8 cloud[3 * 32];
  rc_point_layout layout = {
    .point_step = 32,
    .x = {0, RC_TYPE_FLOAT64},
    .y = {8, RC_TYPE_FLOAT64},
    .z = {16, RC_TYPE_FLOAT64},
    .n_features = 1,
    .features = {{24, RC_TYPE_UINT16}},
  };
  rc_voxel_grid grid = { {-1, -1, -1}, {0.5, 0.5, 0.5}, {4, 4, 4},
  RC_VOXEL_MEAN
  };
  const double xyz[3][3] = { {-0.9, -0.9, -0.9}, {-0.6, -0.8, -0.55},
  {0.99, 0.99, 0.99}
  };
  const guint16 ring[3] = { 4, 8, 30 };
  float out[64];
  uint32_t *scratch = g_malloc (rc_voxelize_scratch_size (&layout, &grid, 3));
  uint64_t n = 3;

  memset (cloud, 0x5A, sizeof (cloud));
  for (int p = 0; p < 3; p++) {
    memcpy (cloud + p * 32, xyz[p], 24);
    memcpy (cloud + p * 32 + 24, &ring[p], 2);
  }
  fail_unless_equals_int (rc_voxelize_cpu (&layout, &grid, cloud, &n, 1, out,
          scratch, NULL), RC_OK);
  fail_unless_equals_float (out[0], 6.0f);
  fail_unless_equals_float (out[63], 30.0f);
  g_free (scratch);
}

GST_END_TEST;

/* Two clouds in one call give two grids. */
GST_START_TEST (test_several_clouds)
{
  rc_voxel_grid grid = small_grid (RC_VOXEL_COUNT);
  uint64_t sizes[2] = { 2, N_HAND - 2 };
  uint32_t out[2][24];
  rc_voxelize_stats stats[2];

  fail_unless_equals_int (rc_voxelize_cpu (&xyzi, &grid, hand_points, sizes,
          2, out, NULL, stats), RC_OK);
  fail_unless_equals_int (out[0][idx (0, 0, 0)], 2);
  fail_unless_equals_int (out[1][idx (0, 0, 0)], 0);
  fail_unless_equals_int (out[1][idx (1, 1, 1)], 2);
  fail_unless_equals_int (stats[0].in_grid, 2);
  fail_unless_equals_int (stats[1].in_grid, 3);
  fail_unless_equals_int (stats[1].invalid, 2);
}

GST_END_TEST;

/* An empty cloud clears the grid and counts nothing. */
GST_START_TEST (test_empty_cloud)
{
  rc_voxel_grid grid = small_grid (RC_VOXEL_OCCUPANCY);
  uint64_t n = 0;
  uint8_t out[24];
  rc_voxelize_stats stats;

  memset (out, 1, sizeof (out));
  fail_unless_equals_int (rc_voxelize_cpu (&xyzi, &grid, NULL, &n, 1, out,
          NULL, &stats), RC_OK);
  for (int v = 0; v < 24; v++)
    fail_unless_equals_int (out[v], 0);
  fail_unless_equals_int (stats.in_grid + stats.invalid + stats.out_of_range,
      0);
}

GST_END_TEST;

/* 512^3 occupancy: 128 MiB, random points, each voxel checked against its
 * own recount. */
GST_START_TEST (test_grid_512)
{
  rc_voxel_grid grid = { {0, 0, 0}, {0.1, 0.1, 0.1}, {512, 512, 512},
  RC_VOXEL_OCCUPANCY
  };
  GRand *rand = test_rand_new ();
  uint64_t n = 10000;
  PointXYZI *points = g_new (PointXYZI, n);
  uint8_t *out = g_malloc (rc_voxelize_output_size (&xyzi, &grid));
  rc_voxelize_stats stats;

  for (uint64_t p = 0; p < n; p++) {
    points[p].x = g_rand_double_range (rand, -1, 52);
    points[p].y = g_rand_double_range (rand, -1, 52);
    points[p].z = g_rand_double_range (rand, -1, 52);
    points[p].intensity = 1;
  }
  fail_unless_equals_int (rc_voxelize_cpu (&xyzi, &grid, points, &n, 1, out,
          NULL, &stats), RC_OK);
  for (uint64_t p = 0; p < n; p++) {
    uint64_t v;
    if (points[p].x >= 0 && points[p].y >= 0 && points[p].z >= 0 &&
        points[p].x < 51.2f && points[p].y < 51.2f && points[p].z < 51.2f) {
      v = ((uint64_t) (points[p].z / 0.1) * 512 +
          (uint64_t) (points[p].y / 0.1)) * 512 + (uint64_t) (points[p].x /
          0.1);
      fail_unless_equals_int (out[v], 1);
    }
  }
  fail_unless_equals_int (stats.in_grid + stats.out_of_range, n);
  fail_unless (stats.in_grid > n / 2);
  g_free (out);
  g_free (points);
  g_rand_free (rand);
}

GST_END_TEST;

/* The per-run accumulation against a plain per-point recount in double, on
 * random clouds: points in sweep order (runs of a few points per voxel,
 * voxels revisited later) and shuffled, a grid of 37 x 11 x 5 voxels (the
 * occupancy mask's last word partly used), float32 and uint16 features
 * (the direct and the generic readers) and float64 coordinates. */
typedef struct
{
  double x, y, z;
  float intensity;
  uint16_t ring;
  uint16_t pad;
} PointF64;

/* x and y boundaries fall on float32 values, z's do not. */
static const rc_voxel_grid recount_grid = { {-1.0, -2.0, 0.5},
{0.25, 0.5, 0.3}, {37, 11, 5}, RC_VOXEL_MEAN
};

/* The centroids of the same points: the occupied voxels' means, bit for
 * bit those of the dense mean @means, in voxel order, and nothing more. */
static void
check_centroids (const rc_point_layout * layout, const uint8_t * points,
    uint64_t n, const float *means, const rc_voxelize_stats * want)
{
  rc_voxel_grid grid = recount_grid;
  uint64_t n_voxels = rc_voxel_grid_n_voxels (&grid), got = 0;
  uint64_t room = rc_voxelize_centroids_size (layout, &grid, n);
  uint32_t n_features = layout->n_features;
  uint32_t *scratch;
  float *centroids = g_malloc (room + 4);
  rc_voxelize_stats stats;

  grid.mode = RC_VOXEL_CENTROIDS;
  room = rc_voxelize_centroids_size (layout, &grid, n);
  scratch = g_malloc (rc_voxelize_scratch_size (layout, &grid, n));
  memset (centroids, 0x7f, room + 4);
  memset (scratch, 0x5a, rc_voxelize_scratch_size (layout, &grid, n));
  fail_unless_equals_int (rc_voxelize_cpu (layout, &grid, points, &n, 1,
          centroids, scratch, &stats), RC_OK);
  fail_unless (memcmp (&stats, want, sizeof (stats)) == 0);
  for (uint64_t v = 0; v < n_voxels; v++) {
    gboolean occupied = FALSE;
    for (uint32_t f = 0; f < n_features; f++)
      occupied |= means[f * n_voxels + v] != 0.0f;
    if (!occupied)
      continue;
    fail_unless (got < stats.occupied);
    for (uint32_t f = 0; f < n_features; f++)
      fail_unless (memcmp (&centroids[got * n_features + f],
              &means[f * n_voxels + v], 4) == 0, "centroid %"
          G_GUINT64_FORMAT " feature %u differs from the mean", got, f);
    got++;
  }
  /* A voxel whose means are all zero is occupied but was skipped above:
   * the random features make that all but impossible. */
  fail_unless_equals_int (got, stats.occupied);
  for (uint64_t i = got * n_features; i < room / 4 + 1; i++)
    fail_unless (((uint32_t *) centroids)[i] == 0x7f7f7f7fu,
        "room past the centroids written");
  g_free (centroids);
  g_free (scratch);
}

static void
check_against_recount (const rc_point_layout * layout, const uint8_t * points,
    uint64_t n)
{
  rc_voxel_grid grid = recount_grid;
  rc_voxel_grid count_grid = grid;
  uint64_t n_voxels = rc_voxel_grid_n_voxels (&grid);
  uint32_t n_features = layout->n_features;
  float *means = g_malloc (rc_voxelize_output_size (layout, &grid));
  uint32_t *counts, *want_counts = g_new0 (uint32_t, n_voxels);
  double *want_sums = g_new0 (double, n_voxels * n_features);
  uint32_t *scratch = g_malloc (rc_voxelize_scratch_size (layout, &grid, n));
  rc_voxelize_stats stats, count_stats, want = { 0, 0, 0, 0 };

  count_grid.mode = RC_VOXEL_COUNT;
  counts = g_malloc (rc_voxelize_output_size (layout, &count_grid));
  /* Garbage where the kernel must write zeros. */
  memset (means, 0x7f, rc_voxelize_output_size (layout, &grid));
  memset (scratch, 0x5a, rc_voxelize_scratch_size (layout, &grid, n));

  for (uint64_t p = 0; p < n; p++) {
    const uint8_t *point = points + p * layout->point_step;
    double c[3] = { rc_load_field (point, layout->x),
      rc_load_field (point, layout->y), rc_load_field (point, layout->z)
    };
    int64_t a[3];
    uint64_t v;

    if (!isfinite (c[0]) || !isfinite (c[1]) || !isfinite (c[2])) {
      want.invalid++;
      continue;
    }
    for (int i = 0; i < 3; i++)
      a[i] = rc_voxel_axis (c[i], grid.origin[i], grid.voxel_size[i],
          grid.dims[i]);
    if (a[0] < 0 || a[1] < 0 || a[2] < 0) {
      want.out_of_range++;
      continue;
    }
    want.in_grid++;
    v = ((uint64_t) a[2] * 11 + (uint64_t) a[1]) * 37 + (uint64_t) a[0];
    want.occupied += want_counts[v]++ == 0;
    for (uint32_t f = 0; f < n_features; f++)
      want_sums[f * n_voxels + v] += rc_load_field (point, layout->features[f]);
  }

  fail_unless_equals_int (rc_voxelize_cpu (layout, &grid, points, &n, 1,
          means, scratch, &stats), RC_OK);
  fail_unless_equals_int (rc_voxelize_cpu (layout, &count_grid, points, &n,
          1, counts, NULL, &count_stats), RC_OK);
  check_centroids (layout, points, n, means, &want);
  fail_unless (memcmp (&stats, &want, sizeof (want)) == 0);
  fail_unless (memcmp (&count_stats, &want, sizeof (want)) == 0);
  fail_unless (want.occupied > n_voxels / 4 && want.occupied < n_voxels);
  for (uint64_t v = 0; v < n_voxels; v++) {
    fail_unless_equals_int (counts[v], want_counts[v]);
    for (uint32_t f = 0; f < n_features; f++) {
      double expect = want_counts[v] ?
          want_sums[f * n_voxels + v] / want_counts[v] : 0.0;
      double got = means[f * n_voxels + v];
      fail_unless (fabs (got - expect) <= 1e-5 * fabs (expect) + 1e-6,
          "voxel %" G_GUINT64_FORMAT " feature %u: %.9g, expected %.9g", v,
          f, got, expect);
    }
  }
  g_free (means);
  g_free (counts);
  g_free (want_counts);
  g_free (want_sums);
  g_free (scratch);
}

GST_START_TEST (test_mean_against_recount)
{
  GRand *rand = test_rand_new ();
  const uint64_t n = 6000;
  PointXYZI *packed = g_new (PointXYZI, n);
  PointF64 *wide = g_new0 (PointF64, n);
  rc_point_layout packed_layout = xyzi, wide_layout = {
    .point_step = sizeof (PointF64),
    .x = {G_STRUCT_OFFSET (PointF64, x), RC_TYPE_FLOAT64},
    .y = {G_STRUCT_OFFSET (PointF64, y), RC_TYPE_FLOAT64},
    .z = {G_STRUCT_OFFSET (PointF64, z), RC_TYPE_FLOAT64},
    .n_features = 2,
    .features = {{G_STRUCT_OFFSET (PointF64, intensity), RC_TYPE_FLOAT32},
        {G_STRUCT_OFFSET (PointF64, ring), RC_TYPE_UINT16}},
  };

  packed_layout.n_features = 4;
  packed_layout.features[1] = xyzi.x;
  packed_layout.features[2] = xyzi.y;
  packed_layout.features[3] = xyzi.z;

  for (int order = 0; order < 2; order++) {
    /* A random walk (consecutive points share voxels, as along a lidar
     * ring), with 3 % NaN and some points beyond the grid. */
    double at[3] = { 3.0, 0.5, 1.2 };
    for (uint64_t p = 0; p < n; p++) {
      at[0] = fmod (at[0] + g_rand_double_range (rand, 0.0, 0.1) + 11.0,
          11.0) - 1.5;
      at[1] = g_rand_double_range (rand, 0, 1) < 0.02 ?
          g_rand_double_range (rand, -2.5, 4.0) : at[1] +
          g_rand_double_range (rand, -0.05, 0.05);
      at[2] = g_rand_double_range (rand, 0, 1) < 0.02 ?
          g_rand_double_range (rand, 0.3, 2.2) : at[2];
      packed[p].x = (float) at[0];
      packed[p].y = (float) at[1];
      packed[p].z = (float) at[2];
      packed[p].intensity = (float) g_rand_double_range (rand, 0, 100);
      /* On a boundary of the grid or one float step either side, faces
       * and infinities included. */
      if (g_rand_double_range (rand, 0, 1) < 0.1) {
        const rc_voxel_grid *g = &recount_grid;
        float *coord[3] = { &packed[p].x, &packed[p].y, &packed[p].z };
        int a = g_rand_int_range (rand, 0, 3);
        int k = g_rand_int_range (rand, -1, (gint32) g->dims[a] + 2);
        float c = (float) (g->origin[a] + k * g->voxel_size[a]);
        int side = g_rand_int_range (rand, -1, 2);

        if (side)
          c = nextafterf (c, side * INFINITY);
        if (g_rand_double_range (rand, 0, 1) < 0.02)
          c = side < 0 ? -INFINITY : INFINITY;
        *coord[a] = c;
      }
      if (g_rand_double_range (rand, 0, 1) < 0.03)
        packed[p].y = NAN;
    }
    if (order == 1) {
      for (uint64_t p = n - 1; p > 0; p--) {
        uint64_t q = (uint64_t) g_rand_int_range (rand, 0, (gint32) p + 1);
        PointXYZI t = packed[p];
        packed[p] = packed[q];
        packed[q] = t;
      }
    }
    for (uint64_t p = 0; p < n; p++) {
      wide[p].x = packed[p].x + g_rand_double_range (rand, -1e-3, 1e-3);
      wide[p].y = packed[p].y;
      wide[p].z = packed[p].z;
      wide[p].intensity = packed[p].intensity;
      wide[p].ring = (uint16_t) g_rand_int_range (rand, 0, 64);
    }
    check_against_recount (&packed_layout, (const uint8_t *) packed, n);
    check_against_recount (&wide_layout, (const uint8_t *) wide, n);
  }
  g_free (packed);
  g_free (wide);
  g_rand_free (rand);
}

GST_END_TEST;

/* Fills @n_filled voxels spread over the first @span (a power of two) of a
 * 1024 x 512 grid with one point each (in an order where no two
 * consecutive points share a voxel), adds one more to the first of them,
 * and checks every mean.  Two features over 2^19 voxels make an output
 * large enough for the mean's second thread.  Extra points at the end,
 * outside the grid or NaN, check the counts. */
#define N_EXTRA 30

static void
check_filled_mean (uint64_t n_filled, uint64_t span)
{
  rc_point_layout layout = xyzi;
  rc_voxel_grid grid = { {0, 0, 0}, {1, 1, 1}, {1024, 512, 1},
  RC_VOXEL_MEAN
  };
  const uint64_t n_voxels = 1024 * 512;
  uint64_t n = n_filled + 1 + N_EXTRA;
  PointXYZI *cloud = g_new (PointXYZI, n);
  float *want = g_new0 (float, 2 * n_voxels);
  float *out;
  uint32_t *scratch;
  rc_voxelize_stats stats;

  layout.n_features = 2;
  layout.features[1] = layout.x;
  out = g_malloc (rc_voxelize_output_size (&layout, &grid));
  scratch = g_malloc (rc_voxelize_scratch_size (&layout, &grid, n));
  /* 7919 is odd: i -> 7919 i mod 2^k visits every voxel of the span
   * once. */
  for (uint64_t i = 0; i < n_filled; i++) {
    uint64_t v = (i * 7919) % span;
    PointXYZI p = { (float) (v % 1024) + 0.25f, (float) (v / 1024) + 0.5f,
      0.5f, (float) (v % 251) + 1.0f
    };
    cloud[i] = p;
    want[v] = p.intensity;
    want[n_voxels + v] = p.x;
  }
  cloud[n_filled] = cloud[0];
  cloud[n_filled].x += 0.5f;
  cloud[n_filled].intensity += 4.0f;
  want[0] += 2.0f;
  want[n_voxels] += 0.25f;
  /* Two thirds outside (above the grid's one layer), one third NaN. */
  for (int e = 0; e < N_EXTRA; e++) {
    PointXYZI p = { 3.5f, 7.5f, e % 3 ? 1.5f : NAN, 100.0f };
    cloud[n_filled + 1 + e] = p;
  }
  memset (out, 0x7f, rc_voxelize_output_size (&layout, &grid));
  memset (scratch, 0x5a, rc_voxelize_scratch_size (&layout, &grid, n));

  fail_unless_equals_int (rc_voxelize_cpu (&layout, &grid, cloud, &n, 1, out,
          scratch, &stats), RC_OK);
  fail_unless_equals_uint64 (stats.in_grid, n_filled + 1);
  fail_unless_equals_uint64 (stats.out_of_range, N_EXTRA / 3 * 2);
  fail_unless_equals_uint64 (stats.invalid, N_EXTRA / 3);
  fail_unless_equals_uint64 (stats.occupied, n_filled);
  for (uint64_t k = 0; k < 2 * n_voxels; k++) {
    if (out[k] != want[k])
      fail ("%" G_GUINT64_FORMAT " voxels filled: plane %d voxel %"
          G_GUINT64_FORMAT ": mean %g instead of %g", n_filled,
          (int) (k / n_voxels), k % n_voxels, out[k], want[k]);
  }
  g_free (cloud);
  g_free (want);
  g_free (out);
  g_free (scratch);
}

/* The mean on two threads: 200,000 and 300,000 occupied voxels (more than
 * the 2^18 rows its table once stopped at), each a row of a table as long
 * as the cloud; and all of them in the first quarter of the grid, so that
 * one thread has nearly all the means to write. */
GST_START_TEST (test_mean_large_grid)
{
  const uint64_t n_voxels = 1024 * 512;

  check_filled_mean (200000, n_voxels);
  check_filled_mean (300000, n_voxels);
  check_filled_mean (100000, n_voxels / 4);
}

GST_END_TEST;

/* Which means the GPU sorts (rc_voxel_mean_sorts: three features or more,
 * from 262,145 points up to one for four voxels) and the CUDA scratch
 * that follows: each block of 1,024 voxels' first point, the radix sort's
 * scratch (64 KiB and half a byte a point) and a record of four or eight
 * floats a point where the mean sorts, up to the most points that do;
 * the room for the records of one or three features where they fit one
 * slab (rc_voxel_mean_record_bytes); nothing more elsewhere.  Host
 * arithmetic: runs without a GPU. */
static guint64
sort_room (guint64 n_voxels, guint64 n_points, guint record_floats)
{
  return ((n_voxels + 1023) / 1024 + 1) * 4 + 255 + 65536 + n_points / 2 +
      15 + n_points * record_floats * 4;
}

GST_START_TEST (test_cuda_scratch_sizes)
{
  rc_point_layout one = { 16, {0, RC_TYPE_FLOAT32}, {4, RC_TYPE_FLOAT32},
  {8, RC_TYPE_FLOAT32}, 1, {{12, RC_TYPE_FLOAT32}}
  };
  rc_point_layout two = one, three, eight;
  /* 4,194,304 voxels: sorted from 262,145 to 1,048,576 points. */
  rc_voxel_grid grid = { {-25.6, -25.6, -6.4}, {0.2, 0.2, 0.2},
  {256, 256, 64}, RC_VOXEL_MEAN
  };
  /* 640,000 voxels: a point for four is fewer than 262,145. */
  rc_voxel_grid small = { {-20.0, -20.0, -2.5}, {0.25, 0.25, 0.2},
  {160, 160, 25}, RC_VOXEL_MEAN
  };
  rc_voxel_grid count = grid;
  const guint64 n_voxels = 256 * 256 * 64, most = 1048576, some = 300001;
  guint64 base;

  two.n_features = 2;
  two.features[1] = one.features[0];
  three.n_features = 3;
  for (int f = 0; f < 3; f++)
    three.features[f] = (rc_field) { 4 * f, RC_TYPE_FLOAT32 };
  eight = three;
  eight.n_features = 8;
  for (int f = 3; f < 8; f++)
    eight.features[f] = one.features[0];
  count.mode = RC_VOXEL_COUNT;

  fail_if (rc_voxel_mean_sorts (&one, &grid, some));
  fail_if (rc_voxel_mean_sorts (&two, &grid, some));
  fail_if (rc_voxel_mean_sorts (&three, &count, some));
  fail_if (rc_voxel_mean_sorts (&three, &grid, 262144));
  fail_unless (rc_voxel_mean_sorts (&three, &grid, 262145));
  fail_unless (rc_voxel_mean_sorts (&eight, &grid, most));
  fail_if (rc_voxel_mean_sorts (&eight, &grid, most + 1));
  fail_if (rc_voxel_mean_sorts (&eight, &small, some));

  base = rc_voxelize_cuda_scratch_size (&three, &grid, 1, 0);
  fail_unless_equals_uint64 (rc_voxelize_cuda_scratch_size (&three, &grid, 1,
          262144), base);
  fail_unless_equals_uint64 (rc_voxelize_cuda_scratch_size (&three, &grid, 1,
          some), base + sort_room (n_voxels, some, 4));
  base = rc_voxelize_cuda_scratch_size (&eight, &grid, 1, 0);
  fail_unless_equals_uint64 (rc_voxelize_cuda_scratch_size (&eight, &grid, 1,
          some), base + sort_room (n_voxels, some, 8));
  /* No more than the most points that sort, whatever cloud is promised. */
  fail_unless_equals_uint64 (rc_voxelize_cuda_scratch_size (&eight, &grid, 1,
          G_GUINT64_CONSTANT (1) << 40), base + sort_room (n_voxels, most, 8));
  /* The keys and indices, 16 bytes a point, fit the counts' room. */
  fail_unless (16 * most <= 4 * n_voxels);
  /* One feature's records (8 bytes a voxel: 32 MiB, one slab) from the
   * counts on, over the list and past it, from 262,145 points. */
  base = rc_voxelize_cuda_scratch_size (&one, &grid, 1, 0);
  fail_unless_equals_uint64 (rc_voxelize_cuda_scratch_size (&one, &grid, 1,
          262144), base);
  fail_unless_equals_uint64 (rc_voxel_mean_record_bytes (&one, &grid,
          some), 15 + 8 * n_voxels);
  fail_unless_equals_uint64 (rc_voxelize_cuda_scratch_size (&one, &grid, 1,
          some), base + 15 + 8 * n_voxels - 4 * n_voxels - n_voxels / 8);
  fail_unless_equals_uint64 (rc_voxel_mean_record_bytes (&two, &grid, some),
      0);
  fail_unless_equals_uint64 (rc_voxel_mean_record_bytes (&one, &count, some),
      0);
  fail_unless_equals_uint64 (rc_voxelize_cuda_scratch_size (&two, &grid, 1,
          some), rc_voxelize_cuda_scratch_size (&two, &grid, 1, 0));
  fail_unless_equals_uint64 (rc_voxelize_cuda_scratch_size (&eight, &small, 1,
          some), rc_voxelize_cuda_scratch_size (&eight, &small, 1, 0));
}

GST_END_TEST;

/* Counts and means of up to four features partitioned by tile on the GPU:
 * of more than 524,288 points (counts) or from 131,072 (a mean) into more
 * than 48 MiB of grid, of at most 4,096 tiles (2^15 voxels for counts,
 * 2^14 for a mean); their scratch (five words a tile and one, 6 bytes a
 * point and 4 a mean's feature) only then. */
GST_START_TEST (test_partition_sizes)
{
  rc_point_layout one = { 16, {0, RC_TYPE_FLOAT32}, {4, RC_TYPE_FLOAT32},
  {8, RC_TYPE_FLOAT32}, 1, {{12, RC_TYPE_FLOAT32}}
  };
  rc_point_layout two = one, four = one, five = one;
  rc_voxel_grid cube = { {-25.6, -25.6, -25.6}, {0.2, 0.2, 0.2},
  {256, 256, 256}, RC_VOXEL_COUNT
  };
  /* 48 MiB of counts exactly: binned. */
  rc_voxel_grid edge = { {0, 0, 0}, {1, 1, 1}, {4096, 3072, 1},
  RC_VOXEL_COUNT
  };
  rc_voxel_grid large = cube, larger = cube, mean = cube, other = cube;
  const guint64 million = 1048576, quarter = 262144;
  const guint64 counts_least = 524289, mean_least = 131072;
  guint64 base = rc_voxelize_cuda_scratch_size (&one, &cube, 2, 0);

  two.n_features = 2;
  two.features[1] = one.features[0];
  four.n_features = 4;
  five.n_features = 5;
  for (int f = 1; f < 5; f++)
    four.features[f] = five.features[f] = one.features[0];
  large.dims[0] = large.dims[1] = large.dims[2] = 512;
  larger.dims[2] = 2049;        /* 4,098 tiles of counts */
  mean.mode = RC_VOXEL_MEAN;
  fail_unless_equals_uint64 (rc_voxel_partition_tiles (&cube), 512);
  fail_unless_equals_uint64 (rc_voxel_partition_tiles (&mean), 1024);
  fail_unless_equals_uint64 (rc_voxel_partition_tiles (&larger), 4098);
  fail_unless (rc_voxel_partitioned (&one, &cube, counts_least));
  fail_if (rc_voxel_partitioned (&one, &cube, counts_least - 1));
  fail_if (rc_voxel_partitioned (&one, &cube, G_GUINT64_CONSTANT (1) << 32));
  fail_if (rc_voxel_partitioned (&one, &edge, million));
  edge.dims[2] = 2;
  fail_unless (rc_voxel_partitioned (&one, &edge, million));
  fail_unless (rc_voxel_partitioned (&one, &large, million));
  fail_if (rc_voxel_partitioned (&one, &larger, million));
  fail_unless (rc_voxel_partitioned (&one, &mean, mean_least));
  fail_if (rc_voxel_partitioned (&one, &mean, mean_least - 1));
  fail_unless (rc_voxel_partitioned (&two, &mean, million));
  fail_unless (rc_voxel_partitioned (&four, &mean, mean_least));
  fail_if (rc_voxel_partitioned (&five, &mean, million));
  /* 512^3 is 8,192 tiles of a mean's. */
  large.mode = RC_VOXEL_MEAN;
  fail_if (rc_voxel_partitioned (&one, &large, million));
  large.dims[2] = 256;
  fail_unless (rc_voxel_partitioned (&one, &large, million));
  for (int mode = RC_VOXEL_OCCUPANCY; mode <= RC_VOXEL_CENTROIDS; mode++) {
    other.mode = (rc_voxel_mode) mode;
    fail_unless (rc_voxel_partitioned (&one, &other, million) ==
        (mode == RC_VOXEL_COUNT || mode == RC_VOXEL_MEAN));
  }

  fail_unless_equals_uint64 (rc_voxelize_cuda_scratch_size (&one, &cube, 2,
          counts_least - 1), base);
  fail_unless_equals_uint64 (rc_voxelize_cuda_scratch_size (&one, &cube, 2,
          million), base + (5 * 512 + 1) * 4 + million * 6);
  fail_unless_equals_uint64 (rc_voxelize_cuda_scratch_size (&one, &larger, 2,
          million), rc_voxelize_cuda_scratch_size (&one, &larger, 2, 0));
  base = rc_voxelize_cuda_scratch_size (&one, &mean, 1, 0);
  fail_unless_equals_uint64 (rc_voxelize_cuda_scratch_size (&one, &mean, 1,
          quarter), base + (5 * 1024 + 1) * 4 + quarter * 10);
  base = rc_voxelize_cuda_scratch_size (&two, &mean, 1, 0);
  fail_unless_equals_uint64 (rc_voxelize_cuda_scratch_size (&two, &mean, 1,
          quarter), base + (5 * 1024 + 1) * 4 + quarter * 14);
  base = rc_voxelize_cuda_scratch_size (&four, &mean, 1, 0);
  fail_unless_equals_uint64 (rc_voxelize_cuda_scratch_size (&four, &mean, 1,
          quarter), base + (5 * 1024 + 1) * 4 + quarter * 22);
}

GST_END_TEST;

GST_START_TEST (test_bad_parameters_n)
{
  rc_voxel_grid grid = small_grid (RC_VOXEL_OCCUPANCY), g;
  rc_point_layout l;
  uint64_t n = N_HAND;
  uint8_t out[24];

  g = grid;
  g.voxel_size[1] = 0;
  fail_unless_equals_int (rc_voxelize_check (&xyzi, &g),
      RC_ERROR_INVALID_ARGUMENT);
  g.voxel_size[1] = -0.5;
  fail_unless_equals_int (rc_voxelize_cpu (&xyzi, &g, hand_points, &n, 1, out,
          NULL, NULL), RC_ERROR_INVALID_ARGUMENT);
  g = grid;
  g.voxel_size[0] = NAN;
  fail_unless_equals_int (rc_voxelize_check (&xyzi, &g),
      RC_ERROR_INVALID_ARGUMENT);
  g = grid;
  g.dims[2] = 0;
  fail_unless_equals_int (rc_voxelize_check (&xyzi, &g),
      RC_ERROR_INVALID_ARGUMENT);
  g = grid;
  g.dims[0] = g.dims[1] = g.dims[2] = 2000;     /* 8e9 voxels */
  fail_unless_equals_int (rc_voxelize_check (&xyzi, &g),
      RC_ERROR_INVALID_ARGUMENT);
  g = grid;
  g.dims[0] = g.dims[1] = g.dims[2] = 0xFFFFFFFFu;      /* overflows 64 bit */
  fail_unless_equals_int (rc_voxelize_check (&xyzi, &g),
      RC_ERROR_INVALID_ARGUMENT);

  l = xyzi;
  l.x.type = RC_TYPE_INT32;
  fail_unless_equals_int (rc_voxelize_check (&l, &grid),
      RC_ERROR_INVALID_ARGUMENT);
  l = xyzi;
  l.features[0].offset = 14;    /* 4 bytes from 14 overrun a 16-byte point */
  fail_unless_equals_int (rc_voxelize_check (&l, &grid),
      RC_ERROR_INVALID_ARGUMENT);
  l = xyzi;
  l.point_step = 0;
  fail_unless_equals_int (rc_voxelize_check (&l, &grid),
      RC_ERROR_INVALID_ARGUMENT);
  l = xyzi;
  l.n_features = 0;
  g = small_grid (RC_VOXEL_MEAN);
  fail_unless_equals_int (rc_voxelize_check (&l, &g),
      RC_ERROR_INVALID_ARGUMENT);
  g.mode = RC_VOXEL_CENTROIDS;
  fail_unless_equals_int (rc_voxelize_check (&l, &g),
      RC_ERROR_INVALID_ARGUMENT);
  g.mode = (rc_voxel_mode) (RC_VOXEL_CENTROIDS + 1);
  fail_unless_equals_int (rc_voxelize_check (&xyzi, &g),
      RC_ERROR_INVALID_ARGUMENT);
  /* The mean and the centroids without scratch; the centroids' floats
   * misaligned. */
  g.mode = RC_VOXEL_MEAN;
  fail_unless_equals_int (rc_voxelize_cpu (&xyzi, &g, hand_points, &n, 1, out,
          NULL, NULL), RC_ERROR_INVALID_ARGUMENT);
  g.mode = RC_VOXEL_CENTROIDS;
  fail_unless_equals_int (rc_voxelize_cpu (&xyzi, &g, hand_points, &n, 1, out,
          NULL, NULL), RC_ERROR_INVALID_ARGUMENT);
  {
    uint32_t scratch[1 + 24 + 24 * 3];
    uint64_t none = 0;
    fail_unless_equals_int (rc_voxelize_cpu (&xyzi, &g, hand_points, &n, 1,
            out + 1, scratch, NULL), RC_ERROR_INVALID_ARGUMENT);
    /* No room is needed for an empty cloud's centroids, but for others. */
    fail_unless_equals_int (rc_voxelize_cpu (&xyzi, &g, NULL, &none, 1,
            NULL, scratch, NULL), RC_OK);
    fail_unless_equals_int (rc_voxelize_cpu (&xyzi, &g, hand_points, &n, 1,
            NULL, scratch, NULL), RC_ERROR_INVALID_ARGUMENT);
  }
  fail_unless (strlen (rc_status_message (RC_ERROR_INVALID_ARGUMENT)) > 0);
}

GST_END_TEST;

GST_START_TEST (test_scalar_types)
{
  fail_unless_equals_int (rc_scalar_type_from_string ("float32"),
      RC_TYPE_FLOAT32);
  fail_unless_equals_int (rc_scalar_type_from_string ("uint16"),
      RC_TYPE_UINT16);
  fail_unless_equals_int (rc_scalar_type_from_string ("float"),
      RC_TYPE_INVALID);
  fail_unless_equals_int (rc_scalar_type_size (RC_TYPE_FLOAT64), 8);
  fail_unless_equals_string (rc_scalar_type_to_string (RC_TYPE_INT8), "int8");
}

GST_END_TEST;

static Suite *
voxelize_suite (void)
{
  Suite *s = suite_create ("kernels-voxelize");
  TCase *tc = tcase_create ("cpu");

  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_occupancy_hand);
  tcase_add_test (tc, test_count_hand);
  tcase_add_test (tc, test_mean_hand);
  tcase_add_test (tc, test_centroids_hand);
  tcase_add_test (tc, test_stride32_float64);
  tcase_add_test (tc, test_several_clouds);
  tcase_add_test (tc, test_empty_cloud);
  tcase_add_test (tc, test_grid_512);
  tcase_add_test (tc, test_mean_against_recount);
  tcase_add_test (tc, test_mean_large_grid);
  tcase_add_test (tc, test_cuda_scratch_sizes);
  tcase_add_test (tc, test_partition_sizes);
  tcase_add_test (tc, test_bad_parameters_n);
  tcase_add_test (tc, test_scalar_types);
  return s;
}

GST_CHECK_MAIN (voxelize);
