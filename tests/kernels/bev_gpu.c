/* The bird's-eye view on the GPU against the CPU reference, byte for byte:
 * fresh random grids of every mode (sparse counts, occupancy, means with
 * NaN, Inf, zeros and -0), every value and colormap, automatic and fixed
 * ranges (zero width included), sizes up, down and odd, with and without
 * an overlay, padded rows; statistics equal.  Skipped (exit 77) without a
 * GPU. */
#include <gst/check/gstcheck.h>
#include <math.h>
#include <string.h>

#include "testutil.h"

static GRand *rand_;

static void
check_rc (rc_status ret)
{
  fail_unless (ret == RC_OK, "%s (%s)", rc_status_message (ret),
      rc_error_detail ());
}

/* A grid of @p's mode, about @fill of its voxels non-empty. */
static gpointer
random_grid (const rc_bev_params * p, gdouble fill)
{
  guint64 voxels = (guint64) p->grid.dims[0] * p->grid.dims[1] *
      p->grid.dims[2];
  gsize size = rc_bev_input_size (p);
  guint8 *grid = g_malloc0 (size);

  for (guint64 v = 0; v < size / (p->grid.mode == RC_VOXEL_OCCUPANCY ? 1 : 4);
      v++) {
    gboolean set = g_rand_double (rand_) < fill;
    if (p->grid.mode == RC_VOXEL_OCCUPANCY) {
      grid[v] = v < voxels && set;
    } else if (p->grid.mode == RC_VOXEL_COUNT) {
      guint32 c = set ? g_rand_int_range (rand_, 1, 1000) : 0;
      memcpy (grid + v * 4, &c, 4);
    } else {
      gint r = g_rand_int_range (rand_, 0, 20);
      float f = !set ? 0.0f : r == 0 ? NAN : r == 1 ? INFINITY : r == 2 ?
          -0.0f : (float) g_rand_double_range (rand_, -50.0, 50.0);
      memcpy (grid + v * 4, &f, 4);
    }
  }
  return grid;
}

/* Draws the same grid on both and compares every byte (padding too). */
static void
compare (const rc_bev_params * p, gdouble fill, gboolean with_overlay)
{
  gsize in_size = rc_bev_input_size (p);
  gsize pitch = (gsize) p->width * 4 + (g_rand_boolean (rand_) ? 0 : 64);
  gsize out_size = pitch * p->height;
  gsize ov_size = (gsize) p->width * p->height * 4;
  guint8 *grid = random_grid (p, fill), *overlay = NULL;
  guint8 *cpu = g_malloc (out_size), *gpu = g_malloc (out_size);
  gpointer scratch = g_malloc (rc_bev_scratch_size (p));
  gpointer d_grid, d_out, d_scratch, d_overlay = NULL;
  rc_bev_stats cpu_stats, *gpu_stats;
  gsize d_scratch_size = rc_bev_cuda_scratch_size (p);

  if (with_overlay) {
    overlay = g_malloc (ov_size);
    for (gsize i = 0; i < ov_size; i++)
      overlay[i] = (i % 4 == 3 && g_rand_boolean (rand_)) ? 0 :
          g_rand_int_range (rand_, 0, 256);
    check_rc (rc_device_alloc (&d_overlay, ov_size));
    check_rc (rc_device_copy_async (d_overlay, overlay, ov_size,
            RC_COPY_HOST_TO_DEVICE, NULL));
  }
  memset (cpu, 0x5A, out_size);
  check_rc (rc_bev_render_cpu (p, grid, overlay, cpu, pitch, scratch,
          &cpu_stats));

  check_rc (rc_device_alloc (&d_grid, in_size));
  check_rc (rc_device_alloc (&d_out, out_size));
  check_rc (rc_device_alloc (&d_scratch, d_scratch_size));
  check_rc (rc_host_alloc ((void **) &gpu_stats, sizeof (rc_bev_stats)));
  check_rc (rc_device_copy_async (d_grid, grid, in_size,
          RC_COPY_HOST_TO_DEVICE, NULL));
  check_rc (rc_device_memset_async (d_out, 0x5A, out_size, NULL));
  check_rc (rc_device_memset_async (d_scratch, 0xC3, d_scratch_size, NULL));
  check_rc (rc_bev_render_cuda (p, d_grid, d_overlay, d_out, pitch,
          d_scratch, gpu_stats, NULL));
  check_rc (rc_device_copy_async (gpu, d_out, out_size,
          RC_COPY_DEVICE_TO_HOST, NULL));
  check_rc (rc_stream_synchronize (NULL));

  fail_unless_equals_uint64 (gpu_stats->columns, cpu_stats.columns);
  fail_unless (memcmp (&gpu_stats->min, &cpu_stats.min, 8) == 0
      && memcmp (&gpu_stats->max, &cpu_stats.max, 8) == 0,
      "range: gpu [%g, %g], cpu [%g, %g]", gpu_stats->min, gpu_stats->max,
      cpu_stats.min, cpu_stats.max);
  for (gsize i = 0; i < out_size; i++)
    fail_unless (cpu[i] == gpu[i], "%ux%u mode %d value %d: byte %"
        G_GSIZE_FORMAT " (row %" G_GSIZE_FORMAT "): cpu %u gpu %u",
        p->width, p->height, p->grid.mode, p->value, i, i / pitch, cpu[i],
        gpu[i]);

  check_rc (rc_device_free (d_grid));
  check_rc (rc_device_free (d_out));
  check_rc (rc_device_free (d_scratch));
  if (d_overlay)
    check_rc (rc_device_free (d_overlay));
  check_rc (rc_host_free (gpu_stats));
  g_free (grid);
  g_free (overlay);
  g_free (cpu);
  g_free (gpu);
  g_free (scratch);
}

