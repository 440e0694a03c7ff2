/* robocacheresample: the grid, every method, quaternions, gaps, chunks,
 * latency, every bad input, and the GPU against the CPU byte for byte. */
#include <gst/check/gstcheck.h>
#include <gst/check/gstharness.h>
#include <math.h>

#include "elementutil.h"
#include "gstrobocachegpu.h"
#include "testutil.h"
#include "values.h"

#define MS GST_MSECOND

#define VECTORS(channels, format, extra) \
    GST_ROBOCACHE_VECTORS_MEDIA_TYPE ", channels=(int)" #channels \
    ", format=(string)" format ", layout=(string)sample" extra

/* robocacheresample @props fed @caps, with @sink_caps (if not NULL) what
 * downstream takes, set first so that the first negotiation sees them. */
static GstHarness *
resample_harness_to (const gchar * props, const gchar * caps,
    const gchar * sink_caps)
{
  gchar *desc = g_strdup_printf ("robocacheresample %s", props);
  GstHarness *h = gst_harness_new_parse (desc);

  g_free (desc);
  if (sink_caps)
    gst_harness_set_sink_caps_str (h, sink_caps);
  gst_harness_set_src_caps_str (h, caps);
  return h;
}

static GstHarness *
resample_harness (const gchar * props, const gchar * caps)
{
  return resample_harness_to (props, caps, NULL);
}

/* Fails unless the output's caps are in CUDA memory as @cuda says. */
static void
check_output_memory (GstHarness * h, gboolean cuda)
{
  GstCaps *caps = gst_pad_get_current_caps (h->sinkpad);

  fail_unless (caps != NULL);
  fail_unless_equals_int (gst_caps_features_contains (gst_caps_get_features
          (caps, 0), GST_ROBOCACHE_CAPS_FEATURE_CUDA), cuda);
  gst_caps_unref (caps);
}

/* The element inside a parsed harness (whose h->element is a bin). */
static GstElement *
resample_of (GstHarness * h)
{
  GstElement *e = gst_harness_find_element (h, "robocacheresample");

  fail_unless (e != NULL);
  gst_object_unref (e);         /* the harness keeps it alive */
  return e;
}

static guint64
stat_of (GstElement * e, const gchar * name)
{
  GstStructure *stats = NULL;
  guint64 v = G_MAXUINT64;

  g_object_get (e, "stats", &stats, NULL);
  fail_unless (gst_structure_get_uint64 (stats, name, &v), "no %s", name);
  gst_structure_free (stats);
  return v;
}

static GstBuffer *
f32_sample (const float *v, guint n, GstClockTime pts)
{
  GstBuffer *buf = gst_buffer_new_memdup (v, n * sizeof (float));

  GST_BUFFER_PTS (buf) = pts;
  return buf;
}

static GstBuffer *
f64_sample (const double *v, guint n, GstClockTime pts)
{
  GstBuffer *buf = gst_buffer_new_memdup (v, n * sizeof (double));

  GST_BUFFER_PTS (buf) = pts;
  return buf;
}

static void
push_f64 (GstHarness * h, GstClockTime pts, double v)
{
  fail_unless_equals_int (gst_harness_push (h, f64_sample (&v, 1, pts)),
      GST_FLOW_OK);
}

static void
push_eos (GstHarness * h)
{
  fail_unless (gst_harness_push_event (h, gst_event_new_eos ()));
}

/* Pulls the next output, checks its time and returns its first values. */
static void
pull_f64 (GstHarness * h, GstClockTime pts, double *v, guint n)
{
  GstBuffer *buf = gst_harness_try_pull (h);

  fail_unless (buf != NULL, "no output for %" GST_TIME_FORMAT,
      GST_TIME_ARGS (pts));
  fail_unless_equals_uint64 (GST_BUFFER_PTS (buf), pts);
  fail_unless_equals_int (gst_buffer_extract (buf, 0, v, n * sizeof (double)),
      n * sizeof (double));
  gst_buffer_unref (buf);
}

/* 1 s of a 333 Hz stream with up to +-1 ms of jitter, the first sample at
 * 0 and the last at exactly 1 s. */
#define JITTER_SAMPLES 334

static GstClockTime
jittered_time (guint i)
{
  if (i == 0)
    return 0;
  if (i == JITTER_SAMPLES - 1)
    return GST_SECOND;
  return i * G_GUINT64_CONSTANT (3003003) + ((i * 7919) % 2001) * 1000 -
      1000 * 1000;
}

static double
line (double t, guint c)
{
  return c == 0 ? 2.0 + 3.0 * t : -1.0 + 0.5 * t;
}

/* The case: linear interpolation of a linear function is exact,
 * on a drift-free grid from the first to the last sample. */
GST_START_TEST (test_jittered_333hz_to_100hz)
{
  GstHarness *h = resample_harness ("backend=cpu rate=100",
      VECTORS (2, "float32", ""));
  GstElement *e = resample_of (h);

  for (guint i = 0; i < JITTER_SAMPLES; i++) {
    GstClockTime t = jittered_time (i);
    float v[2] = { line (t / 1e9, 0), line (t / 1e9, 1) };

    fail_unless (i == 0 || t > jittered_time (i - 1));
    fail_unless_equals_int (gst_harness_push (h, f32_sample (v, 2, t)),
        GST_FLOW_OK);
  }
  push_eos (h);

  fail_unless_equals_int (gst_harness_buffers_received (h), 101);
  for (guint k = 0; k <= 100; k++) {
    GstBuffer *buf = gst_harness_pull (h);
    float v[2];

    fail_unless_equals_uint64 (GST_BUFFER_PTS (buf), k * 10 * MS);
    fail_unless_equals_uint64 (GST_BUFFER_DURATION (buf), 10 * MS);
    fail_unless_equals_int (gst_buffer_extract (buf, 0, v, sizeof (v)),
        sizeof (v));
    for (guint c = 0; c < 2; c++)
      fail_unless (fabs (v[c] - line (k / 100.0, c)) < 1e-5,
          "output %u channel %u: %.9g, expected %.9g", k, c, v[c],
          line (k / 100.0, c));
    gst_buffer_unref (buf);
  }
  fail_unless_equals_uint64 (stat_of (e, "inputs"), JITTER_SAMPLES);
  fail_unless_equals_uint64 (stat_of (e, "outputs"), 101);
  fail_unless_equals_uint64 (stat_of (e, "gaps"), 0);
  gst_harness_teardown (h);
}

GST_END_TEST;

/* Samples at 0, 6, 12 and 20 ms onto 0, 10, 20 ms: the 10 ms output tells
 * the methods apart. */
GST_START_TEST (test_methods_by_hand)
{
  static const struct
  {
    const gchar *method;
    double at10;
  } cases[] = {
    {"previous", 2.0},
    {"nearest", 3.0},
    {"linear", 2.0 + 4.0 / 6.0},
  };

  for (guint c = 0; c < G_N_ELEMENTS (cases); c++) {
    gchar *props = g_strdup_printf ("backend=cpu rate=100 method=%s",
        cases[c].method);
    GstHarness *h = resample_harness (props, VECTORS (1, "float64", ""));
    double v;

    push_f64 (h, 0, 1.0);
    push_f64 (h, 6 * MS, 2.0);
    push_f64 (h, 12 * MS, 3.0);
    push_f64 (h, 20 * MS, 4.0);
    push_eos (h);
    fail_unless_equals_int (gst_harness_buffers_received (h), 3);
    pull_f64 (h, 0, &v, 1);
    fail_unless_equals_float (v, 1.0);
    pull_f64 (h, 10 * MS, &v, 1);
    fail_unless (fabs (v - cases[c].at10) < 1e-12, "%s: %g, expected %g",
        cases[c].method, v, cases[c].at10);
    pull_f64 (h, 20 * MS, &v, 1);
    fail_unless_equals_float (v, 4.0);
    gst_harness_teardown (h);
    g_free (props);
  }
}

GST_END_TEST;

/* Cubic waits for one more sample, reproduces a straight line exactly and
 * still ends at the last sample. */
GST_START_TEST (test_cubic)
{
  GstHarness *h = resample_harness ("backend=cpu rate=100 method=cubic",
      VECTORS (1, "float64", ""));
  double v;

  push_f64 (h, 0, 0.0);
  push_f64 (h, 7 * MS, 0.7);
  fail_unless_equals_int (gst_harness_buffers_received (h), 1);
  push_f64 (h, 15 * MS, 1.5);
  /* 10 ms lies between 7 and 15 ms: it waits for the sample after 15. */
  fail_unless_equals_int (gst_harness_buffers_received (h), 1);
  push_f64 (h, 26 * MS, 2.6);
  fail_unless_equals_int (gst_harness_buffers_received (h), 2);
  push_eos (h);
  fail_unless_equals_int (gst_harness_buffers_received (h), 3);
  for (guint k = 0; k < 3; k++) {
    pull_f64 (h, k * 10 * MS, &v, 1);
    fail_unless (fabs (v - k * 1.0) < 1e-9, "%u: %g", k, v);
  }
  gst_harness_teardown (h);
}

GST_END_TEST;

/* Quaternions slerp (not lerp) on the channels the caps name; the other
 * channels stay linear; the output caps keep the groups. */
static void
check_slerp (const gchar * props, const gchar * caps)
{
  GstHarness *h = resample_harness (props, caps);
  double q0[5] = { 0, 0, 0, 1, 0 };
  double q1[5] = { 0, 0, sin (G_PI / 4), cos (G_PI / 4), 4.0 };
  double v[5];
  GstCaps *out;

  fail_unless_equals_int (gst_harness_push (h, f64_sample (q0, 5, 0)),
      GST_FLOW_OK);
  fail_unless_equals_int (gst_harness_push (h, f64_sample (q1, 5, 40 * MS)),
      GST_FLOW_OK);
  fail_unless_equals_int (gst_harness_buffers_received (h), 5);
  pull_f64 (h, 0, v, 5);
  pull_f64 (h, 10 * MS, v, 5);
  /* A quarter of the way along a 90 degree turn about z: 22.5 degrees. */
  fail_unless (fabs (v[0]) < 1e-9 && fabs (v[1]) < 1e-9);
  fail_unless (fabs (v[2] - sin (G_PI / 16)) < 1e-9, "qz %.9f", v[2]);
  fail_unless (fabs (v[3] - cos (G_PI / 16)) < 1e-9, "qw %.9f", v[3]);
  fail_unless (fabs (v[4] - 1.0) < 1e-9);

  out = gst_pad_get_current_caps (h->sinkpad);
  fail_unless_equals_string (gst_structure_get_string
      (gst_caps_get_structure (out, 0), "quaternions"), "0");
  fail_unless_equals_string (gst_structure_get_string
      (gst_caps_get_structure (out, 0), "layout"), "sample");
  gst_caps_unref (out);
  gst_harness_teardown (h);
}

GST_START_TEST (test_slerp_quaternions)
{
  check_slerp ("backend=cpu rate=100",
      VECTORS (5, "float64", ", quaternions=(string)0"));
  /* The property serves when the caps carry no groups. */
  check_slerp ("backend=cpu rate=100 quaternions=0",
      VECTORS (5, "float64", ""));
}

