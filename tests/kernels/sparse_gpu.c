/* Sparse voxels and pillars on the GPU against the CPU reference (itself
 * checked against an independent one in sparse.c): byte for byte, on
 * fresh random clouds that overflow both limits, with NaN points, points
 * on faces, an empty sweep, every point in one voxel, voxels around the
 * GPU's 32-point sort and far beyond it; twice each, on scratch and
 * outputs poisoned with different bytes, so that the two GPU runs must be
 * identical too.  Skipped (exit 77) without a GPU. */
#include <gst/check/gstcheck.h>

#include "testutil.h"
#include "sparse-cloud.h"

static GRand *rand_;

static void
check_rc (rc_status ret)
{
  fail_unless (ret == RC_OK, "%s (%s)", rc_status_message (ret),
      rc_error_detail ());
}

/* Device copies of the four outputs. */
typedef struct
{
  void *features, *coords, *num_points, *n_voxels;
  rc_sparse_output out;
} DeviceOut;

static void
device_out_init (DeviceOut * d, const TestSparseOut * host,
    const rc_sparse_params * p, int poison)
{
  check_rc (rc_device_alloc (&d->features, host->features_size));
  check_rc (rc_device_alloc (&d->coords, (gsize) p->max_voxels * 12));
  check_rc (rc_device_alloc (&d->num_points, (gsize) p->max_voxels * 4));
  check_rc (rc_device_alloc (&d->n_voxels, 16));
  check_rc (rc_device_memset_async (d->features, poison,
          host->features_size, NULL));
  check_rc (rc_device_memset_async (d->coords, poison,
          (gsize) p->max_voxels * 12, NULL));
  check_rc (rc_device_memset_async (d->num_points, poison,
          (gsize) p->max_voxels * 4, NULL));
  check_rc (rc_device_memset_async (d->n_voxels, poison, 16, NULL));
  d->out.features = d->features;
  d->out.coords = d->coords;
  d->out.num_points = d->num_points;
  d->out.n_voxels = d->n_voxels;
}

static void
device_out_download (const DeviceOut * d, TestSparseOut * host,
    const rc_sparse_params * p)
{
  check_rc (rc_device_copy_async (host->features, d->features,
          host->features_size, RC_COPY_DEVICE_TO_HOST, NULL));
  check_rc (rc_device_copy_async (host->coords, d->coords,
          (gsize) p->max_voxels * 12, RC_COPY_DEVICE_TO_HOST, NULL));
  check_rc (rc_device_copy_async (host->num_points, d->num_points,
          (gsize) p->max_voxels * 4, RC_COPY_DEVICE_TO_HOST, NULL));
  check_rc (rc_device_copy_async (host->n_voxels, d->n_voxels, 4,
          RC_COPY_DEVICE_TO_HOST, NULL));
  check_rc (rc_stream_synchronize (NULL));
}

static void
device_out_free (DeviceOut * d)
{
  rc_device_free (d->features);
  rc_device_free (d->coords);
  rc_device_free (d->num_points);
  rc_device_free (d->n_voxels);
}

/* One GPU run on @d_points into fresh outputs poisoned with @poison. */
static void
gpu_run (const TestCloud * c, const rc_sparse_params * p, void *d_points,
    TestSparseOut * host, rc_sparse_stats * stats, int poison)
{
  DeviceOut d;
  uint64_t size = 0;
  void *scratch, *pinned;

  device_out_init (&d, host, p, poison);
  check_rc (rc_sparse_cuda_scratch_size (&c->layout, p, c->n + 17, &size));
  check_rc (rc_device_alloc (&scratch, size));
  check_rc (rc_device_memset_async (scratch, poison, size, NULL));
  check_rc (rc_host_alloc (&pinned, sizeof (rc_sparse_stats)));
  check_rc (rc_sparse_voxelize_cuda (&c->layout, p, d_points, c->n, &d.out,
          scratch, size, pinned, NULL));
  device_out_download (&d, host, p);
  memcpy (stats, pinned, sizeof (*stats));
  rc_host_free (pinned);
  rc_device_free (scratch);
  device_out_free (&d);
}

/* CPU against two GPU runs, the cloud @shift bytes into its device
 * buffer (a shift off 4 bytes takes the GPU off its aligned-float
 * loads). */
