/* The bird's-eye view on the CPU (the reference): a wall of points
 * voxelized and drawn lights up the pixels computed here from its metres;
 * y up; colour indices; odd sizes, empty grids, all-NaN means, ranges of
 * zero width, the overlay blend, row padding and bad parameters. */
#include <gst/check/gstcheck.h>
#include <math.h>
#include <string.h>

#include "testutil.h"
#include "bev-colormaps.h"

static GRand *rand_;

static const rc_point_layout xyz = {
  .point_step = 12,
  .x = {0, RC_TYPE_FLOAT32},.y = {4, RC_TYPE_FLOAT32},
  .z = {8, RC_TYPE_FLOAT32},
};

static void
check_rc (rc_status ret)
{
  fail_unless (ret == RC_OK, "%s", rc_status_message (ret));
}

/* Renders @grid_data into a new packed picture. */
static guint8 *
render (const rc_bev_params * p, gconstpointer grid_data,
    const guint8 * overlay, rc_bev_stats * stats)
{
  guint8 *out = g_malloc ((gsize) p->width * p->height * 4);
  gpointer scratch = g_malloc (rc_bev_scratch_size (p));

  check_rc (rc_bev_render_cpu (p, grid_data, overlay, out, p->width * 4,
          scratch, stats));
  g_free (scratch);
  return out;
}

static gboolean
is_background (const rc_bev_params * p, const guint8 * px)
{
  return memcmp (px, p->background, 4) == 0;
}

static rc_bev_params
params_for (const rc_voxel_grid * grid, rc_bev_value value)
{
  rc_bev_params p = {
    .grid = *grid,.value = value,.auto_range = 1,
    .width = grid->dims[0],.height = grid->dims[1],
    .background = {0, 0, 0, 255},
  };
  return p;
}

/* A wall at x = 5.2 m from y = -4 to 9 m and z = -0.5 to 2 m, random
 * points on it, voxelized into counts and drawn at @scale pixels per
 * voxel: exactly the pixels of its columns light up. */
static void
check_wall (guint scale, rc_bev_value value)
{
  rc_voxel_grid grid = { {-10.0, -5.0, -1.0}, {0.5, 0.5, 0.5}, {40, 30, 8},
  RC_VOXEL_COUNT
  };
  const guint n = 5000;
  float *points = g_new (float, n * 3);
  guint32 *counts = g_new (guint32, 40 * 30 * 8);
  guint64 n64 = n;
  rc_bev_params p = params_for (&grid, value);
  rc_bev_stats stats;
  guint8 *out;
  /* The wall's columns, from its metres. */
  guint wall_i = (guint) floor ((5.2 - grid.origin[0]) / grid.voxel_size[0]);
  guint j_lo = (guint) floor ((-4.0 - grid.origin[1]) / grid.voxel_size[1]);
  guint j_hi = (guint) floor ((9.0 - 1e-3 - grid.origin[1]) /
      grid.voxel_size[1]);

  for (guint i = 0; i < n; i++) {
    points[i * 3] = 5.2f;
    points[i * 3 + 1] = (float) g_rand_double_range (rand_, -4.0, 9.0 - 1e-3);
    points[i * 3 + 2] = (float) g_rand_double_range (rand_, -0.5, 2.0);
  }
  check_rc (rc_voxelize_cpu (&xyz, &grid, points, &n64, 1, counts, NULL, NULL));
  p.width *= scale;
  p.height *= scale;
  out = render (&p, counts, NULL, &stats);
  fail_unless_equals_int (stats.columns, j_hi - j_lo + 1);
  for (guint py = 0; py < p.height; py++) {
    for (guint px = 0; px < p.width; px++) {
      /* y up: row py shows j = dims-1 - py / scale. */
      guint i = px / scale, j = grid.dims[1] - 1 - py / scale;
      gboolean lit = i == wall_i && j >= j_lo && j <= j_hi;
      fail_unless (lit != is_background (&p, out + (py * p.width + px) * 4),
          "pixel (%u, %u), column (%u, %u): lit %d", px, py, i, j, lit);
    }
  }
  if (value == RC_BEV_HEIGHT) {
    /* Top voxel: z up to 2 m lies in layer (2 - -1) / 0.5 = 6 (k = 5 for
     * points below 2.0 exactly): every column the same height, a range of
     * zero width: the top colour. */
    guint8 *px = out + (0 * p.width + wall_i * scale) * 4;
    fail_unless (stats.min == stats.max);
    fail_unless (memcmp (px + (gsize) (grid.dims[1] - 1 - j_hi) * scale *
            p.width * 4, rc_bev_turbo[255], 4) == 0);
  }
  g_free (out);
  g_free (points);
  g_free (counts);
}

