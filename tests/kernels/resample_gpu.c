/* CUDA resampling against the CPU reference on fresh random trajectories:
 * every method and edge policy, the three value types, odd and vectorised
 * channel counts, quaternion and angle groups (and the slerp's arc where
 * a fused dot product would pick the other), misaligned buffers; and the
 * check of the times' order that chunks from CUDA memory get.  Exits
 * 77 (SKIP) without a usable GPU. */
#include <gst/check/gstcheck.h>
#include <math.h>
#include <string.h>

#include "robocache-kernels.h"
#include "testutil.h"
#include "values.h"

typedef struct
{
  uint32_t batch, n_source, n_target, channels;
  rc_scalar_type type;
  uint32_t n_quaternions;       /* at channels q_offset + 4k */
  uint32_t q_offset;
  uint32_t n_angle_ranges;      /* 2 channels each, from the end down */
  gboolean misalign;            /* values and output 1 element off 16 B */
  gboolean epoch;               /* times near 2^60 ns, not near 0 */
} Case;

static gboolean
is_angle (const rc_resample_params * p, uint32_t c)
{
  for (uint32_t g = 0; g < p->n_angle_ranges; g++) {
    if (c >= p->angle_ranges[g].first
        && c < p->angle_ranges[g].first + p->angle_ranges[g].count)
      return TRUE;
  }
  return FALSE;
}

static void
make_params (const Case * k, rc_resample_params * p)
{
  memset (p, 0, sizeof (*p));
  p->batch = k->batch;
  p->n_source = k->n_source;
  p->n_target = k->n_target;
  p->channels = k->channels;
  p->type = k->type;
  p->n_quaternions = k->n_quaternions;
  for (uint32_t g = 0; g < k->n_quaternions; g++)
    p->quaternion_first[g] = k->q_offset + 4 * g;
  p->n_angle_ranges = k->n_angle_ranges;
  for (uint32_t g = 0; g < k->n_angle_ranges; g++) {
    p->angle_ranges[g].first = k->channels - 2 * (g + 1);
    p->angle_ranges[g].count = 2;
  }
  fail_unless_equals_int (rc_resample_check (p), RC_OK);
}

/* Sorted times with jitter and about one repeat in eight; targets from a
 * tenth of the span before to a tenth after, a quarter on source times. */
static void
make_times (GRand * rand, const Case * k, int64_t * st, int64_t * tt)
{
  const int64_t period = 1000000;

  for (uint32_t b = 0; b < k->batch; b++) {
    int64_t *s = st + (size_t) b * k->n_source;
    int64_t now = (k->epoch ? ((int64_t) 1 << 60) : 0) +
        g_rand_int_range (rand, -500000000, 500000000);
    int64_t span, lo;

    for (uint32_t i = 0; i < k->n_source; i++) {
      if (i > 0 && g_rand_int_range (rand, 0, 8) > 0)
        now += g_rand_int_range (rand, period * 6 / 10, period * 14 / 10);
      s[i] = now;
    }
    span = s[k->n_source - 1] - s[0];
    lo = s[0] - span / 10 - 1;
    for (uint32_t i = 0; i < k->n_target; i++) {
      int64_t *t = &tt[(size_t) b * k->n_target + i];
      if (g_rand_int_range (rand, 0, 4) == 0)
        *t = s[g_rand_int_range (rand, 0, k->n_source)];
      else
        *t = lo + (int64_t) (g_rand_double (rand) * (span * 1.2 + 2));
    }
  }
}

static void
make_values (GRand * rand, const rc_resample_params * p, void *sv)
{
  const size_t rows = (size_t) p->batch * p->n_source;

  for (size_t r = 0; r < rows; r++) {
    for (uint32_t c = 0; c < p->channels; c++) {
      /* Angles partly outside [-pi, pi) so that wrapping is exercised. */
      double v = is_angle (p, c) ? g_rand_double_range (rand, -4, 4) :
          g_rand_double_range (rand, -10, 10);
      set_value (sv, p->type, r * p->channels + c, v);
    }
    for (uint32_t g = 0; g < p->n_quaternions; g++) {
      double q[4], n = 0;
      for (int i = 0; i < 4; i++) {
        q[i] = g_rand_double_range (rand, -1, 1);
        n += q[i] * q[i];
      }
      n = sqrt (n);
      for (int i = 0; i < 4; i++)
        set_value (sv, p->type, r * p->channels + p->quaternion_first[g] + i,
            q[i] / n);
    }
  }
}