static void
compare_shifted (const TestCloud * c, const rc_sparse_params * p,
    guint shift)
{
  TestSparseOut cpu, gpu1, gpu2;
  rc_sparse_stats cs, gs1, gs2;
  gpointer scratch = g_malloc (rc_sparse_scratch_size (p));
  void *d_points = NULL;

  test_sparse_out_init (&cpu, &c->layout, p, 0);
  test_sparse_out_init (&gpu1, &c->layout, p, 0);
  test_sparse_out_init (&gpu2, &c->layout, p, 0);
  check_rc (rc_sparse_voxelize_cpu (&c->layout, p, c->bytes, c->n, &cpu.out,
          scratch, &cs));
  check_rc (rc_device_alloc (&d_points, c->n * c->layout.point_step + 4));
  check_rc (rc_device_copy_async ((guint8 *) d_points + shift, c->bytes,
          c->n * c->layout.point_step, RC_COPY_HOST_TO_DEVICE, NULL));
  gpu_run (c, p, (guint8 *) d_points + shift, &gpu1, &gs1, 0xA5);
  gpu_run (c, p, (guint8 *) d_points + shift, &gpu2, &gs2, 0x3C);
  test_sparse_assert_same (&cpu, &gpu1, p, "CPU and GPU");
  test_sparse_assert_same (&gpu1, &gpu2, p, "two GPU runs");
  fail_unless (memcmp (&cs, &gs1, sizeof (cs)) == 0, "stats differ: "
      "in %" G_GUINT64_FORMAT "/%" G_GUINT64_FORMAT ", voxels %"
      G_GUINT64_FORMAT "/%" G_GUINT64_FORMAT ", dropped points %"
      G_GUINT64_FORMAT "/%" G_GUINT64_FORMAT, cs.in_grid, gs1.in_grid,
      cs.voxels, gs1.voxels, cs.dropped_points, gs1.dropped_points);
  fail_unless (memcmp (&gs1, &gs2, sizeof (cs)) == 0);
  rc_device_free (d_points);
  test_sparse_out_clear (&cpu);
  test_sparse_out_clear (&gpu1);
  test_sparse_out_clear (&gpu2);
  g_free (scratch);
}

static void
compare (const TestCloud * c, const rc_sparse_params * p)
{
  compare_shifted (c, p, 0);
}

static rc_sparse_params
params (rc_sparse_mode mode, guint32 k, guint32 m, gboolean kitti)
{
  rc_sparse_params small = { {{-2, -1.5, -1}, {0.5, 0.5, 0.5}, {8, 6, 4},
      RC_VOXEL_COUNT}, mode, k, m
  };
  rc_sparse_params pillars = { {{0, -39.68, -3}, {0.16, 0.16, 4},
      {432, 496, 1}, RC_VOXEL_COUNT}, mode, k, m
  };
  return kitti ? pillars : small;
}

GST_START_TEST (test_random_overflowing)
{
  for (int round = 0; round < 30; round++) {
    /* K beyond a warp in some rounds. */
    rc_sparse_params p = params ((rc_sparse_mode) (round % 3),
        (guint32) g_rand_int_range (rand_, 1, 80),
        (guint32) g_rand_int_range (rand_, 1, 200), FALSE);
    TestCloud c = test_cloud_new (rand_, g_rand_int_range (rand_, 1, 20000),
        &p.grid, round % 2, round % 4 == 0 ? 500 : 0);

    compare (&c, &p);
    test_cloud_free (&c);
  }
}

GST_END_TEST;

/* float64 coordinates a hair below voxel faces, where rounding them to
 * float would put them on the face, in the next voxel: the GPU locates
 * them in double, as the CPU does (a seed of test_random_overflowing
 * found it). */
GST_START_TEST (test_float64_near_faces)
{
  rc_sparse_params p = params (RC_SPARSE_PILLARS_10, 8, 200, FALSE);
  TestCloud c = test_cloud_new (rand_, 2000, &p.grid, TRUE, 0);

  for (guint64 i = 0; i < c.n; i++) {
    double v[3];

    for (int a = 0; a < 3; a++) {
      gint32 k = g_rand_int_range (rand_, 1, (gint32) p.grid.dims[a]);
      double face = p.grid.origin[a] + k * p.grid.voxel_size[a];

      /* Not the face at 0, where floats are dense. */
      if (face == 0.0)
        face += p.grid.voxel_size[a];
      v[a] = face - 1e-9;
      fail_unless ((float) v[a] == (float) face && v[a] < face);
    }
    memcpy (c.bytes + i * c.layout.point_step, v, sizeof (v));
    memcpy (c.xyz + i * 3, v, sizeof (v));
  }
  compare (&c, &p);
  test_cloud_free (&c);
}

GST_END_TEST;

GST_START_TEST (test_kitti_workload)
{
  guint32 limits[][2] = { {32, 40000}, {32, 5000}, {20, 16000} };

  for (guint i = 0; i < G_N_ELEMENTS (limits); i++) {
    rc_sparse_params p = params ((rc_sparse_mode) (i % 3), limits[i][0],
        limits[i][1], TRUE);
    TestCloud c = test_cloud_new (rand_, 120000, &p.grid, FALSE, 300);

    compare (&c, &p);
    test_cloud_free (&c);
  }
}

