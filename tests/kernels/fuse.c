/* CPU reference of batched fusion: hand-computed cases (a linear signal,
 * nearest and previous at their boundaries, column placement, duplicates,
 * bfloat16, the edges), then random streams against rc_resample_cpu run on
 * each stream alone, and bad parameters. */
#include <gst/check/gstcheck.h>
#include <math.h>
#include <string.h>

#include "robocache-kernels.h"
#include "testutil.h"
#include "values.h"

#define MS 1000000              /* one millisecond in nanoseconds */

#define assert_close(got, want, rel) \
  ck_assert_msg (fabs ((double) (got) - (double) (want)) <= \
      (rel) * MAX (1, fabs ((double) (want))), \
      "%s = %.9g, expected %.9g (relative tolerance %g)", #got, \
      (double) (got), (double) (want), (double) (rel))

static rc_fuse_stream
make_stream (uint32_t n_samples, uint32_t channels, rc_scalar_type type,
    rc_interp_method method, const int64_t * times, const void *values)
{
  rc_fuse_stream s;

  memset (&s, 0, sizeof (s));
  s.n_samples = n_samples;
  s.channels = channels;
  s.type = type;
  s.method = method;
  s.times = times;
  s.values = values;
  return s;
}

static rc_fuse_params
make_params (uint32_t episodes, uint32_t n_ticks, rc_edge_policy edge)
{
  rc_fuse_params p;

  memset (&p, 0, sizeof (p));
  p.episodes = episodes;
  p.n_ticks = n_ticks;
  p.edge = edge;
  return p;
}

static void
add_stream (rc_fuse_params * p, rc_fuse_stream s)
{
  p->streams[p->n_streams++] = s;
}

GST_START_TEST (test_linear_exact)
{
  /* Two episodes of a 333 Hz stream of 2 s whose channels are linear in
   * time, fused at 100 Hz ticks strictly inside (most between samples). */
  enum
  { E = 2, N = 666, T = 190, D = 3 };
  const int64_t period = 1000000000 / 333;
  static int64_t times[E * N], ticks[E * T];
  static float values[E * N * D], out[E * T * D];
  rc_fuse_params p = make_params (E, T, RC_EDGE_INVALID);

  for (int e = 0; e < E; e++) {
    const int64_t start = e * 7777777 - 3 * MS;

    for (int i = 0; i < N; i++) {
      const int64_t t = start + i * period;
      const double sec = t * 1e-9;

      times[e * N + i] = t;
      values[(e * N + i) * D + 0] = (float) (1 + 2 * sec);
      values[(e * N + i) * D + 1] = (float) (-3 * sec);
      values[(e * N + i) * D + 2] = (float) (0.5 + sec / 4);
    }
    for (int k = 0; k < T; k++)
      ticks[e * T + k] = start + 10 * MS + k * 10 * MS;
  }
  add_stream (&p, make_stream (N, D, RC_TYPE_FLOAT32, RC_INTERP_LINEAR,
          times, values));
  fail_unless_equals_int (rc_fuse_row_channels (&p), D);
  fail_unless_equals_int (rc_fuse_cpu (&p, ticks, out), RC_OK);

  for (int i = 0; i < E * T; i++) {
    const double sec = ticks[i] * 1e-9;

    assert_close (out[i * D + 0], 1 + 2 * sec, 1e-5);
    assert_close (out[i * D + 1], -3 * sec, 1e-5);
    assert_close (out[i * D + 2], 0.5 + sec / 4, 1e-5);
  }
}

GST_END_TEST;

