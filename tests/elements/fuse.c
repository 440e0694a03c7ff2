/* robocachefuse: alignment on streams of known functions, nearest and
 * previous at boundaries, staleness, master-pad ticks, live behaviour
 * (latency, a stream that stops and comes back, a pad added while
 * playing), determinism offline, zero-copy (pillars too), and bad input
 * (wrong sizes, timestamps out of order, none at all, changing caps). */
#include <gst/check/gstcheck.h>
#include <gst/app/gstappsrc.h>
#include <gst/app/gstappsink.h>
#include <gst/video/video.h>
#include <math.h>
#include <string.h>

#include "elementutil.h"
#include "gstrobocachefusedmeta.h"

#define VEC_CAPS(d) GST_ROBOCACHE_VECTORS_MEDIA_TYPE ", channels=(int)" #d \
    ", format=(string)float32, layout=(string)sample"

/* Pushes one float32 sample of @d values at @pts. */
static void
push_sample (GstElement * appsrc, GstClockTime pts, const float *values,
    guint d)
{
  GstBuffer *buf = gst_buffer_new_memdup (values, d * sizeof (float));

  GST_BUFFER_PTS (buf) = pts;
  fail_unless_equals_int (gst_app_src_push_buffer (GST_APP_SRC (appsrc), buf),
      GST_FLOW_OK);
}

/* Pushes one-value samples @first to @last: sample i at i * 10 ms, holding
 * i. */
static void
push_counting (GstElement * appsrc, guint first, guint last)
{
  for (guint i = first; i <= last; i++) {
    float v = (float) i;
    push_sample (appsrc, i * 10 * GST_MSECOND, &v, 1);
  }
}

/* All samples of an appsink until EOS (or @max). */
static GPtrArray *
pull_all (GstElement * sink, guint max)
{
  GPtrArray *out = g_ptr_array_new_with_free_func ((GDestroyNotify)
      gst_sample_unref);
  GstSample *sample;

  while (out->len < max &&
      (sample = gst_app_sink_try_pull_sample (GST_APP_SINK (sink),
              10 * GST_SECOND)))
    g_ptr_array_add (out, sample);
  return out;
}

static float
value_of (GstBuffer * buf, const gchar * stream, guint channel)
{
  GstMapInfo map;
  float v;

  fail_unless (gst_robocache_fused_map_stream (buf, stream, &map, FALSE),
      "stream %s cannot be mapped", stream);
  v = ((const float *) map.data)[channel];
  gst_memory_unmap (map.memory, &map);
  return v;
}

static const GstRobocacheFusedStream *
stream_of (GstBuffer * buf, const gchar * name)
{
  const GstRobocacheFusedStream *s =
      gst_robocache_fused_meta_find (gst_buffer_get_robocache_fused_meta (buf),
      name);

  fail_unless (s != NULL, "no stream %s", name);
  return s;
}

/* Pushes @size bytes at @pts: for a 16-byte vector or point, 1, 10 and 17
 * are not a whole number of them. */
static void
push_bytes (GstElement * appsrc, GstClockTime pts, gsize size)
{
  GstBuffer *buf = gst_buffer_new_allocate (NULL, size, NULL);

  gst_buffer_memset (buf, 0, 0xff, size);
  GST_BUFFER_PTS (buf) = pts;
  fail_unless_equals_int (gst_app_src_push_buffer (GST_APP_SRC (appsrc), buf),
      GST_FLOW_OK);
}

/* The counter @field of the stats of @element's pad @pad (NULL: of the
 * element). */
static guint64
stat_of (GstElement * element, const gchar * pad, const gchar * field)
{
  GObject *object = pad ? G_OBJECT (pad_of (element, pad)) : G_OBJECT (element);
  GstStructure *stats = NULL;
  guint64 v = G_MAXUINT64;

  g_object_get (object, "stats", &stats, NULL);
  fail_unless (stats != NULL);
  /* check's printf knows no GST_PTR_FORMAT: the stats as text. */
  fail_unless (gst_structure_get_uint64 (stats, field, &v), "no %s in %s",
      field, gst_structure_to_string (stats));
  gst_structure_free (stats);
  return v;
}

/* The messages of the warnings on @pipeline's bus, taken off it. */
static GPtrArray *
warnings_of (GstElement * pipeline)
{
  GPtrArray *texts = g_ptr_array_new_with_free_func (g_free);
  GstBus *bus = GST_ELEMENT_BUS (pipeline);
  GstMessage *msg;

  while ((msg = pop_message (bus, GST_MESSAGE_WARNING))) {
    GError *err = NULL;
    gst_message_parse_warning (msg, &err, NULL);
    g_ptr_array_add (texts, g_strdup (err->message));
    g_error_free (err);
    gst_message_unref (msg);
  }
  return texts;
}

/* A 333 Hz stream whose values are linear in time, fused at 100 Hz, is
 * interpolated exactly at every tick; a second stream (nearest) lands in
 * its own memory. */
GST_START_TEST (test_linear_function_exact)
{
  GstElement *pipeline = gst_parse_launch ("robocachefuse name=f rate=100/1 "
      "flat-output=true ! appsink name=sink sync=false "
      "appsrc name=a format=time caps=\"" VEC_CAPS (2) "\" ! f.sink_0 "
      "appsrc name=b format=time caps=\"" VEC_CAPS (1) "\" ! f.sink_1", NULL);
  GstElement *a = by_name (pipeline, "a"), *b = by_name (pipeline, "b");
  GPtrArray *out;

  gst_util_set_object_arg (G_OBJECT (pad_of (by_name (pipeline, "f"),
              "sink_1")), "policy", "nearest");
  gst_element_set_state (pipeline, GST_STATE_PLAYING);
  /* 1 s at 333 Hz, times 3003003 ns apart: values 2t + 1 and -t. */
  for (guint i = 0; i <= 333; i++) {
    GstClockTime t = i * G_GUINT64_CONSTANT (3003003);
    float v[2] = { 2.0f * t / 1e9f + 1.0f, -(float) t / 1e9f };
    push_sample (a, t, v, 2);
  }
  for (guint i = 0; i <= 20; i++) {
    float v = (float) i;
    push_sample (b, i * 50 * GST_MSECOND, &v, 1);
  }
  gst_app_src_end_of_stream (GST_APP_SRC (a));
  gst_app_src_end_of_stream (GST_APP_SRC (b));

  out = pull_all (by_name (pipeline, "sink"), 1000);
  /* Ticks 0, 10 ms, ..., up to the last data (1 s). */
  fail_unless_equals_int (out->len, 101);
  for (guint k = 0; k < out->len; k++) {
    GstBuffer *buf = gst_sample_get_buffer (out->pdata[k]);
    double t = k * 0.01;
    GstMapInfo flat;
    fail_unless_equals_uint64 (GST_BUFFER_PTS (buf), k * 10 * GST_MSECOND);
    fail_unless_equals_uint64 (GST_BUFFER_DURATION (buf), 10 * GST_MSECOND);
    fail_unless (fabs (value_of (buf, "sink_0", 0) - (2 * t + 1)) < 1e-5,
        "tick %u: %f", k, value_of (buf, "sink_0", 0));
    fail_unless (fabs (value_of (buf, "sink_0", 1) + t) < 1e-5);
    /* nearest of samples every 50 ms: round (t / 0.05), ties to the
     * later. */
    fail_unless_equals_float (value_of (buf, "sink_1", 0),
        (float) floor (t / 0.05 + 0.5 + 1e-9));
    fail_unless (!stream_of (buf, "sink_0")->stale);
    /* An interpolated stream's pts and offset say the same sample: the
     * nearer neighbour (the offset was the farther's). */
    fail_unless_equals_int64 (stream_of (buf, "sink_0")->offset,
        GST_CLOCK_DIFF (GST_BUFFER_PTS (buf), stream_of (buf, "sink_0")->pts));
    fail_unless ((guint64) ABS (stream_of (buf, "sink_0")->offset) <=
        3003003 / 2);
    fail_unless (gst_robocache_fused_map_flat (buf, &flat));
    fail_unless_equals_int (flat.size, 3 * sizeof (float));
    fail_unless (fabs (((float *) flat.data)[0] - (2 * t + 1)) < 1e-5);
    gst_memory_unmap (flat.memory, &flat);
  }
  {
    GstCaps *caps = gst_sample_get_caps (out->pdata[0]);
    fail_unless_equals_string (gst_structure_get_string
        (gst_caps_get_structure (caps, 0), "streams"), "sink_0,sink_1");
  }
  g_ptr_array_unref (out);
  gst_element_set_state (pipeline, GST_STATE_NULL);
  gst_object_unref (pipeline);
}

GST_END_TEST;

/* previous takes the sample at or before the tick, nearest the closer one
 * (the later on a tie); the offset and source PTS say which. */