static rc_bev_params
params_for (guint dx, guint dy, guint dz, rc_voxel_mode mode,
    rc_bev_value value)
{
  rc_bev_params p = {
    .grid = {{-25.6, -25.6, -3.2}, {0.2, 0.2, 0.2}, {dx, dy, dz}, mode},
    .n_features = mode == RC_VOXEL_MEAN ? 3 : 0,
    .feature = mode == RC_VOXEL_MEAN ? 2 : 0,
    .value = value,.auto_range = 1,.width = dx,.height = dy,
    .background = {10, 20, 30, 255},
  };
  return p;
}

/* Every mode, value, colormap and range on the reference sizes. */
GST_START_TEST (test_modes_values_ranges)
{
  static const guint sizes[][5] = {
    /* grid x, y, z, picture width, height */
    {256, 256, 32, 512, 512}, {256, 256, 32, 256, 256},
    {61, 37, 9, 61, 37}, {61, 37, 9, 200, 101}, {300, 200, 5, 97, 45},
    {1, 1, 1, 1, 1}, {1, 1, 1, 17, 9},
  };

  for (guint s = 0; s < G_N_ELEMENTS (sizes); s++) {
    for (int mode = RC_VOXEL_OCCUPANCY; mode <= RC_VOXEL_MEAN; mode++) {
      for (int value = RC_BEV_DENSITY; value <= RC_BEV_FEATURE; value++) {
        rc_bev_params p;

        if (value == RC_BEV_FEATURE && mode != RC_VOXEL_MEAN)
          continue;
        p = params_for (sizes[s][0], sizes[s][1], sizes[s][2],
            (rc_voxel_mode) mode, (rc_bev_value) value);
        p.width = sizes[s][3];
        p.height = sizes[s][4];
        p.colormap = g_rand_boolean (rand_) ? RC_BEV_COLORMAP_TURBO :
            RC_BEV_COLORMAP_DENSITY;
        compare (&p, 0.05, FALSE);
        compare (&p, 0.6, TRUE);
        p.auto_range = 0;
        p.range_min = g_rand_double_range (rand_, -10.0, 10.0);
        p.range_max = p.range_min + g_rand_double_range (rand_, 0.0, 30.0);
        compare (&p, 0.3, g_rand_boolean (rand_));
        p.range_max = p.range_min;      /* zero width */
        compare (&p, 0.3, FALSE);
        p.range_max = p.range_min - 1.0;        /* negative width */
        compare (&p, 0.3, FALSE);
      }
    }
  }
}

GST_END_TEST;

/* Empty grids and grids whose voxels all have the same value (an
 * automatic range of zero width). */
GST_START_TEST (test_empty_and_flat)
{
  for (int mode = RC_VOXEL_OCCUPANCY; mode <= RC_VOXEL_MEAN; mode++) {
    rc_bev_params p = params_for (64, 48, 4, (rc_voxel_mode) mode,
        RC_BEV_HEIGHT);

    compare (&p, 0.0, FALSE);
    compare (&p, 0.0, TRUE);
    p.value = RC_BEV_DENSITY;
    compare (&p, 1.0, FALSE);
  }
}

GST_END_TEST;

GST_START_TEST (test_bad_parameters_n)
{
  rc_bev_params p = params_for (4, 4, 4, RC_VOXEL_COUNT, RC_BEV_FEATURE);

  fail_unless_equals_int (rc_bev_render_cuda (&p, NULL, NULL, NULL, 16,
          NULL, NULL, NULL), RC_ERROR_INVALID_ARGUMENT);
}

GST_END_TEST;

static Suite *
bev_gpu_suite (void)
{
  Suite *s = suite_create ("kernels-bev-gpu");
  TCase *tc = tcase_create ("gpu");

  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_modes_values_ranges);
  tcase_add_test (tc, test_empty_and_flat);
  tcase_add_test (tc, test_bad_parameters_n);
  return s;
}

int
main (int argc, char **argv)
{
  test_require_gpu ();
  gst_check_init (&argc, &argv);
  rand_ = test_rand_new ();
  return gst_check_run_suite (bev_gpu_suite (), "kernels-bev-gpu", __FILE__);
}