GST_END_TEST;

/* A gap longer than max-gap: a GAP event for the grid times inside it and
 * no buffer there. */
GST_START_TEST (test_gap_event)
{
  GstHarness *h = resample_harness ("backend=cpu rate=100 max-gap=50000000",
      VECTORS (1, "float64", ""));
  GstClockTime ts[] = { 0, 10 * MS, 200 * MS, 210 * MS };
  GstClockTime expect[] = { 0, 10 * MS, 200 * MS, 210 * MS };
  GstEvent *event;
  gboolean gap = FALSE;

  for (guint i = 0; i < G_N_ELEMENTS (ts); i++)
    push_f64 (h, ts[i], ts[i] / 1e9);
  push_eos (h);
  fail_unless_equals_int (gst_harness_buffers_received (h), 4);
  for (guint i = 0; i < G_N_ELEMENTS (expect); i++) {
    double v;
    pull_f64 (h, expect[i], &v, 1);
    fail_unless (fabs (v - expect[i] / 1e9) < 1e-12);
  }
  while ((event = gst_harness_try_pull_event (h))) {
    if (GST_EVENT_TYPE (event) == GST_EVENT_GAP) {
      GstClockTime start, duration;

      gst_event_parse_gap (event, &start, &duration);
      fail_if (gap, "two GAP events");
      fail_unless_equals_uint64 (start, 20 * MS);
      fail_unless_equals_uint64 (duration, 180 * MS);
      gap = TRUE;
    }
    gst_event_unref (event);
  }
  fail_unless (gap, "no GAP event");
  fail_unless_equals_uint64 (stat_of (resample_of (h), "gaps"), 1);
  gst_harness_teardown (h);
}

GST_END_TEST;

/* An upstream GAP (a recording source's, for a topic that fell behind)
 * ending within max-gap of the last sample is no gap: the samples either
 * side are interpolated across as without it. */
GST_START_TEST (test_upstream_gap)
{
  GstHarness *h = resample_harness ("backend=cpu rate=10 max-gap=1000000000",
      VECTORS (1, "float64", ""));

  push_f64 (h, 0, 0.0);
  push_f64 (h, 100 * MS, 0.1);
  fail_unless (gst_harness_push_event (h, gst_event_new_gap (100 * MS,
              500 * MS)));
  push_f64 (h, 900 * MS, 0.9);
  push_eos (h);
  fail_unless_equals_int (gst_harness_buffers_received (h), 10);
  for (guint i = 0; i < 10; i++) {
    double v;

    pull_f64 (h, i * 100 * MS, &v, 1);
    fail_unless (fabs (v - i / 10.0) < 1e-9);
  }
  fail_unless_equals_uint64 (stat_of (resample_of (h), "gaps"), 0);
  gst_harness_teardown (h);
}

GST_END_TEST;

/* time-origin=zero puts the grid on multiples of the period, and produces
 * nothing before the first sample. */
GST_START_TEST (test_time_origin)
{
  GstHarness *h = resample_harness ("backend=cpu rate=100 time-origin=zero",
      VECTORS (1, "float64", ""));
  double v;

  push_f64 (h, 3 * MS, 3.0);
  push_f64 (h, 13 * MS, 13.0);
  push_f64 (h, 23 * MS, 23.0);
  push_eos (h);
  fail_unless_equals_int (gst_harness_buffers_received (h), 2);
  pull_f64 (h, 10 * MS, &v, 1);
  fail_unless (fabs (v - 10.0) < 1e-9);
  pull_f64 (h, 20 * MS, &v, 1);
  fail_unless (fabs (v - 20.0) < 1e-9);
  gst_harness_teardown (h);

  h = resample_harness ("backend=cpu rate=100", VECTORS (1, "float64", ""));
  push_f64 (h, 3 * MS, 3.0);
  push_f64 (h, 13 * MS, 13.0);
  push_eos (h);
  fail_unless_equals_int (gst_harness_buffers_received (h), 2);
  pull_f64 (h, 3 * MS, &v, 1);
  pull_f64 (h, 13 * MS, &v, 1);
  gst_harness_teardown (h);
}

GST_END_TEST;

/* rate and method are read at negotiation: set while playing they are
 * refused with a warning and the grid goes on at the old rate; stopped,
 * the element takes them. */
GST_START_TEST (test_rate_refused_while_playing)
{
  GstHarness *h = resample_harness ("backend=cpu rate=100",
      VECTORS (1, "float64", ""));
  GstElement *e = resample_of (h);
  double v;

  push_f64 (h, 0, 1.0);
  push_f64 (h, 10 * MS, 2.0);
  check_set_refused (G_OBJECT (e), "rate", "50");
  check_set_refused (G_OBJECT (e), "method", "previous");
  push_f64 (h, 15 * MS, 2.5);
  push_f64 (h, 20 * MS, 3.0);
  push_eos (h);
  fail_unless_equals_int (gst_harness_buffers_received (h), 3);
  pull_f64 (h, 0, &v, 1);
  pull_f64 (h, 10 * MS, &v, 1);
  fail_unless_equals_float (v, 2.0);
  pull_f64 (h, 20 * MS, &v, 1);
  fail_unless_equals_float (v, 3.0);
  check_set_taken_stopped (h->element, G_OBJECT (e), "rate", "50");
  check_set_taken (G_OBJECT (e), "method", "previous");
  gst_harness_teardown (h);
}

GST_END_TEST;

/* A DISCONT sample starts afresh: what was owed goes out, nothing is
 * interpolated across, and the grid realigns (time-origin=first-sample). */
GST_START_TEST (test_discont_restarts)
{
  GstHarness *h = resample_harness ("backend=cpu rate=100",
      VECTORS (1, "float64", ""));
  GstBuffer *buf;
  double v = 35.0;

  push_f64 (h, 0, 0.0);
  push_f64 (h, 10 * MS, 10.0);
  buf = f64_sample (&v, 1, 35 * MS);
  GST_BUFFER_FLAG_SET (buf, GST_BUFFER_FLAG_DISCONT);
  fail_unless_equals_int (gst_harness_push (h, buf), GST_FLOW_OK);
  push_f64 (h, 45 * MS, 45.0);
  push_eos (h);
  fail_unless_equals_int (gst_harness_buffers_received (h), 4);
  pull_f64 (h, 0, &v, 1);
  pull_f64 (h, 10 * MS, &v, 1);
  buf = gst_harness_pull (h);
  fail_unless_equals_uint64 (GST_BUFFER_PTS (buf), 35 * MS);
  fail_unless (GST_BUFFER_FLAG_IS_SET (buf, GST_BUFFER_FLAG_DISCONT));
  gst_buffer_unref (buf);
  pull_f64 (h, 45 * MS, &v, 1);
  fail_unless (fabs (v - 45.0) < 1e-12);
  gst_harness_teardown (h);
}

GST_END_TEST;

/* Late and repeated timestamps are dropped, counted, warned about once. */
GST_START_TEST (test_out_of_order_dropped_n)
{
  GstHarness *h = resample_harness ("backend=cpu rate=100",
      VECTORS (1, "float64", ""));
  GstBus *bus = gst_bus_new ();
  GstElement *e = resample_of (h);
  GstMessage *msg;
  double v;

  gst_element_set_bus (h->element, bus);
  push_f64 (h, 0, 0.0);
  push_f64 (h, 10 * MS, 1.0);
  push_f64 (h, 5 * MS, 99.0);
  push_f64 (h, 10 * MS, 99.0);
  push_f64 (h, 20 * MS, 2.0);
  push_eos (h);
  fail_unless_equals_int (gst_harness_buffers_received (h), 3);
  for (guint k = 0; k < 3; k++) {
    pull_f64 (h, k * 10 * MS, &v, 1);
    fail_unless_equals_float (v, k * 1.0);
  }
  fail_unless_equals_uint64 (stat_of (e, "dropped-out-of-order"), 2);
  fail_unless_equals_uint64 (stat_of (e, "inputs"), 3);
  msg = pop_message (bus, GST_MESSAGE_WARNING);
  fail_unless (msg != NULL);
  gst_message_unref (msg);
  msg = pop_message (bus, GST_MESSAGE_WARNING);
  fail_unless (msg == NULL, "warned twice");
  gst_element_set_bus (h->element, NULL);
  gst_object_unref (bus);
  gst_harness_teardown (h);
}

GST_END_TEST;

/* Sets @caps on an element described by @desc, pushes one 8-byte sample,
 * and returns the error text posted (owned by the caller), or NULL. */
static gchar *
error_for (const gchar * desc, const gchar * caps)
{
  GstHarness *h = gst_harness_new_parse (desc);
  GstBus *bus = gst_bus_new ();
  GstMessage *msg;
  GError *err = NULL;
  gchar *text = NULL;
  double v = 1.0;

  gst_element_set_bus (h->element, bus);
  gst_harness_set_src_caps_str (h, caps);
  fail_if (gst_harness_push (h, f64_sample (&v, 1, 0)) == GST_FLOW_OK);
  msg = pop_message (bus, GST_MESSAGE_ERROR);
  if (msg) {
    gst_message_parse_error (msg, &err, NULL);
    text = g_strdup (err->message);
    g_clear_error (&err);
    gst_message_unref (msg);
  }
  gst_element_set_bus (h->element, NULL);
  gst_object_unref (bus);
  gst_harness_teardown (h);
  return text;
}

static void
assert_error (const gchar * desc, const gchar * caps, const gchar * needle)
{
  gchar *text = error_for (desc, caps);

  fail_unless (text != NULL, "no error for %s with %s", desc, caps);
  fail_unless (strstr (text, needle) != NULL, "error \"%s\" lacks \"%s\"",
      text, needle);
  g_free (text);
}

GST_START_TEST (test_bad_caps_n)
{
  const gchar *e = "robocacheresample backend=cpu";

  assert_error (e, VECTORS (0, "float64", ""), "channels must be");
  assert_error (e, VECTORS (1, "float16", ""), "\"float16\" is not");
  assert_error (e, VECTORS (1, "bfloat16", ""), "needs layout chunk");
  assert_error (e, GST_ROBOCACHE_VECTORS_MEDIA_TYPE ", channels=(int)1, "
      "format=(string)float64, layout=(string)planar", "layout \"planar\"");
  assert_error (e, VECTORS (4, "float64", ", quaternions=(string)2"),
      "does not fit");
  assert_error (e, VECTORS (4, "float64", ", angles=(string)0-9"), "not among");
  assert_error (e, VECTORS (4, "float64", ", angles=(string)x"),
      "not a channel");
  /* Empty entries (found by tests/fuzz/fuzz_channel_lists.c: a NULL
   * dereference), in the caps and in the property. */
  assert_error (e, VECTORS (4, "float64", ", angles=(string)\"0,,2\""),
      "\"\" is not a channel");
  assert_error (e, VECTORS (4, "float64", ", angles=(string)\" \""),
      "\"\" is not a channel");
  assert_error ("robocacheresample backend=cpu angles=\"1, ,2\"",
      VECTORS (4, "float64", ""), "\"\" is not a channel");
  assert_error ("robocacheresample backend=cpu quaternions=\"0,\"",
      VECTORS (8, "float64", ""), "\"\" is not a channel index");
  assert_error ("robocacheresample backend=cpu quaternions=0 angles=3",
      VECTORS (4, "float64", ""), "overlap");
}

