/* CPU reference of the resampling kernel: hand-computed cases for each
 * method, the quaternion and angle groups, the edges, and bad parameters;
 * then random trajectories against a brute-force implementation. */
#include <gst/check/gstcheck.h>
#include <math.h>
#include <string.h>

#include "robocache-kernels.h"
#include "testutil.h"

#define MS 1000000              /* one millisecond in nanoseconds */

#define assert_close(got, want, tol) \
  ck_assert_msg (fabs ((double) (got) - (double) (want)) <= (tol), \
      "%s = %.17g, expected %.17g (tolerance %g)", #got, (double) (got), \
      (double) (want), (double) (tol))

static int
compare_int64 (const void *a, const void *b)
{
  int64_t x = *(const int64_t *) a, y = *(const int64_t *) b;

  return (x > y) - (x < y);
}

static rc_resample_params
make_params (uint32_t batch, uint32_t n_source, uint32_t n_target,
    uint32_t channels, rc_scalar_type type, rc_interp_method method,
    rc_edge_policy edge)
{
  rc_resample_params p;

  memset (&p, 0, sizeof (p));
  p.batch = batch;
  p.n_source = n_source;
  p.n_target = n_target;
  p.channels = channels;
  p.type = type;
  p.method = method;
  p.edge = edge;
  return p;
}

/* One trajectory of float64 samples: out[t * channels + c]. */
static void
run_d (const rc_resample_params * p, const int64_t * st, const double *sv,
    const int64_t * tt, double *out)
{
  fail_unless_equals_int (rc_resample_cpu (p, st, sv, tt, out), RC_OK);
}

static void
run_f (const rc_resample_params * p, const int64_t * st, const float *sv,
    const int64_t * tt, float *out)
{
  fail_unless_equals_int (rc_resample_cpu (p, st, sv, tt, out), RC_OK);
}

GST_START_TEST (test_linear)
{
  const int64_t st[] = { 0, 10 * MS, 30 * MS };
  const float sv[] = { 1, -2, 3, 4, -5, 10 };
  const int64_t tt[] = { 0, 5 * MS, 10 * MS, 20 * MS, 25 * MS, 30 * MS };
  const float want[] = { 1, -2, 2, 1, 3, 4, -1, 7, -3, 8.5f, -5, 10 };
  rc_resample_params p = make_params (1, 3, 6, 2, RC_TYPE_FLOAT32,
      RC_INTERP_LINEAR, RC_EDGE_HOLD);
  float out[12];

  run_f (&p, st, sv, tt, out);
  for (int i = 0; i < 12; i++)
    assert_close (out[i], want[i], 1e-6);
}

GST_END_TEST;

GST_START_TEST (test_nearest)
{
  const int64_t st[] = { 0, 10, 20 };
  const double sv[] = { 1.5, 2.5, 3.5 };
  /* 5 and 15 are ties: the later sample wins. */
  const int64_t tt[] = { 0, 4, 5, 6, 14, 15, 20 };
  const double want[] = { 1.5, 1.5, 2.5, 2.5, 2.5, 3.5, 3.5 };
  rc_resample_params p = make_params (1, 3, 7, 1, RC_TYPE_FLOAT64,
      RC_INTERP_NEAREST, RC_EDGE_HOLD);
  double out[7];

  run_d (&p, st, sv, tt, out);
  for (int i = 0; i < 7; i++)
    fail_unless_equals_float (out[i], want[i]);
}

GST_END_TEST;

GST_START_TEST (test_previous)
{
  const int64_t st[] = { 0, 10, 20 };
  const double sv[] = { 1.5, 2.5, 3.5 };
  const int64_t tt[] = { 0, 9, 10, 19, 20, 1 };
  const double want[] = { 1.5, 1.5, 2.5, 2.5, 3.5, 1.5 };
  rc_resample_params p = make_params (1, 3, 6, 1, RC_TYPE_FLOAT64,
      RC_INTERP_PREVIOUS, RC_EDGE_HOLD);
  double out[6];

  run_d (&p, st, sv, tt, out);
  for (int i = 0; i < 6; i++)
    fail_unless_equals_float (out[i], want[i]);
}

GST_END_TEST;

/* Catmull-Rom tangents from finite differences are exact for a line, so
 * the cubic must reproduce one on any spacing. */
GST_START_TEST (test_cubic_linear_exact)
{
  const int64_t st[] = { 0, 3 * MS, 4 * MS, 10 * MS, 11 * MS, 20 * MS };
  double sv[12], out[2 * 40];
  int64_t tt[40];
  rc_resample_params p = make_params (1, 6, 40, 2, RC_TYPE_FLOAT64,
      RC_INTERP_CUBIC, RC_EDGE_HOLD);

  for (int i = 0; i < 6; i++) {
    double s = st[i] / (double) MS;
    sv[2 * i] = 2 * s - 5;
    sv[2 * i + 1] = -0.5 * s + 7;
  }
  for (int i = 0; i < 40; i++)
    tt[i] = (int64_t) i * 20 * MS / 39 + (i % 3);
  run_d (&p, st, sv, tt, out);
  for (int i = 0; i < 40; i++) {
    double s = tt[i] / (double) MS;
    assert_close (out[2 * i], 2 * s - 5, 1e-12);
    assert_close (out[2 * i + 1], -0.5 * s + 7, 1e-12);
  }
}

GST_END_TEST;