GST_START_TEST (test_nearest_previous_boundaries)
{
  GstElement *pipeline = gst_parse_launch ("robocachefuse name=f rate=10/1 "
      "! appsink name=sink sync=false "
      "appsrc name=a format=time caps=\"" VEC_CAPS (1) "\" ! f.sink_0 "
      "appsrc name=b format=time caps=\"" VEC_CAPS (1) "\" ! f.sink_1", NULL);
  GstElement *f = by_name (pipeline, "f");
  GstElement *a = by_name (pipeline, "a"), *b = by_name (pipeline, "b");
  /* Samples at 0, 60, 100, 150, 200 ms. */
  const GstClockTime times[] = { 0, 60, 100, 150, 200 };
  GPtrArray *out;

  g_object_set (pad_of (f, "sink_0"), "stream-name", "prev", NULL);
  gst_util_set_object_arg (G_OBJECT (pad_of (f, "sink_0")), "policy",
      "previous");
  g_object_set (pad_of (f, "sink_1"), "stream-name", "near", NULL);
  gst_util_set_object_arg (G_OBJECT (pad_of (f, "sink_1")), "policy",
      "nearest");
  gst_element_set_state (pipeline, GST_STATE_PLAYING);
  for (guint i = 0; i < G_N_ELEMENTS (times); i++) {
    float v = (float) times[i];
    push_sample (a, times[i] * GST_MSECOND, &v, 1);
    push_sample (b, times[i] * GST_MSECOND, &v, 1);
  }
  gst_app_src_end_of_stream (GST_APP_SRC (a));
  gst_app_src_end_of_stream (GST_APP_SRC (b));
  out = pull_all (by_name (pipeline, "sink"), 100);
  fail_unless_equals_int (out->len, 3); /* 0, 100, 200 ms */
  {
    GstBuffer *t100 = gst_sample_get_buffer (out->pdata[1]);
    /* At 100 ms both have a sample exactly there. */
    fail_unless_equals_float (value_of (t100, "prev", 0), 100.0f);
    fail_unless_equals_float (value_of (t100, "near", 0), 100.0f);
    fail_unless_equals_int64 (stream_of (t100, "prev")->offset, 0);
  }
  g_ptr_array_unref (out);
  gst_element_set_state (pipeline, GST_STATE_NULL);
  gst_object_unref (pipeline);

  /* Ticks at 50 ms (rate 20/1): previous = 0, nearest = 60 (10 ms away
   * vs 50); at 150 ms: both 150. */
  pipeline = gst_parse_launch ("robocachefuse name=f rate=20/1 "
      "! appsink name=sink sync=false "
      "appsrc name=a format=time caps=\"" VEC_CAPS (1) "\" ! f.sink_0 "
      "appsrc name=b format=time caps=\"" VEC_CAPS (1) "\" ! f.sink_1", NULL);
  f = by_name (pipeline, "f");
  a = by_name (pipeline, "a");
  b = by_name (pipeline, "b");
  gst_util_set_object_arg (G_OBJECT (pad_of (f, "sink_0")), "policy",
      "previous");
  gst_util_set_object_arg (G_OBJECT (pad_of (f, "sink_1")), "policy",
      "nearest");
  gst_element_set_state (pipeline, GST_STATE_PLAYING);
  for (guint i = 0; i < G_N_ELEMENTS (times); i++) {
    float v = (float) times[i];
    push_sample (a, times[i] * GST_MSECOND, &v, 1);
    push_sample (b, times[i] * GST_MSECOND, &v, 1);
  }
  gst_app_src_end_of_stream (GST_APP_SRC (a));
  gst_app_src_end_of_stream (GST_APP_SRC (b));
  out = pull_all (by_name (pipeline, "sink"), 100);
  fail_unless_equals_int (out->len, 5); /* 0, 50, ..., 200 ms */
  {
    GstBuffer *t50 = gst_sample_get_buffer (out->pdata[1]);
    fail_unless_equals_float (value_of (t50, "sink_0", 0), 0.0f);
    fail_unless_equals_int64 (stream_of (t50, "sink_0")->offset,
        -50 * GST_MSECOND);
    fail_unless_equals_float (value_of (t50, "sink_1", 0), 60.0f);
    fail_unless_equals_int64 (stream_of (t50, "sink_1")->offset,
        10 * GST_MSECOND);
    fail_unless_equals_uint64 (stream_of (t50, "sink_1")->pts,
        60 * GST_MSECOND);
  }
  g_ptr_array_unref (out);
  gst_element_set_state (pipeline, GST_STATE_NULL);
  gst_object_unref (pipeline);
}

GST_END_TEST;

/* A stream that ends early is held until max-age, then stale; with
 * stale-policy=drop those ticks disappear. */
GST_START_TEST (test_staleness_and_drop)
{
  for (gint drop = 0; drop <= 1; drop++) {
    gchar *desc = g_strdup_printf ("robocachefuse name=f rate=10/1 "
        "stale-policy=%s ! appsink name=sink sync=false "
        "appsrc name=a format=time caps=\"" VEC_CAPS (1) "\" ! f.sink_0 "
        "appsrc name=b format=time caps=\"" VEC_CAPS (1) "\" ! f.sink_1",
        drop ? "drop" : "mark");
    GstElement *pipeline = gst_parse_launch (desc, NULL);
    GstElement *f = by_name (pipeline, "f");
    GstElement *a = by_name (pipeline, "a"), *b = by_name (pipeline, "b");
    GstStructure *stats;
    guint64 dropped = 0;
    GPtrArray *out;

    g_object_set (pad_of (f, "sink_1"), "max-age",
        (guint64) 250 * GST_MSECOND, NULL);
    gst_element_set_state (pipeline, GST_STATE_PLAYING);
    /* a: 0..1 s every 100 ms; b: only at 0 and 100 ms. */
    for (guint i = 0; i <= 10; i++) {
      float v = (float) i;
      push_sample (a, i * 100 * GST_MSECOND, &v, 1);
      if (i < 2)
        push_sample (b, i * 100 * GST_MSECOND, &v, 1);
    }
    gst_app_src_end_of_stream (GST_APP_SRC (a));
    gst_app_src_end_of_stream (GST_APP_SRC (b));
    out = pull_all (by_name (pipeline, "sink"), 100);
    if (!drop) {
      fail_unless_equals_int (out->len, 11);
      for (guint k = 0; k < out->len; k++) {
        GstBuffer *buf = gst_sample_get_buffer (out->pdata[k]);
        const GstRobocacheFusedStream *s = stream_of (buf, "sink_1");
        /* Held from 100 ms: stale once more than 250 ms old. */
        fail_unless_equals_int (s->stale, k * 100 > 350);
        fail_unless_equals_float (value_of (buf, "sink_1", 0),
            k == 0 ? 0.0f : 1.0f);
      }
    } else {
      fail_unless_equals_int (out->len, 4);     /* 0 .. 300 ms */
      g_object_get (f, "stats", &stats, NULL);
      gst_structure_get_uint64 (stats, "dropped-ticks", &dropped);
      fail_unless_equals_uint64 (dropped, 7);
      gst_structure_free (stats);
    }
    g_ptr_array_unref (out);
    gst_element_set_state (pipeline, GST_STATE_NULL);
    gst_object_unref (pipeline);
    g_free (desc);
  }
}

GST_END_TEST;

/* rate=0/1: one tick per buffer of the master pad, at its times. */
GST_START_TEST (test_master_pad)
{
  GstElement *pipeline = gst_parse_launch ("robocachefuse name=f rate=0/1 "
      "! appsink name=sink sync=false "
      "appsrc name=a format=time caps=\"" VEC_CAPS (1) "\" ! f.sink_0 "
      "appsrc name=cam format=time caps=\"" VEC_CAPS (1) "\" ! f.sink_1",
      NULL);
  GstElement *f = by_name (pipeline, "f");
  GstElement *a = by_name (pipeline, "a"), *cam = by_name (pipeline, "cam");
  const GstClockTime frames[] = { 5, 38, 71, 109 };
  GPtrArray *out;

  g_object_set (pad_of (f, "sink_1"), "master", TRUE, NULL);
  gst_element_set_state (pipeline, GST_STATE_PLAYING);
  for (guint i = 0; i <= 12; i++) {
    float v = (float) (i * 10);
    push_sample (a, i * 10 * GST_MSECOND, &v, 1);
  }
  for (guint i = 0; i < G_N_ELEMENTS (frames); i++) {
    float v = (float) i;
    push_sample (cam, frames[i] * GST_MSECOND, &v, 1);
  }
  gst_app_src_end_of_stream (GST_APP_SRC (a));
  gst_app_src_end_of_stream (GST_APP_SRC (cam));
  out = pull_all (by_name (pipeline, "sink"), 100);
  fail_unless_equals_int (out->len, G_N_ELEMENTS (frames));
  for (guint k = 0; k < out->len; k++) {
    GstBuffer *buf = gst_sample_get_buffer (out->pdata[k]);
    fail_unless_equals_uint64 (GST_BUFFER_PTS (buf), frames[k] * GST_MSECOND);
    fail_unless_equals_float (value_of (buf, "sink_1", 0), (float) k);
    /* The vector stream, interpolated at the frame's time: v = t in ms. */
    fail_unless (fabsf (value_of (buf, "sink_0", 0) - frames[k]) < 1e-3f);
    fail_unless_equals_int64 (stream_of (buf, "sink_1")->offset, 0);
  }
  g_ptr_array_unref (out);
  gst_element_set_state (pipeline, GST_STATE_NULL);
  gst_object_unref (pipeline);
}

GST_END_TEST;

/* Offline: the same inputs give byte-identical outputs. */
static GChecksum *
offline_run (void)
{
  GstElement *pipeline = gst_parse_launch ("robocachefuse name=f rate=25/1 "
      "flat-output=true ! appsink name=sink sync=false "
      "robocachejointsrc num-buffers=200 seed=4 jitter=0.3 dropout=0.1 ! "
      "f.sink_0 robocachelidarsrc num-buffers=5 points-per-sweep=2048 ! "
      "robocachevoxelize backend=cpu dims=\"<32,32,8>\" voxel-size=\"<1.0>\" "
      "origin=\"<-16.0,-16.0,-4.0>\" ! f.sink_1 "
      "videotestsrc num-buffers=15 pattern=ball ! "
      "video/x-raw,format=I420,width=32,height=24,framerate=30/1 ! f.sink_2",
      NULL);
  GChecksum *sum = g_checksum_new (G_CHECKSUM_SHA256);
  GPtrArray *out;

  gst_element_set_state (pipeline, GST_STATE_PLAYING);
  out = pull_all (by_name (pipeline, "sink"), 1000);
  fail_unless (out->len >= 20, "%u ticks", out->len);
  for (guint k = 0; k < out->len; k++) {
    GstBuffer *buf = gst_sample_get_buffer (out->pdata[k]);
    GstRobocacheFusedMeta *meta = gst_buffer_get_robocache_fused_meta (buf);
    GstMapInfo map;
    fail_unless (gst_buffer_map (buf, &map, GST_MAP_READ));
    g_checksum_update (sum, map.data, map.size);
    gst_buffer_unmap (buf, &map);
    for (guint s = 0; s < meta->n_streams; s++) {
      g_checksum_update (sum, (const guchar *) &meta->streams[s].offset,
          sizeof (meta->streams[s].offset));
      g_checksum_update (sum, (const guchar *) &meta->streams[s].stale,
          sizeof (meta->streams[s].stale));
    }
  }
  g_ptr_array_unref (out);
  gst_element_set_state (pipeline, GST_STATE_NULL);
  gst_object_unref (pipeline);
  return sum;
}

static GstPadProbeReturn
check_caps_event (GstPad * pad, GstPadProbeInfo * info, gpointer n_caps)
{
  GstEvent *event = GST_PAD_PROBE_INFO_EVENT (info);
  GstCaps *caps;

  if (GST_EVENT_TYPE (event) == GST_EVENT_CAPS) {
    gchar *text;

    gst_event_parse_caps (event, &caps);
    text = gst_caps_to_string (caps);
    fail_unless (gst_structure_has_field (gst_caps_get_structure (caps, 0),
            "streams"), "caps without streams: %s", text);
    g_free (text);
    (*(guint *) n_caps)++;
  }
  return GST_PAD_PROBE_OK;
}

/* Every caps event downstream names the streams: none of the template
 * fixated before the first tick (framerate 0/1, no streams). */
GST_START_TEST (test_caps_name_streams)
{
  GstElement *pipeline = gst_parse_launch ("robocachefuse name=f rate=25/1 "
      "! appsink name=sink sync=false "
      "robocachejointsrc num-buffers=20 ! f.sink_0", NULL);
  GstPad *src = gst_element_get_static_pad (by_name (pipeline, "f"), "src");
  GPtrArray *out;
  guint n_caps = 0;

  gst_pad_add_probe (src, GST_PAD_PROBE_TYPE_EVENT_DOWNSTREAM,
      check_caps_event, &n_caps, NULL);
  gst_element_set_state (pipeline, GST_STATE_PLAYING);
  out = pull_all (by_name (pipeline, "sink"), 100);
  fail_unless (out->len > 0);
  fail_unless_equals_int (n_caps, 1);
  g_ptr_array_unref (out);
  gst_object_unref (src);
  gst_element_set_state (pipeline, GST_STATE_NULL);
  gst_object_unref (pipeline);
}