GST_START_TEST (test_wall_pixels)
{
  check_wall (1, RC_BEV_DENSITY);
  check_wall (2, RC_BEV_DENSITY);
  check_wall (3, RC_BEV_HEIGHT);
}

GST_END_TEST;

/* Heights in a fixed range pick the table entries computed here. */
GST_START_TEST (test_height_colours)
{
  rc_voxel_grid grid = { {0, 0, 0}, {1, 1, 1}, {4, 2, 8}, RC_VOXEL_OCCUPANCY };
  guint8 occ[64] = { 0 };
  rc_bev_params p = params_for (&grid, RC_BEV_HEIGHT);
  guint8 *out;

  /* Column (i=1, j=0): layers 2 and 5; column (3, 1): layer 7; (0, 1): 0. */
  occ[2 * 8 + 0 * 4 + 1] = 1;
  occ[5 * 8 + 0 * 4 + 1] = 1;
  occ[7 * 8 + 1 * 4 + 3] = 1;
  occ[0 * 8 + 1 * 4 + 0] = 1;
  p.auto_range = 0;
  p.range_min = 0.0;
  p.range_max = 7.0;
  out = render (&p, occ, NULL, NULL);
  /* Row 1 is j = 0, row 0 is j = 1. */
  fail_unless (memcmp (out + (1 * 4 + 1) * 4,
          rc_bev_turbo[(int) (5 * 256.0 / 7)], 4) == 0);
  fail_unless (memcmp (out + (0 * 4 + 3) * 4, rc_bev_turbo[255], 4) == 0);
  fail_unless (memcmp (out + (0 * 4 + 0) * 4, rc_bev_turbo[0], 4) == 0);
  fail_unless (is_background (&p, out + (1 * 4 + 0) * 4));
  g_free (out);

  /* The density table and a range below the values: clamped to the top. */
  p.colormap = RC_BEV_COLORMAP_DENSITY;
  p.range_max = 1.0;
  out = render (&p, occ, NULL, NULL);
  fail_unless (memcmp (out + (1 * 4 + 1) * 4, rc_bev_density[255], 4) == 0);
  g_free (out);
}

GST_END_TEST;

/* Empty grids, all-NaN means, zero-width ranges: documented pictures. */
GST_START_TEST (test_degenerate_inputs)
{
  rc_voxel_grid grid = { {0, 0, 0}, {1, 1, 1}, {7, 5, 3}, RC_VOXEL_COUNT };
  guint32 counts[105] = { 0 };
  float means[2 * 105];
  rc_bev_params p = params_for (&grid, RC_BEV_DENSITY);
  rc_bev_stats stats;
  guint8 *out;

  /* Empty: the background everywhere, no range. */
  out = render (&p, counts, NULL, &stats);
  fail_unless_equals_int (stats.columns, 0);
  fail_unless (stats.min == 0.0 && stats.max == 0.0);
  for (guint i = 0; i < 35; i++)
    fail_unless (is_background (&p, out + i * 4));
  g_free (out);

  /* All-NaN (and Inf, and zero) means: empty too, in every value. */
  grid.mode = RC_VOXEL_MEAN;
  for (guint i = 0; i < G_N_ELEMENTS (means); i++)
    means[i] = i % 3 == 0 ? NAN : i % 3 == 1 ? INFINITY : 0.0f;
  for (int v = RC_BEV_DENSITY; v <= RC_BEV_FEATURE; v++) {
    p = params_for (&grid, (rc_bev_value) v);
    p.n_features = 2;
    p.feature = 1;
    out = render (&p, means, NULL, &stats);
    fail_unless_equals_int (stats.columns, 0);
    for (guint i = 0; i < 35; i++)
      fail_unless (is_background (&p, out + i * 4));
    g_free (out);
  }

  /* One value in a fixed range of zero width: the top colour. */
  means[105 + 2 * 35 + 3] = -1.5f;
  p.auto_range = 0;
  p.range_min = p.range_max = 4.0;
  out = render (&p, means, NULL, &stats);
  fail_unless_equals_int (stats.columns, 1);
  fail_unless (stats.min == -1.5 && stats.max == -1.5);
  fail_unless (memcmp (out + (4 * 7 + 3) * 4, rc_bev_turbo[255], 4) == 0);
  g_free (out);
}