GST_END_TEST;

/* Exactly one warning on @bus, which is then taken off @h's element. */
static void
assert_warned_once (GstHarness * h, GstBus * bus)
{
  GstMessage *msg = pop_message (bus, GST_MESSAGE_WARNING);

  fail_unless (msg != NULL, "no warning");
  gst_message_unref (msg);
  fail_unless (pop_message (bus, GST_MESSAGE_WARNING) == NULL, "warned twice");
  gst_element_set_bus (h->element, NULL);
  gst_object_unref (bus);
}

/* Sizes from the caps and the properties that would make the element keep
 * more than it accepts are refused at negotiation, with what is accepted,
 * before anything is allocated. */
GST_START_TEST (test_huge_sizes_refused_n)
{
  assert_error ("robocacheresample backend=cpu rate=100",
      GST_ROBOCACHE_VECTORS_MEDIA_TYPE ", channels=(int)4, "
      "format=(string)float32, layout=(string)chunk, "
      "batch=(int)2147483647", "batch 2147483647");
  assert_error ("robocacheresample backend=cpu samples-per-buffer=1048576",
      VECTORS (65535, "float64", ""), "samples-per-buffer 1048576");
}

GST_END_TEST;

/* A buffer whose size does not fit the caps: dropped, counted, warned
 * about once; the stream goes on. */
GST_START_TEST (test_bad_size_dropped_n)
{
  GstHarness *h = resample_harness ("backend=cpu rate=100",
      VECTORS (2, "float32", ""));
  GstBus *bus = gst_bus_new ();
  GstElement *e = resample_of (h);
  GstBuffer *bad;
  float v[2] = { 1, 2 };

  gst_element_set_bus (h->element, bus);
  bad = gst_buffer_new_allocate (NULL, 7, NULL);
  GST_BUFFER_PTS (bad) = 0;
  fail_unless_equals_int (gst_harness_push (h, bad), GST_FLOW_OK);
  bad = gst_buffer_new_allocate (NULL, 12, NULL);
  GST_BUFFER_PTS (bad) = MS;
  fail_unless_equals_int (gst_harness_push (h, bad), GST_FLOW_OK);
  fail_unless_equals_int (gst_harness_push (h, f32_sample (v, 2, 2 * MS)),
      GST_FLOW_OK);
  fail_unless_equals_int (gst_harness_buffers_received (h), 1);
  fail_unless_equals_uint64 (stat_of (e, "dropped-bad-size"), 2);
  assert_warned_once (h, bus);
  gst_harness_teardown (h);

  /* Chunk layout: 16 bytes a sample (timestamp + one float64). */
  h = resample_harness ("backend=cpu rate=100",
      GST_ROBOCACHE_VECTORS_MEDIA_TYPE ", channels=(int)1, "
      "format=(string)float64, layout=(string)chunk, batch=(int)1");
  e = resample_of (h);
  fail_unless_equals_int (gst_harness_push (h, gst_buffer_new_allocate (NULL,
              20, NULL)), GST_FLOW_OK);
  fail_unless_equals_int (gst_harness_push (h, gst_buffer_new ()), GST_FLOW_OK);
  fail_unless_equals_int (gst_harness_buffers_received (h), 0);
  fail_unless_equals_uint64 (stat_of (e, "dropped-bad-size"), 2);
  gst_harness_teardown (h);
}

GST_END_TEST;

GST_START_TEST (test_no_pts_n)
{
  GstHarness *h = resample_harness ("backend=cpu",
      VECTORS (1, "float64", ""));
  double v = 1.0;

  fail_unless_equals_int (gst_harness_push (h, f64_sample (&v, 1,
              GST_CLOCK_TIME_NONE)), GST_FLOW_ERROR);
  gst_harness_teardown (h);
}

GST_END_TEST;

/* Downstream that takes none of the vectors the element makes (a
 * capsfilter wanting chunks after live samples): an error naming what it
 * makes and what downstream takes, worded as the other filters' (it said
 * only that downstream accepts none). */
GST_START_TEST (test_downstream_refuses_n)
{
  gchar *text = launch_error ("robocachejointsrc num-buffers=5 ! "
      "robocacheresample backend=cpu rate=100/1 ! "
      "other/x-robocache-vectors,layout=chunk ! fakesink", FALSE);

  fail_unless (text != NULL);
  fail_unless (strstr (text, "downstream takes nothing") &&
      strstr (text, "layout=(string)sample") &&
      strstr (text, "downstream takes other/x-robocache-vectors, "
          "layout=(string)chunk"), "%s", text);
  g_free (text);
}

GST_END_TEST;

/* Upstream's latency plus the wait for the next sample (max-gap; twice
 * with cubic). */
GST_START_TEST (test_latency)
{
  GstHarness *h = resample_harness ("backend=cpu max-gap=20000000",
      VECTORS (1, "float64", ""));

  gst_harness_set_upstream_latency (h, 5 * MS);
  fail_unless_equals_uint64 (gst_harness_query_latency (h), 25 * MS);
  gst_harness_teardown (h);

  h = resample_harness ("backend=cpu max-gap=20000000 method=cubic",
      VECTORS (1, "float64", ""));
  gst_harness_set_upstream_latency (h, 5 * MS);
  fail_unless_equals_uint64 (gst_harness_query_latency (h), 45 * MS);
  gst_harness_teardown (h);
}

GST_END_TEST;

GST_START_TEST (test_pipeline_from_jointsrc)
{
  GstElement *pipeline = gst_parse_launch ("robocachejointsrc "
      "num-buffers=100 ! robocacheresample name=r rate=50 ! fakesink", NULL);
  GstElement *r = gst_bin_get_by_name (GST_BIN (pipeline), "r");
  GstMessage *msg;
  guint64 outputs;

  msg = run_to_end (pipeline, 60 * GST_SECOND);
  fail_unless (msg == NULL);
  /* 100 samples at 100 Hz span about 1 s: about 50 outputs at 50 Hz. */
  fail_unless_equals_uint64 (stat_of (r, "inputs"), 100);
  outputs = stat_of (r, "outputs");
  fail_unless (outputs >= 48 && outputs <= 51, "%" G_GUINT64_FORMAT
      " outputs", outputs);
  /* backend=auto: with a GPU in use the live path's small calls go to the
   * CPU (counted); without one everything is there and nothing counted. */
  if (ROBOCACHE_HAVE_CUDA && rc_device_count (NULL) > 0)
    fail_unless (stat_of (r, "small-on-cpu") > 0);
  else
    fail_unless_equals_uint64 (stat_of (r, "small-on-cpu"), 0);
  gst_object_unref (r);
  gst_object_unref (pipeline);
}

GST_END_TEST;

/* A chunk of two trajectories in, one chunk with the same batch out. */
GST_START_TEST (test_chunk_in_out)
{
  GstHarness *h = resample_harness ("backend=cpu rate=200",
      GST_ROBOCACHE_VECTORS_MEDIA_TYPE ", channels=(int)1, "
      "format=(string)float64, layout=(string)chunk, batch=(int)2");
  gint64 times[6] = { 0, 10 * MS, 20 * MS, 0, 10 * MS, 20 * MS };
  double values[6] = { 0, 1, 2, 10, 20, 30 };
  GstBuffer *in = gst_buffer_new_allocate (NULL, 96, NULL), *out;
  GstMapInfo map;
  const gint64 *ot;
  const double *ov;
  GstCaps *caps;
  gint batch = 0;

  gst_buffer_fill (in, 0, times, sizeof (times));
  gst_buffer_fill (in, 48, values, sizeof (values));
  GST_BUFFER_PTS (in) = 0;
  out = gst_harness_push_and_pull (h, in);
  fail_unless (out != NULL);
  fail_unless_equals_uint64 (GST_BUFFER_PTS (out), 0);
  fail_unless_equals_uint64 (GST_BUFFER_DURATION (out), 25 * MS);
  fail_unless (gst_buffer_map (out, &map, GST_MAP_READ));
  fail_unless_equals_int (map.size, 2 * 5 * 16);
  ot = (const gint64 *) map.data;
  ov = (const double *) (map.data + 2 * 5 * 8);
  for (guint b = 0; b < 2; b++) {
    for (guint k = 0; k < 5; k++) {
      fail_unless_equals_int64 (ot[b * 5 + k], k * 5 * MS);
      fail_unless (fabs (ov[b * 5 + k] - (b ? 10.0 + k * 5.0 : k * 0.5)) <
          1e-12, "%u %u: %g", b, k, ov[b * 5 + k]);
    }
  }
  gst_buffer_unmap (out, &map);
  gst_buffer_unref (out);
  caps = gst_pad_get_current_caps (h->sinkpad);
  fail_unless_equals_string (gst_structure_get_string
      (gst_caps_get_structure (caps, 0), "layout"), "chunk");
  fail_unless (gst_structure_get_int (gst_caps_get_structure (caps, 0),
          "batch", &batch) && batch == 2);
  gst_caps_unref (caps);
  fail_unless_equals_uint64 (stat_of (resample_of (h), "outputs"), 10);
  gst_harness_teardown (h);
}

GST_END_TEST;

static GstBuffer *
f64_chunk (const gint64 * times, const double *values, guint n)
{
  GstBuffer *buf = gst_buffer_new_allocate (NULL, n * 16, NULL);

  gst_buffer_fill (buf, 0, times, n * 8);
  gst_buffer_fill (buf, n * 8, values, n * 8);
  GST_BUFFER_PTS (buf) = times[0];
  return buf;
}

/* Equal times within a chunk's trajectory: the later sample wins, as in
 * the kernel (docs/media-types.md), and nothing is dropped. */
GST_START_TEST (test_chunk_equal_times_later_wins)
{
  GstHarness *h = resample_harness ("backend=cpu rate=200",
      GST_ROBOCACHE_VECTORS_MEDIA_TYPE ", channels=(int)1, "
      "format=(string)float64, layout=(string)chunk, batch=(int)1");
  const gint64 times[4] = { 0, 10 * MS, 10 * MS, 20 * MS };
  const double values[4] = { 0, 1, 5, 9 };
  /* Every 5 ms; the earlier sample at 10 ms would give 0.5 and 1. */
  const double want[5] = { 0, 2.5, 5, 7, 9 };
  GstBuffer *out;
  GstMapInfo map;
  const double *ov;

  out = gst_harness_push_and_pull (h, f64_chunk (times, values, 4));
  fail_unless (out != NULL);
  fail_unless (gst_buffer_map (out, &map, GST_MAP_READ));
  fail_unless_equals_int (map.size, 5 * 16);
  ov = (const double *) (map.data + 5 * 8);
  for (guint k = 0; k < 5; k++)
    fail_unless (fabs (ov[k] - want[k]) < 1e-12, "%u: %g", k, ov[k]);
  gst_buffer_unmap (out, &map);
  gst_buffer_unref (out);
  fail_unless_equals_uint64 (stat_of (resample_of (h),
          "dropped-out-of-order"), 0);
  gst_harness_teardown (h);
}

