/* robocachelidarsrc: caps, buffer sizes, timestamps, determinism, plausible
 * values, EOS and live mode. */
#include <gst/check/gstcheck.h>
#include <gst/check/gstharness.h>
#include <math.h>
#include <string.h>

#include "elementutil.h"
#include "gstrobocachecaps.h"
#include "testutil.h"

#define FIELDS_EXTENDED \
    "x:float32:0,y:float32:4,z:float32:8,intensity:float32:12," \
    "ring:uint16:16,time:float32:20"

/* A harness around a robocachelidarsrc with the given properties set
 * (NULL-terminated name/value list, as g_object_set). */
static GstHarness *
lidar_harness_new (const gchar * first_property, ...)
{
  GstHarness *h = gst_harness_new ("robocachelidarsrc");
  va_list args;

  if (first_property) {
    va_start (args, first_property);
    g_object_set_valist (G_OBJECT (h->element), first_property, args);
    va_end (args);
  }
  return h;
}

static gfloat
read_float (const guint8 * p)
{
  gfloat v;

  memcpy (&v, p, sizeof (v));
  return v;
}

/* Checks the negotiated caps: point-step and fields. */
static void
check_caps (GstHarness * h, gint point_step, const gchar * fields)
{
  GstCaps *caps = gst_pad_get_current_caps (h->sinkpad);
  GstStructure *s;
  gint step = 0;

  fail_unless (caps != NULL);
  fail_unless (gst_caps_is_fixed (caps));
  s = gst_caps_get_structure (caps, 0);
  fail_unless (gst_structure_has_name (s, GST_ROBOCACHE_POINTS_MEDIA_TYPE));
  fail_unless (gst_structure_get_int (s, "point-step", &step));
  fail_unless_equals_int (step, point_step);
  fail_unless_equals_string (gst_structure_get_string (s, "fields"), fields);
  /* System memory: no caps feature. */
  fail_unless (gst_caps_features_is_equal (gst_caps_get_features (caps, 0),
          GST_CAPS_FEATURES_MEMORY_SYSTEM_MEMORY));
  /* Within the template. */
  {
    GstCaps *templ = gst_caps_from_string (GST_ROBOCACHE_POINTS_CAPS);
    fail_unless (gst_caps_is_subset (caps, templ));
    gst_caps_unref (templ);
  }
  gst_caps_unref (caps);
}

GST_START_TEST (test_latency_before_caps)
{
  check_latency_before_caps ("robocachelidarsrc");
}

GST_END_TEST;

GST_START_TEST (test_caps_default)
{
  GstHarness *h = lidar_harness_new ("points-per-sweep", 1000,
      "num-buffers", 1, NULL);
  GstBuffer *buf;

  gst_harness_play (h);
  buf = gst_harness_pull (h);
  fail_unless (buf != NULL);
  check_caps (h, 16, GST_ROBOCACHE_FIELDS_XYZI);
  fail_unless_equals_int (gst_buffer_get_size (buf), 1000 * 16);
  gst_buffer_unref (buf);
  gst_harness_teardown (h);
}

GST_END_TEST;

