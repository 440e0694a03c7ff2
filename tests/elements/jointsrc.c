/* robocachejointsrc: caps, jittered timestamps, dropouts, quaternions,
 * determinism, formats, EOS and live mode. */
#include <gst/check/gstcheck.h>
#include <gst/check/gstharness.h>
#include <math.h>
#include <string.h>

#include "elementutil.h"
#include "gstrobocachecaps.h"
#include "testutil.h"

/* One pulled sample. */
typedef struct
{
  GstClockTime pts;
  GstClockTime duration;
  guint64 offset;
  gboolean discont;
  gdouble values[16];
} Sample;

/* A harness around a robocachejointsrc with the given properties set
 * (NULL-terminated name/value list, as g_object_set). */
static GstHarness *
joint_harness_new (const gchar * first_property, ...)
{
  GstHarness *h = gst_harness_new ("robocachejointsrc");
  va_list args;

  if (first_property) {
    va_start (args, first_property);
    g_object_set_valist (G_OBJECT (h->element), first_property, args);
    va_end (args);
  }
  return h;
}

/* Pulls @n samples of @channels values (at most 16 are kept) from @h, read
 * as float32 or float64. */
static Sample *
pull_samples (GstHarness * h, guint n, guint channels, gboolean float64)
{
  Sample *samples = g_new0 (Sample, n);
  gsize value_size = float64 ? sizeof (gdouble) : sizeof (gfloat);

  for (guint i = 0; i < n; i++) {
    GstBuffer *buf = gst_harness_pull (h);
    GstMapInfo map;

    fail_unless (buf != NULL);
    fail_unless_equals_int (gst_buffer_get_size (buf), channels * value_size);
    samples[i].pts = GST_BUFFER_PTS (buf);
    samples[i].duration = GST_BUFFER_DURATION (buf);
    samples[i].offset = GST_BUFFER_OFFSET (buf);
    samples[i].discont = GST_BUFFER_FLAG_IS_SET (buf, GST_BUFFER_FLAG_DISCONT);
    fail_unless (gst_buffer_map (buf, &map, GST_MAP_READ));
    for (guint c = 0; c < MIN (channels, 16); c++) {
      if (float64) {
        memcpy (&samples[i].values[c], map.data + c * sizeof (gdouble),
            sizeof (gdouble));
      } else {
        gfloat v;
        memcpy (&v, map.data + c * sizeof (gfloat), sizeof (gfloat));
        samples[i].values[c] = v;
      }
    }
    gst_buffer_unmap (buf, &map);
    gst_buffer_unref (buf);
  }
  return samples;
}

static GstStructure *
current_caps_structure (GstHarness * h, GstCaps ** caps)
{
  *caps = gst_pad_get_current_caps (h->sinkpad);
  fail_unless (*caps != NULL);
  fail_unless (gst_caps_is_fixed (*caps));
  return gst_caps_get_structure (*caps, 0);
}

static void
check_caps (guint dof, gboolean quaternion, const gchar * names)
{
  GstHarness *h = joint_harness_new ("dof", dof, "quaternion", quaternion,
      "num-buffers", 1, NULL);
  GstCaps *caps, *templ;
  GstStructure *s;
  GstBuffer *buf;
  gint channels = 0;

  gst_harness_play (h);
  buf = gst_harness_pull (h);
  s = current_caps_structure (h, &caps);
  fail_unless (gst_structure_has_name (s, GST_ROBOCACHE_VECTORS_MEDIA_TYPE));
  fail_unless (gst_structure_get_int (s, "channels", &channels));
  fail_unless_equals_int (channels, dof + (quaternion ? 4 : 0));
  fail_unless_equals_string (gst_structure_get_string (s, "format"),
      "float32");
  fail_unless_equals_string (gst_structure_get_string (s, "layout"),
      "sample");
  if (names) {
    fail_unless_equals_string (gst_structure_get_string (s, "names"), names);
  } else {
    fail_unless (gst_structure_get_string (s, "names") != NULL);
  }
  if (quaternion) {
    gchar *first = g_strdup_printf ("%u", dof);
    fail_unless_equals_string (gst_structure_get_string (s, "quaternions"),
        first);
    g_free (first);
  } else {
    fail_if (gst_structure_has_field (s, "quaternions"));
  }
  /* Angles are not declared. */
  fail_if (gst_structure_has_field (s, "angles"));
  fail_unless (gst_caps_features_is_equal (gst_caps_get_features (caps, 0),
          GST_CAPS_FEATURES_MEMORY_SYSTEM_MEMORY));
  templ = gst_caps_from_string (GST_ROBOCACHE_VECTORS_CAPS);
  fail_unless (gst_caps_is_subset (caps, templ));
  gst_caps_unref (templ);
  fail_unless_equals_int (gst_buffer_get_size (buf), channels * 4);

  gst_caps_unref (caps);
  gst_buffer_unref (buf);
  gst_harness_teardown (h);
}

