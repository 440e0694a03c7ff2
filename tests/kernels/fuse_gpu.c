/* CUDA fusion against the CPU reference on fresh random streams: every
 * method and edge policy, float32 and bfloat16, vectorised and odd channel
 * counts, misaligned buffers, the most streams, and the reference size
 * (timed, for information).  Exits 77 (SKIP) without a usable GPU. */
#include <gst/check/gstcheck.h>
#include <math.h>
#include <string.h>

#include "robocache-kernels.h"
#include "testutil.h"
#include "values.h"

#define SEC G_GINT64_CONSTANT (1000000000)

typedef struct
{
  uint32_t n, channels;
  rc_scalar_type type;
  double hz;                    /* sample rate, for the times */
} StreamSpec;

typedef struct
{
  uint32_t episodes, n_ticks;
  double tick_hz;
  uint32_t n_streams;
  StreamSpec streams[RC_FUSE_MAX_STREAMS];
  gboolean regular;             /* jitter only: no repeats, no ticks off
                                 * the sample times on purpose */
  gboolean misalign;            /* values and output 1 element off 16 B */
  gboolean epoch;               /* times near 2^60 ns, not near 0 */
  gboolean timed;
} Case;

/* Per episode: samples at about the stream's rate from a common start,
 * with jitter (and, unless regular, one repeat in eight); ticks at
 * tick_hz from the start, reaching past the ends of the shorter streams. */
static void
make_times (GRand * rand, const Case * k, int64_t ** times, int64_t * ticks)
{
  for (uint32_t e = 0; e < k->episodes; e++) {
    const int64_t start = (k->epoch ? ((int64_t) 1 << 60) : 0) +
        g_rand_int_range (rand, -500000000, 500000000);

    for (uint32_t s = 0; s < k->n_streams; s++) {
      const StreamSpec *ss = &k->streams[s];
      const double period = SEC / ss->hz;
      int64_t *ts = times[s] + (size_t) e * ss->n;
      int64_t prev = start;

      for (uint32_t i = 0; i < ss->n; i++) {
        int64_t t = start + (int64_t) ((i + g_rand_double_range (rand, -0.2,
                    0.2)) * period);

        if (!k->regular && i > 0 && g_rand_int_range (rand, 0, 8) == 0)
          t = prev;
        ts[i] = t = MAX (t, prev);
        prev = t;
      }
    }
    for (uint32_t i = 0; i < k->n_ticks; i++) {
      int64_t *t = &ticks[(size_t) e * k->n_ticks + i];
      const uint32_t s = g_rand_int_range (rand, 0, k->n_streams);

      *t = start + (int64_t) (i * (SEC / k->tick_hz)) -
          (k->regular ? 0 : (int64_t) (SEC / k->tick_hz) * 3);
      if (!k->regular && g_rand_int_range (rand, 0, 4) == 0)
        *t = times[s][(size_t) e * k->streams[s].n +
            g_rand_int_range (rand, 0, k->streams[s].n)];
    }
  }
}

static void
make_values (GRand * rand, const StreamSpec * ss, uint32_t episodes,
    void *values)
{
  const size_t n = (size_t) episodes * ss->n * ss->channels;

  for (size_t i = 0; i < n; i++) {
    const float v = (float) g_rand_double_range (rand, -10, 10);

    if (ss->type == RC_TYPE_BFLOAT16)
      ((uint16_t *) values)[i] = float_to_bf16 (v);
    else
      ((float *) values)[i] = v;
  }
}

static gboolean
close_enough (float got, float want)
{
  if (isnan (want) || isnan (got))
    return isnan (want) && isnan (got);
  return fabs ((double) got - want) <= 1e-5 * MAX (1, fabs (want));
}

/* Informational: time per call, and a device copy as a yardstick of the
 * bandwidth to be had (a copy reads and writes, so half as many bytes). */