/* Tolerances: float32 ~1e-5, float64 1e-12, bfloat16 one unit in the last
 * place (2^-7 relative at worst). */
static gboolean
close_enough (rc_scalar_type type, double got, double want, gboolean angle)
{
  double diff = got - want, mag = MAX (fabs (got), fabs (want));

  if (isnan (want) || isnan (got))
    return isnan (want) && isnan (got);
  /* Across the wrap point +-pi is one angle. */
  if (angle)
    diff = remainder (diff, 2 * M_PI);
  switch (type) {
    case RC_TYPE_FLOAT64:
      return fabs (diff) <= 1e-12 * MAX (1, mag);
    case RC_TYPE_BFLOAT16:
      return fabs (diff) <= mag / 128 + 1e-6;
    default:
      return fabs (diff) <= 1e-5 * MAX (1, mag);
  }
}

/* rc_resample_cuda of @p over device copies of @st, @sv and @tt, the
 * values and the output @off bytes past their buffers' alignment and the
 * output poisoned first (all bits set: a NaN no kernel writes); its output
 * back in @got. */
static void
resample_on_device (const rc_resample_params * p, const int64_t * st,
    const void *sv, const int64_t * tt, void *got, size_t off)
{
  const size_t esize = rc_scalar_type_size (p->type);
  const size_t n_st = (size_t) p->batch * p->n_source;
  const size_t n_tt = (size_t) p->batch * p->n_target;
  const size_t sv_bytes = n_st * p->channels * esize;
  const size_t out_bytes = n_tt * p->channels * esize;
  void *d_st = NULL, *d_tt = NULL, *d_sv = NULL, *d_out = NULL;
  uint8_t *dv, *dout;

  fail_unless_equals_int (rc_device_alloc (&d_st, n_st * 8), RC_OK);
  fail_unless_equals_int (rc_device_alloc (&d_tt, n_tt * 8), RC_OK);
  fail_unless_equals_int (rc_device_alloc (&d_sv, sv_bytes + off), RC_OK);
  fail_unless_equals_int (rc_device_alloc (&d_out, out_bytes + off), RC_OK);
  dv = (uint8_t *) d_sv + off;
  dout = (uint8_t *) d_out + off;
  fail_unless_equals_int (rc_device_copy_async (d_st, st, n_st * 8,
          RC_COPY_HOST_TO_DEVICE, NULL), RC_OK);
  fail_unless_equals_int (rc_device_copy_async (d_tt, tt, n_tt * 8,
          RC_COPY_HOST_TO_DEVICE, NULL), RC_OK);
  fail_unless_equals_int (rc_device_copy_async (dv, sv, sv_bytes,
          RC_COPY_HOST_TO_DEVICE, NULL), RC_OK);
  fail_unless_equals_int (rc_device_memset_async (dout, 0xff, out_bytes,
          NULL), RC_OK);
  fail_unless_equals_int (rc_resample_cuda (p, d_st, dv, d_tt, dout, NULL),
      RC_OK);
  fail_unless_equals_int (rc_device_copy_async (got, dout, out_bytes,
          RC_COPY_DEVICE_TO_HOST, NULL), RC_OK);
  fail_unless_equals_int (rc_stream_synchronize (NULL), RC_OK);
  fail_unless_equals_int (rc_device_free (d_st), RC_OK);
  fail_unless_equals_int (rc_device_free (d_tt), RC_OK);
  fail_unless_equals_int (rc_device_free (d_sv), RC_OK);
  fail_unless_equals_int (rc_device_free (d_out), RC_OK);
}

