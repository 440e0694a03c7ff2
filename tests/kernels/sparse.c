/* Sparse voxels and pillars on the CPU against an independent reference
 * written here from the documented definition: random clouds overflowing
 * both limits, NaN and Inf points, points on voxel faces, empty sweeps,
 * every point in one voxel, float64 coordinates; outputs poisoned before
 * each call, so every byte must be written; and the rejected
 * parameters. */
#include <gst/check/gstcheck.h>

#include "testutil.h"
#include "sparse-cloud.h"

static GRand *rand_;

/* KITTI's pillar grid: [0, 69.12] x [-39.68, 39.68] x [-3, 1]. */
static rc_sparse_params
kitti_params (rc_sparse_mode mode, guint32 max_points, guint32 max_voxels)
{
  rc_sparse_params p = { {{0, -39.68, -3}, {0.16, 0.16, 4}, {432, 496, 1},
      RC_VOXEL_COUNT}, mode, max_points, max_voxels
  };
  return p;
}

/* Voxels of 0.5 m over 8 x 6 x 4. */
static rc_sparse_params
small_params (rc_sparse_mode mode, guint32 max_points, guint32 max_voxels)
{
  rc_sparse_params p = { {{-2, -1.5, -1}, {0.5, 0.5, 0.5}, {8, 6, 4},
      RC_VOXEL_COUNT}, mode, max_points, max_voxels
  };
  return p;
}

static guint
extra_channels (rc_sparse_mode mode)
{
  return mode == RC_SPARSE_PILLARS_10 ? 6 : mode == RC_SPARSE_PILLARS_9 ? 5 : 0;
}

/* The voxel's centre along an axis (volatile: no fused multiply-add). */
static float
centre (double origin, double size, gint64 i)
{
  volatile double offset = ((double) i + 0.5) * size;
  return (float) (origin + offset);
}

/* Hard voxelization as documented, point by point. */
static void
reference (const TestCloud * c, const rc_sparse_params * p,
    TestSparseOut * o, rc_sparse_stats * st)
{
  guint nf = c->layout.n_features, raw = 3 + nf;
  guint ch = raw + extra_channels (p->mode);
  GHashTable *slots = g_hash_table_new (g_direct_hash, g_direct_equal);
  gint32 used = 0;

  memset (st, 0, sizeof (*st));
  memset (o->features, 0, o->features_size);
  memset (o->coords, 0, (gsize) p->max_voxels * 12);
  memset (o->num_points, 0, (gsize) p->max_voxels * 4);
  for (guint64 i = 0; i < c->n; i++) {
    const double *v = c->xyz + i * 3;
    gint64 ijk[3];
    gboolean inside = TRUE;
    guint64 key;
    gpointer found;
    gint64 slot;
    float *row;

    if (!isfinite (v[0]) || !isfinite (v[1]) || !isfinite (v[2])) {
      st->invalid++;
      continue;
    }
    for (int a = 0; a < 3; a++) {
      double f = (v[a] - p->grid.origin[a]) / p->grid.voxel_size[a];
      if (!(f >= 0) || f >= p->grid.dims[a])
        inside = FALSE;
      else
        ijk[a] = (gint64) f;
    }
    if (!inside) {
      st->out_of_range++;
      continue;
    }
    st->in_grid++;
    key = ((guint64) ijk[2] * p->grid.dims[1] + ijk[1]) * p->grid.dims[0] +
        ijk[0];
    found = g_hash_table_lookup (slots, GSIZE_TO_POINTER (key + 1));
    if (!found) {
      st->voxels++;
      slot = used < (gint32) p->max_voxels ? used++ : -1;
      g_hash_table_insert (slots, GSIZE_TO_POINTER (key + 1),
          GSIZE_TO_POINTER ((gsize) (slot + 2)));
      for (int a = 0; a < 3 && slot >= 0; a++)
        o->coords[slot * 3 + a] = (gint32) ijk[2 - a];
    } else {
      slot = (gint64) GPOINTER_TO_SIZE (found) - 2;
    }
    if (slot < 0 || o->num_points[slot] == (gint32) p->max_points) {
      st->dropped_points++;
      continue;
    }
    row = o->features + ((guint64) slot * p->max_points +
        o->num_points[slot]) * ch;
    for (int a = 0; a < 3; a++)
      row[a] = (float) v[a];
    for (guint f = 0; f < nf; f++)
      row[3 + f] = c->extra[i * 2 + f];
    o->num_points[slot]++;
  }
  o->n_voxels[0] = used;
  st->dropped_voxels = st->voxels - used;
  g_hash_table_unref (slots);
  if (p->mode == RC_SPARSE_VOXELS)
    return;

  for (gint32 s = 0; s < used; s++) {
    float *rows = o->features + (guint64) s * p->max_points * ch;
    gint32 n = o->num_points[s];
    float sum[3] = { 0, 0, 0 }, mean[3];

    for (gint32 k = 0; k < n; k++)
      for (int a = 0; a < 3; a++)
        sum[a] += rows[k * ch + a];
    for (int a = 0; a < 3; a++)
      mean[a] = sum[a] / (float) n;
    for (gint32 k = 0; k < n; k++) {
      float *row = rows + k * ch;
      for (int a = 0; a < 3; a++)
        row[raw + a] = row[a] - mean[a];
      for (guint a = 0; a < extra_channels (p->mode) - 3; a++)
        row[raw + 3 + a] = row[a] - centre (p->grid.origin[a],
            p->grid.voxel_size[a], o->coords[s * 3 + 2 - a]);
    }
  }
}