GST_START_TEST (test_latency_before_caps)
{
  check_latency_before_caps ("robocachejointsrc");
}

GST_END_TEST;

GST_START_TEST (test_caps)
{
  check_caps (7, FALSE,
      "joint0,joint1,joint2,joint3,joint4,joint5,joint6");
  check_caps (3, TRUE, "joint0,joint1,joint2,qx,qy,qz,qw");
  check_caps (1, FALSE, "joint0");
  check_caps (1024, TRUE, NULL);
}

GST_END_TEST;

/* Nominal time of sample @n at @rate_n / @rate_d Hz. */
static GstClockTime
nominal_time (guint64 n, gint rate_n, gint rate_d)
{
  return gst_util_uint64_scale (n, GST_SECOND * rate_d, rate_n);
}

static void
check_timestamps (gint rate_n, gint rate_d, gdouble jitter, guint seed)
{
  const guint n = 500;
  GstHarness *h = joint_harness_new ("rate", rate_n, rate_d,
      "jitter", jitter, "seed", seed, "num-buffers", n, NULL);
  GstClockTime period = gst_util_uint64_scale (GST_SECOND, rate_d, rate_n);
  gdouble bound = jitter * period;
  guint moved = 0;
  Sample *s;

  gst_harness_play (h);
  s = pull_samples (h, n, 7, FALSE);
  for (guint i = 0; i < n; i++) {
    GstClockTime nominal = nominal_time (i, rate_n, rate_d);
    gdouble error = (gdouble) GST_CLOCK_DIFF (nominal, s[i].pts);

    /* No dropout: every sample, in order. */
    fail_unless_equals_uint64 (s[i].offset, i);
    fail_unless_equals_clocktime (s[i].duration,
        nominal_time (i + 1, rate_n, rate_d) - nominal);
    fail_unless (fabs (error) <= bound, "sample %u off by %.0f ns, "
        "jitter bound %.0f ns", i, error, bound);
    if (i > 0)
      fail_unless (s[i].pts > s[i - 1].pts, "sample %u not after %u", i,
          i - 1);
    if (s[i].pts != nominal)
      moved++;
  }
  if (jitter == 0.0) {
    fail_unless_equals_int (moved, 0);
  } else {
    fail_unless (moved > n / 2, "only %u of %u samples jittered", moved, n);
  }
  g_free (s);
  gst_harness_teardown (h);
}

GST_START_TEST (test_timestamps)
{
  GRand *rand = test_rand_new ();
  guint seed = g_rand_int (rand);

  check_timestamps (100, 1, 0.1, seed);
  check_timestamps (100, 1, 0.0, seed);
  check_timestamps (100, 1, 0.3, seed);
  /* The largest jitter at the highest rate still keeps the order. */
  check_timestamps (10000, 1, 0.49, seed);
  check_timestamps (30, 7, 0.49, seed);
  g_rand_free (rand);
}

GST_END_TEST;