GST_END_TEST;

/* Grid columns [*first, *end) along an axis of @dims that pixel @pixel of
 * @pixels covers: by integer division, at least one. */
static void
pixel_span (guint dims, guint pixels, guint pixel, guint * first, guint * end)
{
  *first = pixel * dims / pixels;
  *end = MAX ((pixel + 1) * dims / pixels, *first + 1);
}

/* The density pixel (px, py) of a 13 x 11 x 2 count grid shows: the
 * largest column sum it covers, 0 when all are empty. */
static guint
pooled_density (const guint32 * counts, guint width, guint height, guint px,
    guint py)
{
  guint i0, i1, r0, r1, best = 0;

  pixel_span (13, width, px, &i0, &i1);
  pixel_span (11, height, py, &r0, &r1);
  for (guint r = r0; r < r1; r++)
    for (guint i = i0; i < i1; i++) {
      guint c = (10 - r) * 13 + i;

      best = MAX (best, counts[c] + counts[143 + c]);
    }
  return best;
}

/* Sizes that are not multiples of the grid, smaller and larger: a pixel
 * shows the largest of the columns it covers (one, where the picture is
 * larger), so a grid finer than the picture loses no occupied column;
 * every pixel written, row padding left alone. */
GST_START_TEST (test_odd_sizes_and_padding)
{
  rc_voxel_grid grid = { {0, 0, 0}, {1, 1, 1}, {13, 11, 2}, RC_VOXEL_COUNT };
  guint32 counts[13 * 11 * 2];
  static const guint sizes[][2] = { {1, 1}, {7, 5}, {29, 3}, {13, 11},
  {40, 37}
  };

  for (guint i = 0; i < G_N_ELEMENTS (counts); i++)
    counts[i] = g_rand_int_range (rand_, 0, 3);
  for (guint s = 0; s < G_N_ELEMENTS (sizes); s++) {
    rc_bev_params p = params_for (&grid, RC_BEV_DENSITY);
    rc_bev_stats stats;
    gsize pitch;
    guint8 *out, *ref;
    gpointer scratch = g_malloc (rc_bev_scratch_size (&p));

    p.width = sizes[s][0];
    p.height = sizes[s][1];
    pitch = p.width * 4 + 12;
    out = g_malloc (pitch * p.height);
    memset (out, 0xAB, pitch * p.height);
    check_rc (rc_bev_render_cpu (&p, counts, NULL, out, pitch, scratch, NULL));
    ref = render (&p, counts, NULL, &stats);
    for (guint py = 0; py < p.height; py++) {
      fail_unless (memcmp (out + py * pitch, ref + py * p.width * 4,
              p.width * 4) == 0);
      for (guint b = p.width * 4; b < pitch; b++)
        fail_unless_equals_int (out[py * pitch + b], 0xAB);
      for (guint px = 0; px < p.width; px++) {
        guint v = pooled_density (counts, p.width, p.height, px, py);
        const guint8 *pixel = ref + (py * p.width + px) * 4;

        fail_unless ((v == 0) == is_background (&p, pixel));
        /* The colour of that value over the grid's range (auto: the
         * smallest to the largest column): 256 colours. */
        if (v && stats.max > stats.min) {
          guint index = MIN (255, (guint) ((v - stats.min) * 256.0 /
                  (stats.max - stats.min)));

          fail_unless (memcmp (pixel, rc_bev_turbo[index], 4) == 0,
              "%ux%u, pixel %u,%u: value %u", p.width, p.height, px, py, v);
        }
      }
    }
    g_free (out);
    g_free (ref);
    g_free (scratch);
  }
}