static void
run_case (GRand * rand, const Case * k)
{
  rc_resample_params p;
  const size_t esize = rc_scalar_type_size (k->type);
  const size_t off = k->misalign ? esize : 0;
  size_t n_st, n_tt, out_bytes;
  int64_t *st, *tt;
  uint8_t *sv, *ref, *got;

  make_params (k, &p);
  n_st = (size_t) k->batch * k->n_source;
  n_tt = (size_t) k->batch * k->n_target;
  out_bytes = n_tt * k->channels * esize;
  st = g_new (int64_t, n_st);
  tt = g_new (int64_t, MAX (n_tt, 1));
  sv = g_malloc (n_st * k->channels * esize);
  ref = g_malloc (MAX (out_bytes, 1));
  got = g_malloc (MAX (out_bytes, 1));

  for (int m = 0; m <= RC_INTERP_CUBIC; m++) {
    for (int e = 0; e <= RC_EDGE_INVALID; e++) {
      size_t bad = 0;

      p.method = (rc_interp_method) m;
      p.edge = (rc_edge_policy) e;
      make_times (rand, k, st, tt);
      make_values (rand, &p, sv);

      fail_unless_equals_int (rc_resample_cpu (&p, st, sv, tt, ref), RC_OK);
      resample_on_device (&p, st, sv, tt, got, off);

      for (size_t i = 0; i < n_tt * k->channels; i++) {
        const uint32_t c = i % k->channels;
        const double want = get_value (ref, k->type, i);
        const double have = get_value (got, k->type, i);
        gboolean poisoned = TRUE;

        /* All bits set is the poison (a NaN no kernel writes). */
        for (size_t b = 0; b < esize; b++)
          poisoned &= got[i * esize + b] == 0xff;
        if (poisoned || !close_enough (k->type, have, want, is_angle (&p, c))) {
          if (bad++ < 5)
            g_print ("%ux%ux%ux%u %s method %d edge %d: element %zu "
                "(target %zu, channel %u): GPU %.9g%s, CPU %.9g\n",
                k->batch, k->n_source, k->n_target, k->channels,
                rc_scalar_type_to_string (k->type), m, e, i,
                i / k->channels, c, have, poisoned ? " (unwritten)" : "",
                want);
        }
      }
      ck_assert_msg (bad == 0, "%zu of %zu elements differ", bad,
          n_tt * k->channels);
    }
  }

  g_free (st);
  g_free (tt);
  g_free (sv);
  g_free (ref);
  g_free (got);
}

static const rc_scalar_type types[] = {
  RC_TYPE_FLOAT32, RC_TYPE_FLOAT64, RC_TYPE_BFLOAT16
};

static void
run_all_types (Case k)
{
  GRand *rand = test_rand_new ();

  for (guint i = 0; i < G_N_ELEMENTS (types); i++) {
    k.type = types[i];
    run_case (rand, &k);
  }
  g_rand_free (rand);
}

GST_START_TEST (test_tiny)
{
  run_all_types ((Case) {1, 1, 1, 1});
  run_all_types ((Case) {1, 2, 5, 1});
  run_all_types ((Case) {2, 1, 10, 5});
}

GST_END_TEST;

GST_START_TEST (test_odd_channels)
{
  run_all_types ((Case) {3, 17, 29, 7});
  run_all_types ((Case) {2, 100, 64, 13, .epoch = TRUE});
}

GST_END_TEST;

GST_START_TEST (test_vectorised)
{
  run_all_types ((Case) {4, 1000, 300, 32});
  run_all_types ((Case) {2, 64, 40, 200});
  run_all_types ((Case) {3, 50, 70, 8});
}

GST_END_TEST;

GST_START_TEST (test_misaligned)
{
  run_all_types ((Case) {3, 200, 100, 32, .misalign = TRUE});
  run_all_types ((Case) {2, 60, 50, 16, .n_quaternions = 1,
          .n_angle_ranges = 1, .misalign = TRUE});
}

GST_END_TEST;