GST_START_TEST (test_cubic_hand)
{
  /* p = t^2.  Inner interval, central tangents 2 and 4: exact 2.25.  First
   * interval, tangents 1 (one-sided) and 2: 0.375.  Last interval, tangents
   * 4 and 5 (one-sided): 6.375. */
  const int64_t st[] = { 0, 1000, 2000, 3000 };
  const double sv[] = { 0, 1, 4, 9 };
  const int64_t tt[] = { 1500, 500, 2500, 2000 };
  const double want[] = { 2.25, 0.375, 6.375, 4 };
  /* Non-uniform: samples of t^2 at 0, 1, 3, target 2: tangent at 1 is
   * 9 / 3, scaled by h = 2 to 6; at 3 one-sided 8 / 2, scaled to 8:
   * 0.5 * 1 + 0.125 * 6 + 0.5 * 9 - 0.125 * 8 = 4.75. */
  const int64_t st2[] = { 0, 1000, 3000 };
  const double sv2[] = { 0, 1, 9 };
  const int64_t tt2[] = { 2000 };
  rc_resample_params p = make_params (1, 4, 4, 1, RC_TYPE_FLOAT64,
      RC_INTERP_CUBIC, RC_EDGE_HOLD);
  double out[4];

  run_d (&p, st, sv, tt, out);
  for (int i = 0; i < 4; i++)
    assert_close (out[i], want[i], 1e-12);

  p.n_source = 3;
  p.n_target = 1;
  run_d (&p, st2, sv2, tt2, out);
  assert_close (out[0], 4.75, 1e-12);
}

GST_END_TEST;

static void
rot_z (double angle, double q[4])
{
  q[0] = 0;
  q[1] = 0;
  q[2] = sin (angle / 2);
  q[3] = cos (angle / 2);
}

/* Rotations about z by a at t = 0 and b at t = 1: slerp at s rotates by
 * a + s (b - a).  Plain channels around the group stay linear; CUBIC slerps
 * the group too. */
GST_START_TEST (test_slerp_closed_form)
{
  const double a = 0.3, b = 2.1, fr[] = { 0.5, 0.25, 0.9 };
  const int64_t st[] = { 0, 1000 };
  const int64_t tt[] = { 500, 250, 900 };
  double sv[12], out[18], q[4];
  rc_resample_params p = make_params (1, 2, 3, 6, RC_TYPE_FLOAT64,
      RC_INTERP_LINEAR, RC_EDGE_HOLD);

  p.n_quaternions = 1;
  p.quaternion_first[0] = 1;
  sv[0] = 10;
  sv[5] = -1;
  rot_z (a, sv + 1);
  sv[6] = 20;
  sv[11] = 3;
  rot_z (b, sv + 7);

  for (int m = 0; m < 2; m++) {
    p.method = m ? RC_INTERP_CUBIC : RC_INTERP_LINEAR;
    run_d (&p, st, sv, tt, out);
    for (int i = 0; i < 3; i++) {
      rot_z (a + fr[i] * (b - a), q);
      for (int k = 0; k < 4; k++)
        assert_close (out[6 * i + 1 + k], q[k], 1e-12);
      assert_close (out[6 * i], 10 + 10 * fr[i], 1e-12);
      assert_close (out[6 * i + 5], -1 + 4 * fr[i], 1e-12);
    }
  }

  /* float32: the same within float precision. */
  {
    float svf[12], outf[18];

    for (int i = 0; i < 12; i++)
      svf[i] = (float) sv[i];
    p.type = RC_TYPE_FLOAT32;
    p.method = RC_INTERP_LINEAR;
    run_f (&p, st, svf, tt, outf);
    for (int i = 0; i < 3; i++) {
      rot_z (a + fr[i] * (b - a), q);
      for (int k = 0; k < 4; k++)
        assert_close (outf[6 * i + 1 + k], q[k], 2e-6);
    }
  }
}

GST_END_TEST;

/* q and -q are the same rotation: the slerp must take the short arc from
 * rotation 0.2 to rotation 0.6 given as -q, and stay unit length. */
GST_START_TEST (test_slerp_shortest)
{
  const int64_t st[] = { 0, 1000 };
  const int64_t tt[] = { 500, 250 };
  double sv[8], out[8], q[4];
  rc_resample_params p = make_params (1, 2, 2, 4, RC_TYPE_FLOAT64,
      RC_INTERP_LINEAR, RC_EDGE_HOLD);

  p.n_quaternions = 1;
  rot_z (0.2, sv);
  rot_z (0.6, sv + 4);
  for (int k = 4; k < 8; k++)
    sv[k] = -sv[k];
  run_d (&p, st, sv, tt, out);

  rot_z (0.4, q);
  for (int k = 0; k < 4; k++)
    assert_close (out[k], q[k], 1e-12);
  rot_z (0.3, q);
  for (int k = 0; k < 4; k++)
    assert_close (out[4 + k], q[k], 1e-12);
  for (int i = 0; i < 2; i++) {
    double n = 0;
    for (int k = 0; k < 4; k++)
      n += out[4 * i + k] * out[4 * i + k];
    assert_close (n, 1, 1e-12);
  }
}

GST_END_TEST;

/* Nearly parallel quaternions take the normalised lerp: still unit, still
 * between the two. */