static void
time_case (rc_fuse_params * p, const int64_t * d_ticks, float *d_out,
    size_t out_bytes, size_t in_bytes)
{
  const int reps = 20;
  const size_t moved = out_bytes + in_bytes;
  const size_t copy_bytes = MIN (out_bytes, moved / 2);
  void *d_copy = NULL;
  double fuse_us, copy_us;
  gint64 t0;

  fail_unless_equals_int (rc_device_alloc (&d_copy, copy_bytes), RC_OK);
  for (int pass = 0; pass < 2; pass++) {
    /* Pass 0 warms up. */
    t0 = g_get_monotonic_time ();
    for (int i = 0; i < reps; i++)
      fail_unless_equals_int (rc_fuse_cuda (p, d_ticks, d_out, NULL), RC_OK);
    fail_unless_equals_int (rc_stream_synchronize (NULL), RC_OK);
    fuse_us = (double) (g_get_monotonic_time () - t0) / reps;

    t0 = g_get_monotonic_time ();
    for (int i = 0; i < reps; i++)
      fail_unless_equals_int (rc_device_copy_async (d_copy, d_out,
              copy_bytes, RC_COPY_DEVICE_TO_DEVICE, NULL), RC_OK);
    fail_unless_equals_int (rc_stream_synchronize (NULL), RC_OK);
    copy_us = (double) (g_get_monotonic_time () - t0) / reps;
  }
  g_print ("fuse %ux%u, %u streams, row %u: %.1f us per call, %.0f GB/s "
      "(%.1f MB written, %.1f MB of inputs); device copy: %.0f GB/s\n",
      p->episodes, p->n_ticks, p->n_streams, rc_fuse_row_channels (p),
      fuse_us, moved / fuse_us / 1e3, out_bytes / 1e6, in_bytes / 1e6,
      2.0 * copy_bytes / copy_us / 1e3);
  fail_unless_equals_int (rc_device_free (d_copy), RC_OK);
}