GST_START_TEST (test_nearest_previous)
{
  const int64_t st[] = { 0, 10, 20 };
  const float sv[] = { 1.5f, 2.5f, 3.5f };
  /* Before, on the first, around and on the tie at 5, on a sample, the
   * tie at 15, on the last, after. */
  const int64_t tt[] = { -5, 0, 4, 5, 6, 10, 14, 15, 20, 25 };
  const float want_near[] = { 1.5f, 1.5f, 1.5f, 2.5f, 2.5f, 2.5f, 2.5f,
    3.5f, 3.5f, 3.5f
  };
  const float want_prev[] = { 1.5f, 1.5f, 1.5f, 1.5f, 1.5f, 2.5f, 2.5f,
    2.5f, 3.5f, 3.5f
  };
  float out[10];
  rc_fuse_params p = make_params (1, 10, RC_EDGE_HOLD);

  add_stream (&p, make_stream (3, 1, RC_TYPE_FLOAT32, RC_INTERP_NEAREST, st,
          sv));
  fail_unless_equals_int (rc_fuse_cpu (&p, tt, out), RC_OK);
  for (int i = 0; i < 10; i++)
    fail_unless_equals_float (out[i], want_near[i]);

  p.streams[0].method = RC_INTERP_PREVIOUS;
  fail_unless_equals_int (rc_fuse_cpu (&p, tt, out), RC_OK);
  for (int i = 0; i < 10; i++)
    fail_unless_equals_float (out[i], want_prev[i]);

  /* Edge INVALID: only the ticks outside [0, 20] change. */
  p.edge = RC_EDGE_INVALID;
  fail_unless_equals_int (rc_fuse_cpu (&p, tt, out), RC_OK);
  ck_assert (isnan (out[0]) && isnan (out[9]));
  for (int i = 1; i < 9; i++)
    fail_unless_equals_float (out[i], want_prev[i]);
}

GST_END_TEST;

GST_START_TEST (test_columns)
{
  /* Stream A: 2 channels, linear; B: 3 channels, previous; C: 1 channel,
   * nearest.  Two episodes with their own times. */
  const int64_t ta[] = { 0, 100, 1000, 1100 };
  const float va[] = { 0, 10, 100, 110, -1, -2, -3, -4 };
  const int64_t tb[] = { 0, 60, 1000, 1060 };
  const float vb[] = { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12 };
  const int64_t tc[] = { 20, 70, 1020, 1070 };
  const float vc[] = { 42, 43, 44, 45 };
  const int64_t ticks[] = { 50, 80, 1050, 1080 };
  const float want[] = {
    50, 60, 1, 2, 3, 43,
    80, 90, 4, 5, 6, 43,
    -2, -3, 7, 8, 9, 45,
    -2.6f, -3.6f, 10, 11, 12, 45,
  };
  float out[24];
  rc_fuse_params p = make_params (2, 2, RC_EDGE_HOLD);

  add_stream (&p, make_stream (2, 2, RC_TYPE_FLOAT32, RC_INTERP_LINEAR, ta,
          va));
  add_stream (&p, make_stream (2, 3, RC_TYPE_FLOAT32, RC_INTERP_PREVIOUS, tb,
          vb));
  add_stream (&p, make_stream (2, 1, RC_TYPE_FLOAT32, RC_INTERP_NEAREST, tc,
          vc));
  fail_unless_equals_int (rc_fuse_row_channels (&p), 6);
  fail_unless_equals_int (rc_fuse_cpu (&p, ticks, out), RC_OK);
  for (int i = 0; i < 24; i++)
    assert_close (out[i], want[i], 1e-6);
}

GST_END_TEST;

GST_START_TEST (test_duplicates)
{
  /* Time 10 twice: the later sample (7) wins at 10 and around it. */
  const int64_t st[] = { 0, 10, 10, 20, 20 };
  const float sv[] = { 1, 5, 7, 9, 11 };
  const int64_t tt[] = { 10, 5, 15, 20, 12 };
  const float want_lin[] = { 7, 4, 9, 11, 7.8f };
  const float want_near[] = { 7, 7, 11, 11, 7 };
  const float want_prev[] = { 7, 1, 7, 11, 7 };
  float out[15];
  rc_fuse_params p = make_params (1, 5, RC_EDGE_HOLD);

  add_stream (&p, make_stream (5, 1, RC_TYPE_FLOAT32, RC_INTERP_LINEAR, st,
          sv));
  add_stream (&p, make_stream (5, 1, RC_TYPE_FLOAT32, RC_INTERP_NEAREST, st,
          sv));
  add_stream (&p, make_stream (5, 1, RC_TYPE_FLOAT32, RC_INTERP_PREVIOUS, st,
          sv));
  fail_unless_equals_int (rc_fuse_cpu (&p, tt, out), RC_OK);
  for (int i = 0; i < 5; i++) {
    assert_close (out[3 * i], want_lin[i], 1e-6);
    fail_unless_equals_float (out[3 * i + 1], want_near[i]);
    fail_unless_equals_float (out[3 * i + 2], want_prev[i]);
  }
}