GST_START_TEST (test_slerp_parallel)
{
  const int64_t st[] = { 0, 1000 };
  const int64_t tt[] = { 500 };
  double sv[8], out[4], q[4];
  rc_resample_params p = make_params (1, 2, 1, 4, RC_TYPE_FLOAT64,
      RC_INTERP_LINEAR, RC_EDGE_HOLD);

  p.n_quaternions = 1;
  rot_z (1.0, sv);
  rot_z (1.0 + 1e-10, sv + 4);
  run_d (&p, st, sv, tt, out);
  rot_z (1.0 + 0.5e-10, q);
  for (int k = 0; k < 4; k++)
    assert_close (out[k], q[k], 1e-14);
}

GST_END_TEST;

GST_START_TEST (test_angle_wrap)
{
  /* From 3.0 to -3.0 the short way passes pi: the middle is +-pi, wrapped
   * into [-pi, pi); a quarter of the way is 3.0708, three quarters -3.0708.
   * A sample hit exactly is wrapped too (4.0 -> 4.0 - 2 pi). */
  const int64_t st[] = { 0, 1000, 2000 };
  const double sv[] = { 3.0, 0.5, -3.0, 0.5, 4.0, 0.5 };
  const int64_t tt[] = { 500, 250, 750, 2000, 1500 };
  const double d = 2 * M_PI - 6;
  rc_resample_params p = make_params (1, 3, 5, 2, RC_TYPE_FLOAT64,
      RC_INTERP_LINEAR, RC_EDGE_HOLD);
  double out[10];
  float svf[6], outf[10];

  p.n_angle_ranges = 1;
  p.angle_ranges[0].first = 0;
  p.angle_ranges[0].count = 1;
  run_d (&p, st, sv, tt, out);
  assert_close (fabs (out[0]), M_PI, 1e-12);
  ck_assert (out[0] >= -M_PI && out[0] < M_PI);
  assert_close (out[2], 3.0 + d / 4, 1e-12);
  assert_close (out[4], 3.0 + 3 * d / 4 - 2 * M_PI, 1e-12);
  assert_close (out[6], 4.0 - 2 * M_PI, 1e-12);
  /* From -3.0 to 4.0 == -2.283: straight, 0.717 rad. */
  assert_close (out[8], (-3.0 + 4.0 - 2 * M_PI) / 2, 1e-12);
  for (int i = 0; i < 5; i++)
    fail_unless_equals_float (out[2 * i + 1], 0.5);

  for (int i = 0; i < 6; i++)
    svf[i] = (float) sv[i];
  p.type = RC_TYPE_FLOAT32;
  run_f (&p, st, svf, tt, outf);
  assert_close (fabs (outf[0]), M_PI, 1e-6);
  ck_assert (outf[0] >= -(float) M_PI && outf[0] < (float) M_PI);
  assert_close (outf[2], 3.0 + d / 4, 1e-6);
  assert_close (outf[4], 3.0 + 3 * d / 4 - 2 * M_PI, 1e-6);
}

GST_END_TEST;

/* An angle turning at a constant rate through the wrap point: the cubic on
 * unwrapped neighbours reproduces it like any line. */
GST_START_TEST (test_angle_cubic)
{
  int64_t st[8], tt[50];
  double sv[8], out[50];
  rc_resample_params p = make_params (1, 8, 50, 1, RC_TYPE_FLOAT64,
      RC_INTERP_CUBIC, RC_EDGE_HOLD);

  p.n_angle_ranges = 1;
  p.angle_ranges[0].count = 1;
  for (int i = 0; i < 8; i++) {
    st[i] = i * 1000 + (i % 2) * 300;
    sv[i] = remainder (2.0 + 1.3e-3 * st[i], 2 * M_PI);
  }
  for (int i = 0; i < 50; i++)
    tt[i] = st[7] * i / 49;
  run_d (&p, st, sv, tt, out);
  for (int i = 0; i < 50; i++) {
    double want = remainder (2.0 + 1.3e-3 * tt[i], 2 * M_PI);
    double diff = remainder (out[i] - want, 2 * M_PI);
    assert_close (diff, 0, 1e-9);
    ck_assert (out[i] >= -M_PI && out[i] < M_PI);
  }
}

GST_END_TEST;

GST_START_TEST (test_edges)
{
  const int64_t st[] = { -100, 0, 100 };
  const float sv[] = { 1, 2, 3, 4, 5, 6 };
  /* Before, at the first, inside, at the last, after. */
  const int64_t tt[] = { -101, -100, 50, 100, 101, INT64_MIN, INT64_MAX };
  float out[14];

  for (int m = 0; m <= RC_INTERP_CUBIC; m++) {
    rc_resample_params p = make_params (1, 3, 7, 2, RC_TYPE_FLOAT32,
        (rc_interp_method) m, RC_EDGE_HOLD);

    run_f (&p, st, sv, tt, out);
    fail_unless_equals_float (out[0], 1);
    fail_unless_equals_float (out[1], 2);
    fail_unless_equals_float (out[2], 1);
    fail_unless_equals_float (out[3], 2);
    fail_unless_equals_float (out[6], 5);
    fail_unless_equals_float (out[7], 6);
    fail_unless_equals_float (out[8], 5);
    fail_unless_equals_float (out[9], 6);
    fail_unless_equals_float (out[10], 1);
    fail_unless_equals_float (out[13], 6);

    p.edge = RC_EDGE_INVALID;
    run_f (&p, st, sv, tt, out);
    ck_assert (isnan (out[0]) && isnan (out[1]));
    fail_unless_equals_float (out[2], 1);
    fail_unless_equals_float (out[3], 2);
    ck_assert (!isnan (out[4]) && !isnan (out[5]));
    fail_unless_equals_float (out[6], 5);
    fail_unless_equals_float (out[7], 6);
    for (int i = 8; i < 14; i++)
      ck_assert (isnan (out[i]));
  }
}