GST_START_TEST (test_quaternion)
{
  /* A bare quaternion stream; one beside a plain channel; two, vectorised
   * for float32 and float64; two off the start, not vectorised. */
  run_all_types ((Case) {3, 60, 90, 4, .n_quaternions = 1});
  run_all_types ((Case) {3, 50, 80, 5, .n_quaternions = 1});
  run_all_types ((Case) {2, 300, 100, 8, .n_quaternions = 2});
  run_all_types ((Case) {2, 40, 30, 13, .n_quaternions = 2, .q_offset = 3});
}

GST_END_TEST;

/* a . b one product and one sum at a time, each rounded (volatile: no
 * contraction whatever this file's flags), as the CPU reference adds. */
static float
dot_rounded (const float *a, const float *b)
{
  volatile float sum = a[0] * b[0];

  for (int k = 1; k < 4; k++) {
    volatile float product = a[k] * b[k];
    sum = sum + product;
  }
  return sum;
}

/* a . b through fused multiply-adds, as nvcc contracts a sum of products. */
static float
dot_fused (const float *a, const float *b)
{
  float sum = a[0] * b[0];

  for (int k = 1; k < 4; k++)
    sum = fmaf (a[k], b[k], sum);
  return sum;
}

/* A float unit quaternion that the slerp's normalisation leaves as it is
 * (its sum of squares within an ulp of 1, added either way): at random, or
 * orthogonal to @orthogonal_to where given, up to float rounding. */
static void
exact_unit_quaternion (GRand * rand, const float *orthogonal_to, float *q)
{
  for (;;) {
    double r[4], n = 0, along = 0;

    for (int k = 0; k < 4; k++)
      r[k] = g_rand_double_range (rand, -1, 1);
    if (orthogonal_to) {
      for (int k = 0; k < 4; k++)
        along += r[k] * orthogonal_to[k];
      for (int k = 0; k < 4; k++)
        r[k] -= along * orthogonal_to[k];
    }
    for (int k = 0; k < 4; k++)
      n += r[k] * r[k];
    if (n < 1e-3)
      continue;
    for (int k = 0; k < 4; k++)
      q[k] = (float) (r[k] / sqrt (n));
    if (sqrtf (dot_rounded (q, q)) == 1.0f && sqrtf (dot_fused (q, q)) == 1.0f)
      return;
  }
}

/* The slerp's arc follows the sign of the two quaternions' dot product.
 * Pairs whose dot product is below 0 added as the CPU adds and not below
 * it through fused multiply-adds (or the other way round) must take the
 * same arc on the GPU: halfway between them, the two arcs' quaternions are
 * (a + b) / sqrt 2 and (a - b) / sqrt 2. */
GST_START_TEST (test_quaternion_arc)
{
  enum
  { PAIRS = 16 };
  const Case arc = { PAIRS, 2, 1, 4, RC_TYPE_FLOAT32, .n_quaternions = 1 };
  GRand *rand = test_rand_new ();
  rc_resample_params p;
  int64_t st[PAIRS * 2], tt[PAIRS];
  float sv[PAIRS * 2 * 4], ref[PAIRS * 4], got[PAIRS * 4];
  guint found = 0;

  make_params (&arc, &p);
  p.method = RC_INTERP_LINEAR;
  for (guint tries = 0; found < PAIRS && tries < 1000000; tries++) {
    float *a = &sv[found * 8], *b = a + 4;

    exact_unit_quaternion (rand, NULL, a);
    exact_unit_quaternion (rand, a, b);
    if ((dot_rounded (a, b) < 0) == (dot_fused (a, b) < 0))
      continue;
    st[found * 2] = 1000;
    st[found * 2 + 1] = 2000;
    tt[found] = 1500;
    found++;
  }
  fail_unless_equals_int (found, PAIRS);

  fail_unless_equals_int (rc_resample_cpu (&p, st, sv, tt, ref), RC_OK);
  resample_on_device (&p, st, sv, tt, got, 0);
  for (guint i = 0; i < PAIRS * 4; i++)
    fail_unless (close_enough (RC_TYPE_FLOAT32, got[i], ref[i], FALSE),
        "pair %u, component %u: GPU %.9g, CPU %.9g (the other arc?)",
        i / 4, i % 4, got[i], ref[i]);

  g_rand_free (rand);
}