static void
run_case (GRand * rand, const Case * k)
{
  const size_t off = k->misalign ? 1 : 0;       /* in elements */
  int64_t *times[RC_FUSE_MAX_STREAMS];
  void *values[RC_FUSE_MAX_STREAMS];
  void *d_times[RC_FUSE_MAX_STREAMS], *d_values[RC_FUSE_MAX_STREAMS];
  size_t value_bytes[RC_FUSE_MAX_STREAMS], in_bytes = 0;
  const size_t n_rows = (size_t) k->episodes * k->n_ticks;
  size_t n_out, out_bytes;
  int64_t *ticks;
  float *ref, *got;
  void *d_ticks = NULL, *d_out = NULL;
  rc_fuse_params p;

  memset (&p, 0, sizeof (p));
  p.episodes = k->episodes;
  p.n_ticks = k->n_ticks;
  p.n_streams = k->n_streams;
  for (uint32_t s = 0; s < k->n_streams; s++) {
    const StreamSpec *ss = &k->streams[s];
    const size_t esize = rc_scalar_type_size (ss->type);
    const size_t n_times = (size_t) k->episodes * ss->n;

    value_bytes[s] = n_times * ss->channels * esize;
    in_bytes += n_times * 8 + value_bytes[s];
    times[s] = g_new (int64_t, n_times);
    values[s] = g_malloc (value_bytes[s]);
    fail_unless_equals_int (rc_device_alloc (&d_times[s], n_times * 8),
        RC_OK);
    fail_unless_equals_int (rc_device_alloc (&d_values[s],
            value_bytes[s] + off * esize), RC_OK);
    p.streams[s].n_samples = ss->n;
    p.streams[s].channels = ss->channels;
    p.streams[s].type = ss->type;
  }
  n_out = n_rows * rc_fuse_row_channels (&p);
  out_bytes = n_out * sizeof (float);
  in_bytes += n_rows * 8;
  ticks = g_new (int64_t, MAX (n_rows, 1));
  ref = g_new (float, MAX (n_out, 1));
  got = g_new (float, MAX (n_out, 1));
  fail_unless_equals_int (rc_device_alloc (&d_ticks, n_rows * 8), RC_OK);
  fail_unless_equals_int (rc_device_alloc (&d_out, out_bytes + off * 4),
      RC_OK);

  /* Each round gives the streams different methods, in turn. */
  for (int round = 0; round <= RC_INTERP_PREVIOUS; round++) {
    for (int edge = 0; edge <= RC_EDGE_INVALID; edge++) {
      float *dout = (float *) d_out + off;
      size_t bad = 0;

      make_times (rand, k, times, ticks);
      p.edge = (rc_edge_policy) edge;
      for (uint32_t s = 0; s < k->n_streams; s++) {
        const size_t esize = rc_scalar_type_size (k->streams[s].type);
        uint8_t *dv = (uint8_t *) d_values[s] + off * esize;

        make_values (rand, &k->streams[s], k->episodes, values[s]);
        p.streams[s].method = (rc_interp_method) ((round + s) %
            (RC_INTERP_PREVIOUS + 1));
        p.streams[s].times = times[s];
        p.streams[s].values = values[s];
        fail_unless_equals_int (rc_device_copy_async (d_times[s], times[s],
                (size_t) k->episodes * k->streams[s].n * 8,
                RC_COPY_HOST_TO_DEVICE, NULL), RC_OK);
        fail_unless_equals_int (rc_device_copy_async (dv, values[s],
                value_bytes[s], RC_COPY_HOST_TO_DEVICE, NULL), RC_OK);
      }
      fail_unless_equals_int (rc_fuse_cpu (&p, ticks, ref), RC_OK);

      /* The same parameters with device pointers. */
      for (uint32_t s = 0; s < k->n_streams; s++) {
        const size_t esize = rc_scalar_type_size (k->streams[s].type);

        p.streams[s].times = d_times[s];
        p.streams[s].values = (uint8_t *) d_values[s] + off * esize;
      }
      fail_unless_equals_int (rc_device_copy_async (d_ticks, ticks,
              n_rows * 8, RC_COPY_HOST_TO_DEVICE, NULL), RC_OK);
      /* All bits set: a NaN the kernel never writes. */
      fail_unless_equals_int (rc_device_memset_async (dout, 0xff, out_bytes,
              NULL), RC_OK);
      fail_unless_equals_int (rc_fuse_cuda (&p, d_ticks, dout, NULL), RC_OK);
      fail_unless_equals_int (rc_device_copy_async (got, dout, out_bytes,
              RC_COPY_DEVICE_TO_HOST, NULL), RC_OK);
      fail_unless_equals_int (rc_stream_synchronize (NULL), RC_OK);

      for (size_t i = 0; i < n_out; i++) {
        uint32_t bits;

        memcpy (&bits, &got[i], sizeof (bits));
        if (bits == 0xffffffffu || !close_enough (got[i], ref[i])) {
          if (bad++ < 5)
            g_print ("%ux%u, %u streams, round %d, edge %d: element %zu "
                "(row %zu, column %zu): GPU %.9g%s, CPU %.9g\n",
                k->episodes, k->n_ticks, k->n_streams, round, edge, i,
                i / rc_fuse_row_channels (&p), i % rc_fuse_row_channels (&p),
                got[i], bits == 0xffffffffu ? " (unwritten)" : "", ref[i]);
        }
      }
      ck_assert_msg (bad == 0, "%zu of %zu elements differ", bad, n_out);

      if (k->timed && round == 0 && edge == 0)
        time_case (&p, d_ticks, dout, out_bytes, in_bytes);
    }
  }

  for (uint32_t s = 0; s < k->n_streams; s++) {
    fail_unless_equals_int (rc_device_free (d_times[s]), RC_OK);
    fail_unless_equals_int (rc_device_free (d_values[s]), RC_OK);
    g_free (times[s]);
    g_free (values[s]);
  }
  fail_unless_equals_int (rc_device_free (d_ticks), RC_OK);
  fail_unless_equals_int (rc_device_free (d_out), RC_OK);
  g_free (ticks);
  g_free (ref);
  g_free (got);
}

static void
run_one (const Case * k)
{
  GRand *rand = test_rand_new ();

  run_case (rand, k);
  g_rand_free (rand);
}

#define F32 RC_TYPE_FLOAT32
#define BF16 RC_TYPE_BFLOAT16

GST_START_TEST (test_tiny)
{
  run_one (&(Case) {1, 1, 50, 1, {{1, 1, F32, 30}}});
  run_one (&(Case) {1, 7, 50, 1, {{2, 1, BF16, 30}}});
  run_one (&(Case) {2, 5, 100, 2, {{1, 3, F32, 10}, {3, 2, BF16, 40}}});
}