GST_END_TEST;

/* Stream names that cannot tell the streams of a frame apart: a comma
 * (the caps' separator) or one name on two pads, also a stream-name equal
 * to another pad's own name; an element error naming the pads, where the
 * caps were ambiguous and the meta found only the first. */
GST_START_TEST (test_stream_names_refused_n)
{
  const struct
  {
    const gchar *names, *words;
  } cases[] = {
    {"sink_0::stream-name=a,b", "\"a,b\" of sink_0 holds a comma"},
    {"sink_0::stream-name=arm sink_1::stream-name=arm",
        "sink_0 and sink_1 both name their stream \"arm\""},
    {"sink_0::stream-name=sink_1",
        "sink_0 and sink_1 both name their stream \"sink_1\""},
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++) {
    gchar *launch = g_strdup_printf ("robocachefuse name=f rate=10/1 %s ! "
        "fakesink robocachejointsrc num-buffers=5 ! f.sink_0 "
        "robocachejointsrc num-buffers=5 ! f.sink_1", cases[i].names);
    gchar *error = launch_error (launch, FALSE);

    fail_unless (error != NULL, "%s: no error", launch);
    fail_unless (strstr (error, cases[i].words) != NULL, "%s", error);
    g_free (error);
    g_free (launch);
  }
  /* Names of their own play. */
  fail_unless (launch_error ("robocachefuse name=f rate=10/1 "
          "sink_0::stream-name=arm sink_1::stream-name=sink_0 ! fakesink "
          "robocachejointsrc num-buffers=5 ! f.sink_0 "
          "robocachejointsrc num-buffers=5 ! f.sink_1", FALSE) == NULL);
}

GST_END_TEST;

/* Caps downstream refuses (a capsfilter's framerate that is not the rate
 * property's): an error saying where the fields come from, where it was
 * a bare not-negotiated. */
GST_START_TEST (test_caps_refused_downstream_n)
{
  gchar *error = launch_error ("robocachefuse name=f rate=10/1 ! "
      GST_ROBOCACHE_FUSED_MEDIA_TYPE ",framerate=30/1 ! fakesink "
      "robocachejointsrc num-buffers=5 ! f.sink_0", FALSE);

  fail_unless (error != NULL);
  fail_unless (strstr (error, "downstream refuses the fused frames' caps") &&
      strstr (error, "framerate: the rate property") &&
      strstr (error, "framerate=(fraction)30/1"), "%s", error);
  g_free (error);
}

GST_END_TEST;

/* The pads' properties from a gst-launch description, given before the
 * links that request the pads (no such property before 2026-11-30). */
GST_START_TEST (test_pad_properties_launched)
{
  GstElement *pipeline = gst_parse_launch ("robocachefuse name=f rate=0/1 "
      "sink_1::master=true sink_1::max-age=100000000 sink_0::policy=nearest "
      "! fakesink robocachejointsrc ! f.sink_0 robocachejointsrc ! f.sink_1",
      NULL);
  GstElement *f = by_name (pipeline, "f");
  guint64 max_age;
  gboolean master;
  gchar *policy;

  g_object_get (pad_of (f, "sink_1"), "max-age", &max_age, "master",
      &master, NULL);
  policy = property_string (G_OBJECT (pad_of (f, "sink_0")), "policy");
  fail_unless_equals_uint64 (max_age, 100 * GST_MSECOND);
  fail_unless (master);
  fail_unless_equals_string (policy, "nearest");
  g_free (policy);
  gst_object_unref (pipeline);
}

GST_END_TEST;

GST_START_TEST (test_offline_deterministic)
{
  GChecksum *a = offline_run (), *b = offline_run ();

  fail_unless_equals_string (g_checksum_get_string (a),
      g_checksum_get_string (b));
  g_checksum_free (a);
  g_checksum_free (b);
}

GST_END_TEST;

/* The camera memories that left the source: a fused frame must hold one
 * of them, not a copy. */
static GHashTable *camera_memories;

static GstPadProbeReturn
remember_memory (GstPad * pad, GstPadProbeInfo * info, gpointer unused)
{
  g_hash_table_add (camera_memories,
      gst_buffer_peek_memory (GST_PAD_PROBE_INFO_BUFFER (info), 0));
  return GST_PAD_PROBE_OK;
}

GST_START_TEST (test_zero_copy_three_sensors)
{
  GstElement *pipeline = gst_parse_launch ("robocachefuse name=f rate=0/1 "
      "! appsink name=sink sync=false max-buffers=1 "
      "videotestsrc num-buffers=5 name=cam ! "
      "video/x-raw,format=I420,width=64,height=48,framerate=30/1 ! f.sink_0 "
      "robocachejointsrc num-buffers=30 ! f.sink_1 "
      "robocachelidarsrc num-buffers=2 points-per-sweep=1024 ! "
      "robocachevoxelize ! f.sink_2", NULL);
  GstElement *f = by_name (pipeline, "f");
  GstPad *cam_src = gst_element_get_static_pad (by_name (pipeline, "cam"),
      "src");
  GstSample *sample;
  guint n = 0;

  camera_memories = g_hash_table_new (NULL, NULL);
  g_object_set (pad_of (f, "sink_0"), "stream-name",
      "camera", "master", TRUE, NULL);
  gst_pad_add_probe (cam_src, GST_PAD_PROBE_TYPE_BUFFER, remember_memory,
      NULL, NULL);
  gst_element_set_state (pipeline, GST_STATE_PLAYING);
  while ((sample = gst_app_sink_try_pull_sample (GST_APP_SINK (by_name
                  (pipeline, "sink")), 10 * GST_SECOND))) {
    GstBuffer *buf = gst_sample_get_buffer (sample);
    const GstRobocacheFusedStream *cam = stream_of (buf, "camera");
    fail_unless (cam->memory_index >= 0);
    fail_unless (g_hash_table_contains (camera_memories,
            gst_buffer_peek_memory (buf, cam->memory_index)),
        "the camera memory was copied");
    fail_unless_equals_uint64 (gst_memory_get_sizes (gst_buffer_peek_memory
            (buf, cam->memory_index), NULL, NULL), 64 * 48 * 3 / 2);
    fail_unless (stream_of (buf, "sink_1") != NULL);
    fail_unless (stream_of (buf, "sink_2") != NULL);
    n++;
    gst_sample_unref (sample);
  }
  fail_unless_equals_int (n, 5);
  g_hash_table_unref (camera_memories);
  gst_object_unref (cam_src);
  gst_element_set_state (pipeline, GST_STATE_NULL);
  gst_object_unref (pipeline);
}

GST_END_TEST;

/* The demo's live fusion (pipelines/fuse.sh, shortened): the latency is
 * configured without the aggregator's "Impossible to configure latency"
 * warning, which the sources' answers before their caps once caused. */
GST_START_TEST (test_live_three_sensors_no_warning)
{
  GstElement *pipeline = gst_parse_launch ("robocachefuse name=f rate=30/1 "
      "! fakesink sync=false "
      "videotestsrc is-live=true num-buffers=9 ! "
      "video/x-raw,format=I420,width=64,height=48,framerate=30/1 ! f.sink_0 "
      "robocachejointsrc is-live=true rate=200/1 num-buffers=60 ! f.sink_1 "
      "robocachelidarsrc is-live=true num-buffers=3 points-per-sweep=1024 ! "
      "robocachevoxelize backend=cpu ! f.sink_2", NULL);
  GstMessage *msg = run_to_end_or (pipeline, 30 * GST_SECOND,
      GST_MESSAGE_WARNING);

  if (msg) {
    GError *err = NULL;
    gchar *debug = NULL;
    if (GST_MESSAGE_TYPE (msg) == GST_MESSAGE_WARNING)
      gst_message_parse_warning (msg, &err, &debug);
    else
      gst_message_parse_error (msg, &err, &debug);
    fail ("%s from %s: %s (%s)", GST_MESSAGE_TYPE_NAME (msg),
        GST_MESSAGE_SRC_NAME (msg), err->message, debug);
  }
  gst_object_unref (pipeline);
}

GST_END_TEST;

/* Direct zero-copy check: the memory pushed on a pad is the memory in the
 * fused buffer. */
GST_START_TEST (test_memory_referenced)
{
  GstElement *pipeline = gst_parse_launch ("robocachefuse name=f rate=0/1 "
      "! appsink name=sink sync=false "
      "appsrc name=a format=time caps=\"" VEC_CAPS (4) "\" ! f.sink_0", NULL);
  GstElement *a = by_name (pipeline, "a");
  const float v[4] = { 1, 2, 3, 4 };
  GstBuffer *in = gst_buffer_new_memdup (v, sizeof (v));
  GstMemory *mem = gst_buffer_peek_memory (in, 0);
  GstSample *sample;
  GstBuffer *out;

  GST_BUFFER_PTS (in) = 0;
  gst_element_set_state (pipeline, GST_STATE_PLAYING);
  gst_app_src_push_buffer (GST_APP_SRC (a), in);
  gst_app_src_end_of_stream (GST_APP_SRC (a));
  sample = gst_app_sink_pull_sample (GST_APP_SINK (by_name (pipeline, "sink")));
  fail_unless (sample != NULL);
  out = gst_sample_get_buffer (sample);
  fail_unless (gst_buffer_peek_memory (out, stream_of (out,
              "sink_0")->memory_index) == mem);
  gst_sample_unref (sample);
  gst_element_set_state (pipeline, GST_STATE_NULL);
  gst_object_unref (pipeline);
}

GST_END_TEST;

/* Live: latency is reported, a stream that stops goes stale without
 * blocking the others, recovers when it comes back, and a pad added while
 * playing joins the frame. */