GST_END_TEST;

/* Chunk samples whose times cannot be placed on the grid (negative, or at
 * 2^62 ns and beyond, such as INT64_MAX) are dropped, counted and warned
 * about once; the rest of each trajectory is resampled. */
GST_START_TEST (test_chunk_off_grid_times_dropped_n)
{
  GstHarness *h = resample_harness ("backend=cpu rate=100",
      GST_ROBOCACHE_VECTORS_MEDIA_TYPE ", channels=(int)1, "
      "format=(string)float64, layout=(string)chunk, batch=(int)2");
  gint64 times[8] = { -10 * MS, -5 * MS, 0, 20 * MS,
    0, 10 * MS, 20 * MS, G_MAXINT64
  };
  double values[8] = { 99, 99, 0, 2, 10, 20, 30, 99 };
  double expected[6] = { 0, 1, 2, 10, 20, 30 };
  GstBuffer *in = gst_buffer_new_allocate (NULL, 8 * 16, NULL), *out;
  GstElement *e = resample_of (h);
  GstBus *bus = gst_bus_new ();
  GstMapInfo map;

  gst_element_set_bus (h->element, bus);
  gst_buffer_fill (in, 0, times, sizeof (times));
  gst_buffer_fill (in, 8 * 8, values, sizeof (values));
  GST_BUFFER_PTS (in) = 0;
  out = gst_harness_push_and_pull (h, in);
  fail_unless (out != NULL, "nothing out of the valid samples");
  fail_unless_equals_uint64 (GST_BUFFER_PTS (out), 0);
  fail_unless (gst_buffer_map (out, &map, GST_MAP_READ));
  fail_unless_equals_int (map.size, 2 * 3 * 16);
  for (guint i = 0; i < 6; i++) {
    fail_unless_equals_int64 (((const gint64 *) map.data)[i],
        (i % 3) * 10 * MS);
    fail_unless (fabs (((const double *) (map.data + 48))[i] - expected[i])
        < 1e-12, "%u: %g", i, ((const double *) (map.data + 48))[i]);
  }
  gst_buffer_unmap (out, &map);
  gst_buffer_unref (out);
  fail_unless_equals_uint64 (stat_of (e, "dropped-off-grid"), 3);
  fail_unless_equals_uint64 (stat_of (e, "inputs"), 5);

  /* Every sample of a trajectory off the grid: the chunk is dropped
   * whole, and warned about no more. */
  in = f64_chunk (times, values, 2);
  fail_unless_equals_int (gst_harness_push (h, in), GST_FLOW_OK);
  fail_unless_equals_int (gst_harness_buffers_in_queue (h), 0);
  fail_unless_equals_uint64 (stat_of (e, "dropped-off-grid"), 5);
  assert_warned_once (h, bus);
  gst_harness_teardown (h);
}

GST_END_TEST;

/* The grid times between two chunks come from the last sample of the one
 * and the first of the next; chunks farther apart than max-gap give a GAP
 * event instead. */
GST_START_TEST (test_chunk_continuity_and_gap)
{
  GstHarness *h = resample_harness ("backend=cpu rate=100 max-gap=50000000",
      GST_ROBOCACHE_VECTORS_MEDIA_TYPE ", channels=(int)1, "
      "format=(string)float64, layout=(string)chunk");
  gint64 t1[] = { 0, 3 * MS, 6 * MS, 9 * MS };
  gint64 t2[] = { 12 * MS, 15 * MS, 21 * MS };
  gint64 t3[] = { 200 * MS, 205 * MS };
  double v1[] = { 0, 3, 6, 9 }, v2[] = { 12, 15, 21 }, v3[] = { 200, 205 };
  GstClockTime expect[] = { 0, 10 * MS, 20 * MS, 200 * MS };
  GstEvent *event;
  gboolean gap = FALSE;

  fail_unless_equals_int (gst_harness_push (h, f64_chunk (t1, v1, 4)),
      GST_FLOW_OK);
  fail_unless_equals_int (gst_harness_push (h, f64_chunk (t2, v2, 3)),
      GST_FLOW_OK);
  fail_unless_equals_int (gst_harness_push (h, f64_chunk (t3, v3, 2)),
      GST_FLOW_OK);
  fail_unless_equals_int (gst_harness_buffers_received (h), 3);
  for (guint c = 0, k = 0; c < 3; c++) {
    GstBuffer *out = gst_harness_pull (h);
    GstMapInfo map;
    guint n;

    fail_unless (gst_buffer_map (out, &map, GST_MAP_READ));
    n = map.size / 16;
    fail_unless_equals_int (n, c == 1 ? 2 : 1);
    for (guint i = 0; i < n; i++, k++) {
      fail_unless_equals_int64 (((const gint64 *) map.data)[i], expect[k]);
      fail_unless (fabs (((const double *) (map.data + n * 8))[i] -
              expect[k] / (double) MS) < 1e-9);
    }
    gst_buffer_unmap (out, &map);
    gst_buffer_unref (out);
  }
  while ((event = gst_harness_try_pull_event (h))) {
    if (GST_EVENT_TYPE (event) == GST_EVENT_GAP) {
      GstClockTime start, duration;

      gst_event_parse_gap (event, &start, &duration);
      fail_unless_equals_uint64 (start, 30 * MS);
      fail_unless_equals_uint64 (duration, 170 * MS);
      gap = TRUE;
    }
    gst_event_unref (event);
  }
  fail_unless (gap, "no GAP event");
  gst_harness_teardown (h);
}

GST_END_TEST;

/* A chunk of @batch trajectories of one float64 channel: samples [a, b)
 * of each row of @times and @values (@n samples per row). */
static GstBuffer *
f64_batch_chunk (const gint64 * times, const double *values, guint batch,
    guint n, guint a, guint b)
{
  guint m = b - a;
  GstBuffer *buf = gst_buffer_new_allocate (NULL, batch * m * 16, NULL);

  for (guint r = 0; r < batch; r++) {
    gst_buffer_fill (buf, r * m * 8, times + r * n + a, m * 8);
    gst_buffer_fill (buf, (batch + r) * m * 8, values + r * n + a, m * 8);
  }
  GST_BUFFER_PTS (buf) = times[a];
  return buf;
}

/* Every grid time and value put out, trajectory by trajectory (whatever
 * the output chunks): row r's at [r * cap, r * cap + *n). */
static void
pull_trajectories (GstHarness * h, guint batch, guint cap, gint64 * t,
    double *v, guint * n)
{
  GstBuffer *buf;

  *n = 0;
  while ((buf = gst_harness_try_pull (h))) {
    GstMapInfo map;
    guint m;

    fail_unless (gst_buffer_map (buf, &map, GST_MAP_READ));
    m = map.size / (batch * 16);
    fail_unless (*n + m <= cap);
    for (guint r = 0; r < batch; r++) {
      memcpy (t + r * cap + *n, map.data + r * m * 8, m * 8);
      memcpy (v + r * cap + *n, map.data + (batch + r) * m * 8, m * 8);
    }
    *n += m;
    gst_buffer_unmap (buf, &map);
    gst_buffer_unref (buf);
  }
}

/* Pushes @times and @values (@n samples a row) through robocacheresample
 * @props cut before each sample index in @cuts (ending with 0), then EOS;
 * the outputs as pull_trajectories. */
static void
run_cut (const gchar * props, const gint64 * times, const double *values,
    guint batch, guint n, const guint * cuts, guint cap, gint64 * t,
    double *v, guint * n_out)
{
  gchar *caps = g_strdup_printf (GST_ROBOCACHE_VECTORS_MEDIA_TYPE
      ", channels=(int)1, format=(string)float64, layout=(string)chunk, "
      "batch=(int)%u", batch);
  GstHarness *h = resample_harness (props, caps);
  guint a = 0;

  for (guint i = 0;; i++) {
    guint b = cuts[i] ? cuts[i] : n;

    fail_unless_equals_int (gst_harness_push (h, f64_batch_chunk (times,
                values, batch, n, a, b)), GST_FLOW_OK);
    a = b;
    if (!cuts[i])
      break;
  }
  push_eos (h);
  pull_trajectories (h, batch, cap, t, v, n_out);
  gst_harness_teardown (h);
  g_free (caps);
}

#define CUT_SAMPLES 12
#define CUT_CAP 64

/* 3 trajectories sampled at different times, none on the grid; row 0
 * alone is the batch-1 case. */
static void
cut_trajectories (gint64 * t, double *v)
{
  for (guint r = 0; r < 3; r++) {
    for (guint i = 0; i < CUT_SAMPLES; i++) {
      double s;

      t[r * CUT_SAMPLES + i] = (gint64) (i * 10 + (i * 7 + r * 3) % 6) * MS
          + r * 4 * MS + 1000;
      s = t[r * CUT_SAMPLES + i] / (double) GST_SECOND;
      v[r * CUT_SAMPLES + i] = sin (20 * s + r) + 30 * s * s;
    }
  }
}

/* A recording's outputs do not depend on where it is cut into chunks: bit
 * for bit the same as one chunk, and as the kernel on the whole
 * trajectories, for every method, one trajectory or three. */
GST_START_TEST (test_chunk_cut_invariance)
{
  const gchar *methods[] = { "linear", "nearest", "previous", "cubic" };
  static const guint cuts[][4] = {
    {0}, {4, 8, 0}, {1, 11, 0}, {6, 0}, {2, 3, 9, 0}, {10, 0}
  };
  gint64 times[3 * CUT_SAMPLES], t0[3 * CUT_CAP], t[3 * CUT_CAP];
  double values[3 * CUT_SAMPLES], v0[3 * CUT_CAP], v[3 * CUT_CAP];
  double ref[3 * CUT_CAP];

  cut_trajectories (times, values);
  for (guint m = 0; m < G_N_ELEMENTS (methods); m++) {
    gchar *props = g_strdup_printf ("backend=cpu rate=200 method=%s",
        methods[m]);

    for (guint batch = 1; batch <= 3; batch += 2) {
      rc_resample_params p = { 0, };
      guint n0, n;
      gint64 *tgt = g_new (gint64, batch * CUT_CAP);

      run_cut (props, times, values, batch, CUT_SAMPLES, cuts[0], CUT_CAP,
          t0, v0, &n0);
      fail_unless (n0 > 20, "%s: %u outputs", props, n0);
      for (guint c = 1; c < G_N_ELEMENTS (cuts); c++) {
        run_cut (props, times, values, batch, CUT_SAMPLES, cuts[c], CUT_CAP,
            t, v, &n);
        fail_unless_equals_int (n, n0);
        for (guint r = 0; r < batch; r++) {
          fail_unless (memcmp (t + r * CUT_CAP, t0 + r * CUT_CAP, n * 8) == 0,
              "%s batch %u cut %u: times differ", props, batch, c);
          fail_unless (memcmp (v + r * CUT_CAP, v0 + r * CUT_CAP, n * 8) == 0,
              "%s batch %u cut %u: values differ", props, batch, c);
        }
      }
      /* The kernel on the whole trajectories, at the same grid times. */
      for (guint r = 0; r < batch; r++)
        memcpy (tgt + r * n0, t0 + r * CUT_CAP, n0 * 8);
      p.batch = batch;
      p.n_source = CUT_SAMPLES;
      p.n_target = n0;
      p.channels = 1;
      p.type = RC_TYPE_FLOAT64;
      p.method = (rc_interp_method) m;
      p.edge = RC_EDGE_HOLD;
      fail_unless_equals_int (rc_resample_cpu (&p, times, values, tgt, ref),
          RC_OK);
      for (guint r = 0; r < batch; r++)
        fail_unless (memcmp (ref + r * n0, v0 + r * CUT_CAP, n0 * 8) == 0,
            "%s batch %u: not the kernel's values", props, batch);
      g_free (tgt);
    }
    g_free (props);
  }
}