GST_START_TEST (test_caps_extended)
{
  /* 1000 is not a multiple of the 16 rings: the last column is short. */
  GstHarness *h = lidar_harness_new ("points-per-sweep", 1000,
      "rings", 16, "extended-fields", TRUE, "rate", 20, 1,
      "num-buffers", 2, NULL);
  GstBuffer *buf;
  GstMapInfo map;
  guint max_ring = 0;

  gst_harness_play (h);
  buf = gst_harness_pull (h);
  check_caps (h, 32, FIELDS_EXTENDED);
  fail_unless_equals_int (gst_buffer_get_size (buf), 1000 * 32);

  fail_unless (gst_buffer_map (buf, &map, GST_MAP_READ));
  for (guint i = 0; i < 1000; i++) {
    const guint8 *p = map.data + i * 32;
    guint16 ring;
    gfloat t = read_float (p + 20);

    memcpy (&ring, p + 16, sizeof (ring));
    /* Column after column, ring 0 first. */
    fail_unless_equals_int (ring, i % 16);
    max_ring = MAX (max_ring, ring);
    /* The time within the 50 ms sweep, growing along the sweep. */
    fail_unless (t >= 0.0f && t < 0.05f, "time %f", t);
    if (i >= 16)
      fail_unless (t > read_float (p - 16 * 32 + 20));
    /* Padding is zero, so that equal seeds give equal bytes. */
    fail_unless (p[18] == 0 && p[19] == 0);
    for (guint k = 24; k < 32; k++)
      fail_unless (p[k] == 0);
  }
  fail_unless_equals_int (max_ring, 15);
  gst_buffer_unmap (buf, &map);
  gst_buffer_unref (buf);
  gst_harness_teardown (h);
}

GST_END_TEST;

static void
check_timestamps (gint rate_n, gint rate_d, guint n_buffers)
{
  GstHarness *h = lidar_harness_new ("points-per-sweep", 64,
      "rate", rate_n, rate_d, "num-buffers", n_buffers, NULL);

  gst_harness_play (h);
  for (guint i = 0; i < n_buffers; i++) {
    GstBuffer *buf = gst_harness_pull (h);
    GstClockTime pts = gst_util_uint64_scale (i, GST_SECOND * rate_d, rate_n);
    GstClockTime next = gst_util_uint64_scale (i + 1, GST_SECOND * rate_d,
        rate_n);

    fail_unless_equals_clocktime (GST_BUFFER_PTS (buf), pts);
    fail_unless_equals_clocktime (GST_BUFFER_DURATION (buf), next - pts);
    fail_unless_equals_uint64 (GST_BUFFER_OFFSET (buf), i);
    fail_unless_equals_uint64 (GST_BUFFER_OFFSET_END (buf), i + 1);
    gst_buffer_unref (buf);
  }
  gst_harness_teardown (h);
}

GST_START_TEST (test_timestamps_rate_20)
{
  GstHarness *h = lidar_harness_new ("points-per-sweep", 64,
      "rate", 20, 1, "num-buffers", 10, NULL);

  gst_harness_play (h);
  for (guint i = 0; i < 10; i++) {
    GstBuffer *buf = gst_harness_pull (h);

    fail_unless_equals_clocktime (GST_BUFFER_PTS (buf), i * 50 * GST_MSECOND);
    fail_unless_equals_clocktime (GST_BUFFER_DURATION (buf),
        50 * GST_MSECOND);
    gst_buffer_unref (buf);
  }
  gst_harness_teardown (h);

  /* Rates that do not divide a second: exact, drift-free times. */
  check_timestamps (3, 1, 10);
  check_timestamps (1000, 7, 10);
}

GST_END_TEST;