/* rate (the base's) and dof (the source's own) are read when caps are
 * set: set while playing they are refused with a warning, and the samples
 * keep their period and size; set in READY they are taken at the next
 * start. */
GST_START_TEST (test_properties_refused_while_playing)
{
  GstHarness *h = joint_harness_new ("rate", 100, 1, "dof", 3, "jitter",
      0.0, "num-buffers", 3, NULL);
  Sample *s;

  gst_harness_play (h);
  g_free (pull_samples (h, 1, 3, FALSE));
  check_set_refused (G_OBJECT (h->element), "rate", "50/1");
  check_set_refused (G_OBJECT (h->element), "dof", "5");
  s = pull_samples (h, 2, 3, FALSE);
  fail_unless_equals_clocktime (s[1].pts - s[0].pts, 10 * GST_MSECOND);
  g_free (s);

  check_set_taken_stopped (h->element, G_OBJECT (h->element), "rate",
      "50/1");
  check_set_taken (G_OBJECT (h->element), "dof", "5");
  gst_harness_play (h);
  s = pull_samples (h, 2, 5, FALSE);
  fail_unless_equals_clocktime (s[1].pts - s[0].pts, 20 * GST_MSECOND);
  g_free (s);
  gst_harness_teardown (h);
}

GST_END_TEST;

GST_START_TEST (test_dropout)
{
  const guint n = 1000;

  for (guint seed = 0; seed < 3; seed++) {
    GstHarness *h = joint_harness_new ("dropout", 0.5, "seed", seed,
        "num-buffers", n, NULL);
    Sample *s;
    guint64 total;
    gdouble kept;
    guint gaps = 0;

    gst_harness_play (h);
    s = pull_samples (h, n, 7, FALSE);
    for (guint i = 1; i < n; i++) {
      fail_unless (s[i].offset > s[i - 1].offset);
      fail_unless (s[i].pts > s[i - 1].pts);
      /* A gap, not a discontinuity. */
      fail_if (s[i].discont);
      if (s[i].offset > s[i - 1].offset + 1)
        gaps++;
    }
    total = s[n - 1].offset + 1;
    kept = (gdouble) n / total;
    GST_INFO ("seed %u: kept %u of %" G_GUINT64_FORMAT " samples", seed, n,
        total);
    fail_unless (kept > 0.44 && kept < 0.56, "kept %.3f of the samples",
        kept);
    fail_unless (gaps > n / 8);
    g_free (s);
    gst_harness_teardown (h);
  }
}

GST_END_TEST;

GST_START_TEST (test_quaternion_unit)
{
  const guint n = 300, dof = 5;
  GstHarness *h = joint_harness_new ("dof", dof, "quaternion", TRUE,
      "seed", 11, "num-buffers", n, NULL);
  Sample *s;

  gst_harness_play (h);
  s = pull_samples (h, n, dof + 4, FALSE);
  for (guint i = 0; i < n; i++) {
    const gdouble *q = s[i].values + dof;
    gdouble norm = sqrt (q[0] * q[0] + q[1] * q[1] + q[2] * q[2] +
        q[3] * q[3]);

    fail_unless (fabs (norm - 1.0) < 1e-5, "sample %u: |q| = %.9f", i,
        norm);
    /* Smooth: a small turn from one sample to the next. */
    if (i > 0) {
      const gdouble *p = s[i - 1].values + dof;
      gdouble dot = p[0] * q[0] + p[1] * q[1] + p[2] * q[2] + p[3] * q[3];
      fail_unless (fabs (dot) > 0.999, "sample %u: dot %f", i, dot);
    }
  }
  /* It does turn. */
  fail_unless (fabs (s[0].values[dof + 3] - s[n - 1].values[dof + 3]) > 1e-3);
  g_free (s);
  gst_harness_teardown (h);
}

GST_END_TEST;