GST_END_TEST;

/* Trajectories of one chunk that end at different times: the one that
 * ends first is interpolated across to the next chunk, not held, and the
 * grid times after its last sample wait for that chunk. */
GST_START_TEST (test_chunk_batch_edge)
{
  gint64 times[12] = { 0, 100 * MS, 200 * MS, 300 * MS, 400 * MS, 500 * MS,
    0, 100 * MS, 250 * MS, 300 * MS, 400 * MS, 500 * MS
  };
  double values[12];
  static const guint cuts[] = { 3, 0 };
  gint64 t[2 * CUT_CAP];
  double v[2 * CUT_CAP];
  guint n;
  GstHarness *h = resample_harness ("backend=cpu rate=20",
      GST_ROBOCACHE_VECTORS_MEDIA_TYPE ", channels=(int)1, "
      "format=(string)float64, layout=(string)chunk, batch=(int)2");

  for (guint i = 0; i < 12; i++)
    values[i] = (i < 6 ? 1.0 : 10.0) * times[i] / (100.0 * MS);
  /* The first chunk alone: up to traj 0's last sample (200 ms). */
  fail_unless_equals_int (gst_harness_push (h, f64_batch_chunk (times,
              values, 2, 6, 0, 3)), GST_FLOW_OK);
  pull_trajectories (h, 2, CUT_CAP, t, v, &n);
  fail_unless_equals_int (n, 5);
  fail_unless_equals_int64 (t[4], 200 * MS);
  gst_harness_teardown (h);

  run_cut ("backend=cpu rate=20", times, values, 2, 6, cuts, CUT_CAP, t, v,
      &n);
  fail_unless_equals_int (n, 11);
  for (guint r = 0; r < 2; r++) {
    for (guint k = 0; k < n; k++) {
      fail_unless_equals_int64 (t[r * CUT_CAP + k], k * 50 * MS);
      fail_unless (fabs (v[r * CUT_CAP + k] - (r ? 10.0 : 1.0) * k * 0.5) <
          1e-12, "traj %u at %u ms: %g", r, k * 50, v[r * CUT_CAP + k]);
    }
  }
}

GST_END_TEST;

/* A trajectory that starts later than another of its batch: the grid
 * starts at the batch's first sample, and it holds its first value
 * before its own (the kernel's hold edge), however the chunks are cut. */
GST_START_TEST (test_chunk_batch_start)
{
  gint64 times[8] = { 0, 100 * MS, 200 * MS, 300 * MS,
    100 * MS, 150 * MS, 200 * MS, 300 * MS
  };
  double values[8] = { 0, 1, 2, 3, 10, 15, 20, 30 };
  static const guint one[] = { 0 }, two[] = { 1, 0 };
  double expect[2][7] = { {0, 0.5, 1, 1.5, 2, 2.5, 3},
  {10, 10, 10, 15, 20, 25, 30}
  };
  gint64 t[2 * CUT_CAP];
  double v[2 * CUT_CAP];
  guint n;

  for (guint c = 0; c < 2; c++) {
    run_cut ("backend=cpu rate=20", times, values, 2, 4, c ? two : one,
        CUT_CAP, t, v, &n);
    fail_unless_equals_int (n, 7);
    for (guint r = 0; r < 2; r++) {
      for (guint k = 0; k < n; k++) {
        fail_unless_equals_int64 (t[r * CUT_CAP + k], k * 50 * MS);
        fail_unless (fabs (v[r * CUT_CAP + k] - expect[r][k]) < 1e-12,
            "cut %u traj %u at %u ms: %g", c, r, k * 50, v[r * CUT_CAP + k]);
      }
    }
  }
}

GST_END_TEST;

/* Everything a run put out: buffer times and chunk timestamps as bytes,
 * the values widened to double. */
typedef struct
{
  GByteArray *times;
  GArray *values;
  guint64 small_on_cpu;         /* run_chunks_in: the element's stat */
} Outputs;

static void
outputs_clear (Outputs * o)
{
  g_byte_array_unref (o->times);
  g_array_unref (o->values);
}

static void
collect (GstHarness * h, gboolean chunk, guint batch, guint channels,
    rc_scalar_type type, Outputs * o)
{
  gsize esize = rc_scalar_type_size (type);
  GstBuffer *buf;

  o->times = g_byte_array_new ();
  o->values = g_array_new (FALSE, FALSE, sizeof (double));
  while ((buf = gst_harness_try_pull (h))) {
    guint64 stamps[2] = { GST_BUFFER_PTS (buf), GST_BUFFER_DURATION (buf) };
    gsize offset = 0, n;
    GstMapInfo map;

    g_byte_array_append (o->times, (const guint8 *) stamps, sizeof (stamps));
    fail_unless (gst_buffer_map (buf, &map, GST_MAP_READ));
    if (chunk) {
      gsize t = map.size / (batch * (8 + channels * esize));

      fail_unless_equals_int (map.size, batch * t * (8 + channels * esize));
      offset = batch * t * 8;
      g_byte_array_append (o->times, map.data, offset);
    }
    n = (map.size - offset) / esize;
    for (gsize i = 0; i < n; i++) {
      double v = get_value (map.data + offset, type, i);

      g_array_append_val (o->values, v);
    }
    gst_buffer_unmap (buf, &map);
    gst_buffer_unref (buf);
  }
}

/* The same times, bit for bit; the same values within the kernels' own
 * GPU-versus-CPU tolerance (float32 1e-5, bfloat16 one unit in the last
 * place, relative), and says how many differ at all. */
static void
compare_outputs (const gchar * what, const Outputs * cpu, const Outputs * gpu,
    rc_scalar_type type)
{
  guint differ = 0;
  double worst = 0;

  fail_unless_equals_int (cpu->times->len, gpu->times->len);
  fail_unless (memcmp (cpu->times->data, gpu->times->data,
          cpu->times->len) == 0, "%s: times differ", what);
  fail_unless_equals_int (cpu->values->len, gpu->values->len);
  for (guint i = 0; i < cpu->values->len; i++) {
    double a = g_array_index (cpu->values, double, i);
    double b = g_array_index (gpu->values, double, i);
    double mag = MAX (1.0, fabs (a));
    double tol = type == RC_TYPE_BFLOAT16 ? fabs (a) / 128 + 1e-6 :
        type == RC_TYPE_FLOAT32 ? 1e-5 * mag : 1e-12 * mag;

    if (memcmp (&a, &b, sizeof (a)) == 0)
      continue;
    differ++;
    worst = MAX (worst, fabs (a - b));
    fail_unless (fabs (a - b) <= tol, "%s: value %u is %.9g on the GPU, "
        "%.9g on the CPU", what, i, b, a);
  }
  g_print ("%s: %u values, %u not bit-identical (largest difference %g)\n",
      what, cpu->values->len, differ, worst);
}

/* bfloat16 chunks go through; the grid spans each chunk. */
static void run_chunks (const gchar * desc, Outputs * o);

GST_START_TEST (test_bfloat16_chunks)
{
  Outputs o;

  run_chunks ("backend=cpu rate=500 method=cubic", &o);
  /* 3 chunks of about 150 ms each at 500 Hz: about 75 grid times each,
   * for 3 trajectories of 6 channels. */
  fail_unless (o.values->len >= 3 * 3 * 70 * 6, "%u values", o.values->len);
  fail_unless_equals_int (o.values->len % (3 * 6), 0);
  outputs_clear (&o);
}

GST_END_TEST;

/* Samples in, chunks of samples-per-buffer out; the last one shorter. */
GST_START_TEST (test_sample_in_chunk_out)
{
  GstHarness *h = resample_harness ("backend=cpu rate=100 "
      "samples-per-buffer=4", VECTORS (1, "float64", ""));
  guint sizes[] = { 4, 4, 2 };
  GstCaps *caps;

  for (guint i = 0; i < 10; i++)
    push_f64 (h, i * 10 * MS, i);
  push_eos (h);
  fail_unless_equals_int (gst_harness_buffers_received (h), 3);
  for (guint c = 0, k = 0; c < 3; c++) {
    GstBuffer *out = gst_harness_pull (h);
    GstMapInfo map;
    guint n = sizes[c];

    fail_unless_equals_uint64 (GST_BUFFER_PTS (out), k * 10 * MS);
    fail_unless_equals_uint64 (GST_BUFFER_DURATION (out), n * 10 * MS);
    fail_unless (gst_buffer_map (out, &map, GST_MAP_READ));
    fail_unless_equals_int (map.size, n * 16);
    for (guint i = 0; i < n; i++, k++) {
      fail_unless_equals_int64 (((const gint64 *) map.data)[i], k * 10 * MS);
      fail_unless (fabs (((const double *) (map.data + n * 8))[i] - k) < 1e-12);
    }
    gst_buffer_unmap (out, &map);
    gst_buffer_unref (out);
  }
  caps = gst_pad_get_current_caps (h->sinkpad);
  fail_unless_equals_string (gst_structure_get_string
      (gst_caps_get_structure (caps, 0), "layout"), "chunk");
  gst_caps_unref (caps);
  gst_harness_teardown (h);
}

GST_END_TEST;

/* The outputs of the jittered float32 samples of 7 joints (2 of them
 * angles) and a quaternion through @desc. */
/* ... and the element's small-on-cpu count into *@small_on_cpu. */
static void
run_jittered_counted (const gchar * desc, guint samples_per_buffer,
    Outputs * o, guint64 * small_on_cpu)
{
  GstHarness *h = resample_harness (desc, VECTORS (11, "float32",
          ", quaternions=(string)7, angles=(string)0-1"));

  for (guint i = 0; i < JITTER_SAMPLES; i++) {
    GstClockTime t = jittered_time (i);
    double s = t / 1e9;
    float v[11];

    for (guint c = 0; c < 7; c++)
      v[c] = (float) (3.0 * sin (2.0 * G_PI * (0.3 + c * 0.2) * s + c));
    v[7] = (float) (sin (s) * 0.6);
    v[8] = 0.0f;
    v[9] = (float) (sin (s) * 0.8);
    v[10] = (float) cos (s);
    fail_unless_equals_int (gst_harness_push (h, f32_sample (v, 11, t)),
        GST_FLOW_OK);
  }
  push_eos (h);
  collect (h, samples_per_buffer > 1, 1, 11, RC_TYPE_FLOAT32, o);
  *small_on_cpu = stat_of (resample_of (h), "small-on-cpu");
  gst_harness_teardown (h);
}