GST_END_TEST;

GST_START_TEST (test_single_source)
{
  const int64_t st[] = { 100 };
  const double sv[] = { 7.25, -1.5 };
  const int64_t tt[] = { 100, 99, 101 };
  double out[6];

  for (int m = 0; m <= RC_INTERP_CUBIC; m++) {
    rc_resample_params p = make_params (1, 1, 3, 2, RC_TYPE_FLOAT64,
        (rc_interp_method) m, RC_EDGE_HOLD);

    run_d (&p, st, sv, tt, out);
    for (int i = 0; i < 3; i++) {
      fail_unless_equals_float (out[2 * i], 7.25);
      fail_unless_equals_float (out[2 * i + 1], -1.5);
    }
    p.edge = RC_EDGE_INVALID;
    run_d (&p, st, sv, tt, out);
    fail_unless_equals_float (out[0], 7.25);
    fail_unless_equals_float (out[1], -1.5);
    for (int i = 2; i < 6; i++)
      ck_assert (isnan (out[i]));
  }
}

GST_END_TEST;

GST_START_TEST (test_empty)
{
  rc_resample_params p = make_params (4, 10, 0, 3, RC_TYPE_FLOAT32,
      RC_INTERP_LINEAR, RC_EDGE_HOLD);

  fail_unless_equals_int (rc_resample_cpu (&p, NULL, NULL, NULL, NULL),
      RC_OK);
  p.n_target = 5;
  p.batch = 0;
  fail_unless_equals_int (rc_resample_cpu (&p, NULL, NULL, NULL, NULL),
      RC_OK);
}

GST_END_TEST;

GST_START_TEST (test_duplicates)
{
  /* Time 10 twice: the later sample (7) wins at 10 and around it. */
  const int64_t st[] = { 0, 10, 10, 20, 20 };
  const double sv[] = { 1, 5, 7, 9, 11 };
  const int64_t tt[] = { 10, 5, 15, 20, 12 };
  const double want_lin[] = { 7, 4, 9, 11, 7.8 };
  const double want_near[] = { 7, 7, 11, 11, 7 };
  const double want_prev[] = { 7, 1, 7, 11, 7 };
  /* CUBIC must equal the same trajectory without the earlier duplicates. */
  const int64_t st_dedup[] = { 0, 10, 20 };
  const double sv_dedup[] = { 1, 7, 11 };
  double out[5], ref[5];
  rc_resample_params p = make_params (1, 5, 5, 1, RC_TYPE_FLOAT64,
      RC_INTERP_LINEAR, RC_EDGE_HOLD);

  run_d (&p, st, sv, tt, out);
  for (int i = 0; i < 5; i++)
    assert_close (out[i], want_lin[i], 1e-12);
  p.method = RC_INTERP_NEAREST;
  run_d (&p, st, sv, tt, out);
  for (int i = 0; i < 5; i++)
    fail_unless_equals_float (out[i], want_near[i]);
  p.method = RC_INTERP_PREVIOUS;
  run_d (&p, st, sv, tt, out);
  for (int i = 0; i < 5; i++)
    fail_unless_equals_float (out[i], want_prev[i]);

  p.method = RC_INTERP_CUBIC;
  run_d (&p, st, sv, tt, out);
  p.n_source = 3;
  run_d (&p, st_dedup, sv_dedup, tt, ref);
  for (int i = 0; i < 5; i++)
    assert_close (out[i], ref[i], 1e-12);

  /* Held before a repeated first time: its later sample. */
  {
    const int64_t st2[] = { 5, 5, 5, 10 };
    const double sv2[] = { 1, 2, 3, 4 };
    const int64_t tt2[] = { 0, 5 };

    p = make_params (1, 4, 2, 1, RC_TYPE_FLOAT64, RC_INTERP_LINEAR,
        RC_EDGE_HOLD);
    run_d (&p, st2, sv2, tt2, out);
    fail_unless_equals_float (out[0], 3);
    fail_unless_equals_float (out[1], 3);
  }
}

GST_END_TEST;

static float
bf16_value (uint16_t bits)
{
  uint32_t u = (uint32_t) bits << 16;
  float f;

  memcpy (&f, &u, sizeof (f));
  return f;
}