/* The first @n sweeps with @seed, concatenated. */
static GBytes *
sweeps_with_seed (guint seed, guint n, gboolean extended)
{
  GstHarness *h = lidar_harness_new ("points-per-sweep", 4096,
      "rings", 32, "seed", seed, "extended-fields", extended,
      "num-buffers", n, NULL);
  GByteArray *all = g_byte_array_new ();

  gst_harness_play (h);
  for (guint i = 0; i < n; i++) {
    GstBuffer *buf = gst_harness_pull (h);
    GstMapInfo map;

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

  for (gint extended = 0; extended <= 1; extended++) {
    GBytes *a = sweeps_with_seed (seed, 3, extended);
    GBytes *b = sweeps_with_seed (seed, 3, extended);
    GBytes *c = sweeps_with_seed (seed + 1, 3, extended);
    gsize sweep = 4096 * (extended ? 32 : 16), size;
    const guint8 *data = g_bytes_get_data (a, &size);

    fail_unless_equals_int (size, 3 * sweep);
    fail_unless (g_bytes_equal (a, b), "same seed, different output");
    fail_if (g_bytes_equal (a, c), "another seed, same output");
    /* Successive sweeps differ (noise, and the moving car). */
    fail_if (memcmp (data, data + sweep, sweep) == 0);
    g_bytes_unref (a);
    g_bytes_unref (b);
    g_bytes_unref (c);
  }
  g_rand_free (rand);
}

GST_END_TEST;

GST_START_TEST (test_values_plausible)
{
  /* The default sweep: 131072 points, 64 rings. */
  GstHarness *h = lidar_harness_new ("num-buffers", 1, NULL);
  GstBuffer *buf;
  GstMapInfo map;
  guint n, n_nan = 0, n_ground = 0, n_above = 0;

  gst_harness_play (h);
  buf = gst_harness_pull (h);
  n = gst_buffer_get_size (buf) / 16;
  fail_unless_equals_int (n, 131072);
  fail_unless (gst_buffer_map (buf, &map, GST_MAP_READ));
  for (guint i = 0; i < n; i++) {
    const guint8 *p = map.data + i * 16;
    gfloat x = read_float (p), y = read_float (p + 4), z = read_float (p + 8);
    gfloat intensity = read_float (p + 12);
    gdouble range;

    if (isnan (x)) {
      /* A missing return: all of x, y and z are NaN. */
      fail_unless (isnan (y) && isnan (z));
      n_nan++;
      continue;
    }
    fail_unless (isfinite (x) && isfinite (y) && isfinite (z));
    range = sqrt ((gdouble) x * x + (gdouble) y * y + (gdouble) z * z);
    fail_unless (range > 0.5 && range <= 100.0, "range %f", range);
    fail_unless (intensity >= 0.0f && intensity <= 1.0f);
    /* Nothing below the ground (z = -1.7) beyond the noise. */
    fail_unless (z > -1.7f - 0.2f, "z %f", z);
    if (fabsf (z + 1.7f) < 0.1f)
      n_ground++;
    else if (z > 0.0f)
      n_above++;
  }
  gst_buffer_unmap (buf, &map);
  gst_buffer_unref (buf);
  gst_harness_teardown (h);

  GST_INFO ("%u of %u NaN, %u on the ground, %u above the sensor", n_nan, n,
      n_ground, n_above);
  /* Some NaN (sky, beyond range, lost returns), not most. */
  fail_unless (n_nan > n / 100, "only %u NaN of %u", n_nan, n);
  fail_unless (n_nan < n / 2, "%u NaN of %u", n_nan, n);
  /* Mostly ground, and some boxes higher than the sensor. */
  fail_unless (n_ground > n / 2);
  fail_unless (n_above > 0);
}

GST_END_TEST;

GST_START_TEST (test_num_buffers_eos)
{
  GstHarness *h = lidar_harness_new ("points-per-sweep", 100,
      "num-buffers", 3, NULL);
  GstEvent *event;
  gboolean eos = FALSE;

  gst_harness_play (h);
  for (gint i = 0; i < 3; i++)
    gst_buffer_unref (gst_harness_pull (h));
  while (!eos && (event = gst_harness_pull_event (h))) {
    eos = GST_EVENT_TYPE (event) == GST_EVENT_EOS;
    gst_event_unref (event);
  }
  fail_unless (eos);
  fail_unless_equals_int (gst_harness_buffers_received (h), 3);
  gst_harness_teardown (h);
}

GST_END_TEST;

GST_START_TEST (test_restart_renegotiates)
{
  GstHarness *h = lidar_harness_new ("points-per-sweep", 100,
      "num-buffers", 1, NULL);
  GstBuffer *buf;

  gst_harness_play (h);
  buf = gst_harness_pull (h);
  fail_unless_equals_int (gst_buffer_get_size (buf), 100 * 16);
  gst_buffer_unref (buf);

  fail_unless_equals_int (gst_element_set_state (h->element,
          GST_STATE_READY), GST_STATE_CHANGE_SUCCESS);
  g_object_set (h->element, "extended-fields", TRUE, "points-per-sweep", 50,
      NULL);
  gst_harness_play (h);
  buf = gst_harness_pull (h);
  fail_unless_equals_int (gst_buffer_get_size (buf), 50 * 32);
  /* Times start again from 0. */
  fail_unless_equals_clocktime (GST_BUFFER_PTS (buf), 0);
  check_caps (h, 32, FIELDS_EXTENDED);
  gst_buffer_unref (buf);
  gst_harness_teardown (h);
}

GST_END_TEST;

/* points-per-sweep (the source's own) and seed (the base's) are read when
 * caps are set: set while playing they are refused with a warning, and
 * the sweeps keep their size; set in READY they are taken at the next
 * start. */
GST_START_TEST (test_properties_refused_while_playing)
{
  GstHarness *h = lidar_harness_new ("points-per-sweep", 100,
      "num-buffers", 2, NULL);
  GstBuffer *buf;

  gst_harness_play (h);
  gst_buffer_unref (gst_harness_pull (h));
  check_set_refused (G_OBJECT (h->element), "points-per-sweep", "50");
  check_set_refused (G_OBJECT (h->element), "seed", "7");
  buf = gst_harness_pull (h);
  fail_unless_equals_int (gst_buffer_get_size (buf), 100 * 16);
  gst_buffer_unref (buf);

  check_set_taken_stopped (h->element, G_OBJECT (h->element),
      "points-per-sweep", "50");
  check_set_taken (G_OBJECT (h->element), "seed", "7");
  gst_harness_play (h);
  buf = gst_harness_pull (h);
  fail_unless_equals_int (gst_buffer_get_size (buf), 50 * 16);
  gst_buffer_unref (buf);
  gst_harness_teardown (h);
}

GST_END_TEST;

/* Answers the allocation query with a plain pool of too small buffers. */
static GstPadProbeReturn
offer_small_pool (GstPad * pad, GstPadProbeInfo * info, gpointer user_data)
{
  GstQuery *query = GST_PAD_PROBE_INFO_QUERY (info);
  GstBufferPool *pool;

  if (GST_QUERY_TYPE (query) != GST_QUERY_ALLOCATION)
    return GST_PAD_PROBE_OK;
  pool = gst_buffer_pool_new ();
  gst_query_add_allocation_pool (query, pool, 64, 2, 0);
  gst_object_unref (pool);
  return GST_PAD_PROBE_HANDLED;
}

GST_START_TEST (test_downstream_pool)
{
  GstHarness *h = lidar_harness_new ("points-per-sweep", 1000,
      "num-buffers", 3, NULL);
  GstPad *srcpad = gst_element_get_static_pad (h->element, "src");

  gst_pad_add_probe (srcpad, GST_PAD_PROBE_TYPE_QUERY_DOWNSTREAM,
      offer_small_pool, NULL, NULL);
  gst_object_unref (srcpad);
  gst_harness_play (h);
  for (guint i = 0; i < 3; i++) {
    GstBuffer *buf = gst_harness_pull (h);

    /* The pool was resized to hold a sweep. */
    fail_unless (buf->pool != NULL);
    fail_unless_equals_int (gst_buffer_get_size (buf), 1000 * 16);
    gst_buffer_unref (buf);
  }
  gst_harness_teardown (h);
}

GST_END_TEST;

GST_START_TEST (test_live)
{
  GstHarness *h = lidar_harness_new ("points-per-sweep", 256,
      "is-live", TRUE, "rate", 200, 1, "num-buffers", 3, NULL);
  GstQuery *query;
  gboolean live = FALSE;
  GstClockTime min = 0, max = 0;
  GstClockTime pts0 = GST_CLOCK_TIME_NONE;
  gint64 t0, elapsed;

  gst_harness_use_systemclock (h);
  t0 = g_get_monotonic_time ();
  gst_harness_play (h);
  for (guint i = 0; i < 3; i++) {
    GstBuffer *buf = gst_harness_pull (h);

    /* Live, the base class moves all timestamps by the running time of the
     * first sweep; the spacing stays exact. */
    if (i == 0)
      pts0 = GST_BUFFER_PTS (buf);
    fail_unless_equals_clocktime (GST_BUFFER_PTS (buf) - pts0,
        i * 5 * GST_MSECOND);
    fail_unless_equals_clocktime (GST_BUFFER_DURATION (buf), 5 * GST_MSECOND);
    gst_buffer_unref (buf);
  }
  elapsed = g_get_monotonic_time () - t0;
  /* The third sweep waited for the clock to reach 10 ms. */
  fail_unless (elapsed >= 9000, "3 live sweeps in %" G_GINT64_FORMAT " us",
      elapsed);

  query = gst_query_new_latency ();
  fail_unless (gst_pad_peer_query (h->sinkpad, query));
  gst_query_parse_latency (query, &live, &min, &max);
  fail_unless (live);
  fail_unless_equals_clocktime (min, 5 * GST_MSECOND);
  gst_query_unref (query);
  gst_harness_teardown (h);
}

GST_END_TEST;

GST_START_TEST (test_pipeline_eos)
{
  fail_unless (run_pipeline ("robocachelidarsrc num-buffers=5 ! fakesink"));
  fail_unless (run_pipeline ("robocachelidarsrc num-buffers=5 "
          "extended-fields=true points-per-sweep=1000 rings=1 ! fakesink"));
}

GST_END_TEST;

GST_START_TEST (test_wrong_caps_n)
{
  GError *error = NULL;
  GstElement *pipeline;

  /* Downstream wants 32-byte points, the source makes 16-byte ones: the
   * link is refused... */
  pipeline = gst_parse_launch ("robocachelidarsrc num-buffers=1 ! "
      GST_ROBOCACHE_POINTS_MEDIA_TYPE ",point-step=32 ! fakesink", &error);
  fail_unless (g_error_matches (error, GST_PARSE_ERROR, GST_PARSE_ERROR_LINK),
      "%s", error ? error->message : "no error");
  g_clear_error (&error);
  gst_clear_object (&pipeline);

  /* ... and, when the layout changes after linking, negotiation fails
   * with an error. */
  pipeline = gst_parse_launch ("robocachelidarsrc name=src num-buffers=1 "
      "extended-fields=true ! " GST_ROBOCACHE_POINTS_MEDIA_TYPE
      ",point-step=32 ! fakesink", &error);
  fail_unless (error == NULL);
  {
    GstElement *src = gst_bin_get_by_name (GST_BIN (pipeline), "src");
    g_object_set (src, "extended-fields", FALSE, NULL);
    gst_object_unref (src);
  }
  fail_if (play_to_end (pipeline));
}

GST_END_TEST;

static Suite *
lidarsrc_suite (void)
{
  Suite *s = suite_create ("robocachelidarsrc");
  TCase *tc = tcase_create ("general");

  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_caps_default);
  tcase_add_test (tc, test_latency_before_caps);
  tcase_add_test (tc, test_caps_extended);
  tcase_add_test (tc, test_timestamps_rate_20);
  tcase_add_test (tc, test_seed_deterministic);
  tcase_add_test (tc, test_values_plausible);
  tcase_add_test (tc, test_num_buffers_eos);
  tcase_add_test (tc, test_restart_renegotiates);
  tcase_add_test (tc, test_properties_refused_while_playing);
  tcase_add_test (tc, test_downstream_pool);
  tcase_add_test (tc, test_live);
  tcase_add_test (tc, test_pipeline_eos);
  tcase_add_test (tc, test_wrong_caps_n);
  return s;
}

GST_CHECK_MAIN (lidarsrc);