static void
run_jittered (const gchar * desc, guint samples_per_buffer, Outputs * o)
{
  guint64 small_on_cpu;

  run_jittered_counted (desc, samples_per_buffer, o, &small_on_cpu);
}

/* Writes sample @i of trajectory @b of chunk @c: its time into *@t and
 * its values at @row. */
typedef void (*ChunkSampleFunc) (guint c, guint b, guint i, gint64 * t,
    guint8 * row, gpointer data);

/* Pushes 3 chunks of @batch trajectories of @samples samples with values
 * of @row_size bytes, written by @fill, in memory from @allocator (NULL:
 * system memory). */
static void
push_chunks (GstHarness * h, GstAllocator * allocator, guint batch,
    guint samples, gsize row_size, ChunkSampleFunc fill, gpointer data)
{
  for (guint c = 0; c < 3; c++) {
    gsize times = batch * samples * 8;
    GstBuffer *in = gst_buffer_new_allocate (allocator,
        times + batch * samples * row_size, NULL);
    GstMapInfo map;

    fail_unless (in != NULL);
    fail_unless (gst_buffer_map (in, &map, GST_MAP_WRITE));
    for (guint b = 0; b < batch; b++) {
      for (guint i = 0; i < samples; i++)
        fill (c, b, i, (gint64 *) map.data + b * samples + i,
            map.data + times + (b * samples + i) * row_size, data);
    }
    gst_buffer_unmap (in, &map);
    fail_unless_equals_int (gst_harness_push (h, in), GST_FLOW_OK);
  }
}

#define SHORT_SAMPLES 50

/* run_chunks_in's samples: bfloat16 curves, and with *@data (off_grid)
 * the second chunk's first time of trajectory 0 negative. */
static void
short_chunk_sample (guint c, guint b, guint i, gint64 * t, guint8 * row,
    gpointer data)
{
  const gboolean *off_grid = data;
  gint64 time = jittered_time (c * SHORT_SAMPLES + i) + b * 100 *
      GST_USECOND;
  double s = time / 1e9;
  double v[6] = { sin (3 * s + b), cos (2 * s), sin (s) * 0.6, 0.0,
    sin (s) * 0.8, cos (s)
  };

  *t = *off_grid && c == 1 && b == 0 && i == 0 ? -GST_MSECOND : time;
  for (guint d = 0; d < 6; d++)
    set_value (row, RC_TYPE_BFLOAT16, d, v[d]);
}

/* The outputs of 3 chunks of 3 bfloat16 trajectories of 6 channels (a
 * quaternion at 2) through @desc; with @cuda_in the chunks are in the CUDA
 * memory the element proposes, and with @sink_caps downstream takes only
 * those.  With @off_grid, the second chunk's first sample of trajectory 0
 * has a negative time: that chunk is repacked on the host without it,
 * between two chunks on the device.  Upstream is @live: if not, on the GPU
 * each chunk's output waits for the next chunk (or EOS). */
static void
run_chunks_in (const gchar * desc, gboolean cuda_in, const gchar * sink_caps,
    gboolean off_grid, gboolean live, Outputs * o)
{
  gchar *caps = g_strdup_printf ("%s%s, channels=(int)6, "
      "format=(string)bfloat16, layout=(string)chunk, batch=(int)3, "
      "quaternions=(string)2", GST_ROBOCACHE_VECTORS_MEDIA_TYPE,
      cuda_in ? "(" GST_ROBOCACHE_CAPS_FEATURE_CUDA ")" : "");
  GstHarness *h = resample_harness_to (desc, caps, sink_caps);
  GstAllocator *allocator;

  gst_harness_set_live (h, live);
  allocator = cuda_in ? proposed_allocator (h, caps, NULL) : NULL;

  push_chunks (h, allocator, 3, SHORT_SAMPLES, 6 * 2, short_chunk_sample,
      &off_grid);
  push_eos (h);
  if (cuda_in)
    check_output_memory (h, sink_caps == NULL);
  collect (h, TRUE, 3, 6, RC_TYPE_BFLOAT16, o);
  o->small_on_cpu = stat_of (resample_of (h), "small-on-cpu");
  gst_harness_teardown (h);
  if (allocator)
    gst_object_unref (allocator);
  g_free (caps);
}

static void
run_chunks (const gchar * desc, Outputs * o)
{
  run_chunks_in (desc, FALSE, NULL, FALSE, FALSE, o);
}

/* TRUE, saying so, where the GPU cases cannot run: no CUDA built or no
 * usable device. */
static gboolean
gpu_case_skipped (void)
{
  const char *why = NULL;

  if (ROBOCACHE_HAVE_CUDA && rc_device_count (&why) > 0)
    return FALSE;
  g_print ("GPU case skipped: no usable CUDA device (%s)\n",
      ROBOCACHE_HAVE_CUDA ? (why ? why : "unknown") : "CUDA not built");
  return TRUE;
}

/* With a GPU, backend=gpu gives the same outputs as backend=cpu: the same
 * times to the nanosecond, values within the kernels' tolerance. */
GST_START_TEST (test_gpu_matches_cpu)
{
  static const gchar *const methods[] = { "linear", "nearest", "previous",
    "cubic"
  };
  if (gpu_case_skipped ())
    return;
  for (guint m = 0; m < G_N_ELEMENTS (methods); m++) {
    for (guint spb = 1; spb <= 16; spb += 15) {
      gchar *cpu = g_strdup_printf ("backend=cpu rate=120 method=%s "
          "samples-per-buffer=%u", methods[m], spb);
      gchar *gpu = g_strdup_printf ("backend=gpu rate=120 method=%s "
          "samples-per-buffer=%u", methods[m], spb);
      gchar *autob = g_strdup_printf ("backend=auto rate=120 method=%s "
          "samples-per-buffer=%u", methods[m], spb);
      guint64 small_gpu, small_auto;
      Outputs a, b, c;

      run_jittered (cpu, spb, &a);
      run_jittered_counted (gpu, spb, &b, &small_gpu);
      fail_unless (a.values->len > 100 * 11);
      compare_outputs (gpu, &a, &b, RC_TYPE_FLOAT32);
      /* The live path's calls are a sample's grid times, far below the
       * crossover: backend=auto makes every one on the CPU, forced gpu
       * none. */
      run_jittered_counted (autob, spb, &c, &small_auto);
      compare_outputs (autob, &a, &c, RC_TYPE_FLOAT32);
      fail_unless_equals_uint64 (small_gpu, 0);
      fail_unless (small_auto > 0, "%s: no call on the CPU", autob);
      outputs_clear (&a);
      outputs_clear (&b);
      outputs_clear (&c);
      g_free (cpu);
      g_free (gpu);
      g_free (autob);
    }
  }
  /* On the GPU, downstream that takes anything gets CUDA memory. */
  {
    GstHarness *h = resample_harness ("backend=gpu rate=100",
        VECTORS (1, "float64", ""));
    GstBuffer *buf;
    GstCaps *caps;
    double v;

    push_f64 (h, 0, 1.0);
    push_f64 (h, 20 * MS, 3.0);
    caps = gst_pad_get_current_caps (h->sinkpad);
    fail_unless (gst_robocache_caps_is_cuda (caps));
    gst_caps_unref (caps);
    buf = gst_harness_pull (h);
    gst_buffer_unref (buf);
    buf = gst_harness_pull (h);
    fail_unless (gst_memory_is_type (gst_buffer_peek_memory (buf, 0),
            GST_ROBOCACHE_CUDA_MEMORY_TYPE));
    fail_unless_equals_int (gst_buffer_extract (buf, 0, &v, 8), 8);
    fail_unless_equals_float (v, 2.0);
    gst_buffer_unref (buf);
    gst_harness_teardown (h);
  }
  for (guint m = 0; m < G_N_ELEMENTS (methods); m++) {
    gchar *cpu = g_strdup_printf ("backend=cpu rate=500 method=%s",
        methods[m]);
    gchar *gpu = g_strdup_printf ("backend=gpu rate=500 method=%s",
        methods[m]);
    gchar *autob = g_strdup_printf ("backend=auto rate=500 method=%s",
        methods[m]);
    Outputs a, b;

    run_chunks (cpu, &a);
    run_chunks (gpu, &b);
    fail_unless (a.values->len > 3 * 3 * 70 * 6);
    compare_outputs (gpu, &a, &b, RC_TYPE_BFLOAT16);
    fail_unless_equals_uint64 (b.small_on_cpu, 0);
    outputs_clear (&b);
    /* backend=auto leaves these small chunks in system memory to the CPU
     * (counted), and takes those in CUDA memory on the GPU. */
    run_chunks (autob, &b);
    compare_outputs (autob, &a, &b, RC_TYPE_BFLOAT16);
    fail_unless (b.small_on_cpu > 0, "%s: no chunk on the CPU", autob);
    outputs_clear (&b);
    /* Only the grid times still owed at EOS, a few from the samples kept
     * on the host, are a call small enough for the CPU. */
    run_chunks_in (autob, TRUE, NULL, FALSE, FALSE, &b);
    compare_outputs ("backend=auto, CUDA in", &a, &b, RC_TYPE_BFLOAT16);
    fail_unless (b.small_on_cpu <= 1, "%s, CUDA in: %" G_GUINT64_FORMAT
        " calls on the CPU", autob, b.small_on_cpu);
    outputs_clear (&b);
    /* Chunks in CUDA memory stay on the GPU, out in CUDA memory or not;
     * the consecutive chunks also take the path that puts the previous
     * chunk's last samples in front on the device. */
    run_chunks_in (gpu, TRUE, NULL, FALSE, FALSE, &b);
    compare_outputs ("CUDA in, CUDA out", &a, &b, RC_TYPE_BFLOAT16);
    outputs_clear (&b);
    run_chunks_in (gpu, TRUE, NULL, FALSE, TRUE, &b);
    compare_outputs ("CUDA in, CUDA out, live", &a, &b, RC_TYPE_BFLOAT16);
    outputs_clear (&b);
    run_chunks_in (gpu, TRUE, GST_ROBOCACHE_VECTORS_MEDIA_TYPE, FALSE, FALSE,
        &b);
    compare_outputs ("CUDA in, system memory out", &a, &b, RC_TYPE_BFLOAT16);
    outputs_clear (&a);
    outputs_clear (&b);
    /* A chunk repacked on the host between chunks on the device: the last
     * values go from the device to the host and back. */
    run_chunks_in (cpu, FALSE, NULL, TRUE, FALSE, &a);
    run_chunks_in (gpu, TRUE, NULL, TRUE, FALSE, &b);
    compare_outputs ("a chunk on the host between two on the GPU", &a, &b,
        RC_TYPE_BFLOAT16);
    outputs_clear (&a);
    outputs_clear (&b);
    g_free (cpu);
    g_free (gpu);
    g_free (autob);
  }
}