GST_START_TEST (test_bfloat16)
{
  /* 1.0 (0x3f80) and the next bf16 up, 1.0078125 (0x3f81).  Halfway is a
   * tie: to even, 0x3f80; three quarters rounds up to 0x3f81.  A second
   * channel from 2 to -2 crosses zero exactly. */
  const int64_t st[] = { 0, 1000 };
  const uint16_t sv[] = { 0x3f80, 0x4000, 0x3f81, 0xc000 };
  const int64_t tt[] = { 500, 750, 1000, 2000, -5 };
  uint16_t out[10];
  rc_resample_params p = make_params (1, 2, 5, 2, RC_TYPE_BFLOAT16,
      RC_INTERP_LINEAR, RC_EDGE_INVALID);

  fail_unless_equals_int (rc_resample_cpu (&p, st, sv, tt, out), RC_OK);
  fail_unless_equals_int_hex (out[0], 0x3f80);
  fail_unless_equals_float (bf16_value (out[1]), 0);
  fail_unless_equals_int_hex (out[2], 0x3f81);
  fail_unless_equals_float (bf16_value (out[3]), -1);
  fail_unless_equals_int_hex (out[4], 0x3f81);
  fail_unless_equals_int_hex (out[5], 0xc000);
  for (int i = 6; i < 10; i++)
    ck_assert (isnan (bf16_value (out[i])));

  /* A quaternion group in bfloat16: unit within bf16 precision. */
  {
    const uint16_t qs[] = { 0, 0, 0, 0x3f80, 0, 0, 0x3f80, 0 };
    const int64_t qt[] = { 500 };
    uint16_t qo[4];

    p = make_params (1, 2, 1, 4, RC_TYPE_BFLOAT16, RC_INTERP_LINEAR,
        RC_EDGE_HOLD);
    p.n_quaternions = 1;
    fail_unless_equals_int (rc_resample_cpu (&p, st, qs, qt, qo), RC_OK);
    assert_close (bf16_value (qo[0]), 0, 0);
    assert_close (bf16_value (qo[2]), M_SQRT1_2, 4e-3);
    assert_close (bf16_value (qo[3]), M_SQRT1_2, 4e-3);
  }
}

GST_END_TEST;

/* ------------------------------------------------------------------ */
/* Random trajectories against a brute-force reference                 */
/* ------------------------------------------------------------------ */

/* The value at @t of one channel by linear scans: duplicates collapsed to
 * their last sample, the neighbours found by walking. */
static double
naive (const int64_t * st, const double *sv, uint32_t n, uint32_t stride,
    int64_t t, rc_interp_method method, rc_edge_policy edge)
{
  int64_t ut[64] = { 0 };
  double uv[64] = { 0 };
  uint32_t m = 0, i;

  g_assert (n <= 64);
  for (i = 0; i < n; i++) {
    if (m > 0 && ut[m - 1] == st[i])
      m--;
    ut[m] = st[i];
    uv[m] = sv[(size_t) i * stride];
    m++;
  }
  if (t < ut[0] || t > ut[m - 1]) {
    if (edge == RC_EDGE_INVALID)
      return NAN;
    return t < ut[0] ? uv[0] : uv[m - 1];
  }
  for (i = 0; i < m; i++) {
    if (ut[i] == t)
      return uv[i];
  }
  i = 0;
  while (ut[i + 1] < t)
    i++;
  {
    double h = (double) (ut[i + 1] - ut[i]), s = (t - ut[i]) / h;
    double p0, p1 = uv[i], p2 = uv[i + 1], p3, m1, m2;

    switch (method) {
      case RC_INTERP_NEAREST:
        return ut[i + 1] - t <= t - ut[i] ? p2 : p1;
      case RC_INTERP_PREVIOUS:
        return p1;
      case RC_INTERP_LINEAR:
        return p1 + s * (p2 - p1);
      case RC_INTERP_CUBIC:
        p0 = i > 0 ? uv[i - 1] : p1;
        p3 = i + 2 < m ? uv[i + 2] : p2;
        m1 = (p2 - p0) / (double) (ut[i + 1] - (i > 0 ? ut[i - 1] : ut[i]));
        m2 = (p3 - p1) / (double) ((i + 2 < m ? ut[i + 2] : ut[i + 1]) -
            ut[i]);
        return (2 * s * s * s - 3 * s * s + 1) * p1 +
            (s * s * s - 2 * s * s + s) * h * m1 +
            (-2 * s * s * s + 3 * s * s) * p2 + (s * s * s - s * s) * h * m2;
    }
  }
  return 0;
}

GST_START_TEST (test_random_vs_naive)
{
  GRand *rand = test_rand_new ();

  for (int iter = 0; iter < 200; iter++) {
    const uint32_t B = g_rand_int_range (rand, 1, 4);
    const uint32_t S = g_rand_int_range (rand, 1, 65);
    const uint32_t T = g_rand_int_range (rand, 1, 30);
    const uint32_t D = g_rand_int_range (rand, 1, 5);
    rc_resample_params p = make_params (B, S, T, D, RC_TYPE_FLOAT64,
        (rc_interp_method) g_rand_int_range (rand, 0, 4),
        (rc_edge_policy) g_rand_int_range (rand, 0, 2));
    int64_t *st = g_new (int64_t, B * S), *tt = g_new (int64_t, B * T);
    double *sv = g_new (double, B * S * D), *out = g_new (double, B * T * D);

    for (uint32_t b = 0; b < B; b++) {
      int64_t now = g_rand_int_range (rand, -1000, 1000);
      for (uint32_t i = 0; i < S; i++) {
        /* About one step in five repeats the previous time; every
         * third trajectory turns 1000 times slower halfway, far from the
         * evenly spaced guess of the search. */
        if (i > 0 && g_rand_int_range (rand, 0, 5) > 0)
          now += g_rand_int_range (rand, 1, 100) *
              (iter % 3 == 0 && i > S / 2 ? 1000 : 1);
        st[b * S + i] = now;
      }
      for (uint32_t i = 0; i < T; i++) {
        if (g_rand_int_range (rand, 0, 4) == 0)
          tt[b * T + i] = st[b * S + g_rand_int_range (rand, 0, S)];
        else
          tt[b * T + i] = st[b * S] - 50 + (int64_t) (g_rand_double (rand) *
              (st[b * S + S - 1] - st[b * S] + 100));
      }
    }
    for (uint32_t i = 0; i < B * S * D; i++)
      sv[i] = g_rand_double_range (rand, -10, 10);
    /* Every other case's targets in order: searched on from the last. */
    if (iter % 2)
      for (uint32_t b = 0; b < B; b++)
        qsort (tt + b * T, T, sizeof (int64_t), compare_int64);

    run_d (&p, st, sv, tt, out);
    for (uint32_t b = 0; b < B; b++) {
      for (uint32_t i = 0; i < T; i++) {
        for (uint32_t c = 0; c < D; c++) {
          double want = naive (st + b * S, sv + (size_t) b * S * D + c, S, D,
              tt[b * T + i], p.method, p.edge);
          double got = out[((size_t) b * T + i) * D + c];
          if (isnan (want))
            ck_assert_msg (isnan (got), "iter %d: %g, expected NaN", iter,
                got);
          else
            ck_assert_msg (fabs (got - want) <= 1e-9 * (1 + fabs (want)),
                "iter %d method %d b %u t %u c %u: %.17g, expected %.17g "
                "(S %u, target %" G_GINT64_FORMAT ")", iter, p.method, b, i,
                c, got, want, S, tt[b * T + i]);
        }
      }
    }
    g_free (st);
    g_free (tt);
    g_free (sv);
    g_free (out);
  }
  g_rand_free (rand);
}