GST_START_TEST (test_live_stop_recover_add_pad)
{
  GstElement *pipeline = gst_parse_launch ("robocachefuse name=f rate=50/1 "
      "latency=20000000 ! appsink name=sink sync=false "
      "robocachejointsrc is-live=true rate=200/1 ! f.sink_0 "
      "appsrc name=b is-live=true format=time do-timestamp=true "
      "min-latency=0 max-latency=1000000000 caps=\""
      VEC_CAPS (1) "\" ! f.sink_1", NULL);
  GstElement *f = by_name (pipeline, "f"), *b = by_name (pipeline, "b");
  GstElement *sink = by_name (pipeline, "sink");
  GstQuery *latency = gst_query_new_latency ();
  gboolean live, saw_stale = FALSE, recovered = FALSE, joined = FALSE;
  GstClockTime min_latency = 0;
  gint64 end;

  g_object_set (pad_of (f, "sink_1"), "max-age",
      (guint64) 60 * GST_MSECOND, NULL);
  gst_element_set_state (pipeline, GST_STATE_PLAYING);
  end = g_get_monotonic_time () + 3 * G_USEC_PER_SEC;
  for (guint i = 0; g_get_monotonic_time () < end; i++) {
    GstSample *sample;
    gint64 now = g_get_monotonic_time ();
    gboolean silent = now > end - 2 * G_USEC_PER_SEC &&
        now < end - G_USEC_PER_SEC;
    float v = (float) i;
    /* b: every 10 ms, silent for the middle second. */
    if (!silent) {
      GstBuffer *buf = gst_buffer_new_memdup (&v, sizeof (v));
      gst_app_src_push_buffer (GST_APP_SRC (b), buf);
    }
    while ((sample = gst_app_sink_try_pull_sample (GST_APP_SINK (sink), 0))) {
      GstBuffer *out = gst_sample_get_buffer (sample);
      const GstRobocacheFusedStream *s = stream_of (out, "sink_1");
      if (s->stale)
        saw_stale = TRUE;
      else if (saw_stale)
        recovered = TRUE;
      if (gst_robocache_fused_meta_find (gst_buffer_get_robocache_fused_meta
              (out), "late"))
        joined = TRUE;
      gst_sample_unref (sample);
    }
    if (i == 50) {
      GstElement *late = gst_parse_bin_from_description
          ("robocachejointsrc is-live=true rate=100/1 dof=2", TRUE, NULL);
      GstPad *pad = gst_element_request_pad_simple (f, "sink_%u");
      GstPad *src = gst_element_get_static_pad (late, "src");
      g_object_set (pad, "stream-name", "late", NULL);
      gst_bin_add (GST_BIN (pipeline), late);
      fail_unless_equals_int (gst_pad_link (src, pad), GST_PAD_LINK_OK);
      gst_element_sync_state_with_parent (late);
      gst_object_unref (src);
      gst_object_unref (pad);
    }
    if (i == 40) {
      /* The fuse's own answer (a sink with sync=false reports not live). */
      fail_unless (gst_element_query (f, latency));
      gst_query_parse_latency (latency, &live, &min_latency, NULL);
    }
    g_usleep (10000);
  }
  gst_element_set_state (pipeline, GST_STATE_NULL);
  fail_unless (live);
  /* At least the fuse's own latency property. */
  fail_unless (min_latency >= 20 * GST_MSECOND, "latency %" GST_TIME_FORMAT,
      GST_TIME_ARGS (min_latency));
  fail_unless (saw_stale, "the silent stream was never marked stale");
  fail_unless (recovered, "the stream did not recover");
  fail_unless (joined, "the pad added while playing never appeared");
  gst_query_unref (latency);
  gst_object_unref (pipeline);
}

GST_END_TEST;

static void
count_frame (GstElement * sink, GstBuffer * buffer, GstPad * pad, gint * frames)
{
  g_atomic_int_inc (frames);
}

/* rate=0/1, live: a pad made master while playing whose queue holds
 * buffers that came after the ticks at their times (a late sensor) ticks
 * from its first buffer after the last tick; the ticks went back to those
 * buffers' times before. */
GST_START_TEST (test_master_switch_never_back)
{
  GstElement *pipeline = gst_parse_launch ("robocachefuse name=f rate=0/1 "
      "latency=0 ! appsink name=sink sync=false "
      "appsrc name=a is-live=true format=time min-latency=0 caps=\""
      VEC_CAPS (1) "\" ! f.sink_0 "
      "appsrc name=b is-live=true format=time min-latency=0 caps=\""
      VEC_CAPS (1) "\" ! f.sink_1", NULL);
  GstElement *a = by_name (pipeline, "a"), *b = by_name (pipeline, "b");
  GstElement *sink = by_name (pipeline, "sink");
  GstClockTime last = 0;
  float v = 1;

  gst_element_set_state (pipeline, GST_STATE_PLAYING);
  for (guint i = 0; i < 4; i++)
    push_sample (a, i * 100 * GST_MSECOND, &v, 1);
  g_ptr_array_unref (pull_all (sink, 4));
  /* Late: at 50 and 150 ms, after the ticks up to 300 ms; no tick takes
   * them before the switch (a made the ticks, and sends no more). */
  push_sample (b, 50 * GST_MSECOND, &v, 1);
  push_sample (b, 150 * GST_MSECOND, &v, 1);
  g_usleep (100000);
  g_object_set (pad_of (by_name (pipeline, "f"), "sink_1"), "master", TRUE,
      NULL);
  /* a goes on (its buffer wakes the fusion up). */
  push_sample (a, 400 * GST_MSECOND, &v, 1);
  push_sample (b, 350 * GST_MSECOND, &v, 1);
  push_sample (b, 450 * GST_MSECOND, &v, 1);
  for (guint i = 0; i < 2; i++) {
    GstSample *sample = gst_app_sink_try_pull_sample (GST_APP_SINK (sink),
        10 * GST_SECOND);
    GstClockTime pts;

    fail_unless (sample != NULL, "no frame %u after the switch", i);
    pts = GST_BUFFER_PTS (gst_sample_get_buffer (sample));
    fail_unless (pts > MAX (last, 300 * GST_MSECOND), "a tick at %"
        GST_TIME_FORMAT " after one at %" GST_TIME_FORMAT,
        GST_TIME_ARGS (pts), GST_TIME_ARGS (MAX (last, 300 * GST_MSECOND)));
    last = pts;
    gst_sample_unref (sample);
  }
  gst_element_set_state (pipeline, GST_STATE_NULL);
  gst_object_unref (pipeline);
}

GST_END_TEST;

/* A seek no stream can take (live sensors: not seekable; a reverse one)
 * is refused by the fuse itself: GstAggregator stopped its task for the
 * flush and, upstream refusing, never started it again (no frame after
 * it). */
GST_START_TEST (test_seek_refused)
{
  GstElement *pipeline = gst_parse_launch ("robocachefuse name=f rate=50/1 "
      "! appsink name=sink sync=false robocachejointsrc ! f.sink_0", NULL);
  GstElement *sink = by_name (pipeline, "sink");

  gst_element_set_state (pipeline, GST_STATE_PLAYING);
  g_ptr_array_unref (pull_all (sink, 5));
  fail_if (gst_element_seek_simple (pipeline, GST_FORMAT_TIME,
          GST_SEEK_FLAG_FLUSH, 0));
  fail_if (gst_element_seek (pipeline, -1.0, GST_FORMAT_TIME,
          GST_SEEK_FLAG_FLUSH, GST_SEEK_TYPE_SET, 0, GST_SEEK_TYPE_NONE, -1));
  for (guint i = 0; i < 5; i++) {
    GstSample *sample = gst_app_sink_try_pull_sample (GST_APP_SINK (sink),
        10 * GST_SECOND);

    fail_unless (sample != NULL, "no frame %u after the refused seeks", i);
    gst_sample_unref (sample);
  }
  gst_element_set_state (pipeline, GST_STATE_NULL);
  gst_object_unref (pipeline);
}

GST_END_TEST;

/* flat-output with no vector stream (a lidar alone, or the joints not
 * yet negotiated): the flat vector is empty, 0 channels (it was one float
 * never written). */
GST_START_TEST (test_flat_without_vectors)
{
  GstElement *pipeline = gst_parse_launch ("robocachefuse name=f rate=10/1 "
      "flat-output=true ! appsink name=sink sync=false "
      "robocachelidarsrc num-buffers=3 points-per-sweep=64 ! f.sink_0", NULL);
  GPtrArray *out;
  GstMapInfo flat;
  GstBuffer *buf;

  gst_element_set_state (pipeline, GST_STATE_PLAYING);
  out = pull_all (by_name (pipeline, "sink"), 1);
  fail_unless_equals_int (out->len, 1);
  buf = gst_sample_get_buffer (g_ptr_array_index (out, 0));
  fail_unless_equals_int (gst_buffer_get_robocache_fused_meta
      (buf)->flat_channels, 0);
  fail_unless (gst_robocache_fused_map_flat (buf, &flat));
  fail_unless_equals_int (flat.size, 0);
  gst_memory_unmap (flat.memory, &flat);
  g_ptr_array_unref (out);
  gst_element_set_state (pipeline, GST_STATE_NULL);
  gst_object_unref (pipeline);
}

GST_END_TEST;

/* Pads requested and released over and over while playing, each with a
 * source of its own: the timeline may hold a pad that is released under
 * it (the base class's inactivity check aborted on such a pad), and the
 * fusion goes on with the pads that stay. */
GST_START_TEST (test_release_pads_while_playing)
{
  GstElement *pipeline = gst_parse_launch ("robocachefuse name=f rate=20/1 "
      "! fakesink name=sink sync=true signal-handoffs=true "
      "robocachejointsrc name=stays num-buffers=100000 ! f.sink_0", NULL);
  GstElement *f = by_name (pipeline, "f"), *sink = by_name (pipeline, "sink");
  GstBus *bus = gst_element_get_bus (pipeline);
  GstMessage *error;
  gint frames = 0, frames_before_last;

  g_signal_connect (sink, "handoff", G_CALLBACK (count_frame), &frames);
  gst_element_set_state (pipeline, GST_STATE_PLAYING);
  for (guint i = 0; i < 150; i++) {
    GstElement *branch = gst_parse_bin_from_description
        ("robocachejointsrc rate=100/1 dof=3 ! queue", TRUE, NULL);
    GstPad *pad = gst_element_request_pad_simple (f, "sink_%u");
    GstPad *src = gst_element_get_static_pad (branch, "src");

    gst_bin_add (GST_BIN (pipeline), branch);
    fail_unless_equals_int (gst_pad_link (src, pad), GST_PAD_LINK_OK);
    gst_element_sync_state_with_parent (branch);
    g_usleep (g_random_int_range (1000, 20000));
    /* Released first: that flushes the pad, which unblocks the branch;
     * locked, so that the playing pipeline never sets it back. */
    gst_element_release_request_pad (f, pad);
    gst_element_set_locked_state (branch, TRUE);
    gst_element_set_state (branch, GST_STATE_NULL);
    gst_bin_remove (GST_BIN (pipeline), branch);
    gst_object_unref (src);
    gst_object_unref (pad);
  }
  frames_before_last = g_atomic_int_get (&frames);
  g_usleep (300000);
  /* A branch's source may say not-linked once its pad is gone (no
   * probe blocks it here); the fusion and the stream that stays may not
   * fail. */
  while ((error = gst_bus_pop_filtered (bus, GST_MESSAGE_ERROR))) {
    const gchar *from = GST_MESSAGE_SRC_NAME (error);
    GError *e;

    gst_message_parse_error (error, &e, NULL);
    fail_if (!strcmp (from, "f") || !strcmp (from, "sink") ||
        !strcmp (from, "stays"), "error from %s: %s", from, e->message);
    g_error_free (e);
    gst_message_unref (error);
  }
  fail_unless (g_atomic_int_get (&frames) > frames_before_last,
      "no frame after the last release");
  gst_element_set_state (pipeline, GST_STATE_NULL);
  fail_unless_equals_int (GST_ELEMENT (f)->numsinkpads, 1);
  gst_object_unref (bus);
  gst_object_unref (pipeline);
}