GST_START_TEST (test_values_smooth)
{
  const guint n = 200;
  GstHarness *h = joint_harness_new ("seed", 5, "num-buffers", n, NULL);
  Sample *s;

  gst_harness_play (h);
  s = pull_samples (h, n, 7, FALSE);
  for (guint i = 0; i < n; i++) {
    for (guint j = 0; j < 7; j++) {
      fail_unless (isfinite (s[i].values[j]));
      fail_unless (fabs (s[i].values[j]) <= 2.5 + 1e-6);
      /* At most 2 pi * 1.5 rad * 2 Hz per second, over 1.2 periods. */
      if (i > 0)
        fail_unless (fabs (s[i].values[j] - s[i - 1].values[j]) < 0.3);
    }
  }
  /* Joints move differently. */
  fail_unless (s[0].values[0] != s[0].values[1]);
  g_free (s);
  gst_harness_teardown (h);
}

GST_END_TEST;

/* The raw output of @n buffers with these settings: bytes and timestamps. */
static GBytes *
output_with_seed (guint seed, guint n, gboolean quaternion)
{
  GstHarness *h = joint_harness_new ("seed", seed, "quaternion", quaternion,
      "jitter", 0.3, "dropout", 0.2, "num-buffers", n, NULL);
  GByteArray *all = g_byte_array_new ();

  gst_harness_play (h);
  for (guint i = 0; i < n; i++) {
    GstBuffer *buf = gst_harness_pull (h);
    GstClockTime pts = GST_BUFFER_PTS (buf);
    GstMapInfo map;

    g_byte_array_append (all, (const guint8 *) &pts, sizeof (pts));
    fail_unless (gst_buffer_map (buf, &map, GST_MAP_READ));
    g_byte_array_append (all, map.data, map.size);
    gst_buffer_unmap (buf, &map);
    gst_buffer_unref (buf);
  }
  gst_harness_teardown (h);
  return g_byte_array_free_to_bytes (all);
}

GST_START_TEST (test_seed_deterministic)
{
  GRand *rand = test_rand_new ();
  guint seed = g_rand_int (rand);

  for (gint quaternion = 0; quaternion <= 1; quaternion++) {
    GBytes *a = output_with_seed (seed, 100, quaternion);
    GBytes *b = output_with_seed (seed, 100, quaternion);
    GBytes *c = output_with_seed (seed + 1, 100, quaternion);

    fail_unless (g_bytes_equal (a, b), "same seed, different output");
    fail_if (g_bytes_equal (a, c), "another seed, same output");
    g_bytes_unref (a);
    g_bytes_unref (b);
    g_bytes_unref (c);
  }
  g_rand_free (rand);
}

GST_END_TEST;

GST_START_TEST (test_float64)
{
  const guint n = 50;
  GstHarness *h64 = joint_harness_new ("quaternion", TRUE,
      "seed", 3, "num-buffers", n, NULL);
  GstHarness *h32 = joint_harness_new ("quaternion", TRUE, "seed", 3,
      "num-buffers", n, NULL);
  GstCaps *caps;
  GstStructure *st;
  Sample *s64, *s32;
  gint channels = 0;

  gst_util_set_object_arg (G_OBJECT (h64->element), "format", "float64");
  gst_harness_play (h64);
  gst_harness_play (h32);
  s64 = pull_samples (h64, n, 11, TRUE);
  s32 = pull_samples (h32, n, 11, FALSE);

  st = current_caps_structure (h64, &caps);
  fail_unless_equals_string (gst_structure_get_string (st, "format"),
      "float64");
  fail_unless (gst_structure_get_int (st, "channels", &channels));
  fail_unless_equals_int (channels, 11);
  gst_caps_unref (caps);

  /* The same samples, at two precisions. */
  for (guint i = 0; i < n; i++) {
    fail_unless_equals_clocktime (s64[i].pts, s32[i].pts);
    for (guint c = 0; c < 11; c++)
      fail_unless_equals_float ((gfloat) s64[i].values[c], s32[i].values[c]);
  }
  g_free (s64);
  g_free (s32);
  gst_harness_teardown (h64);
  gst_harness_teardown (h32);
}