static void
assert_stats_equal (const rc_sparse_stats * a, const rc_sparse_stats * b)
{
  fail_unless_equals_uint64 (a->in_grid, b->in_grid);
  fail_unless_equals_uint64 (a->out_of_range, b->out_of_range);
  fail_unless_equals_uint64 (a->invalid, b->invalid);
  fail_unless_equals_uint64 (a->voxels, b->voxels);
  fail_unless_equals_uint64 (a->dropped_voxels, b->dropped_voxels);
  fail_unless_equals_uint64 (a->dropped_points, b->dropped_points);
}

/* The kernel against the reference on @c, outputs poisoned first. */
static void
check_cloud (const TestCloud * c, const rc_sparse_params * p)
{
  TestSparseOut got, want;
  rc_sparse_stats got_stats, want_stats;
  gpointer scratch = g_malloc (rc_sparse_scratch_size (p));
  rc_status ret;

  memset (scratch, 0x5a, rc_sparse_scratch_size (p));
  test_sparse_out_init (&got, &c->layout, p, 0xA5);
  test_sparse_out_init (&want, &c->layout, p, 0);
  ret = rc_sparse_voxelize_cpu (&c->layout, p, c->bytes, c->n, &got.out,
      scratch, &got_stats);
  fail_unless (ret == RC_OK, "%s", rc_status_message (ret));
  reference (c, p, &want, &want_stats);
  test_sparse_assert_same (&got, &want, p, "CPU and reference");
  assert_stats_equal (&got_stats, &want_stats);
  fail_unless_equals_uint64 (got_stats.in_grid + got_stats.out_of_range +
      got_stats.invalid, c->n);
  test_sparse_out_clear (&got);
  test_sparse_out_clear (&want);
  g_free (scratch);
}

/* A small grid with few slots: both limits overflow in every mode. */
GST_START_TEST (test_random_overflowing)
{
  for (int round = 0; round < 40; round++) {
    rc_sparse_mode mode = (rc_sparse_mode) (round % 3);
    guint32 k = (guint32) g_rand_int_range (rand_, 1, 40);
    guint32 m = (guint32) g_rand_int_range (rand_, 1, 200);
    rc_sparse_params p = small_params (mode, k, m);
    TestCloud c = test_cloud_new (rand_, g_rand_int_range (rand_, 1, 5000),
        &p.grid, round % 2, 0);

    check_cloud (&c, &p);
    test_cloud_free (&c);
  }
}

GST_END_TEST;

/* The KITTI pillar workload at its real size, and overflowing M. */
GST_START_TEST (test_kitti_sizes)
{
  guint32 limits[][2] = { {32, 40000}, {32, 3000}, {4, 12000} };

  for (guint i = 0; i < G_N_ELEMENTS (limits); i++) {
    rc_sparse_params p = kitti_params ((rc_sparse_mode) (i % 3),
        limits[i][0], limits[i][1]);
    TestCloud c = test_cloud_new (rand_, 30000, &p.grid, FALSE, 0);

    check_cloud (&c, &p);
    test_cloud_free (&c);
  }
}