GST_END_TEST;

GST_START_TEST (test_bfloat16)
{
  /* 1.0 (0x3f80) and the next bf16 up, 1.0078125 (0x3f81): halfway,
   * 1.00390625, has no bf16 but is a float, which fusion writes unrounded.
   * A second channel from 2 to -2 crosses zero exactly. */
  const int64_t st[] = { 0, 1000 };
  const uint16_t sv[] = { 0x3f80, 0x4000, 0x3f81, 0xc000 };
  const int64_t tt[] = { 500, 750, 1000, 0 };
  const float want[] = { 1.00390625f, 0, 1.005859375f, -1, 1.0078125f, -2,
    1, 2
  };
  float out[8];
  rc_fuse_params p = make_params (1, 4, RC_EDGE_HOLD);

  add_stream (&p, make_stream (2, 2, RC_TYPE_BFLOAT16, RC_INTERP_LINEAR, st,
          sv));
  fail_unless_equals_int (rc_fuse_cpu (&p, tt, out), RC_OK);
  for (int i = 0; i < 8; i++)
    fail_unless_equals_float (out[i], want[i]);

  /* A picked bf16 sample is its exact float value. */
  p.streams[0].method = RC_INTERP_PREVIOUS;
  fail_unless_equals_int (rc_fuse_cpu (&p, tt, out), RC_OK);
  fail_unless_equals_float (out[0], bf16_to_float (0x3f80));
  fail_unless_equals_float (out[4], bf16_to_float (0x3f81));
  fail_unless_equals_float (out[5], -2);
}

GST_END_TEST;

GST_START_TEST (test_edge_invalid)
{
  /* Float32 and bf16 streams over [-100, 100]; ticks before, on the first,
   * inside, on the last, after, and at the int64 extremes. */
  const int64_t st[] = { -100, 0, 100 };
  const float sv[] = { 1, 2, 3, 4, 5, 6 };
  const uint16_t sb[] = { 0x3f80, 0x4000, 0x4040 };
  const int64_t tt[] = { -101, -100, 50, 100, 101, INT64_MIN, INT64_MAX };
  float out[7 * 3];

  for (int m = 0; m <= RC_INTERP_PREVIOUS; m++) {
    rc_fuse_params p = make_params (1, 7, RC_EDGE_INVALID);

    add_stream (&p, make_stream (3, 2, RC_TYPE_FLOAT32, (rc_interp_method) m,
            st, sv));
    add_stream (&p, make_stream (3, 1, RC_TYPE_BFLOAT16, (rc_interp_method) m,
            st, sb));
    fail_unless_equals_int (rc_fuse_cpu (&p, tt, out), RC_OK);
    for (int c = 0; c < 3; c++) {
      ck_assert (isnan (out[0 * 3 + c]));
      ck_assert (!isnan (out[2 * 3 + c]));
      ck_assert (isnan (out[4 * 3 + c]));
      ck_assert (isnan (out[5 * 3 + c]));
      ck_assert (isnan (out[6 * 3 + c]));
    }
    fail_unless_equals_float (out[3], 1);
    fail_unless_equals_float (out[4], 2);
    fail_unless_equals_float (out[5], 1);
    fail_unless_equals_float (out[9], 5);
    fail_unless_equals_float (out[10], 6);
    fail_unless_equals_float (out[11], 3);

    /* HOLD: the first and last values instead of NaN. */
    p.edge = RC_EDGE_HOLD;
    fail_unless_equals_int (rc_fuse_cpu (&p, tt, out), RC_OK);
    fail_unless_equals_float (out[0], 1);
    fail_unless_equals_float (out[2], 1);
    fail_unless_equals_float (out[12], 5);
    fail_unless_equals_float (out[14], 3);
    fail_unless_equals_float (out[15], 1);
    fail_unless_equals_float (out[20], 3);
  }
}