GST_END_TEST;

/* On the GPU behind an upstream that is not live, a chunk's output waits
 * for the next chunk: a flush drops it, and the element goes on; EOS
 * pushes the waiting one.  The output equals the CPU's. */
GST_START_TEST (test_gpu_chunk_in_flight_flushed)
{
  const gchar *caps = GST_ROBOCACHE_VECTORS_MEDIA_TYPE ", channels=(int)1, "
      "format=(string)float64, layout=(string)chunk";
  gint64 t1[] = { 0, 3 * MS, 6 * MS, 9 * MS }, t2[] = { 40 * MS, 47 * MS,
    53 * MS, 61 * MS
  };
  double v1[] = { 0.5, -1.25, 2.0, 0.75 }, v2[] = { 3.5, -2.0, 1.5, 4.25 };
  GstBuffer *gpu_out, *cpu_out;
  GstHarness *h, *ref;

  if (gpu_case_skipped ())
    return;
  h = resample_harness ("backend=gpu rate=200", caps);
  gst_harness_set_live (h, FALSE);
  fail_unless_equals_int (gst_harness_push (h, f64_chunk (t1, v1, 4)),
      GST_FLOW_OK);
  fail_unless_equals_int (gst_harness_buffers_received (h), 0);
  fail_unless (gst_harness_push_event (h, gst_event_new_flush_start ()));
  fail_unless (gst_harness_push_event (h, gst_event_new_flush_stop (TRUE)));
  fail_unless_equals_int (gst_harness_buffers_received (h), 0);
  {
    GstSegment segment;

    gst_segment_init (&segment, GST_FORMAT_TIME);
    fail_unless (gst_harness_push_event (h, gst_event_new_segment (&segment)));
  }
  fail_unless_equals_int (gst_harness_push (h, f64_chunk (t2, v2, 4)),
      GST_FLOW_OK);
  push_eos (h);
  fail_unless_equals_int (gst_harness_buffers_received (h), 1);

  ref = resample_harness ("backend=cpu rate=200", caps);
  fail_unless_equals_int (gst_harness_push (ref, f64_chunk (t2, v2, 4)),
      GST_FLOW_OK);
  gpu_out = gst_harness_pull (h);
  cpu_out = gst_harness_pull (ref);
  fail_unless_equals_uint64 (GST_BUFFER_PTS (gpu_out), GST_BUFFER_PTS
      (cpu_out));
  fail_unless_equals_int (gst_buffer_get_size (gpu_out),
      gst_buffer_get_size (cpu_out));
  {
    gsize n = gst_buffer_get_size (cpu_out) / 16;
    double *a = g_new (double, 2 * n), *b = a + n;
    gint64 *ta = g_new (gint64, 2 * n), *tb = ta + n;

    gst_buffer_extract (cpu_out, 0, ta, n * 8);
    gst_buffer_extract (gpu_out, 0, tb, n * 8);
    gst_buffer_extract (cpu_out, n * 8, a, n * 8);
    gst_buffer_extract (gpu_out, n * 8, b, n * 8);
    for (gsize i = 0; i < n; i++) {
      fail_unless_equals_int64 (ta[i], tb[i]);
      fail_unless (fabs (a[i] - b[i]) < 1e-9, "%" G_GSIZE_FORMAT ": %g %g",
          i, a[i], b[i]);
    }
    g_free (a);
    g_free (ta);
  }
  gst_buffer_unref (gpu_out);
  gst_buffer_unref (cpu_out);
  gst_harness_teardown (ref);
  gst_harness_teardown (h);
}

GST_END_TEST;

/* Runs @times and @values (@n samples in each of @batch rows) cut at
 * @cuts through robocacheresample @cpu and @gpu: the same number of
 * outputs (at least @min_outputs), the same times to the nanosecond,
 * values within rounding. */
static void
gpu_cut_matches_cpu (const gchar * cpu, const gchar * gpu,
    const gint64 * times, const double *values, guint batch, guint n,
    const guint * cuts, guint min_outputs)
{
  gint64 tc[3 * CUT_CAP], tg[3 * CUT_CAP];
  double vc[3 * CUT_CAP], vg[3 * CUT_CAP];
  guint nc, ng;

  fail_unless (batch <= 3);
  run_cut (cpu, times, values, batch, n, cuts, CUT_CAP, tc, vc, &nc);
  run_cut (gpu, times, values, batch, n, cuts, CUT_CAP, tg, vg, &ng);
  fail_unless (nc >= min_outputs, "%s: %u outputs", cpu, nc);
  fail_unless_equals_int (ng, nc);
  for (guint r = 0; r < batch; r++) {
    fail_unless (memcmp (tg + r * CUT_CAP, tc + r * CUT_CAP, nc * 8) == 0,
        "%s batch %u cut at %u: times differ", gpu, batch, cuts[0]);
    for (guint k = 0; k < nc; k++) {
      double a = vc[r * CUT_CAP + k], b = vg[r * CUT_CAP + k];

      fail_unless (fabs (a - b) <= 1e-12 * MAX (1.0, fabs (a)),
          "%s batch %u cut at %u, traj %u output %u: %.17g on the GPU, "
          "%.17g on the CPU", gpu, batch, cuts[0], r, k, b, a);
    }
  }
}

/* On the GPU, a recording cut anywhere into chunks of trajectories that
 * end at different times gives the CPU's outputs: the samples each
 * trajectory keeps (one to several, as far as it runs ahead) are put in
 * front of the next chunk on the device. */
GST_START_TEST (test_gpu_chunk_cuts)
{
  const gchar *methods[] = { "linear", "nearest", "previous", "cubic" };
  static const guint cuts[][4] = {
    {0}, {4, 8, 0}, {1, 11, 0}, {6, 0}, {2, 3, 9, 0}, {10, 0}
  };
  static const guint edge_cut[] = { 3, 0 };
  gint64 times[3 * CUT_SAMPLES];
  gint64 edge_t[12] = { 0, 100 * MS, 200 * MS, 300 * MS, 400 * MS, 500 * MS,
    0, 100 * MS, 250 * MS, 300 * MS, 400 * MS, 500 * MS
  };
  double values[3 * CUT_SAMPLES], edge_v[12];
  if (gpu_case_skipped ())
    return;
  cut_trajectories (times, values);
  for (guint i = 0; i < 12; i++)
    edge_v[i] = (i < 6 ? 1.0 : 10.0) * edge_t[i] / (100.0 * MS) + 0.25 * i;
  for (guint m = 0; m < G_N_ELEMENTS (methods); m++) {
    gchar *props[2], *edge[2];

    for (guint g = 0; g < 2; g++) {
      props[g] = g_strdup_printf ("backend=%s rate=200 method=%s",
          g ? "gpu" : "cpu", methods[m]);
      /* 500 ms: 51 grid times at 100 Hz. */
      edge[g] = g_strdup_printf ("backend=%s rate=100 method=%s",
          g ? "gpu" : "cpu", methods[m]);
    }
    for (guint batch = 1; batch <= 3; batch += 2)
      for (guint c = 0; c < G_N_ELEMENTS (cuts); c++)
        gpu_cut_matches_cpu (props[0], props[1], times, values, batch,
            CUT_SAMPLES, cuts[c], 21);
    gpu_cut_matches_cpu (edge[0], edge[1], edge_t, edge_v, 2, 6, edge_cut, 51);
    for (guint g = 0; g < 2; g++) {
      g_free (props[g]);
      g_free (edge[g]);
    }
  }
}

GST_END_TEST;

/* What run_long_chunks changes in its recording. */
typedef enum
{
  LONG_PLAIN,
  LONG_APART,                   /* trajectory 1 lags 700 ms behind */
  LONG_DISORDER,                /* a time going back in chunk 1 */
  LONG_OFF_GRID                 /* a negative time first in chunk 1 */
} LongVariant;

#define LONG_SAMPLES 1200

/* run_long_chunks' samples: 1 kHz with jitter, changed as *@data (a
 * LongVariant) says. */
static void
long_chunk_sample (guint c, guint b, guint i, gint64 * t, guint8 * row,
    gpointer data)
{
  LongVariant variant = *(const LongVariant *) data;
  guint n = c * LONG_SAMPLES + i;
  gint64 time = GST_SECOND + n * MS + ((n * 7919) % 601) * 1000 +
      b * 100 * GST_USECOND;
  double sec;

  if (variant == LONG_APART && b == 1)
    time -= 700 * MS;
  if (variant == LONG_DISORDER && c == 1 && b == 2 && i == 600)
    time -= 5 * MS;
  if (variant == LONG_OFF_GRID && c == 1 && b == 0 && i == 0)
    time = -MS;
  *t = time;
  sec = time / 1e9;
  set_value (row, RC_TYPE_FLOAT32, 0, sin (3 * sec + b));
  set_value (row, RC_TYPE_FLOAT32, 1, cos (2 * sec));
  set_value (row, RC_TYPE_FLOAT32, 2, 0.5 * sec);
  set_value (row, RC_TYPE_FLOAT32, 3, sin (7 * sec) * cos (sec));
}

/* Where run_long_chunks' chunks are. */
typedef enum
{
  IN_PAGEABLE,                  /* system memory of GStreamer's allocator */
  IN_PINNED,                    /* the page-locked memory proposed */
  IN_CUDA                       /* the CUDA memory proposed */
} InMemory;

/* The outputs of 3 chunks of 3 float32 trajectories of LONG_SAMPLES 1 kHz
 * samples (with jitter) of 4 channels through @desc, in @mem: long enough
 * that a chunk from CUDA memory brings back only its trajectories' ends,
 * the GPU checking their order; @variant makes the host need more.
 * @dropped: the dropped-out-of-order and dropped-off-grid stats. */
static void
run_long_chunks (const gchar * desc, InMemory mem, LongVariant variant,
    Outputs * o, guint64 dropped[2])
{
  gchar *caps = g_strdup_printf ("%s%s, channels=(int)4, "
      "format=(string)float32, layout=(string)chunk, batch=(int)3",
      GST_ROBOCACHE_VECTORS_MEDIA_TYPE,
      mem == IN_CUDA ? "(" GST_ROBOCACHE_CAPS_FEATURE_CUDA ")" : "");
  GstHarness *h = resample_harness (desc, caps);
  GstAllocator *allocator = mem != IN_PAGEABLE ?
      proposed_allocator (h, caps, NULL) : NULL;

  if (mem == IN_PINNED)
    fail_unless (g_str_has_prefix (allocator->mem_type,
            GST_ROBOCACHE_PINNED_MEMORY_TYPE), "%s proposed",
        allocator->mem_type);

  push_chunks (h, allocator, 3, LONG_SAMPLES, 4 * 4, long_chunk_sample,
      &variant);
  push_eos (h);
  collect (h, TRUE, 3, 4, RC_TYPE_FLOAT32, o);
  dropped[0] = stat_of (resample_of (h), "dropped-out-of-order");
  dropped[1] = stat_of (resample_of (h), "dropped-off-grid");
  gst_harness_teardown (h);
  if (allocator)
    gst_object_unref (allocator);
  g_free (caps);
}