GST_END_TEST;

GST_START_TEST (test_empty_sweep)
{
  rc_sparse_params p = small_params (RC_SPARSE_PILLARS_10, 8, 16);
  TestCloud c = test_cloud_new (rand_, 0, &p.grid, FALSE, 0);

  check_cloud (&c, &p);
  test_cloud_free (&c);
}

GST_END_TEST;

/* Every point in one voxel: one voxel of its first K points. */
GST_START_TEST (test_one_voxel)
{
  for (int mode = 0; mode < 3; mode++) {
    rc_sparse_params p = small_params ((rc_sparse_mode) mode, 32, 5);
    TestCloud c = test_cloud_new (rand_, 1000, &p.grid, mode == 1, 1000);
    TestSparseOut o;
    rc_sparse_stats st;
    gpointer scratch = g_malloc (rc_sparse_scratch_size (&p));

    check_cloud (&c, &p);
    test_sparse_out_init (&o, &c.layout, &p, 0x33);
    fail_unless (rc_sparse_voxelize_cpu (&c.layout, &p, c.bytes, c.n,
            &o.out, scratch, &st) == RC_OK);
    fail_unless_equals_int (o.n_voxels[0], 1);
    fail_unless_equals_int (o.num_points[0], 32);
    fail_unless_equals_uint64 (st.dropped_points, 1000 - 32 - st.invalid);
    /* The first 32 valid points, in input order. */
    for (guint64 i = 0, k = 0; k < 32; i++) {
      if (!isfinite (c.xyz[i * 3]) || !isfinite (c.xyz[i * 3 + 1]) ||
          !isfinite (c.xyz[i * 3 + 2]))
        continue;
      fail_unless (o.features[k * rc_sparse_channels (&c.layout, &p)] ==
          (float) c.xyz[i * 3]);
      k++;
    }
    test_sparse_out_clear (&o);
    g_free (scratch);
    test_cloud_free (&c);
  }
}

GST_END_TEST;

/* By hand: the first voxel reached is slot 0, faces belong to the voxel
 * above, the upper face of the grid is outside, and the channels. */
GST_START_TEST (test_hand)
{
  rc_sparse_params p = { {{0, 0, 0}, {1, 1, 4}, {4, 3, 1}, RC_VOXEL_COUNT},
  RC_SPARSE_PILLARS_10, 2, 2
  };
  float pts[][4] = {
    {2.0f, 1.0f, 0.5f, 10},     /* (2, 1): slot 0 */
    {0.5f, 0.5f, 1.0f, 20},     /* (0, 0): slot 1 */
    {2.5f, 1.5f, 1.5f, 30},     /* slot 0 */
    {2.9f, 1.9f, 3.9f, 40},     /* slot 0: beyond K, dropped */
    {3.0f, 2.0f, 0.0f, 50},     /* (3, 2): a third voxel, dropped */
    {4.0f, 0.0f, 0.0f, 60},     /* x = 4: outside */
    {NAN, 0.0f, 0.0f, 70},      /* invalid */
  };
  rc_point_layout layout = { 16, {0, RC_TYPE_FLOAT32}, {4, RC_TYPE_FLOAT32},
  {8, RC_TYPE_FLOAT32}, 1, {{12, RC_TYPE_FLOAT32}}
  };
  float want0[2][10] = {
    {2.0f, 1.0f, 0.5f, 10, -0.25f, -0.25f, -0.5f, -0.5f, -0.5f, -1.5f},
    {2.5f, 1.5f, 1.5f, 30, 0.25f, 0.25f, 0.5f, 0.0f, 0.0f, -0.5f},
  };
  TestSparseOut o;
  rc_sparse_stats st;
  gint32 scratch[12];

  test_sparse_out_init (&o, &layout, &p, 0x77);
  fail_unless_equals_int (rc_sparse_channels (&layout, &p), 10);
  fail_unless (rc_sparse_voxelize_cpu (&layout, &p, pts, G_N_ELEMENTS (pts),
          &o.out, scratch, &st) == RC_OK);
  fail_unless_equals_int (o.n_voxels[0], 2);
  fail_unless_equals_int (o.num_points[0], 2);
  fail_unless_equals_int (o.num_points[1], 1);
  fail_unless (o.coords[0] == 0 && o.coords[1] == 1 && o.coords[2] == 2);
  fail_unless (o.coords[3] == 0 && o.coords[4] == 0 && o.coords[5] == 0);
  fail_unless (memcmp (o.features, want0, sizeof (want0)) == 0);
  /* Slot 1: one point, its own mean; then zeros. */
  fail_unless (o.features[20] == 0.5f && o.features[24] == 0.0f &&
      o.features[27] == 0.0f && o.features[29] == -1.0f);
  for (int i = 30; i < 40; i++)
    fail_unless (o.features[i] == 0.0f);
  fail_unless_equals_uint64 (st.in_grid, 5);
  fail_unless_equals_uint64 (st.out_of_range, 1);
  fail_unless_equals_uint64 (st.invalid, 1);
  fail_unless_equals_uint64 (st.voxels, 3);
  fail_unless_equals_uint64 (st.dropped_voxels, 1);
  fail_unless_equals_uint64 (st.dropped_points, 2);
  test_sparse_out_clear (&o);
}