GST_END_TEST;

GST_START_TEST (test_empty)
{
  const int64_t st[] = { 0 };
  const float sv[] = { 1 };
  rc_fuse_params p = make_params (0, 5, RC_EDGE_HOLD);

  /* Nothing to write: no pointer is looked at. */
  add_stream (&p, make_stream (1, 1, RC_TYPE_FLOAT32, RC_INTERP_LINEAR, NULL,
          NULL));
  fail_unless_equals_int (rc_fuse_cpu (&p, NULL, NULL), RC_OK);
  p.episodes = 3;
  p.n_ticks = 0;
  fail_unless_equals_int (rc_fuse_cpu (&p, NULL, NULL), RC_OK);

  /* A single sample is held everywhere. */
  {
    const int64_t tt[] = { -5, 0, 5 };
    float out[3];

    p = make_params (1, 3, RC_EDGE_HOLD);
    add_stream (&p, make_stream (1, 1, RC_TYPE_FLOAT32, RC_INTERP_LINEAR, st,
            sv));
    fail_unless_equals_int (rc_fuse_cpu (&p, tt, out), RC_OK);
    for (int i = 0; i < 3; i++)
      fail_unless_equals_float (out[i], 1);
  }
}

GST_END_TEST;

/* Random streams (sorted times, about one repeat in eight, ticks reaching
 * a tenth of the span past both ends and a quarter on sample times), fused
 * at once, each compared with rc_resample_cpu of that stream alone. */
typedef struct
{
  uint32_t n, channels;
  rc_scalar_type type;
  rc_interp_method method;
  int64_t period;
  int64_t *times;
  void *values;
} RandStream;

static int
compare_int64 (const void *a, const void *b)
{
  int64_t x = *(const int64_t *) a, y = *(const int64_t *) b;

  return (x > y) - (x < y);
}

static void
make_random (GRand * rand, uint32_t E, uint32_t T, uint32_t n_streams,
    RandStream * rs, int64_t * ticks)
{
  for (uint32_t s = 0; s < n_streams; s++) {
    RandStream *r = &rs[s];
    const size_t esize = rc_scalar_type_size (r->type);

    r->times = g_new (int64_t, (size_t) E * r->n);
    r->values = g_malloc ((size_t) E * r->n * r->channels * esize);
    for (uint32_t e = 0; e < E; e++) {
      int64_t now = g_rand_int_range (rand, -50000000, 50000000);

      for (uint32_t i = 0; i < r->n; i++) {
        if (i > 0 && g_rand_int_range (rand, 0, 8) > 0)
          now += g_rand_int_range (rand, r->period * 6 / 10,
              r->period * 14 / 10);
        r->times[(size_t) e * r->n + i] = now;
      }
    }
    for (size_t i = 0; i < (size_t) E * r->n * r->channels; i++) {
      const float v = (float) g_rand_double_range (rand, -10, 10);

      if (r->type == RC_TYPE_BFLOAT16)
        ((uint16_t *) r->values)[i] = float_to_bf16 (v);
      else
        ((float *) r->values)[i] = v;
    }
  }
  /* Ticks over the first stream's span and a tenth past it. */
  for (uint32_t e = 0; e < E; e++) {
    const int64_t *ts = rs[0].times + (size_t) e * rs[0].n;
    const int64_t span = ts[rs[0].n - 1] - ts[0];

    for (uint32_t k = 0; k < T; k++) {
      int64_t *t = &ticks[(size_t) e * T + k];
      const RandStream *r = &rs[g_rand_int_range (rand, 0, n_streams)];

      if (g_rand_int_range (rand, 0, 4) == 0)
        *t = r->times[(size_t) e * r->n + g_rand_int_range (rand, 0, r->n)];
      else
        *t = ts[0] - span / 10 - 1 +
            (int64_t) (g_rand_double (rand) * (span * 1.2 + 2));
    }
  }
}