/* Chunks of long trajectories on the GPU give the CPU's outputs from
 * system memory, from CUDA memory (only their ends come back when they
 * are in order and on the grid), page-locked memory (the memory the
 * element proposes, uploaded as it is) and pageable memory: in order,
 * with a trajectory far behind the others (from CUDA memory, the samples
 * kept reach past the ends read back), with a time going back (the chunk
 * dropped and counted alike) and with a time off the grid (the chunk
 * repacked on the host). */
GST_START_TEST (test_gpu_long_chunks)
{
  static const gchar *const methods[] = { "linear", "cubic" };
  static const gchar *const variants[] = { "in order", "a trajectory "
        "behind", "a time going back", "a time off the grid"
  };
  static const gchar *const memories[] = { "pageable", "page-locked",
    "CUDA"
  };

  if (gpu_case_skipped ())
    return;
  for (guint m = 0; m < G_N_ELEMENTS (methods); m++) {
    gchar *cpu = g_strdup_printf ("backend=cpu rate=250 method=%s",
        methods[m]);
    gchar *gpu = g_strdup_printf ("backend=gpu rate=250 method=%s",
        methods[m]);

    for (LongVariant v = LONG_PLAIN; v <= LONG_OFF_GRID; v++) {
      guint64 cpu_dropped[2], gpu_dropped[2];
      Outputs a, b;

      run_long_chunks (cpu, IN_PAGEABLE, v, &a, cpu_dropped);
      /* About 250 grid times a chunk kept (all three when none drops). */
      fail_unless (a.values->len >= (v == LONG_DISORDER ? 2 : 3) * 3 * 4 *
          (v == LONG_APART ? 120 : 250), "%s: %u values", variants[v],
          a.values->len);
      fail_unless_equals_uint64 (cpu_dropped[0], v == LONG_DISORDER);
      fail_unless_equals_uint64 (cpu_dropped[1], v == LONG_OFF_GRID);
      for (InMemory mem = IN_PAGEABLE; mem <= IN_CUDA; mem++) {
        gchar *what = g_strdup_printf ("%s, %s in, %s", methods[m],
            memories[mem], variants[v]);

        run_long_chunks (gpu, mem, v, &b, gpu_dropped);
        compare_outputs (what, &a, &b, RC_TYPE_FLOAT32);
        fail_unless_equals_uint64 (gpu_dropped[0], cpu_dropped[0]);
        fail_unless_equals_uint64 (gpu_dropped[1], cpu_dropped[1]);
        outputs_clear (&b);
        g_free (what);
      }
      outputs_clear (&a);
    }
    g_free (cpu);
    g_free (gpu);
  }
}

GST_END_TEST;

/* Grid times at 3000/7 a second (2,333,333.33 ns apart) from running
 * time 0, as buffer times in a segment from 0.5 s whose running time
 * starts at 3 s at @rate: each from its own scaling, independently of the
 * element's stepping. */
static gint64
expected_grid_time (const GstSegment * segment, guint64 k)
{
  GstClockTime rt = gst_util_uint64_scale (k, 7 * GST_SECOND, 3000);
  GstClockTime pts = gst_segment_position_from_running_time (segment,
      GST_FORMAT_TIME, rt);

  return (gint64) (GST_CLOCK_TIME_IS_VALID (pts) ? pts : rt);
}

/* Every time of every trajectory of the chunks @desc makes from 3 chunks
 * of long trajectories in @mem (with @sink_caps, downstream takes only
 * those) is the grid time its buffer's offset says, to the nanosecond. */
static void
check_grid_times (const gchar * desc, InMemory mem, const gchar * sink_caps,
    gdouble rate)
{
  gchar *caps = g_strdup_printf ("%s%s, channels=(int)4, "
      "format=(string)float32, layout=(string)chunk, batch=(int)3",
      GST_ROBOCACHE_VECTORS_MEDIA_TYPE,
      mem == IN_CUDA ? "(" GST_ROBOCACHE_CAPS_FEATURE_CUDA ")" : "");
  gchar *props = g_strdup_printf ("%s rate=3000/7 time-origin=zero", desc);
  GstHarness *h = resample_harness_to (props, caps, sink_caps);
  GstAllocator *allocator = mem != IN_PAGEABLE ?
      proposed_allocator (h, caps, NULL) : NULL;
  LongVariant plain = LONG_PLAIN;
  guint64 checked = 0;
  GstSegment segment;
  GstBuffer *out;

  gst_segment_init (&segment, GST_FORMAT_TIME);
  segment.start = segment.time = 500 * MS;
  segment.base = 3 * GST_SECOND;
  segment.rate = rate;
  fail_unless (gst_harness_push_event (h, gst_event_new_segment (&segment)));
  push_chunks (h, allocator, 3, LONG_SAMPLES, 4 * 4, long_chunk_sample,
      &plain);
  push_eos (h);
  if (mem == IN_CUDA)
    check_output_memory (h, sink_caps == NULL);
  while ((out = gst_harness_try_pull (h))) {
    guint64 k0 = GST_BUFFER_OFFSET (out), n = GST_BUFFER_OFFSET_END (out) - k0;
    GstMapInfo map;

    fail_unless (gst_buffer_map (out, &map, GST_MAP_READ));
    fail_unless_equals_uint64 (map.size, 3 * n * (8 + 4 * 4));
    fail_unless_equals_uint64 (GST_BUFFER_PTS (out),
        expected_grid_time (&segment, k0));
    for (guint b = 0; b < 3; b++) {
      for (guint64 i = 0; i < n; i++) {
        gint64 t = ((const gint64 *) map.data)[b * n + i];

        fail_unless_equals_int64_hex (t, expected_grid_time (&segment,
                k0 + i));
      }
    }
    checked += n;
    gst_buffer_unmap (out, &map);
    gst_buffer_unref (out);
  }
  /* 3.6 s of samples at 3000/7 a second (half as many at rate 2). */
  fail_unless (checked >= (rate == 1.0 ? 1500 : 750), "%" G_GUINT64_FORMAT
      " grid times", checked);
  gst_harness_teardown (h);
  if (allocator)
    gst_object_unref (allocator);
  g_free (props);
  g_free (caps);
}

/* A rate whose period is not a whole number of nanoseconds, in a segment
 * that moves running time from buffer time: each chunk's times are the
 * grid's, in every trajectory's row, on the CPU and (with a GPU) from
 * system memory, from CUDA memory into CUDA memory (the device repeats
 * one row) and from CUDA memory into system memory; a segment at rate 2
 * maps each time by itself. */
GST_START_TEST (test_chunk_grid_times_exact)
{
  check_grid_times ("backend=cpu", IN_PAGEABLE, NULL, 1.0);
  check_grid_times ("backend=cpu", IN_PAGEABLE, NULL, 2.0);
  if (gpu_case_skipped ())
    return;
  check_grid_times ("backend=gpu", IN_PAGEABLE, NULL, 1.0);
  check_grid_times ("backend=gpu", IN_CUDA, NULL, 1.0);
  check_grid_times ("backend=gpu", IN_CUDA, GST_ROBOCACHE_VECTORS_MEDIA_TYPE,
      1.0);
  check_grid_times ("backend=gpu", IN_CUDA, NULL, 2.0);
}

GST_END_TEST;

/* The samples kept and the chunks in flight are checked against
 * max-memory at negotiation (gstrobocachememory.h). */
GST_START_TEST (test_max_memory_n)
{
  check_max_memory ("robocachejointsrc num-buffers=50 ! robocacheresample "
      "backend=cpu rate=100 samples-per-buffer=10 %s ! fakesink");
}

GST_END_TEST;

/* A rate above 1 GHz would put grid times less than 1 ns apart, which
 * repeat as GstClockTime: refused at start; 1 GHz itself plays (over two
 * samples 100 us apart: 100,000 grid times, few enough for valgrind). */
GST_START_TEST (test_rate_above_1ghz_n)
{
  gchar *text = launch_error ("robocachejointsrc num-buffers=3 ! "
      "robocacheresample backend=cpu rate=1000000001/1 ! fakesink", FALSE);

  fail_unless (text && strstr (text, "rate 1000000001/1 is above "
          "1000000000 a second") && strstr (text, "accepted are rates up to "
          "1000000000/1"), "%s", GST_STR_NULL (text));
  g_free (text);
  text = launch_error ("robocachejointsrc num-buffers=2 rate=10000 ! "
      "robocacheresample backend=cpu rate=1000000000/1 ! fakesink", FALSE);
  fail_unless (text == NULL, "%s", text);
}

GST_END_TEST;

static Suite *
resample_suite (void)
{
  Suite *s = suite_create ("robocacheresample");
  TCase *tc = tcase_create ("general");

  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_jittered_333hz_to_100hz);
  tcase_add_test (tc, test_methods_by_hand);
  tcase_add_test (tc, test_cubic);
  tcase_add_test (tc, test_slerp_quaternions);
  tcase_add_test (tc, test_gap_event);
  tcase_add_test (tc, test_upstream_gap);
  tcase_add_test (tc, test_time_origin);
  tcase_add_test (tc, test_rate_refused_while_playing);
  tcase_add_test (tc, test_discont_restarts);
  tcase_add_test (tc, test_out_of_order_dropped_n);
  tcase_add_test (tc, test_bad_caps_n);
  tcase_add_test (tc, test_bad_size_dropped_n);
  tcase_add_test (tc, test_huge_sizes_refused_n);
  tcase_add_test (tc, test_max_memory_n);
  tcase_add_test (tc, test_rate_above_1ghz_n);
  tcase_add_test (tc, test_no_pts_n);
  tcase_add_test (tc, test_downstream_refuses_n);
  tcase_add_test (tc, test_latency);
  tcase_add_test (tc, test_pipeline_from_jointsrc);
  tcase_add_test (tc, test_chunk_in_out);
  tcase_add_test (tc, test_chunk_equal_times_later_wins);
  tcase_add_test (tc, test_sample_in_chunk_out);
  tcase_add_test (tc, test_bfloat16_chunks);
  tcase_add_test (tc, test_chunk_continuity_and_gap);
  tcase_add_test (tc, test_chunk_cut_invariance);
  tcase_add_test (tc, test_chunk_batch_edge);
  tcase_add_test (tc, test_chunk_batch_start);
  tcase_add_test (tc, test_chunk_off_grid_times_dropped_n);
  tcase_add_test (tc, test_gpu_matches_cpu);
  tcase_add_test (tc, test_gpu_chunk_in_flight_flushed);
  tcase_add_test (tc, test_gpu_chunk_cuts);
  tcase_add_test (tc, test_gpu_long_chunks);
  tcase_add_test (tc, test_chunk_grid_times_exact);
  return s;
}

GST_CHECK_MAIN (resample);