GST_END_TEST;

GST_START_TEST (test_angles)
{
  run_all_types ((Case) {3, 40, 60, 6, .n_angle_ranges = 2});
  run_all_types ((Case) {2, 80, 50, 16, .n_quaternions = 2,
          .n_angle_ranges = 3});
  run_all_types ((Case) {2, 30, 40, 33, .n_quaternions = 3,
          .n_angle_ranges = 4, .epoch = TRUE});
}

GST_END_TEST;

/* More targets than the wide linear kernel's warps the GPU holds at once
 * (a few thousand warps of 32 targets on a GPU of a hundred-odd SMs), so
 * that the kernel of two targets' rows in flight runs, vectorised and
 * not. */
GST_START_TEST (test_many_targets)
{
  run_all_types ((Case) {64, 500, 4500, 8});
  run_all_types ((Case) {48, 300, 6000, 7});
}

GST_END_TEST;

GST_START_TEST (test_reference_size)
{
  GRand *rand = test_rand_new ();
  Case k = { 64, 4096, 1024, 32, RC_TYPE_FLOAT32 };

  run_case (rand, &k);
  g_rand_free (rand);
}

GST_END_TEST;

/* rc_times_disordered_cuda against the CPU's on fresh sorted trajectories
 * (repeats included) of which every third gets one decrease at a pair
 * drawn at random, or the first or the last: the flags (only 1s stored,
 * over a few already set) and the ends copied, tails of none to more than
 * the row, into poisoned arrays compared whole, so that nothing else is
 * written; in device memory, and in page-locked host memory as the
 * element reads them.  Lengths from one time to more than one block's
 * stride, and a batch past the grid's 65,535 rows. */