GST_END_TEST;

/* Buffers of the wrong size (1, 10, 17 bytes on a 4 x float32 vectors pad
 * and a 16-byte points pad) never reach a frame: they are dropped on
 * arrival, counted and warned about once per pad, and the valid buffers
 * around them are fused as if they had never come. */
GST_START_TEST (test_bad_size_dropped)
{
  GstElement *pipeline = gst_parse_launch ("robocachefuse name=f rate=20/1 "
      "! appsink name=sink sync=false "
      "appsrc name=v format=time caps=\"" VEC_CAPS (4) "\" ! f.sink_0 "
      "appsrc name=p format=time ! f.sink_1", NULL);
  GstElement *f = by_name (pipeline, "f");
  GstElement *v = by_name (pipeline, "v"), *p = by_name (pipeline, "p");
  GstCaps *xyzi = gst_caps_from_string (XYZI_CAPS);
  const gsize bad[] = { 1, 10, 17 };
  GPtrArray *out, *warnings;

  /* (The caps' quoted fields do not fit in a launch line's quotes.) */
  g_object_set (p, "caps", xyzi, NULL);
  gst_caps_unref (xyzi);
  gst_element_set_state (pipeline, GST_STATE_PLAYING);
  /* Valid at 0, 100, 200, 300 ms (values: the time in ms), a bad size
   * half-way between each. */
  for (guint i = 0; i <= 3; i++) {
    float t = (float) (i * 100);
    float vec[4] = { t, t + 1, t + 2, t + 3 }, xyzi[4] = { t, 0, 0, 1 };
    push_sample (v, i * 100 * GST_MSECOND, vec, 4);
    fail_unless_equals_int (gst_app_src_push_buffer (GST_APP_SRC (p),
            xyzi_buffer (xyzi, 1, i * 100 * GST_MSECOND)), GST_FLOW_OK);
    if (i == 3)
      break;
    push_bytes (v, (i * 100 + 50) * GST_MSECOND, bad[i]);
    push_bytes (p, (i * 100 + 50) * GST_MSECOND, bad[i]);
  }
  gst_app_src_end_of_stream (GST_APP_SRC (v));
  gst_app_src_end_of_stream (GST_APP_SRC (p));
  out = pull_all (by_name (pipeline, "sink"), 100);

  fail_unless_equals_int (out->len, 7); /* 0, 50, ..., 300 ms */
  for (guint k = 0; k < out->len; k++) {
    GstBuffer *buf = gst_sample_get_buffer (out->pdata[k]);
    const GstRobocacheFusedStream *sv = stream_of (buf, "sink_0");
    const GstRobocacheFusedStream *sp = stream_of (buf, "sink_1");
    float t = (float) (k * 50);
    fail_unless (sv->memory_index >= 0 && sp->memory_index >= 0);
    fail_unless_equals_uint64 (gst_memory_get_sizes (gst_buffer_peek_memory
            (buf, sv->memory_index), NULL, NULL), 16);
    fail_unless_equals_uint64 (gst_memory_get_sizes (gst_buffer_peek_memory
            (buf, sp->memory_index), NULL, NULL), 16);
    /* Vectors interpolated between the valid neighbours; points: the
     * previous valid sweep. */
    for (guint c = 0; c < 4; c++)
      fail_unless (fabsf (value_of (buf, "sink_0", c) - (t + c)) < 1e-3f,
          "tick %u channel %u: %f", k, c, value_of (buf, "sink_0", c));
    fail_unless_equals_float (value_of (buf, "sink_1", 0),
        (float) (k / 2 * 100));
    fail_unless (!sv->stale && !sp->stale);
  }
  g_ptr_array_unref (out);

  for (guint i = 0; i < 2; i++) {
    const gchar *pad = i == 0 ? "sink_0" : "sink_1";
    fail_unless_equals_uint64 (stat_of (f, pad, "buffers"), 4);
    fail_unless_equals_uint64 (stat_of (f, pad, "dropped-bad-size"), 3);
    fail_unless_equals_uint64 (stat_of (f, pad, "dropped-out-of-order"), 0);
    fail_unless_equals_uint64 (stat_of (f, pad, "dropped-duplicate"), 0);
  }
  fail_unless_equals_uint64 (stat_of (f, NULL, "dropped-bad-size"), 6);
  /* One warning per pad, naming it, the size and what it takes. */
  warnings = warnings_of (pipeline);
  fail_unless_equals_int (warnings->len, 2);
  for (guint i = 0; i < warnings->len; i++) {
    const gchar *text = warnings->pdata[i];
    fail_unless (strstr (text, "1 bytes") && strstr (text, "16 bytes"),
        "%s", text);
    fail_unless (strstr (text, "sink_0") || strstr (text, "sink_1"), "%s",
        text);
  }
  fail_if (strstr (warnings->pdata[0], "sink_0") &&
      strstr (warnings->pdata[1], "sink_0"), "warned twice on sink_0");
  g_ptr_array_unref (warnings);
  gst_element_set_state (pipeline, GST_STATE_NULL);
  gst_object_unref (pipeline);
}

GST_END_TEST;

/* A buffer earlier than the previous one on its pad, or at the same time,
 * is dropped and counted (the first at a time wins); the ticks see only
 * the ordered samples. */
/* Video frames are never smaller than the caps' frame, but may be larger:
 * rows padded to a pitch, as GStreamer's CUDA memory has them without a
 * video meta.  Smaller ones are dropped. */
GST_START_TEST (test_video_padding_accepted)
{
  GstElement *pipeline = gst_parse_launch ("robocachefuse name=f rate=0/1 "
      "! appsink name=sink sync=false "
      "appsrc name=c format=time caps=\"video/x-raw,format=GRAY8,width=64,"
      "height=48,framerate=10/1\" ! f.sink_0", NULL);
  GstElement *f = by_name (pipeline, "f");
  GstElement *c = by_name (pipeline, "c");
  const gsize sizes[] = { 64 * 48, 512 * 48, 64 * 48 - 1, 64 * 48 + 8 };
  GPtrArray *out;

  gst_element_set_state (pipeline, GST_STATE_PLAYING);
  for (guint i = 0; i < G_N_ELEMENTS (sizes); i++)
    push_bytes (c, i * 100 * GST_MSECOND, sizes[i]);
  gst_app_src_end_of_stream (GST_APP_SRC (c));
  out = pull_all (by_name (pipeline, "sink"), 100);
  fail_unless_equals_int (out->len, 3);
  g_ptr_array_unref (out);
  fail_unless_equals_uint64 (stat_of (f, "sink_0", "buffers"), 3);
  fail_unless_equals_uint64 (stat_of (f, "sink_0", "dropped-bad-size"), 1);
  gst_element_set_state (pipeline, GST_STATE_NULL);
  gst_object_unref (pipeline);
}

GST_END_TEST;

/* Pushes a @width x @height frame of @format at @pts, rows @stride bytes
 * apart and @size bytes in all, with a video meta saying so. */
static void
push_strided_frame (GstElement * appsrc, GstClockTime pts,
    GstVideoFormat format, guint width, guint height, gint stride, gsize size)
{
  GstBuffer *buf = gst_buffer_new_allocate (NULL, size, NULL);
  gsize offset[GST_VIDEO_MAX_PLANES] = { 0 };
  gint strides[GST_VIDEO_MAX_PLANES] = { stride };

  gst_buffer_memset (buf, 0, 0x80, size);
  gst_buffer_add_video_meta_full (buf, GST_VIDEO_FRAME_FLAG_NONE, format,
      width, height, 1, offset, strides);
  GST_BUFFER_PTS (buf) = pts;
  fail_unless_equals_int (gst_app_src_push_buffer (GST_APP_SRC (appsrc), buf),
      GST_FLOW_OK);
}

/* Frames with rows closer than the caps' (GstVideoInfo rounds a row up to
 * 4 bytes; a ROS image's step need not be) come smaller than the caps'
 * frame, with a video meta: accepted when the meta's planes fit the
 * buffer, whatever the stride (GStreamer 1.22's plane size refuses one
 * that is not a multiple of 4), dropped when they do not. */
GST_START_TEST (test_video_unaligned_stride_accepted)
{
  const struct
  {
    const gchar *format;
    GstVideoFormat vformat;
    guint width, height;
    gint stride;
  } cases[] = {
    {"GRAY8", GST_VIDEO_FORMAT_GRAY8, 5, 2, 5},       /* mono8, step 5 */
    {"RGB", GST_VIDEO_FORMAT_RGB, 1242, 3, 3726},     /* KITTI rgb8 */
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++) {
    gchar *desc = g_strdup_printf ("robocachefuse name=f rate=0/1 ! "
        "appsink name=sink sync=false appsrc name=c format=time "
        "caps=\"video/x-raw,format=%s,width=%u,height=%u,framerate=10/1\" "
        "! f.sink_0", cases[i].format, cases[i].width, cases[i].height);
    GstElement *pipeline = gst_parse_launch (desc, NULL);
    GstElement *f = by_name (pipeline, "f"), *c = by_name (pipeline, "c");
    gsize tight = (gsize) cases[i].stride * cases[i].height;
    GPtrArray *out;

    gst_element_set_state (pipeline, GST_STATE_PLAYING);
    push_strided_frame (c, 0, cases[i].vformat, cases[i].width,
        cases[i].height, cases[i].stride, tight);
    /* One byte short of the meta's last row. */
    push_strided_frame (c, 100 * GST_MSECOND, cases[i].vformat,
        cases[i].width, cases[i].height, cases[i].stride, tight - 1);
    push_strided_frame (c, 200 * GST_MSECOND, cases[i].vformat,
        cases[i].width, cases[i].height, cases[i].stride, tight);
    gst_app_src_end_of_stream (GST_APP_SRC (c));
    out = pull_all (by_name (pipeline, "sink"), 100);
    fail_unless_equals_int (out->len, 2);
    g_ptr_array_unref (out);
    fail_unless_equals_uint64 (stat_of (f, "sink_0", "buffers"), 2);
    fail_unless_equals_uint64 (stat_of (f, "sink_0", "dropped-bad-size"), 1);
    gst_element_set_state (pipeline, GST_STATE_NULL);
    gst_object_unref (pipeline);
    g_free (desc);
  }
}

GST_END_TEST;