GST_END_TEST;

/* Float32 clouds not 4-byte aligned in device memory: read through the
 * generic field reader, the same bytes. */
GST_START_TEST (test_unaligned_points)
{
  for (guint shift = 1; shift < 4; shift++) {
    rc_sparse_params p = params ((rc_sparse_mode) (shift % 3), 32, 40000,
        TRUE);
    TestCloud c = test_cloud_new (rand_, 30000, &p.grid, FALSE, 100);

    compare_shifted (&c, &p, shift);
    test_cloud_free (&c);
  }
}

GST_END_TEST;

/* The scan of step 2 adds up its tiles of 1024 items in groups, 2^k tiles
 * a group for up to 4^k tiles: clouds on both sides of the line between
 * groups of 32 and of 64 (1024 tiles, a cloud of 1,048,575 points), and
 * one whose last group is partly full.  Clouds this large also take the
 * locate step's look before a cell's first-point atomic (add_to_cell). */
GST_START_TEST (test_scan_paths)
{
  guint64 sizes[] = { 1024 * 1024 - 1, 1024 * 1024, 2048 * 1024 + 5000 };
  rc_sparse_params p = params (RC_SPARSE_PILLARS_10, 4, 3000, TRUE);

  for (guint i = 0; i < G_N_ELEMENTS (sizes); i++) {
    TestCloud c = test_cloud_new (rand_, sizes[i], &p.grid, FALSE, 1000);

    compare (&c, &p);
    test_cloud_free (&c);
  }
}

GST_END_TEST;

GST_START_TEST (test_empty_and_one_voxel)
{
  for (int mode = 0; mode < 3; mode++) {
    rc_sparse_params p = params ((rc_sparse_mode) mode, 32, 8, FALSE);
    TestCloud empty = test_cloud_new (rand_, 0, &p.grid, FALSE, 0);
    TestCloud one = test_cloud_new (rand_, 3000, &p.grid, mode == 1, 3000);

    compare (&empty, &p);
    compare (&one, &p);
    test_cloud_free (&empty);
    test_cloud_free (&one);
  }
}

GST_END_TEST;

/* The GPU sorts each voxel's bucket in registers up to 32 points and
 * selects the smallest indices 32 at a time beyond: a voxel of 31 to 34
 * points first, with K on both sides of 32; one voxel holding 180,000
 * points with K of one, several and 63 rounds; a sweep of 400,000 points
 * over the KITTI grid with a dense cluster.  A cluster's points come
 * first, one after another, as a sweep in scan order puts neighbours: the
 * locate step adds such runs of a warp in one atomic, and the NaN and
 * infinite points among them end runs. */
GST_START_TEST (test_buckets)
{
  guint32 ks[] = { 31, 32, 33, 64 }, big_ks[] = { 32, 300, 2000 };
  rc_sparse_params kitti = params (RC_SPARSE_PILLARS_10, 32, 40000, TRUE);
  TestCloud big = test_cloud_new (rand_, 400000, &kitti.grid, FALSE, 20000);

  for (guint i = 0; i < G_N_ELEMENTS (ks); i++) {
    rc_sparse_params p = params ((rc_sparse_mode) (i % 3), ks[i], 100, FALSE);
    TestCloud c = test_cloud_new (rand_, 5000, &p.grid, i % 2, 31 + i);

    compare (&c, &p);
    test_cloud_free (&c);
  }
  for (guint i = 0; i < G_N_ELEMENTS (big_ks); i++) {
    rc_sparse_params p = params ((rc_sparse_mode) (i % 3), big_ks[i], 4,
        FALSE);
    TestCloud one = test_cloud_new (rand_, 180000, &p.grid, FALSE, 180000);

    compare (&one, &p);
    test_cloud_free (&one);
  }
  compare (&big, &kitti);
  test_cloud_free (&big);
}

GST_END_TEST;

static Suite *
sparse_gpu_suite (void)
{
  Suite *s = suite_create ("kernels-sparse-gpu");
  TCase *tc = tcase_create ("general");

  test_require_gpu ();
  rand_ = test_rand_new ();
  suite_add_tcase (s, tc);
  tcase_set_timeout (tc, 300);
  tcase_add_test (tc, test_random_overflowing);
  tcase_add_test (tc, test_float64_near_faces);
  tcase_add_test (tc, test_kitti_workload);
  tcase_add_test (tc, test_unaligned_points);
  tcase_add_test (tc, test_scan_paths);
  tcase_add_test (tc, test_empty_and_one_voxel);
  tcase_add_test (tc, test_buckets);
  return s;
}

GST_CHECK_MAIN (sparse_gpu);