GST_END_TEST;

GST_START_TEST (test_bad_parameters_n)
{
  rc_point_layout layout = { 16, {0, RC_TYPE_FLOAT32}, {4, RC_TYPE_FLOAT32},
  {8, RC_TYPE_FLOAT32}, 1, {{12, RC_TYPE_FLOAT32}}
  };
  rc_sparse_params good = small_params (RC_SPARSE_PILLARS_10, 4, 4), p;
  TestSparseOut o;
  gint32 scratch[192];
  float pt[4] = { 0, 0, 0, 0 };

  test_sparse_out_init (&o, &layout, &good, 0);
  fail_unless (rc_sparse_check (&layout, &good) == RC_OK);
  p = good;
  p.max_points = 0;
  fail_unless (rc_sparse_check (&layout, &p) == RC_ERROR_INVALID_ARGUMENT);
  p = good;
  p.max_voxels = 0;
  fail_unless (rc_sparse_check (&layout, &p) == RC_ERROR_INVALID_ARGUMENT);
  p = good;
  p.mode = (rc_sparse_mode) 7;
  fail_unless (rc_sparse_check (&layout, &p) == RC_ERROR_INVALID_ARGUMENT);
  p = good;
  p.grid.voxel_size[2] = 0;
  fail_unless (rc_sparse_check (&layout, &p) == RC_ERROR_INVALID_ARGUMENT);
  p = good;
  p.grid.dims[0] = 0;
  fail_unless (rc_sparse_check (&layout, &p) == RC_ERROR_INVALID_ARGUMENT);
  p = good;
  p.max_voxels = 1u << 31;
  fail_unless (rc_sparse_check (&layout, &p) == RC_ERROR_INVALID_ARGUMENT);
  fail_unless (rc_sparse_voxelize_cpu (&layout, &good, NULL, 1, &o.out,
          scratch, NULL) == RC_ERROR_INVALID_ARGUMENT);
  fail_unless (rc_sparse_voxelize_cpu (&layout, &good, pt, 1, &o.out,
          NULL, NULL) == RC_ERROR_INVALID_ARGUMENT);
  o.out.n_voxels = NULL;
  fail_unless (rc_sparse_voxelize_cpu (&layout, &good, pt, 1, &o.out,
          scratch, NULL) == RC_ERROR_INVALID_ARGUMENT);
  test_sparse_out_clear (&o);
}

GST_END_TEST;

static Suite *
sparse_suite (void)
{
  Suite *s = suite_create ("kernels-sparse");
  TCase *tc = tcase_create ("general");

  rand_ = test_rand_new ();
  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_hand);
  tcase_add_test (tc, test_random_overflowing);
  tcase_add_test (tc, test_kitti_sizes);
  tcase_add_test (tc, test_empty_sweep);
  tcase_add_test (tc, test_one_voxel);
  tcase_add_test (tc, test_bad_parameters_n);
  return s;
}

GST_CHECK_MAIN (sparse);