GST_START_TEST (test_out_of_order_dropped)
{
  GstElement *pipeline = gst_parse_launch ("robocachefuse name=f rate=10/1 "
      "! appsink name=sink sync=false "
      "appsrc name=a format=time caps=\"" VEC_CAPS (1) "\" ! f.sink_0", NULL);
  GstElement *f = by_name (pipeline, "f"), *a = by_name (pipeline, "a");
  /* ms: 50 after 100 and 150 after 200 go backwards, the second 100 and
   * 300 are duplicates; those carry the value -1. */
  const gint times[] = { 0, 100, 50, 100, 200, 150, 300, 300 };
  const gboolean valid[] = { TRUE, TRUE, FALSE, FALSE, TRUE, FALSE, TRUE,
    FALSE
  };
  GPtrArray *out, *warnings;

  gst_element_set_state (pipeline, GST_STATE_PLAYING);
  for (guint i = 0; i < G_N_ELEMENTS (times); i++) {
    float v = valid[i] ? (float) times[i] : -1.0f;
    push_sample (a, times[i] * GST_MSECOND, &v, 1);
  }
  gst_app_src_end_of_stream (GST_APP_SRC (a));
  out = pull_all (by_name (pipeline, "sink"), 100);

  fail_unless_equals_int (out->len, 4); /* 0, 100, 200, 300 ms */
  for (guint k = 0; k < out->len; k++) {
    GstBuffer *buf = gst_sample_get_buffer (out->pdata[k]);
    fail_unless_equals_float (value_of (buf, "sink_0", 0), k * 100.0f);
    fail_unless_equals_int64 (stream_of (buf, "sink_0")->offset, 0);
  }
  g_ptr_array_unref (out);

  fail_unless_equals_uint64 (stat_of (f, "sink_0", "buffers"), 4);
  fail_unless_equals_uint64 (stat_of (f, "sink_0", "dropped-out-of-order"), 2);
  fail_unless_equals_uint64 (stat_of (f, "sink_0", "dropped-duplicate"), 2);
  fail_unless_equals_uint64 (stat_of (f, "sink_0", "dropped-bad-size"), 0);
  fail_unless_equals_uint64 (stat_of (f, NULL, "dropped-out-of-order"), 2);
  fail_unless_equals_uint64 (stat_of (f, NULL, "dropped-duplicate"), 2);
  warnings = warnings_of (pipeline);
  fail_unless_equals_int (warnings->len, 1);
  fail_unless (strstr (warnings->pdata[0], "sink_0") != NULL, "%s",
      (gchar *) warnings->pdata[0]);
  g_ptr_array_unref (warnings);
  gst_element_set_state (pipeline, GST_STATE_NULL);
  gst_object_unref (pipeline);
}

GST_END_TEST;

/* Bad input: a buffer without timestamp, and caps that change the kind of
 * stream on a pad. */
GST_START_TEST (test_no_timestamp_n)
{
  GstElement *pipeline = gst_parse_launch ("robocachefuse name=f rate=10/1 "
      "! fakesink appsrc name=a format=time caps=\"" VEC_CAPS (1)
      "\" ! f.sink_0", NULL);
  GstElement *a = by_name (pipeline, "a");
  float v = 1;
  GstMessage *msg;
  GError *err = NULL;

  gst_element_set_state (pipeline, GST_STATE_PLAYING);
  gst_app_src_push_buffer (GST_APP_SRC (a), gst_buffer_new_memdup (&v, 4));
  gst_app_src_end_of_stream (GST_APP_SRC (a));
  msg = gst_bus_timed_pop_filtered (GST_ELEMENT_BUS (pipeline),
      10 * GST_SECOND, GST_MESSAGE_ERROR | GST_MESSAGE_EOS);
  fail_unless (msg && GST_MESSAGE_TYPE (msg) == GST_MESSAGE_ERROR);
  gst_message_parse_error (msg, &err, NULL);
  fail_unless (strstr (err->message, "no timestamp") != NULL, "%s",
      err->message);
  g_clear_error (&err);
  gst_message_unref (msg);
  gst_element_set_state (pipeline, GST_STATE_NULL);
  gst_object_unref (pipeline);
}

GST_END_TEST;

GST_START_TEST (test_mismatched_caps_n)
{
  GstElement *pipeline = gst_parse_launch ("robocachefuse name=f rate=10/1 "
      "! fakesink appsrc name=a format=time caps=\"" VEC_CAPS (1)
      "\" ! f.sink_0", NULL);
  GstElement *a = by_name (pipeline, "a");
  float v = 1;
  GstMessage *msg;
  GError *err = NULL;

  gst_element_set_state (pipeline, GST_STATE_PLAYING);
  push_sample (a, 0, &v, 1);
  {
    GstCaps *caps = gst_caps_from_string (XYZI_CAPS);
    g_object_set (a, "caps", caps, NULL);
    gst_caps_unref (caps);
  }
  push_sample (a, GST_SECOND, &v, 1);
  gst_app_src_end_of_stream (GST_APP_SRC (a));
  msg = gst_bus_timed_pop_filtered (GST_ELEMENT_BUS (pipeline),
      10 * GST_SECOND, GST_MESSAGE_ERROR | GST_MESSAGE_EOS);
  fail_unless (msg && GST_MESSAGE_TYPE (msg) == GST_MESSAGE_ERROR);
  gst_message_parse_error (msg, &err, NULL);
  fail_unless (strstr (err->message, "mismatched caps") != NULL, "%s",
      err->message);
  g_clear_error (&err);
  gst_message_unref (msg);
  gst_element_set_state (pipeline, GST_STATE_NULL);
  gst_object_unref (pipeline);
}

GST_END_TEST;

/* A pad's caps changing within its kind (2 float32 channels to 64
 * float64): every frame reads each stream through the caps it was made
 * under; the buffer held from before the change is dropped, never read
 * through the new caps (past its end: garbage in the flat output). */
GST_START_TEST (test_caps_change_within_kind)
{
  GstElement *pipeline = gst_parse_launch ("robocachefuse name=f rate=200/1 "
      "flat-output=true backend=cpu ! appsink name=sink sync=false "
      "appsrc name=a format=time caps=\"" VEC_CAPS (2) "\" ! f.sink_0", NULL);
  GstElement *a = by_name (pipeline, "a");
  GstCaps *wide = gst_caps_from_string (GST_ROBOCACHE_VECTORS_MEDIA_TYPE
      ", channels=(int)64, format=(string)float64, layout=(string)sample");
  GPtrArray *out;
  guint wide_frames = 0;

  gst_element_set_state (pipeline, GST_STATE_PLAYING);
  for (guint i = 0; i < 10; i++) {
    float v[2] = { 100.0f + i, 200.0f + i };
    push_sample (a, i * 10 * GST_MSECOND, v, 2);
  }
  g_object_set (a, "caps", wide, NULL);
  for (guint i = 10; i < 20; i++) {
    double v[64];
    GstBuffer *buf;

    for (guint c = 0; c < 64; c++)
      v[c] = 100.0 * (c + 1) + i;
    buf = gst_buffer_new_memdup (v, sizeof (v));
    GST_BUFFER_PTS (buf) = i * 10 * GST_MSECOND;
    fail_unless_equals_int (gst_app_src_push_buffer (GST_APP_SRC (a), buf),
        GST_FLOW_OK);
  }
  gst_app_src_end_of_stream (GST_APP_SRC (a));
  out = pull_all (by_name (pipeline, "sink"), 1000);
  fail_unless (out->len > 30, "%u frames", out->len);
  for (guint k = 0; k < out->len; k++) {
    GstBuffer *buf = gst_sample_get_buffer (out->pdata[k]);
    const GstRobocacheFusedStream *s = stream_of (buf, "sink_0");
    GstRobocacheVectorsInfo info;
    GstMapInfo map;

    fail_unless (gst_robocache_vectors_caps_parse (s->caps, &info, NULL));
    if (s->memory_index >= 0) {
      fail_unless (gst_robocache_fused_map_stream (buf, "sink_0", &map, FALSE));
      fail_unless_equals_int (map.size, info.channels *
          rc_scalar_type_size (info.type));
      gst_memory_unmap (map.memory, &map);
    }
    fail_unless (gst_robocache_fused_map_flat (buf, &map));
    for (gsize c = 0; c < map.size / sizeof (float); c++) {
      float v = ((const float *) map.data)[c];

      fail_unless (isnan (v) || (v >= 100.0f && v <= 6420.0f),
          "frame %u channel %" G_GSIZE_FORMAT ": %g", k, c, v);
    }
    wide_frames += map.size == 64 * sizeof (float);
    gst_memory_unmap (map.memory, &map);
  }
  fail_unless (wide_frames > 10, "%u frames of 64 channels", wide_frames);
  g_ptr_array_unref (out);
  gst_caps_unref (wide);
  gst_element_set_state (pipeline, GST_STATE_NULL);
  gst_object_unref (pipeline);
}

GST_END_TEST;

/* Pillars in a fused frame: robocachepillars' buffer as it left the
 * element (its memory referenced, the same bytes as a tee'd copy), the
 * stream's caps the sparse caps, beside a joints stream. */
GST_START_TEST (test_pillars_carried)
{
  GstElement *pipeline = gst_parse_launch ("robocachefuse name=f rate=0/1 "
      "! appsink name=sink sync=false "
      "robocachelidarsrc num-buffers=3 points-per-sweep=2048 seed=9 ! "
      "robocachepillars backend=cpu dims=\"<32,32,1>\" "
      "voxel-size=\"<1.0,1.0,8.0>\" origin=\"<-16.0,-16.0,-4.0>\" "
      "max-voxels=200 max-points-per-voxel=8 ! tee name=t "
      "t. ! queue ! f.sink_0 t. ! queue ! appsink name=copy sync=false "
      "robocachejointsrc num-buffers=60 ! f.sink_1", NULL);
  GPtrArray *fused, *copies;

  g_object_set (pad_of (by_name (pipeline, "f"), "sink_0"), "stream-name",
      "pillars", "master", TRUE, NULL);
  gst_element_set_state (pipeline, GST_STATE_PLAYING);
  fused = pull_all (by_name (pipeline, "sink"), 100);
  copies = pull_all (by_name (pipeline, "copy"), 100);
  fail_unless_equals_int (fused->len, 3);
  fail_unless_equals_int (copies->len, 3);
  for (guint k = 0; k < fused->len; k++) {
    GstBuffer *buf = gst_sample_get_buffer (fused->pdata[k]);
    GstBuffer *pushed = gst_sample_get_buffer (copies->pdata[k]);
    const GstRobocacheFusedStream *s = stream_of (buf, "pillars");
    GstMapInfo a, b;

    fail_unless (!s->stale && s->memory_index >= 0);
    fail_unless (gst_structure_has_name (gst_caps_get_structure (s->caps, 0),
            GST_ROBOCACHE_SPARSE_MEDIA_TYPE));
    fail_unless (gst_buffer_peek_memory (buf, s->memory_index) ==
        gst_buffer_peek_memory (pushed, 0), "the pillars were copied");
    fail_unless (gst_robocache_fused_map_stream (buf, "pillars", &a, FALSE));
    fail_unless (gst_buffer_map (pushed, &b, GST_MAP_READ));
    fail_unless_equals_uint64 (a.size, b.size);
    fail_unless (memcmp (a.data, b.data, a.size) == 0);
    /* Not an empty sweep: n_voxels, the last 16 bytes' first int32. */
    fail_unless (*(const gint32 *) (b.data + b.size - 16) > 0);
    gst_buffer_unmap (pushed, &b);
    gst_memory_unmap (a.memory, &a);
    fail_unless (stream_of (buf, "sink_1") != NULL);
  }
  g_ptr_array_unref (fused);
  g_ptr_array_unref (copies);
  gst_element_set_state (pipeline, GST_STATE_NULL);
  gst_object_unref (pipeline);
}