GST_END_TEST;

GST_START_TEST (test_live)
{
  GstHarness *h = joint_harness_new ("is-live", TRUE, "rate", 1000, 1,
      "jitter", 0.2, "num-buffers", 3, NULL);
  GstClockTime pts0 = GST_CLOCK_TIME_NONE;
  GstQuery *query;
  gboolean live = FALSE;
  GstClockTime min = 0, max = 0;
  Sample *s;

  gst_harness_use_systemclock (h);
  gst_harness_play (h);
  s = pull_samples (h, 3, 7, FALSE);
  /* Live, the base class moves all timestamps by the running time of the
   * first sample: compare the jittered times relative to it. */
  pts0 = s[0].pts;
  for (guint i = 1; i < 3; i++) {
    gdouble step = (gdouble) (s[i].pts - pts0);
    fail_unless (s[i].pts > s[i - 1].pts);
    fail_unless (fabs (step - i * 1e6) <= 0.4 * 1e6, "step %f", step);
  }
  g_free (s);

  query = gst_query_new_latency ();
  fail_unless (gst_pad_peer_query (h->sinkpad, query));
  gst_query_parse_latency (query, &live, &min, &max);
  fail_unless (live);
  fail_unless_equals_clocktime (min, GST_MSECOND);
  gst_query_unref (query);
  gst_harness_teardown (h);
}

GST_END_TEST;

GST_START_TEST (test_pipeline_eos)
{
  fail_unless (run_pipeline ("robocachejointsrc num-buffers=20 ! fakesink"));
  fail_unless (run_pipeline ("robocachejointsrc num-buffers=20 dof=12 "
          "quaternion=true format=float64 dropout=0.3 jitter=0.49 ! "
          GST_ROBOCACHE_VECTORS_MEDIA_TYPE ",format=float64,channels=16 ! "
          "fakesink"));
}

GST_END_TEST;

GST_START_TEST (test_wrong_caps_n)
{
  GError *error = NULL;
  GstElement *pipeline;

  /* Downstream wants float64, the source makes float32: the link is
   * refused... */
  pipeline = gst_parse_launch ("robocachejointsrc num-buffers=1 ! "
      GST_ROBOCACHE_VECTORS_MEDIA_TYPE ",format=float64 ! fakesink", &error);
  fail_unless (g_error_matches (error, GST_PARSE_ERROR, GST_PARSE_ERROR_LINK),
      "%s", error ? error->message : "no error");
  g_clear_error (&error);
  gst_clear_object (&pipeline);

  /* ... and, when the channels change after linking, negotiation fails
   * with an error. */
  pipeline = gst_parse_launch ("robocachejointsrc name=src num-buffers=1 "
      "dof=4 ! " GST_ROBOCACHE_VECTORS_MEDIA_TYPE ",channels=4 ! fakesink",
      &error);
  fail_unless (error == NULL);
  {
    GstElement *src = gst_bin_get_by_name (GST_BIN (pipeline), "src");
    g_object_set (src, "quaternion", TRUE, NULL);
    gst_object_unref (src);
  }
  fail_if (play_to_end (pipeline));
}

GST_END_TEST;

static Suite *
jointsrc_suite (void)
{
  Suite *s = suite_create ("robocachejointsrc");
  TCase *tc = tcase_create ("general");

  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_caps);
  tcase_add_test (tc, test_latency_before_caps);
  tcase_add_test (tc, test_timestamps);
  tcase_add_test (tc, test_properties_refused_while_playing);
  tcase_add_test (tc, test_dropout);
  tcase_add_test (tc, test_quaternion_unit);
  tcase_add_test (tc, test_values_smooth);
  tcase_add_test (tc, test_seed_deterministic);
  tcase_add_test (tc, test_float64);
  tcase_add_test (tc, test_live);
  tcase_add_test (tc, test_pipeline_eos);
  tcase_add_test (tc, test_wrong_caps_n);
  return s;
}

GST_CHECK_MAIN (jointsrc);