static void
check_against_resample (GRand * rand, uint32_t E, uint32_t T,
    uint32_t n_streams, RandStream * rs)
{
  int64_t *ticks = g_new (int64_t, (size_t) E * T);
  uint32_t R = 0;
  float *out;

  make_random (rand, E, T, n_streams, rs, ticks);
  /* Half the time each episode's ticks in order, as a clock's are. */
  if (g_rand_boolean (rand))
    for (uint32_t e = 0; e < E; e++)
      qsort (ticks + (size_t) e * T, T, sizeof (int64_t), compare_int64);
  for (uint32_t s = 0; s < n_streams; s++)
    R += rs[s].channels;
  out = g_new (float, (size_t) E * T * R);

  for (int edge = 0; edge <= RC_EDGE_INVALID; edge++) {
    rc_fuse_params p = make_params (E, T, (rc_edge_policy) edge);
    uint32_t offset = 0;

    for (uint32_t s = 0; s < n_streams; s++)
      add_stream (&p, make_stream (rs[s].n, rs[s].channels, rs[s].type,
              rs[s].method, rs[s].times, rs[s].values));
    fail_unless_equals_int (rc_fuse_row_channels (&p), R);
    fail_unless_equals_int (rc_fuse_cpu (&p, ticks, out), RC_OK);

    for (uint32_t s = 0; s < n_streams; s++) {
      const RandStream *r = &rs[s];
      const size_t n_out = (size_t) E * T * r->channels;
      void *ref = g_malloc (n_out * rc_scalar_type_size (r->type));
      rc_resample_params q;
      size_t bad = 0;

      memset (&q, 0, sizeof (q));
      q.batch = 1;
      q.n_source = r->n;
      q.n_target = 1;
      q.channels = r->channels;
      q.type = r->type;
      q.method = r->method;
      q.edge = (rc_edge_policy) edge;
      /* A tick a call, so that each is searched afresh, whatever the
       * order of the ticks fusion searches on from. */
      for (size_t row = 0; row < (size_t) E * T; row++) {
        const size_t e = row / T, row_bytes = (size_t) r->channels *
            rc_scalar_type_size (r->type);

        fail_unless_equals_int (rc_resample_cpu (&q, r->times + e * r->n,
                (const uint8_t *) r->values + e * r->n * row_bytes,
                ticks + row, (uint8_t *) ref + row * row_bytes), RC_OK);
      }

      /* float32: the same formulas, so the same bits; bfloat16: fusion's
       * float is what rc_resample rounds. */
      for (size_t i = 0; i < n_out; i++) {
        const size_t row = i / r->channels, c = i % r->channels;
        const float got = out[row * R + offset + c];
        gboolean same;

        if (r->type == RC_TYPE_BFLOAT16)
          same = float_to_bf16 (got) == ((uint16_t *) ref)[i];
        else
          same = memcmp (&got, &((float *) ref)[i], sizeof (got)) == 0;
        if (!same && bad++ < 5)
          g_print ("stream %u (%s, method %d, edge %d): row %zu channel %zu: "
              "fuse %.9g, resample %.9g\n", s,
              rc_scalar_type_to_string (r->type), r->method, edge, row, c,
              got, r->type == RC_TYPE_BFLOAT16 ?
              bf16_to_float (((uint16_t *) ref)[i]) : ((float *) ref)[i]);
      }
      ck_assert_msg (bad == 0, "stream %u: %zu of %zu values differ", s, bad,
          n_out);
      g_free (ref);
      offset += r->channels;
    }
  }

  for (uint32_t s = 0; s < n_streams; s++) {
    g_free (rs[s].times);
    g_free (rs[s].values);
  }
  g_free (ticks);
  g_free (out);
}