GST_END_TEST;

/* A tick rate above 1 GHz would repeat tick times (less than 1 ns
 * apart): refused at start, saying what is accepted. */
GST_START_TEST (test_rate_above_1ghz_n)
{
  gchar *text = launch_error ("robocachejointsrc num-buffers=3 ! "
      "robocachefuse rate=2147483647/1 ! fakesink", FALSE);

  fail_unless (text && strstr (text, "rate 2147483647/1 is above "
          "1000000000 a second") && strstr (text, "or 0/1, a tick per "
          "buffer of the master pad"), "%s", GST_STR_NULL (text));
  g_free (text);
}

GST_END_TEST;

/* The fused frames' own memory (interpolated vectors) is checked against
 * max-memory as each pad's caps come (gstrobocachememory.h). */
GST_START_TEST (test_max_memory_n)
{
  check_max_memory ("robocachejointsrc num-buffers=20 ! robocachefuse "
      "backend=cpu rate=10/1 %s ! fakesink");
}

GST_END_TEST;

/* rate is read at start: set while playing it is refused with a warning
 * and keeps the running rate, so the ticks keep their spacing, their
 * durations and the caps' framerate (a change mid-stream left holes and
 * sent PTS backwards); set once the pipeline stopped, the next start takes
 * it. */
GST_START_TEST (test_rate_refused_while_playing)
{
  GstElement *pipeline = gst_parse_launch ("robocachefuse name=f rate=10/1 "
      "! appsink name=sink sync=false "
      "appsrc name=a format=time caps=\"" VEC_CAPS (1) "\" ! f.sink_0", NULL);
  GstElement *f = by_name (pipeline, "f"), *a = by_name (pipeline, "a");
  GstElement *sink = by_name (pipeline, "sink");
  GstSample *sample;
  GPtrArray *out;
  gint n, d;

  gst_element_set_state (pipeline, GST_STATE_PLAYING);
  push_counting (a, 0, 50);
  /* The tick at 400 ms is out: the element runs at 10/1 by now. */
  for (guint k = 0; k < 5; k++) {
    sample = gst_app_sink_pull_sample (GST_APP_SINK (sink));
    fail_unless (sample != NULL);
    gst_sample_unref (sample);
  }
  check_set_refused (G_OBJECT (f), "rate", "100/1");
  push_counting (a, 51, 100);
  gst_app_src_end_of_stream (GST_APP_SRC (a));
  out = pull_all (sink, 1000);
  fail_unless_equals_int (out->len, 6);         /* 500 ms .. 1 s */
  for (guint k = 0; k < out->len; k++) {
    GstBuffer *buf = gst_sample_get_buffer (out->pdata[k]);
    GstStructure *caps = gst_caps_get_structure (gst_sample_get_caps
        (out->pdata[k]), 0);
    fail_unless_equals_uint64 (GST_BUFFER_PTS (buf),
        (5 + k) * 100 * GST_MSECOND);
    fail_unless_equals_uint64 (GST_BUFFER_DURATION (buf), 100 * GST_MSECOND);
    fail_unless (gst_structure_get_fraction (caps, "framerate", &n, &d));
    fail_unless (n == 10 && d == 1, "framerate %d/%d", n, d);
  }
  g_ptr_array_unref (out);
  /* Stopped, the element takes the new rate. */
  gst_element_set_state (pipeline, GST_STATE_NULL);
  check_set_taken (G_OBJECT (f), "rate", "100/1");
  gst_element_set_state (pipeline, GST_STATE_PLAYING);
  push_counting (a, 0, 10);
  gst_app_src_end_of_stream (GST_APP_SRC (a));
  out = pull_all (sink, 1000);
  fail_unless_equals_int (out->len, 11);
  g_ptr_array_unref (out);
  gst_element_set_state (pipeline, GST_STATE_NULL);
  gst_object_unref (pipeline);
}

GST_END_TEST;

/* A pad's stream-name is read at every tick: renamed while playing, the
 * next frames and their caps carry the new name. */
GST_START_TEST (test_pad_stream_name_while_playing)
{
  GstElement *pipeline = gst_parse_launch ("robocachefuse name=f rate=10/1 "
      "! appsink name=sink sync=false "
      "appsrc name=a format=time caps=\"" VEC_CAPS (1) "\" ! f.sink_0", NULL);
  GstElement *a = by_name (pipeline, "a");
  GstElement *sink = by_name (pipeline, "sink");
  GstPad *pad = pad_of (by_name (pipeline, "f"), "sink_0");
  GstSample *sample;
  GstBuffer *last;
  GPtrArray *out;

  gst_element_set_state (pipeline, GST_STATE_PLAYING);
  push_counting (a, 0, 20);
  sample = gst_app_sink_pull_sample (GST_APP_SINK (sink));
  fail_unless (sample != NULL);
  fail_unless (stream_of (gst_sample_get_buffer (sample), "sink_0") != NULL);
  gst_sample_unref (sample);
  check_set_taken (G_OBJECT (pad), "stream-name", "arm");
  push_counting (a, 21, 50);
  gst_app_src_end_of_stream (GST_APP_SRC (a));
  out = pull_all (sink, 1000);
  fail_unless (out->len >= 3, "%u ticks after the rename", out->len);
  last = gst_sample_get_buffer (out->pdata[out->len - 1]);
  fail_unless_equals_float (value_of (last, "arm", 0), 50.0f);
  fail_unless_equals_string (gst_structure_get_string (gst_caps_get_structure
          (gst_sample_get_caps (out->pdata[out->len - 1]), 0), "streams"),
      "arm");
  g_ptr_array_unref (out);
  gst_element_set_state (pipeline, GST_STATE_NULL);
  gst_object_unref (pipeline);
}

GST_END_TEST;

/* Live, a pad that never delivers a buffer (not even caps: a closed valve)
 * holds nobody: ticks come at the rate with its stream stale and without
 * memory, with ignore-inactive-pads true or false.  Before, the first
 * tick waited for every pad's first buffer with no timeout. */
GST_START_TEST (test_live_dead_pad_from_start)
{
  for (gint ignore = 0; ignore <= 1; ignore++) {
    gchar *desc = g_strdup_printf ("robocachefuse name=f rate=20/1 "
        "ignore-inactive-pads=%s ! appsink name=sink sync=false "
        "robocachejointsrc is-live=true rate=100/1 ! queue ! f.sink_0 "
        "robocachejointsrc is-live=true rate=100/1 ! valve drop=true ! "
        "queue ! f.sink_1", ignore ? "true" : "false");
    GstElement *pipeline = gst_parse_launch (desc, NULL);
    GstElement *sink = by_name (pipeline, "sink");
    guint n = 0;

    gst_element_set_state (pipeline, GST_STATE_PLAYING);
    for (; n < 5; n++) {
      /* A liveness check, not a latency one: generous for a CI machine
       * busy with other tests (one wait of 2 s once ran out there). */
      GstSample *sample = gst_app_sink_try_pull_sample (GST_APP_SINK (sink),
          10 * GST_SECOND);
      GstBuffer *buf;
      const GstRobocacheFusedStream *s;

      fail_unless (sample != NULL, "ignore-inactive-pads=%d: tick %u never "
          "came", ignore, n);
      buf = gst_sample_get_buffer (sample);
      fail_if (stream_of (buf, "sink_0")->stale);
      s = stream_of (buf, "sink_1");
      fail_unless (s->stale);
      fail_unless_equals_int (s->memory_index, -1);
      fail_unless_equals_uint64 (GST_BUFFER_DURATION (buf), 50 * GST_MSECOND);
      gst_sample_unref (sample);
    }
    gst_element_set_state (pipeline, GST_STATE_NULL);
    gst_object_unref (pipeline);
    g_free (desc);
  }
}

GST_END_TEST;

/* A wake-up of the aggregator before the element is PLAYING (here the
 * pipeline's latency query, which GstBin makes at PAUSED to PLAYING once
 * the clock is set but before each element's base time is) must not time
 * out against a base time of 0 and move the tick grid hours ahead: the
 * ticks come once PLAYING, with a live pad that never delivers. */
GST_START_TEST (test_live_wake_before_playing)
{
  GstElement *pipeline = gst_parse_launch ("robocachefuse name=f rate=20/1 "
      "! appsink name=sink sync=false "
      "robocachejointsrc is-live=true rate=100/1 ! queue ! f.sink_0 "
      "robocachejointsrc is-live=true rate=100/1 ! valve drop=true ! "
      "queue ! f.sink_1", NULL);
  GstElement *fuse = by_name (pipeline, "f");
  GstClock *clock = gst_system_clock_obtain ();
  GstPad *src = gst_element_get_static_pad (fuse, "src");
  GstQuery *latency = gst_query_new_latency ();

  gst_element_set_state (pipeline, GST_STATE_PAUSED);
  gst_element_get_state (pipeline, NULL, NULL, 10 * GST_SECOND);
  /* As in the pipeline's PAUSED to PLAYING: a clock, no base time yet. */
  fail_unless (gst_element_set_clock (fuse, clock));
  fail_unless (gst_pad_query (src, latency));
  g_usleep (G_USEC_PER_SEC / 5);
  gst_element_set_state (pipeline, GST_STATE_PLAYING);
  for (guint n = 0; n < 3; n++) {
    GstSample *sample = gst_app_sink_try_pull_sample (GST_APP_SINK (by_name
            (pipeline, "sink")), 10 * GST_SECOND);

    fail_unless (sample != NULL, "tick %u never came", n);
    gst_sample_unref (sample);
  }
  gst_element_set_state (pipeline, GST_STATE_NULL);
  gst_query_unref (latency);
  gst_object_unref (src);
  gst_object_unref (clock);
  gst_object_unref (pipeline);
}

GST_END_TEST;

/* rate=0/1, live: the ticks are the master's buffers, and a silent other
 * pad holds them no longer than the latency; a silent master gives no
 * tick (there is no time to make one at) and no busy loop. */