GST_END_TEST;

GST_START_TEST (test_odd_channels)
{
  run_one (&(Case) {3, 37, 50, 3, {{17, 7, F32, 30}, {5, 1, BF16, 5},
          {50, 3, F32, 100}}});
  run_one (&(Case) {2, 120, 50, 2, {{40, 13, BF16, 20}, {300, 5, F32,
              133}}, .epoch = TRUE});
}

GST_END_TEST;

GST_START_TEST (test_vectorised)
{
  /* Row 16: widths 4, 4, 2, 2. */
  run_one (&(Case) {2, 100, 50, 4, {{30, 8, F32, 15}, {100, 4, BF16, 50},
          {333, 2, F32, 166}, {40, 2, BF16, 20}}});
  /* Row 133 (odd): every stream one channel at a time. */
  run_one (&(Case) {3, 64, 50, 2, {{40, 128, F32, 30}, {130, 5, F32,
              100}}});
}

GST_END_TEST;

/* Rows not a multiple of 4 floats: a stream of a multiple of 4 channels
 * is read 4 at a time and stored 16 bytes at a time where the row allows,
 * elsewhere as two of 8 (rows of 2 mod 4 floats) or as 4, 8 and 4 bytes
 * (odd rows). */
GST_START_TEST (test_split_rows)
{
  /* Row 526: the 512 channels at offset 0, staged. */
  run_one (&(Case) {8, 100, 50, 2, {{60, 512, F32, 30}, {200, 14, F32, 100}},
      .regular = TRUE});
  /* Row 518: 512 bfloat16 channels at offset 6, times repeated. */
  run_one (&(Case) {8, 100, 50, 2, {{666, 6, F32, 333}, {60, 512, BF16,
              30}}});
  /* Eight streams of the reference's kinds: row 1,590. */
  run_one (&(Case) {4, 200, 50, 8, {{120, 512, F32, 30}, {400, 14, F32, 100},
          {1332, 6, F32, 333}, {120, 512, F32, 30}, {400, 14, F32, 100},
          {1332, 6, F32, 333}, {120, 512, F32, 30}, {400, 14, F32, 100}},
      .regular = TRUE});
  /* Row 529 (odd): the 512 channels, staged, at every offset mod 4. */
  run_one (&(Case) {8, 100, 50, 3, {{60, 512, F32, 30}, {200, 7, F32, 100},
          {666, 10, F32, 333}}, .regular = TRUE});
  /* Row 23 (odd): 8 bfloat16 and 12 float channels at offsets 3 and 11,
   * read from global memory where the ticks are out of order. */
  run_one (&(Case) {8, 100, 50, 3, {{200, 3, F32, 100}, {60, 8, BF16, 30},
          {666, 12, F32, 333}}});
}

GST_END_TEST;

GST_START_TEST (test_misaligned)
{
  run_one (&(Case) {3, 80, 50, 3, {{30, 64, F32, 30}, {100, 8, BF16, 100},
          {333, 6, F32, 333}}, .misalign = TRUE});
}

GST_END_TEST;

GST_START_TEST (test_many_streams)
{
  GRand *rand = test_rand_new ();
  Case k = { 4, 150, 50, RC_FUSE_MAX_STREAMS };

  for (uint32_t s = 0; s < k.n_streams; s++) {
    k.streams[s].n = g_rand_int_range (rand, 1, 400);
    k.streams[s].channels = g_rand_int_range (rand, 1, 70);
    k.streams[s].type = g_rand_boolean (rand) ? F32 : BF16;
    k.streams[s].hz = g_rand_double_range (rand, 5, 400);
  }
  run_case (rand, &k);
  g_rand_free (rand);
}

GST_END_TEST;

GST_START_TEST (test_long_and_wide)
{
  /* One long episode of a thin stream; a row too wide for two ticks a
   * tile. */
  run_one (&(Case) {1, 20000, 1000, 1, {{30000, 1, F32, 1500}}});
  run_one (&(Case) {2, 9, 50, 2, {{5, 10000, F32, 30}, {20, 3, BF16, 100}}});
}