GST_START_TEST (test_times_disordered)
{
  static const struct
  {
    uint32_t batch;
    uint64_t n, tail;
  } sizes[] = { {1, 2, 1}, {7, 3, 0}, {64, 4096, 256}, {3, 300000, 1000},
    {70000, 5, 2}, {5, 1, 0}, {4, 700, 700}
  };
  GRand *rand = test_rand_new ();

  for (guint k = 0; k < G_N_ELEMENTS (sizes); k++) {
    const uint32_t batch = sizes[k].batch;
    const uint64_t n = sizes[k].n, tail = sizes[k].tail;
    const gsize bytes = batch * n * sizeof (int64_t);
    const gboolean pinned = k % 2 == 1;
    int64_t *times = g_new (int64_t, batch * n);
    int64_t *want_ends = g_new (int64_t, batch * n);
    int64_t *got_ends = g_new (int64_t, batch * n), *ends = NULL;
    uint8_t *want = g_new0 (uint8_t, batch), *got = g_new (uint8_t, batch);
    uint8_t *flags = NULL;
    void *d_times = NULL;
    guint marked = 0;

    for (uint32_t b = 0; b < batch; b++) {
      int64_t *t = times + (uint64_t) b * n;

      t[0] = g_rand_int_range (rand, -1000000, 1000000);
      for (uint64_t i = 1; i < n; i++)
        t[i] = t[i - 1] + g_rand_int_range (rand, 0, 3) * 1000;
      if (n > 1 && b % 3 == 0) {
        uint64_t at = b % 7 == 0 ? 1 : b % 7 == 1 ? n - 1 :
            1 + (uint64_t) g_rand_double_range (rand, 0, (double) (n - 1));

        t[at] = t[at - 1] - g_rand_int_range (rand, 1, 5000);
      }
      /* A flag the caller set already stays set. */
      want[b] = b % 5 == 4;
    }
    memset (want_ends, 0xab, bytes);
    fail_unless_equals_int (rc_times_disordered_cpu (times, batch, n, want,
            tail, want_ends), RC_OK);
    for (uint32_t b = 0; b < batch; b++)
      marked += want[b] && b % 5 != 4;
    fail_unless (n < 2 || marked > 0);
    fail_unless_equals_int (rc_device_alloc (&d_times, bytes), RC_OK);
    fail_unless_equals_int (rc_device_copy_async (d_times, times, bytes,
            RC_COPY_HOST_TO_DEVICE, NULL), RC_OK);
    if (pinned) {
      fail_unless_equals_int (rc_host_alloc ((void **) &flags, batch), RC_OK);
      fail_unless_equals_int (rc_host_alloc ((void **) &ends, bytes), RC_OK);
      for (uint32_t b = 0; b < batch; b++)
        flags[b] = b % 5 == 4;
      memset (ends, 0xab, bytes);
    } else {
      fail_unless_equals_int (rc_device_alloc ((void **) &flags, batch),
          RC_OK);
      fail_unless_equals_int (rc_device_alloc ((void **) &ends, bytes),
          RC_OK);
      for (uint32_t b = 0; b < batch; b++)
        got[b] = b % 5 == 4;
      fail_unless_equals_int (rc_device_copy_async (flags, got, batch,
              RC_COPY_HOST_TO_DEVICE, NULL), RC_OK);
      fail_unless_equals_int (rc_device_memset_async (ends, 0xab, bytes,
              NULL), RC_OK);
    }
    fail_unless_equals_int (rc_times_disordered_cuda (d_times, batch, n,
            flags, tail, ends, NULL), RC_OK);
    if (pinned) {
      fail_unless_equals_int (rc_stream_synchronize (NULL), RC_OK);
      memcpy (got, flags, batch);
      memcpy (got_ends, ends, bytes);
      fail_unless_equals_int (rc_host_free (flags), RC_OK);
      fail_unless_equals_int (rc_host_free (ends), RC_OK);
    } else {
      fail_unless_equals_int (rc_device_copy_async (got, flags, batch,
              RC_COPY_DEVICE_TO_HOST, NULL), RC_OK);
      fail_unless_equals_int (rc_device_copy_async (got_ends, ends, bytes,
              RC_COPY_DEVICE_TO_HOST, NULL), RC_OK);
      fail_unless_equals_int (rc_stream_synchronize (NULL), RC_OK);
      fail_unless_equals_int (rc_device_free (flags), RC_OK);
      fail_unless_equals_int (rc_device_free (ends), RC_OK);
    }
    for (uint32_t b = 0; b < batch; b++)
      fail_unless (got[b] == want[b], "batch %u x %" G_GUINT64_FORMAT
          ": trajectory %u flagged %u, the CPU %u", batch, n, b, got[b],
          want[b]);
    fail_unless (memcmp (got_ends, want_ends, bytes) == 0,
        "batch %u x %" G_GUINT64_FORMAT ", tail %" G_GUINT64_FORMAT
        ": the ends differ from the CPU's", batch, n, tail);
    fail_unless_equals_int (rc_device_free (d_times), RC_OK);
    g_free (times);
    g_free (want_ends);
    g_free (got_ends);
    g_free (want);
    g_free (got);
  }
  g_rand_free (rand);
}

GST_END_TEST;

static Suite *
kernels_resample_gpu_suite (void)
{
  Suite *s = suite_create ("kernels-resample-gpu");
  TCase *tc = tcase_create ("gpu");

  suite_add_tcase (s, tc);
  tcase_set_timeout (tc, 240);
  tcase_add_test (tc, test_tiny);
  tcase_add_test (tc, test_odd_channels);
  tcase_add_test (tc, test_vectorised);
  tcase_add_test (tc, test_misaligned);
  tcase_add_test (tc, test_quaternion);
  tcase_add_test (tc, test_quaternion_arc);
  tcase_add_test (tc, test_angles);
  tcase_add_test (tc, test_many_targets);
  tcase_add_test (tc, test_reference_size);
  tcase_add_test (tc, test_times_disordered);
  return s;
}

int
main (int argc, char **argv)
{
  Suite *s;

  test_require_gpu ();
  /* The CUDA driver was initialised just above, and it does not survive a
   * fork: run the tests in this process. */
  g_setenv ("CK_FORK", "no", TRUE);
  gst_check_init (&argc, &argv);
  s = kernels_resample_gpu_suite ();
  return gst_check_run_suite (s, "kernels_resample_gpu", __FILE__);
}