GST_END_TEST;

/* The overlay's alpha blend, in integers. */
GST_START_TEST (test_overlay_blend)
{
  rc_voxel_grid grid = { {0, 0, 0}, {1, 1, 1}, {2, 1, 1}, RC_VOXEL_COUNT };
  guint32 counts[2] = { 0, 5 };
  guint8 overlay[8] = { 255, 255, 255, 255, 200, 100, 0, 128 };
  rc_bev_params p = params_for (&grid, RC_BEV_DENSITY);
  const guint8 *c = rc_bev_turbo[255];
  guint8 *out;

  p.background[3] = 0;          /* transparent */
  out = render (&p, counts, overlay, NULL);
  fail_unless (memcmp (out, overlay, 4) == 0);
  for (int ch = 0; ch < 3; ch++)
    fail_unless_equals_int (out[4 + ch], (overlay[4 + ch] * 128 +
            c[ch] * 127 + 127) / 255);
  fail_unless_equals_int (out[7], 255);
  g_free (out);
}

GST_END_TEST;

GST_START_TEST (test_bad_parameters_n)
{
  rc_voxel_grid grid = { {0, 0, 0}, {1, 1, 1}, {4, 4, 4}, RC_VOXEL_COUNT };
  rc_bev_params good = params_for (&grid, RC_BEV_DENSITY), p;
  guint32 counts[64] = { 0 };
  guint8 out[64];
  double scratch[16];

  check_rc (rc_bev_check (&good));
  p = good;
  p.value = RC_BEV_FEATURE;     /* not a mean grid */
  fail_unless_equals_int (rc_bev_check (&p), RC_ERROR_INVALID_ARGUMENT);
  p = good;
  p.width = 0;
  fail_unless_equals_int (rc_bev_check (&p), RC_ERROR_INVALID_ARGUMENT);
  p = good;
  p.height = RC_BEV_MAX_SIZE + 1;
  fail_unless_equals_int (rc_bev_check (&p), RC_ERROR_INVALID_ARGUMENT);
  p = good;
  p.grid.dims[0] = RC_BEV_MAX_SIZE + 1;
  fail_unless_equals_int (rc_bev_check (&p), RC_ERROR_INVALID_ARGUMENT);
  p = good;
  p.grid.mode = RC_VOXEL_CENTROIDS;
  fail_unless_equals_int (rc_bev_check (&p), RC_ERROR_INVALID_ARGUMENT);
  p = good;
  p.grid.mode = RC_VOXEL_MEAN;
  p.n_features = 2;
  p.feature = 2;
  fail_unless_equals_int (rc_bev_check (&p), RC_ERROR_INVALID_ARGUMENT);
  p = good;
  p.auto_range = 0;
  p.range_max = NAN;
  fail_unless_equals_int (rc_bev_check (&p), RC_ERROR_INVALID_ARGUMENT);
  /* A pitch below a row. */
  fail_unless_equals_int (rc_bev_render_cpu (&good, counts, NULL, out, 15,
          scratch, NULL), RC_ERROR_INVALID_ARGUMENT);
}

GST_END_TEST;

static Suite *
bev_suite (void)
{
  Suite *s = suite_create ("kernels-bev");
  TCase *tc = tcase_create ("cpu");

  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_wall_pixels);
  tcase_add_test (tc, test_height_colours);
  tcase_add_test (tc, test_degenerate_inputs);
  tcase_add_test (tc, test_odd_sizes_and_padding);
  tcase_add_test (tc, test_overlay_blend);
  tcase_add_test (tc, test_bad_parameters_n);
  return s;
}

int
main (int argc, char **argv)
{
  gst_check_init (&argc, &argv);
  rand_ = test_rand_new ();
  return gst_check_run_suite (bev_suite (), "kernels-bev", __FILE__);
}