GST_START_TEST (test_random_vs_resample)
{
  GRand *rand = test_rand_new ();

  for (int round = 0; round < 20; round++) {
    RandStream rs[RC_FUSE_MAX_STREAMS];
    const uint32_t n_streams = round == 0 ? RC_FUSE_MAX_STREAMS :
        (uint32_t) g_rand_int_range (rand, 1, 6);
    const uint32_t E = g_rand_int_range (rand, 1, 5);
    const uint32_t T = g_rand_int_range (rand, 1, 200);

    memset (rs, 0, sizeof (rs));
    for (uint32_t s = 0; s < n_streams; s++) {
      rs[s].n = g_rand_int_range (rand, 1, 300);
      rs[s].channels = g_rand_int_range (rand, 1, 40);
      rs[s].type = g_rand_boolean (rand) ? RC_TYPE_FLOAT32 : RC_TYPE_BFLOAT16;
      rs[s].method = (rc_interp_method) g_rand_int_range (rand, 0,
          RC_INTERP_PREVIOUS + 1);
      rs[s].period = g_rand_int_range (rand, 1, 40) * MS;
    }
    check_against_resample (rand, E, T, n_streams, rs);
  }
  g_rand_free (rand);
}

GST_END_TEST;

GST_START_TEST (test_reference_streams_vs_resample)
{
  /* The shape of the reference workload, smaller: vision 30 Hz x 512,
   * proprioception 100 Hz x 14, force 333 Hz x 6, ticks at 50 Hz. */
  GRand *rand = test_rand_new ();
  RandStream rs[3] = {
    {60, 512, RC_TYPE_FLOAT32, RC_INTERP_LINEAR, 1000000000 / 30, NULL, NULL},
    {200, 14, RC_TYPE_FLOAT32, RC_INTERP_LINEAR, 1000000000 / 100, NULL, NULL},
    {666, 6, RC_TYPE_BFLOAT16, RC_INTERP_NEAREST, 1000000000 / 333, NULL, NULL},
  };

  check_against_resample (rand, 4, 100, 3, rs);
  g_rand_free (rand);
}

GST_END_TEST;

static rc_fuse_params
valid_params (const int64_t * st, const float *sv)
{
  rc_fuse_params p = make_params (1, 1, RC_EDGE_HOLD);

  add_stream (&p, make_stream (2, 1, RC_TYPE_FLOAT32, RC_INTERP_LINEAR, st,
          sv));
  fail_unless_equals_int (rc_fuse_check (&p), RC_OK);
  return p;
}

GST_START_TEST (test_bad_streams_n)
{
  const int64_t st[] = { 0, 1 };
  const float sv[] = { 1, 2 };
  float out[1];
  rc_fuse_params p;

  fail_unless_equals_int (rc_fuse_check (NULL), RC_ERROR_INVALID_ARGUMENT);
  fail_unless_equals_int (rc_fuse_row_channels (NULL), 0);

  p = valid_params (st, sv);
  p.n_streams = 0;
  fail_unless_equals_int (rc_fuse_check (&p), RC_ERROR_INVALID_ARGUMENT);

  p = valid_params (st, sv);
  for (int s = 1; s < RC_FUSE_MAX_STREAMS; s++)
    add_stream (&p, p.streams[0]);
  fail_unless_equals_int (rc_fuse_check (&p), RC_OK);
  p.n_streams = RC_FUSE_MAX_STREAMS + 1;
  fail_unless_equals_int (rc_fuse_check (&p), RC_ERROR_INVALID_ARGUMENT);
  fail_unless_equals_int (rc_fuse_cpu (&p, st, out),
      RC_ERROR_INVALID_ARGUMENT);

  p = valid_params (st, sv);
  p.streams[0].n_samples = 0;
  fail_unless_equals_int (rc_fuse_check (&p), RC_ERROR_INVALID_ARGUMENT);

  p = valid_params (st, sv);
  p.streams[0].channels = 0;
  fail_unless_equals_int (rc_fuse_check (&p), RC_ERROR_INVALID_ARGUMENT);

  /* Columns beyond uint32_t. */
  p = valid_params (st, sv);
  add_stream (&p, p.streams[0]);
  p.streams[0].channels = 0x80000000u;
  p.streams[1].channels = 0x80000000u;
  fail_unless_equals_int (rc_fuse_check (&p), RC_ERROR_INVALID_ARGUMENT);

  p = valid_params (st, sv);
  p.edge = (rc_edge_policy) (RC_EDGE_INVALID + 1);
  fail_unless_equals_int (rc_fuse_check (&p), RC_ERROR_INVALID_ARGUMENT);
}