GST_END_TEST;

/* Long, unevenly spaced trajectories (bursts, gaps, repeats): PREVIOUS on
 * values equal to their index shows which sample each search found. */
GST_START_TEST (test_search_uneven)
{
  const uint32_t S = 3000, T = 2000;
  GRand *rand = test_rand_new ();
  int64_t *st = g_new (int64_t, S), *tt = g_new (int64_t, T), now = -77;
  double *sv = g_new (double, S), *out = g_new (double, T);
  rc_resample_params p = make_params (1, S, T, 1, RC_TYPE_FLOAT64,
      RC_INTERP_PREVIOUS, RC_EDGE_HOLD);

  for (uint32_t i = 0; i < S; i++) {
    switch (g_rand_int_range (rand, 0, 10)) {
      case 0:
        now += g_rand_int_range (rand, 1, 1000000);
        break;
      case 1:
      case 2:
        break;
      default:
        now += g_rand_int_range (rand, 1, 10);
        break;
    }
    st[i] = now;
    sv[i] = i + 1;
  }
  for (uint32_t i = 0; i < T; i++)
    tt[i] = st[0] - 5 + (int64_t) (g_rand_double (rand) * (now - st[0] + 10));
  /* As drawn (each target searched afresh), then in order (each searched
   * on from the one before, as a grid's are). */
  for (int sorted = 0; sorted < 2; sorted++) {
    if (sorted)
      qsort (tt, T, sizeof (int64_t), compare_int64);
    run_d (&p, st, sv, tt, out);
    for (uint32_t i = 0; i < T; i++) {
      uint32_t last = 0;
      for (uint32_t j = 0; j < S && st[j] <= tt[i]; j++)
        last = j;
      /* Before the start: the first time's last sample. */
      if (tt[i] < st[0])
        while (last + 1 < S && st[last + 1] == st[0])
          last++;
      ck_assert_msg (out[i] == last + 1, "target %" G_GINT64_FORMAT
          ": sample %g, expected %u (sorted %d)", tt[i], out[i] - 1, last,
          sorted);
    }
  }
  g_free (st);
  g_free (tt);
  g_free (sv);
  g_free (out);
  g_rand_free (rand);
}

GST_END_TEST;

/* backend=auto's rule on shapes where one side was at least twice as
 * fast in every run on the H200's host (docs/bench/run196): a live
 * path's call and small chunks on the CPU; long or wide ones and the
 * sweep's interpolated batches on the GPU.  Along a growing batch the
 * choice flips at most once, from the CPU to the GPU. */
GST_START_TEST (test_prefers_cpu)
{
  static const rc_scalar_type types[] = { RC_TYPE_FLOAT32, RC_TYPE_FLOAT64,
    RC_TYPE_BFLOAT16
  };
  static const rc_interp_method methods[] = { RC_INTERP_LINEAR,
    RC_INTERP_NEAREST, RC_INTERP_PREVIOUS, RC_INTERP_CUBIC
  };
  rc_resample_params p;

  for (guint t = 0; t < G_N_ELEMENTS (types); t++) {
    for (guint m = 0; m < G_N_ELEMENTS (methods); m++) {
      gboolean gpu_seen = FALSE;

      p = make_params (1, 5, 1, 7, types[t], methods[m], RC_EDGE_HOLD);
      fail_unless (rc_resample_prefers_cpu (&p), "a live call");
      p = make_params (1, 16388, 4096, 1, types[t], methods[m], RC_EDGE_HOLD);
      fail_unless (!rc_resample_prefers_cpu (&p), "4,096 targets");
      /* Interpolated (measured); a row copied is near a tie there. */
      p = make_params (1024, 4096, 1024, 32, types[t], methods[m],
          RC_EDGE_HOLD);
      if (methods[m] == RC_INTERP_LINEAR || methods[m] == RC_INTERP_CUBIC)
        fail_unless (!rc_resample_prefers_cpu (&p), "the sweep's batch");
      for (p.batch = 1; p.batch <= 4096; p.batch *= 2) {
        p.n_source = 260;
        p.n_target = 64;
        p.channels = 16;
        if (!rc_resample_prefers_cpu (&p))
          gpu_seen = TRUE;
        else
          fail_if (gpu_seen, "back to the CPU at batch %u", p.batch);
      }
      fail_unless (gpu_seen);
    }
  }
  p = make_params (16, 1028, 256, 128, RC_TYPE_BFLOAT16, RC_INTERP_LINEAR,
      RC_EDGE_HOLD);
  fail_unless (!rc_resample_prefers_cpu (&p));
  p = make_params (1, 260, 64, 32, RC_TYPE_FLOAT32, RC_INTERP_CUBIC,
      RC_EDGE_HOLD);
  fail_unless (rc_resample_prefers_cpu (&p));
  p = make_params (16, 68, 16, 7, RC_TYPE_FLOAT32, RC_INTERP_LINEAR,
      RC_EDGE_HOLD);
  fail_unless (rc_resample_prefers_cpu (&p));
}