GST_START_TEST (test_live_master_dead_pad)
{
  GstElement *pipeline = gst_parse_launch ("robocachefuse name=f rate=0/1 "
      "! appsink name=sink sync=false "
      "robocachejointsrc is-live=true rate=50/1 ! queue ! f.sink_0 "
      "robocachejointsrc is-live=true rate=100/1 ! valve name=v drop=true ! "
      "queue ! f.sink_1", NULL);
  GstElement *sink = by_name (pipeline, "sink");

  gst_element_set_state (pipeline, GST_STATE_PLAYING);
  for (guint n = 0; n < 5; n++) {
    GstSample *sample = gst_app_sink_try_pull_sample (GST_APP_SINK (sink),
        10 * GST_SECOND);

    fail_unless (sample != NULL, "tick %u never came", n);
    fail_unless (stream_of (gst_sample_get_buffer (sample), "sink_1")->stale);
    gst_sample_unref (sample);
  }
  gst_element_set_state (pipeline, GST_STATE_NULL);
  gst_object_unref (pipeline);
}

GST_END_TEST;

/* After a seek at rate 2 the output segment's stream time runs twice as
 * fast as running time: the durations are stream time like the PTS (the
 * gap to the next tick's PTS), not the tick period in running time. */
GST_START_TEST (test_duration_at_segment_rate)
{
  GstElement *pipeline = gst_parse_launch ("videotestsrc ! "
      "video/x-raw,format=GRAY8,width=8,height=8,framerate=50/1 ! "
      "robocachefuse rate=10/1 ! appsink name=sink sync=false", NULL);
  GstElement *sink = by_name (pipeline, "sink");
  GstBuffer *prev = NULL;
  GPtrArray *out;

  gst_element_set_state (pipeline, GST_STATE_PAUSED);
  fail_unless_equals_int (gst_element_get_state (pipeline, NULL, NULL,
          10 * GST_SECOND), GST_STATE_CHANGE_SUCCESS);
  fail_unless (gst_element_seek (pipeline, 2.0, GST_FORMAT_TIME,
          GST_SEEK_FLAG_FLUSH, GST_SEEK_TYPE_SET, 0, GST_SEEK_TYPE_SET,
          2 * GST_SECOND));
  gst_element_set_state (pipeline, GST_STATE_PLAYING);
  out = pull_all (sink, 100);
  fail_unless (out->len >= 5, "%u ticks", out->len);
  for (guint k = 0; k < out->len; k++) {
    GstBuffer *buf = gst_sample_get_buffer (out->pdata[k]);
    fail_unless_equals_uint64 (GST_BUFFER_DURATION (buf), 200 * GST_MSECOND);
    if (prev)
      fail_unless_equals_uint64 (GST_BUFFER_PTS (buf) - GST_BUFFER_PTS (prev),
          GST_BUFFER_DURATION (prev));
    prev = buf;
  }
  g_ptr_array_unref (out);
  gst_element_set_state (pipeline, GST_STATE_NULL);
  gst_object_unref (pipeline);
}

GST_END_TEST;

/* A harness on @fuse's request pad sink_0 and src, any caps both ways,
 * not live (the aggregator waits for data, not the clock). */
static GstHarness *
fuse_harness (GstElement * fuse)
{
  static GstStaticPadTemplate src_any = GST_STATIC_PAD_TEMPLATE ("src",
      GST_PAD_SRC, GST_PAD_ALWAYS, GST_STATIC_CAPS_ANY);
  static GstStaticPadTemplate sink_any = GST_STATIC_PAD_TEMPLATE ("sink",
      GST_PAD_SINK, GST_PAD_ALWAYS, GST_STATIC_CAPS_ANY);
  GstHarness *h = gst_harness_new_full (fuse, &src_any, "sink_0", &sink_any,
      "src");

  gst_harness_set_live (h, FALSE);
  return h;
}

/* A recording source's rate and start-time set in its segment (not by a
 * seek) stamp the frames in the recording's time, as the same seek does:
 * the output segment is the stream's.  Ticks stay 10 a second of running
 * time, 0.2 s of the recording apart at rate 2. */
GST_START_TEST (test_stream_segment_adopted)
{
  GstElement *fuse = gst_element_factory_make ("robocachefuse", NULL);
  GstHarness *h;
  GstCaps *caps = gst_caps_from_string (VEC_CAPS (1));
  const GstSegment *out_segment = NULL;
  GstSegment segment;
  GstEvent *event;
  GstBuffer *buf;
  guint n = 0, n_segments = 0;

  gst_util_set_object_arg (G_OBJECT (fuse), "rate", "10/1");
  h = fuse_harness (fuse);
  gst_object_unref (fuse);
  gst_harness_play (h);
  gst_segment_init (&segment, GST_FORMAT_TIME);
  segment.rate = 2.0;
  segment.start = segment.time = segment.position = 500 * GST_MSECOND;
  fail_unless (gst_harness_push_event (h,
          gst_event_new_stream_start ("recording")));
  fail_unless (gst_harness_push_event (h, gst_event_new_caps (caps)));
  fail_unless (gst_harness_push_event (h, gst_event_new_segment (&segment)));
  for (guint i = 0; i < 100; i++) {
    float v = (float) i;

    buf = gst_buffer_new_memdup (&v, sizeof (v));
    GST_BUFFER_PTS (buf) = 500 * GST_MSECOND + i * 10 * GST_MSECOND;
    fail_unless_equals_int (gst_harness_push (h, buf), GST_FLOW_OK);
  }
  fail_unless (gst_harness_push_event (h, gst_event_new_eos ()));
  /* Every event up to EOS (the frames are all queued by then). */
  while ((event = gst_harness_pull_event (h))) {
    gboolean eos = GST_EVENT_TYPE (event) == GST_EVENT_EOS;

    if (GST_EVENT_TYPE (event) == GST_EVENT_SEGMENT) {
      gst_event_parse_segment (event, &out_segment);
      fail_unless_equals_float (out_segment->rate, 2.0);
      fail_unless_equals_uint64 (out_segment->start, 500 * GST_MSECOND);
      fail_unless_equals_uint64 (out_segment->time, 500 * GST_MSECOND);
      out_segment = NULL;
      n_segments++;
    }
    gst_event_unref (event);
    if (eos)
      break;
  }
  fail_unless_equals_int (n_segments, 1);
  while ((buf = gst_harness_try_pull (h))) {
    fail_unless_equals_uint64 (GST_BUFFER_PTS (buf), 500 * GST_MSECOND +
        n * 200 * GST_MSECOND);
    fail_unless_equals_uint64 (GST_BUFFER_DURATION (buf), 200 * GST_MSECOND);
    fail_unless_equals_float (value_of (buf, "sink_0", 0), n * 20.0f);
    gst_buffer_unref (buf);
    n++;
  }
  fail_unless (n >= 5, "%u frames", n);
  gst_caps_unref (caps);
  gst_harness_teardown (h);
}

GST_END_TEST;

/* A second stream at another segment rate than the one adopted: a
 * warning naming both rates (its buffers are placed by running time). */
GST_START_TEST (test_stream_segment_rates_differ)
{
  GstElement *fuse = gst_element_factory_make ("robocachefuse", NULL);
  GstBus *bus = gst_bus_new ();
  GstCaps *caps = gst_caps_from_string (VEC_CAPS (1));
  GstHarness *h[2];
  GstMessage *msg;
  GError *err = NULL;

  gst_element_set_bus (fuse, bus);
  h[0] = fuse_harness (fuse);
  h[1] = gst_harness_new_with_element (fuse, "sink_1", NULL);
  gst_harness_set_live (h[1], FALSE);
  gst_object_unref (fuse);
  /* The aggregator takes its pads' events in turn, the first pad's first:
   * sink_0's segment (rate 2) is adopted. */
  for (guint i = 0; i < 2; i++) {
    GstSegment segment;
    gchar *id = g_strdup_printf ("stream-%u", i);

    gst_segment_init (&segment, GST_FORMAT_TIME);
    segment.rate = i ? 1.0 : 2.0;
    fail_unless (gst_harness_push_event (h[i],
            gst_event_new_stream_start (id)));
    fail_unless (gst_harness_push_event (h[i], gst_event_new_caps (caps)));
    fail_unless (gst_harness_push_event (h[i],
            gst_event_new_segment (&segment)));
    g_free (id);
  }
  msg = gst_bus_timed_pop_filtered (bus, 10 * GST_SECOND, GST_MESSAGE_WARNING);
  fail_unless (msg != NULL, "no warning");
  gst_message_parse_warning (msg, &err, NULL);
  fail_unless (strstr (err->message, "sink_1 plays at rate 1, the output "
          "at 2") != NULL, "%s", err->message);
  g_clear_error (&err);
  gst_message_unref (msg);
  gst_harness_teardown (h[1]);
  gst_harness_teardown (h[0]);
  gst_element_set_bus (fuse, NULL);
  gst_object_unref (bus);
  gst_caps_unref (caps);
}

GST_END_TEST;

static Suite *
fuse_suite (void)
{
  Suite *s = suite_create ("robocachefuse");
  TCase *tc = tcase_create ("general");

  suite_add_tcase (s, tc);
  tcase_set_timeout (tc, 60);
  tcase_add_test (tc, test_linear_function_exact);
  tcase_add_test (tc, test_nearest_previous_boundaries);
  tcase_add_test (tc, test_staleness_and_drop);
  tcase_add_test (tc, test_master_pad);
  tcase_add_test (tc, test_offline_deterministic);
  tcase_add_test (tc, test_caps_name_streams);
  tcase_add_test (tc, test_stream_names_refused_n);
  tcase_add_test (tc, test_pad_properties_launched);
  tcase_add_test (tc, test_caps_refused_downstream_n);
  tcase_add_test (tc, test_zero_copy_three_sensors);
  tcase_add_test (tc, test_pillars_carried);
  tcase_add_test (tc, test_memory_referenced);
  tcase_add_test (tc, test_live_stop_recover_add_pad);
  tcase_add_test (tc, test_release_pads_while_playing);
  tcase_add_test (tc, test_master_switch_never_back);
  tcase_add_test (tc, test_seek_refused);
  tcase_add_test (tc, test_flat_without_vectors);
  tcase_add_test (tc, test_live_three_sensors_no_warning);
  tcase_add_test (tc, test_bad_size_dropped);
  tcase_add_test (tc, test_video_padding_accepted);
  tcase_add_test (tc, test_video_unaligned_stride_accepted);
  tcase_add_test (tc, test_out_of_order_dropped);
  tcase_add_test (tc, test_no_timestamp_n);
  tcase_add_test (tc, test_mismatched_caps_n);
  tcase_add_test (tc, test_caps_change_within_kind);
  tcase_add_test (tc, test_max_memory_n);
  tcase_add_test (tc, test_rate_above_1ghz_n);
  tcase_add_test (tc, test_rate_refused_while_playing);
  tcase_add_test (tc, test_pad_stream_name_while_playing);
  tcase_add_test (tc, test_live_dead_pad_from_start);
  tcase_add_test (tc, test_live_wake_before_playing);
  tcase_add_test (tc, test_live_master_dead_pad);
  tcase_add_test (tc, test_duration_at_segment_rate);
  tcase_add_test (tc, test_stream_segment_adopted);
  tcase_add_test (tc, test_stream_segment_rates_differ);
  return s;
}

GST_CHECK_MAIN (fuse);