GST_END_TEST;

GST_START_TEST (test_bad_type_method_n)
{
  const int64_t st[] = { 0, 1 };
  const float sv[] = { 1, 2 };
  const rc_scalar_type bad_types[] = {
    RC_TYPE_INT8, RC_TYPE_UINT8, RC_TYPE_INT16, RC_TYPE_UINT16,
    RC_TYPE_INT32, RC_TYPE_UINT32, RC_TYPE_FLOAT64, RC_TYPE_INVALID,
    (rc_scalar_type) 99
  };
  rc_fuse_params p;

  for (guint i = 0; i < G_N_ELEMENTS (bad_types); i++) {
    p = valid_params (st, sv);
    p.streams[0].type = bad_types[i];
    fail_unless_equals_int (rc_fuse_check (&p), RC_ERROR_INVALID_ARGUMENT);
  }
  p = valid_params (st, sv);
  p.streams[0].type = RC_TYPE_BFLOAT16;
  fail_unless_equals_int (rc_fuse_check (&p), RC_OK);

  p = valid_params (st, sv);
  p.streams[0].method = RC_INTERP_CUBIC;
  fail_unless_equals_int (rc_fuse_check (&p), RC_ERROR_INVALID_ARGUMENT);
  p.streams[0].method = (rc_interp_method) 42;
  fail_unless_equals_int (rc_fuse_check (&p), RC_ERROR_INVALID_ARGUMENT);
}

GST_END_TEST;

GST_START_TEST (test_bad_pointers_n)
{
  const int64_t st[] = { 0, 1 };
  const float sv[] = { 1, 2 };
  const int64_t tt[] = { 0 };
  float out[1];
  rc_fuse_params p = valid_params (st, sv);

  fail_unless_equals_int (rc_fuse_cpu (NULL, tt, out),
      RC_ERROR_INVALID_ARGUMENT);
  fail_unless_equals_int (rc_fuse_cpu (&p, NULL, out),
      RC_ERROR_INVALID_ARGUMENT);
  fail_unless_equals_int (rc_fuse_cpu (&p, tt, NULL),
      RC_ERROR_INVALID_ARGUMENT);
  p.streams[0].times = NULL;
  fail_unless_equals_int (rc_fuse_check (&p), RC_ERROR_INVALID_ARGUMENT);
  fail_unless_equals_int (rc_fuse_cpu (&p, tt, out),
      RC_ERROR_INVALID_ARGUMENT);
  p = valid_params (st, sv);
  p.streams[0].values = NULL;
  fail_unless_equals_int (rc_fuse_check (&p), RC_ERROR_INVALID_ARGUMENT);
  fail_unless_equals_int (rc_fuse_cpu (&p, tt, out),
      RC_ERROR_INVALID_ARGUMENT);
}

GST_END_TEST;

static Suite *
kernels_fuse_suite (void)
{
  Suite *s = suite_create ("kernels-fuse");
  TCase *tc = tcase_create ("cpu");

  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_linear_exact);
  tcase_add_test (tc, test_nearest_previous);
  tcase_add_test (tc, test_columns);
  tcase_add_test (tc, test_duplicates);
  tcase_add_test (tc, test_bfloat16);
  tcase_add_test (tc, test_edge_invalid);
  tcase_add_test (tc, test_empty);
  tcase_add_test (tc, test_random_vs_resample);
  tcase_add_test (tc, test_reference_streams_vs_resample);
  tcase_add_test (tc, test_bad_streams_n);
  tcase_add_test (tc, test_bad_type_method_n);
  tcase_add_test (tc, test_bad_pointers_n);
  return s;
}

GST_CHECK_MAIN (kernels_fuse);