GST_END_TEST;

/* ------------------------------------------------------------------ */
/* Bad parameters                                                      */
/* ------------------------------------------------------------------ */

static void
expect_invalid (const rc_resample_params * p)
{
  const int64_t st[] = { 0, 1 };
  const double sv[] = { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16 };
  const int64_t tt[] = { 0 };
  double out[16];

  fail_unless_equals_int (rc_resample_check (p), RC_ERROR_INVALID_ARGUMENT);
  fail_unless_equals_int (rc_resample_cpu (p, st, sv, tt, out),
      RC_ERROR_INVALID_ARGUMENT);
}

static rc_resample_params
valid_params (void)
{
  rc_resample_params p = make_params (1, 2, 1, 8, RC_TYPE_FLOAT64,
      RC_INTERP_LINEAR, RC_EDGE_HOLD);

  fail_unless_equals_int (rc_resample_check (&p), RC_OK);
  return p;
}

/* Which trajectories rc_times_disordered_cpu marks: a decrease at the
 * first pair, in the middle, at the last pair; equal times and a single
 * sample are in order.  Only 1s are stored, and each trajectory's first
 * time and last @tail are copied to their places in @ends, nothing else. */
GST_START_TEST (test_times_disordered)
{
  const int64_t times[6][5] = {
    {1, 2, 3, 4, 5},
    {2, 1, 3, 4, 5},
    {1, 2, 9, 4, 5},
    {1, 2, 3, 4, -5},
    {7, 7, 7, 7, 7},
    {-3, -2, -2, 0, G_MAXINT64},
  };
  const uint8_t want[6] = { 0, 1, 1, 1, 0, 0 };
  const int64_t poison = -77;
  uint8_t got[6];
  int64_t ends[6][5];

  memset (got, 0, sizeof (got));
  for (int b = 0; b < 6; b++)
    for (int i = 0; i < 5; i++)
      ends[b][i] = poison;
  fail_unless_equals_int (rc_times_disordered_cpu (&times[0][0], 6, 5, got,
          2, &ends[0][0]), RC_OK);
  fail_unless (memcmp (got, want, sizeof (want)) == 0);
  for (int b = 0; b < 6; b++)
    for (int i = 0; i < 5; i++)
      fail_unless_equals_int64 (ends[b][i], i == 0 || i >= 3 ? times[b][i] :
          poison);
  /* Flags already set stay set; a tail longer than the row copies it
   * whole; no @ends, nothing copied. */
  memset (got, 0xab, sizeof (got));
  fail_unless_equals_int (rc_times_disordered_cpu (&times[0][0], 6, 5, got,
          9, &ends[0][0]), RC_OK);
  for (int b = 0; b < 6; b++)
    fail_unless_equals_int (got[b], want[b] ? 1 : 0xab);
  fail_unless (memcmp (ends, times, sizeof (times)) == 0);
  fail_unless_equals_int (rc_times_disordered_cpu (&times[0][0], 6, 5, got,
          2, NULL), RC_OK);
  /* One sample a trajectory: always in order, and its one time copied. */
  memset (got, 0, sizeof (got));
  fail_unless_equals_int (rc_times_disordered_cpu (&times[1][0], 4, 1, got,
          0, &ends[0][0]), RC_OK);
  for (int b = 0; b < 4; b++) {
    fail_unless_equals_int (got[b], 0);
    fail_unless_equals_int64 ((&ends[0][0])[b], (&times[1][0])[b]);
  }
  fail_unless_equals_int (rc_times_disordered_cpu (NULL, 0, 5, NULL, 0,
          NULL), RC_OK);
  fail_unless_equals_int (rc_times_disordered_cpu (NULL, 2, 5, got, 0,
          NULL), RC_ERROR_INVALID_ARGUMENT);
}

GST_END_TEST;

GST_START_TEST (test_bad_channels_n)
{
  rc_resample_params p = valid_params ();

  p.channels = 0;
  expect_invalid (&p);
  p = valid_params ();
  p.n_source = 0;
  expect_invalid (&p);
}

GST_END_TEST;