GST_END_TEST;

GST_START_TEST (test_tiles)
{
  /* Enough ticks for tiles of several ticks, with rows staged in shared
   * memory: in order (staged), and with ticks out of order (spans too long:
   * read from global memory); misaligned, one channel at a time. */
  run_one (&(Case) {64, 200, 50, 3, {{120, 64, BF16, 30}, {400, 8, F32, 100},
          {1332, 3, BF16, 333}}, .regular = TRUE});
  run_one (&(Case) {64, 200, 50, 3, {{120, 64, BF16, 30}, {400, 8, F32, 100},
          {1332, 3, BF16, 333}}});
  run_one (&(Case) {64, 200, 50, 3, {{120, 64, F32, 30}, {400, 8, BF16, 100},
          {1332, 3, F32, 333}}, .regular = TRUE, .misalign = TRUE});
  /* An odd row of 77 floats: the 64 channels staged 16 bytes at a time but
   * written a float at a time; the 10 bfloat16 channels staged 4 bytes at
   * a time and blended a value at a time from shared memory. */
  run_one (&(Case) {64, 200, 50, 3, {{120, 64, F32, 30}, {400, 10, BF16,
              100}, {1332, 3, F32, 333}}, .regular = TRUE});
}

GST_END_TEST;

/* Narrow rows under tiles of many ticks (16 episodes of 12,000 ticks: 93
 * a tile), so that a thread takes two items of a segment, its second at
 * another tick and another unit (the segments' units, 3 and 5, do not
 * divide the block), where the other cases' threads take one or units
 * that divide it: 12 channels 4 at a time, 7 in three 16-byte units read
 * a float at a time, 10 bfloat16 two at a time, and the three in one odd
 * row of 29 floats. */
GST_START_TEST (test_many_items)
{
  run_one (&(Case) {16, 12000, 50, 1, {{2400, 12, F32, 10}}, .regular =
          TRUE});
  run_one (&(Case) {16, 12000, 50, 1, {{2400, 7, F32, 10}}, .regular =
          TRUE});
  run_one (&(Case) {16, 12000, 50, 1, {{2400, 10, BF16, 10}}});
  run_one (&(Case) {16, 12000, 50, 3, {{2400, 12, F32, 10}, {24000, 7, F32,
              100}, {1200, 10, BF16, 5}}});
}

GST_END_TEST;

/* 64 episodes x 10 s at 50 Hz: vision 30 Hz x 512, proprioception
 * 100 Hz x 14, force 333 Hz x 6. */
GST_START_TEST (test_reference_size)
{
  run_one (&(Case) {64, 500, 50, 3, {{300, 512, F32, 30}, {1000, 14, F32,
              100}, {3330, 6, F32, 333}}, .regular = TRUE, .timed = TRUE});
}

GST_END_TEST;

GST_START_TEST (test_reference_size_bf16)
{
  run_one (&(Case) {64, 500, 50, 3, {{300, 512, BF16, 30}, {1000, 14, BF16,
              100}, {3330, 6, BF16, 333}}, .regular = TRUE, .timed = TRUE});
}

GST_END_TEST;

static Suite *
kernels_fuse_gpu_suite (void)
{
  Suite *s = suite_create ("kernels-fuse-gpu");
  TCase *tc = tcase_create ("gpu");

  suite_add_tcase (s, tc);
  tcase_set_timeout (tc, 240);
  tcase_add_test (tc, test_tiny);
  tcase_add_test (tc, test_odd_channels);
  tcase_add_test (tc, test_vectorised);
  tcase_add_test (tc, test_split_rows);
  tcase_add_test (tc, test_misaligned);
  tcase_add_test (tc, test_many_streams);
  tcase_add_test (tc, test_long_and_wide);
  tcase_add_test (tc, test_tiles);
  tcase_add_test (tc, test_many_items);
  tcase_add_test (tc, test_reference_size);
  tcase_add_test (tc, test_reference_size_bf16);
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
  s = kernels_fuse_gpu_suite ();
  return gst_check_run_suite (s, "kernels_fuse_gpu", __FILE__);
}
