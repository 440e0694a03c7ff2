/* Random lidar-like clouds for the sparse voxel tests, and an independent
 * reference of hard voxelization written from the documented definition
 * (not from kernels/sparse*). */
#ifndef ROBOCACHE_TEST_SPARSE_CLOUD_H
#define ROBOCACHE_TEST_SPARSE_CLOUD_H

#include <glib.h>
#include <math.h>
#include <string.h>

#include "robocache-kernels.h"

/* A cloud and the values the reference reads (x, y, z as written, the
 * extra fields as float). */
typedef struct
{
  rc_point_layout layout;
  guint64 n;
  guint8 *bytes;
  double *xyz;                  /* [n][3] */
  float *extra;                 /* [n][n_features] */
} TestCloud;

/* @n points over @grid and 10% around it; @f64: x, y, z float64 at 0, 8,
 * 16, intensity float32 at 24, a uint16 ring at 28 (step 32); else
 * x, y, z, intensity float32 (step 16).  Some points sit exactly on voxel
 * faces, 2% are NaN or Inf, every third repeats its neighbour's position,
 * and @cluster of them fall in one small box (one voxel's worth). */
static inline TestCloud
test_cloud_new (GRand * rand, guint64 n, const rc_voxel_grid * grid,
    gboolean f64, guint cluster)
{
  TestCloud c;
  guint step = f64 ? 32 : 16;

  memset (&c, 0, sizeof (c));
  c.n = n;
  c.layout.point_step = step;
  c.layout.x.type = c.layout.y.type = c.layout.z.type =
      f64 ? RC_TYPE_FLOAT64 : RC_TYPE_FLOAT32;
  c.layout.x.offset = 0;
  c.layout.y.offset = f64 ? 8 : 4;
  c.layout.z.offset = f64 ? 16 : 8;
  c.layout.n_features = f64 ? 2 : 1;
  c.layout.features[0].offset = f64 ? 24 : 12;
  c.layout.features[0].type = RC_TYPE_FLOAT32;
  c.layout.features[1].offset = 28;
  c.layout.features[1].type = RC_TYPE_UINT16;
  c.bytes = g_malloc0 (n * step + 1);
  c.xyz = g_new0 (double, n * 3 + 1);
  c.extra = g_new0 (float, n * 2 + 1);

  for (guint64 p = 0; p < n; p++) {
    double v[3];
    float intensity = (float) g_rand_double_range (rand, 0, 1);
    guint16 ring = (guint16) g_rand_int_range (rand, 0, 64);
    guint8 *pt = c.bytes + p * step;

    for (int a = 0; a < 3; a++) {
      double lo = grid->origin[a], size = grid->voxel_size[a];
      double span = grid->dims[a] * size;
      gint r = g_rand_int_range (rand, 0, 10);
      if (p < cluster)
        v[a] = lo + 0.25 * size + g_rand_double_range (rand, 0, 0.5) * size;
      else if (r == 0)          /* on a face (or the outer one) */
        v[a] = lo + g_rand_int_range (rand, 0, grid->dims[a] + 1) * size;
      else
        v[a] = g_rand_double_range (rand, lo - 0.05 * span, lo + 1.05 * span);
      if (!f64)
        v[a] = (float) v[a];
    }
    if (p >= cluster && p % 3 == 2)
      memcpy (v, c.xyz + (p - 1) * 3, sizeof (v));
    if (g_rand_int_range (rand, 0, 50) == 0)
      v[g_rand_int_range (rand, 0, 3)] = g_rand_boolean (rand) ? NAN : INFINITY;
    memcpy (c.xyz + p * 3, v, sizeof (v));
    c.extra[p * 2] = intensity;
    c.extra[p * 2 + 1] = ring;
    if (f64) {
      memcpy (pt, v, 24);
      memcpy (pt + 24, &intensity, 4);
      memcpy (pt + 28, &ring, 2);
    } else {
      float f[4] = { (float) v[0], (float) v[1], (float) v[2], intensity };
      memcpy (pt, f, 16);
    }
  }
  return c;
}

static inline void
test_cloud_free (TestCloud * c)
{
  g_free (c->bytes);
  g_free (c->xyz);
  g_free (c->extra);
}

/* The outputs of one call, in one allocation each. */
typedef struct
{
  float *features;
  int32_t *coords;
  int32_t *num_points;
  int32_t n_voxels[4];
  guint64 features_size;
  rc_sparse_output out;
} TestSparseOut;

static inline void
test_sparse_out_init (TestSparseOut * o, const rc_point_layout * layout,
    const rc_sparse_params * p, int poison)
{
  o->features_size = rc_sparse_features_size (layout, p);
  o->features = g_malloc (o->features_size);
  o->coords = g_new (int32_t, (gsize) p->max_voxels * 3);
  o->num_points = g_new (int32_t, p->max_voxels);
  memset (o->features, poison, o->features_size);
  memset (o->coords, poison, (gsize) p->max_voxels * 12);
  memset (o->num_points, poison, (gsize) p->max_voxels * 4);
  memset (o->n_voxels, poison, sizeof (o->n_voxels));
  o->out.features = o->features;
  o->out.coords = o->coords;
  o->out.num_points = o->num_points;
  o->out.n_voxels = o->n_voxels;
}

static inline void
test_sparse_out_clear (TestSparseOut * o)
{
  g_free (o->features);
  g_free (o->coords);
  g_free (o->num_points);
}

#ifdef fail_unless
/* Every output byte of @a and @b alike (check assertions). */
static inline void
test_sparse_assert_same (const TestSparseOut * a, const TestSparseOut * b,
    const rc_sparse_params * p, const char *what)
{
  fail_unless_equals_int (a->n_voxels[0], b->n_voxels[0]);
  for (guint32 s = 0; s < p->max_voxels; s++) {
    const int32_t *ca = a->coords + (gsize) s * 3, *cb = b->coords +
        (gsize) s * 3;

    fail_unless (a->num_points[s] == b->num_points[s] &&
        !memcmp (ca, cb, 12), "%s: slot %u of %d used (max-voxels %u, "
        "max-points-per-voxel %u) differs: %d points at (%d, %d, %d) "
        "against %d at (%d, %d, %d)", what, s, a->n_voxels[0],
        p->max_voxels, p->max_points, a->num_points[s], ca[0], ca[1], ca[2],
        b->num_points[s], cb[0], cb[1], cb[2]);
  }
  if (memcmp (a->features, b->features, a->features_size) == 0)
    return;
  for (guint64 i = 0; i < a->features_size / 4; i++)
    fail_unless (memcmp (a->features + i, b->features + i, 4) == 0,
        "%s: feature %" G_GUINT64_FORMAT " differs: %.9g against %.9g",
        what, i, a->features[i], b->features[i]);
}
#endif

#endif