GST_START_TEST (test_bad_type_n)
{
  rc_resample_params p = valid_params ();

  p.type = RC_TYPE_INT32;
  expect_invalid (&p);
  p.type = RC_TYPE_UINT8;
  expect_invalid (&p);
  p.type = RC_TYPE_INVALID;
  expect_invalid (&p);
  p.type = (rc_scalar_type) 1000;
  expect_invalid (&p);
  p = valid_params ();
  p.method = (rc_interp_method) (RC_INTERP_CUBIC + 1);
  expect_invalid (&p);
  p = valid_params ();
  p.edge = (rc_edge_policy) (RC_EDGE_INVALID + 1);
  expect_invalid (&p);
}

GST_END_TEST;

GST_START_TEST (test_bad_groups_n)
{
  rc_resample_params p = valid_params ();

  /* Quaternion past the end: channels 5..8 of 8. */
  p.n_quaternions = 1;
  p.quaternion_first[0] = 5;
  expect_invalid (&p);
  p.quaternion_first[0] = UINT32_MAX - 1;
  expect_invalid (&p);
  p.quaternion_first[0] = 4;
  fail_unless_equals_int (rc_resample_check (&p), RC_OK);

  /* Two quaternions sharing channels 2 and 3. */
  p.n_quaternions = 2;
  p.quaternion_first[0] = 0;
  p.quaternion_first[1] = 2;
  expect_invalid (&p);
  p.quaternion_first[1] = 4;
  fail_unless_equals_int (rc_resample_check (&p), RC_OK);

  /* An angle inside a quaternion. */
  p.n_quaternions = 1;
  p.n_angle_ranges = 1;
  p.angle_ranges[0].first = 3;
  p.angle_ranges[0].count = 2;
  expect_invalid (&p);
  p.angle_ranges[0].first = 4;
  fail_unless_equals_int (rc_resample_check (&p), RC_OK);

  /* Angle ranges overlapping each other, past the end, empty. */
  p.n_angle_ranges = 2;
  p.angle_ranges[1].first = 5;
  p.angle_ranges[1].count = 3;
  expect_invalid (&p);
  p.angle_ranges[1].first = 6;
  p.angle_ranges[1].count = 2;
  fail_unless_equals_int (rc_resample_check (&p), RC_OK);
  p.angle_ranges[1].count = 3;
  expect_invalid (&p);
  p.angle_ranges[1].first = UINT32_MAX;
  p.angle_ranges[1].count = 2;
  expect_invalid (&p);
  p.angle_ranges[1].first = 7;
  p.angle_ranges[1].count = 0;
  expect_invalid (&p);

  /* Too many groups. */
  p = valid_params ();
  p.n_quaternions = RC_RESAMPLE_MAX_GROUPS + 1;
  expect_invalid (&p);
  p = valid_params ();
  p.n_angle_ranges = RC_RESAMPLE_MAX_GROUPS + 1;
  expect_invalid (&p);
}

GST_END_TEST;

GST_START_TEST (test_bad_pointers_n)
{
  rc_resample_params p = valid_params ();
  const int64_t st[] = { 0, 1 };
  const double sv[16] = { 1 };
  const int64_t tt[] = { 0 };
  double out[8];

  fail_unless_equals_int (rc_resample_check (NULL),
      RC_ERROR_INVALID_ARGUMENT);
  fail_unless_equals_int (rc_resample_cpu (NULL, st, sv, tt, out),
      RC_ERROR_INVALID_ARGUMENT);
  fail_unless_equals_int (rc_resample_cpu (&p, NULL, sv, tt, out),
      RC_ERROR_INVALID_ARGUMENT);
  fail_unless_equals_int (rc_resample_cpu (&p, st, NULL, tt, out),
      RC_ERROR_INVALID_ARGUMENT);
  fail_unless_equals_int (rc_resample_cpu (&p, st, sv, NULL, out),
      RC_ERROR_INVALID_ARGUMENT);
  fail_unless_equals_int (rc_resample_cpu (&p, st, sv, tt, NULL),
      RC_ERROR_INVALID_ARGUMENT);
}

GST_END_TEST;

static Suite *
kernels_resample_suite (void)
{
  Suite *s = suite_create ("kernels-resample");
  TCase *tc = tcase_create ("cpu");

  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_linear);
  tcase_add_test (tc, test_nearest);
  tcase_add_test (tc, test_previous);
  tcase_add_test (tc, test_cubic_linear_exact);
  tcase_add_test (tc, test_cubic_hand);
  tcase_add_test (tc, test_slerp_closed_form);
  tcase_add_test (tc, test_slerp_shortest);
  tcase_add_test (tc, test_slerp_parallel);
  tcase_add_test (tc, test_angle_wrap);
  tcase_add_test (tc, test_angle_cubic);
  tcase_add_test (tc, test_edges);
  tcase_add_test (tc, test_single_source);
  tcase_add_test (tc, test_empty);
  tcase_add_test (tc, test_duplicates);
  tcase_add_test (tc, test_bfloat16);
  tcase_add_test (tc, test_random_vs_naive);
  tcase_add_test (tc, test_search_uneven);
  tcase_add_test (tc, test_prefers_cpu);
  tcase_add_test (tc, test_times_disordered);
  tcase_add_test (tc, test_bad_channels_n);
  tcase_add_test (tc, test_bad_type_n);
  tcase_add_test (tc, test_bad_groups_n);
  tcase_add_test (tc, test_bad_pointers_n);
  return s;
}

GST_CHECK_MAIN (kernels_resample);
