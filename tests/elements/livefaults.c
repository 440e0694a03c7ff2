/* Live faults (docs/reliability.md, "Live faults"): a sensor that stops for
 * good, one that restarts with its timestamps jumping forward or back, one
 * whose clock runs 1 % fast, and flushing seeks with buffers in flight
 * through a replay into voxelize, resample and fuse.  CPU only. */
#include <gst/check/gstcheck.h>
#include <gst/app/gstappsrc.h>
#include <gst/app/gstappsink.h>
#include <glib/gstdio.h>
#include <string.h>

#include "elementutil.h"
#include "gstrobocachefusedmeta.h"
#include "testutil.h"

#define VEC1 GST_ROBOCACHE_VECTORS_MEDIA_TYPE ", channels=(int)1, " \
    "format=(string)float32, layout=(string)sample"

static void
push_value (GstElement * appsrc, GstClockTime pts, float v)
{
  GstBuffer *buf = gst_buffer_new_memdup (&v, sizeof (v));

  GST_BUFFER_PTS (buf) = pts;
  fail_unless_equals_int (gst_app_src_push_buffer (GST_APP_SRC (appsrc), buf),
      GST_FLOW_OK);
}

static guint64
pad_stat (GstElement * fuse, const gchar * pad, const gchar * field)
{
  GstStructure *stats = NULL;
  guint64 v = G_MAXUINT64;

  g_object_get (pad_of (fuse, pad), "stats", &stats, NULL);
  fail_unless (gst_structure_get_uint64 (stats, field, &v));
  gst_structure_free (stats);
  return v;
}

static const GstRobocacheFusedStream *
stream_of (GstSample * sample, const gchar * name)
{
  const GstRobocacheFusedStream *s =
      gst_robocache_fused_meta_find (gst_buffer_get_robocache_fused_meta
      (gst_sample_get_buffer (sample)), name);

  fail_unless (s != NULL, "no stream %s", name);
  return s;
}

static float
value_of (GstSample * sample, const gchar * name)
{
  GstMapInfo map;
  float v;

  fail_unless (gst_robocache_fused_map_stream (gst_sample_get_buffer (sample),
          name, &map, FALSE));
  v = *(const float *) map.data;
  gst_memory_unmap (map.memory, &map);
  return v;
}

/* The live tests' pipeline: stopped and freed by live_teardown also when
 * a test fails (without fork, a pipeline left playing would keep its
 * threads, which gst-check waits for, forever). */
static GstElement *live;

/* A live pipeline from @desc, or NULL under valgrind: these tests are
 * about wall-clock timing (valgrind runs them 50 times slower), and the
 * offline and seek tests run the same elements there. */
static GstElement *
live_pipeline (const gchar * desc)
{
  if (RUNNING_ON_VALGRIND) {
    g_print ("left out under valgrind: a wall-clock test\n");
    return NULL;
  }
  live = gst_parse_launch (desc, NULL);
  fail_unless (live != NULL, "%s", desc);
  return live;
}

static void
live_teardown (void)
{
  if (!live)
    return;
  gst_element_set_state (live, GST_STATE_NULL);
  gst_clear_object (&live);
}

/* Every sample of appsink "sink" until EOS; fails without EOS. */
static GPtrArray *
pull_to_eos (GstElement * pipeline)
{
  GstElement *sink = by_name (pipeline, "sink");
  GPtrArray *out = g_ptr_array_new_with_free_func ((GDestroyNotify)
      gst_sample_unref);
  GstSample *sample;

  while ((sample = gst_app_sink_try_pull_sample (GST_APP_SINK (sink),
              20 * GST_SECOND)))
    g_ptr_array_add (out, sample);
  fail_unless (gst_app_sink_is_eos (GST_APP_SINK (sink)), "no EOS");
  return out;
}

/* Offline fuse of two appsrc vector streams a and b at 10 Hz, b's max-age
 * 250 ms. */
static GstElement *
offline_fuse (void)
{
  GstElement *p = gst_parse_launch ("robocachefuse name=f rate=10/1 ! "
      "appsink name=sink sync=false "
      "appsrc name=a format=time caps=\"" VEC1 "\" ! f.sink_0 "
      "appsrc name=b format=time caps=\"" VEC1 "\" ! f.sink_1", NULL);

  g_object_set (pad_of (by_name (p, "f"), "sink_1"), "max-age",
      (guint64) 250 * GST_MSECOND, NULL);
  gst_element_set_state (p, GST_STATE_PLAYING);
  return p;
}

/* Pushes a sample into appsrc b every 10 ms for @usec, and on (up to 30 s)
 * until @min_ticks ticks came however slow the machine, pulling the ticks
 * of appsink sink; their number. */
static guint
feed_b (GstElement * p, gint64 usec, guint min_ticks)
{
  GstElement *sink = by_name (p, "sink"), *b = by_name (p, "b");
  gint64 stop_at = g_get_monotonic_time () + usec;
  gint64 give_up = stop_at + 30 * G_USEC_PER_SEC;
  guint ticks = 0;
  GstSample *sample;

  while (g_get_monotonic_time () < stop_at ||
      (ticks < min_ticks && g_get_monotonic_time () < give_up)) {
    float v = 1.0f;

    gst_app_src_push_buffer (GST_APP_SRC (b),
        gst_buffer_new_memdup (&v, sizeof (v)));
    while ((sample = gst_app_sink_try_pull_sample (GST_APP_SINK (sink), 0))) {
      ticks++;
      gst_sample_unref (sample);
    }
    g_usleep (10000);
  }
  return ticks;
}

/* A live sensor that stops for good (no EOS): the ticks go on at the rate,
 * each waiting no longer than the latency, with the stream stale once its
 * last sample is older than max-age; the pipeline stops cleanly while the
 * fuse still waits on that pad. */
GST_START_TEST (test_sensor_stops_for_good)
{
  GstElement *p = live_pipeline ("robocachefuse name=f rate=50/1 "
      "latency=20000000 ! appsink name=sink sync=false "
      "robocachejointsrc is-live=true rate=200/1 ! f.sink_0 "
      "appsrc name=b is-live=true format=time do-timestamp=true "
      "min-latency=0 max-latency=1000000000 caps=\"" VEC1 "\" ! f.sink_1");
  GstElement *sink;
  guint before, stale_run = 0;
  gint64 give_up;
  GstSample *sample;

  if (!p)
    return;
  sink = by_name (p, "sink");
  g_object_set (pad_of (by_name (p, "f"), "sink_1"), "max-age",
      (guint64) 60 * GST_MSECOND, NULL);
  gst_element_set_state (p, GST_STATE_PLAYING);
  /* A second of both, and at least 5 ticks. */
  before = feed_b (p, G_USEC_PER_SEC, 5);
  /* Stopped: the ticks go on, stale from the first beyond max-age on
   * (however slowly this machine runs them). */
  give_up = g_get_monotonic_time () + 30 * G_USEC_PER_SEC;
  while (stale_run < 20 && g_get_monotonic_time () < give_up &&
      (sample = gst_app_sink_try_pull_sample (GST_APP_SINK (sink),
              5 * GST_SECOND))) {
    gboolean stale = stream_of (sample, "sink_1")->stale;

    fail_if (stale_run > 0 && !stale, "fresh again after it stopped");
    stale_run += stale;
    gst_sample_unref (sample);
  }
  fail_unless (before > 0, "no tick while both streams played");
  fail_unless_equals_int (stale_run, 20);
  fail_unless (gst_bus_pop_filtered (GST_ELEMENT_BUS (p),
          GST_MESSAGE_ERROR) == NULL);
  fail_unless_equals_int (gst_element_set_state (p, GST_STATE_NULL),
      GST_STATE_CHANGE_SUCCESS);
}

GST_END_TEST;

/* A 1 kHz sensor beside one that stops, at 10 Hz ticks: the stalled pad
 * holds each tick to its deadline, and meanwhile the fuse takes the other's
 * buffers from its queue, whose room is only the latency (here ~10 ms, a
 * tenth of a tick): the joints stay fresh and interpolated at the tick.
 * Before, that sensor was blocked most of each tick and fell ever further
 * behind (offsets of -90, -200, ... ms, then stale). */
static gint master_feeding;

/* Pushes a sample into appsrc m of @p every 100 ms while master_feeding. */
static gpointer
feed_master (gpointer p)
{
  GstElement *m = by_name (p, "m");

  while (g_atomic_int_get (&master_feeding)) {
    float v = 2.0f;

    gst_app_src_push_buffer (GST_APP_SRC (m),
        gst_buffer_new_memdup (&v, sizeof (v)));
    g_usleep (100000);
  }
  return NULL;
}

GST_START_TEST (test_stalled_sensor_blocks_no_other)
{
  /* At a rate, and ticking on a 10 Hz master's buffers (rate=0/1), one
   * reporting no latency (an appsrc of a ROS bridge, say), so that its
   * period does not widen the others' queues. */
  gchar *desc = g_strdup_printf ("robocachefuse name=f rate=%s ! "
      "appsink name=sink sync=false "
      "robocachejointsrc is-live=true rate=1000/1 ! f.sink_0 "
      "appsrc name=b is-live=true format=time do-timestamp=true "
      "min-latency=10000000 max-latency=1000000000 caps=\"" VEC1 "\" ! "
      "f.sink_1 %s", __i__ ? "0/1 sink_2::master=true" : "10/1",
      __i__ ? "appsrc name=m is-live=true format=time do-timestamp=true "
      "min-latency=0 max-latency=1000000000 caps=\"" VEC1 "\" ! f.sink_2" :
      "");
  GstElement *p = live_pipeline (desc);
  GThread *master = NULL;
  GstElement *sink;
  guint stalled = 0;
  gint64 give_up;
  GstSample *sample;

  g_free (desc);
  if (!p)
    return;
  sink = by_name (p, "sink");
  gst_element_set_state (p, GST_STATE_PLAYING);
  g_atomic_int_set (&master_feeding, __i__);
  if (__i__)
    master = g_thread_new ("master", feed_master, p);
  feed_b (p, G_USEC_PER_SEC / 2, 0);
  /* b stopped: 15 ticks, each with the joints at the tick. */
  give_up = g_get_monotonic_time () + 30 * G_USEC_PER_SEC;
  while (stalled < 15 && g_get_monotonic_time () < give_up &&
      (sample = gst_app_sink_try_pull_sample (GST_APP_SINK (sink),
              5 * GST_SECOND))) {
    const GstRobocacheFusedStream *joints = stream_of (sample, "sink_0");

    fail_if (joints->stale, "joints stale at tick %u of the stall", stalled);
    fail_unless (ABS (joints->offset) < 50 * GST_MSECOND,
        "joints %" G_GINT64_FORMAT " ns from tick %u of the stall",
        joints->offset, stalled);
    stalled++;
    gst_sample_unref (sample);
  }
  g_atomic_int_set (&master_feeding, 0);
  if (master)
    g_thread_join (master);
  fail_unless_equals_int (stalled, 15);
  fail_unless_equals_int (gst_element_set_state (p, GST_STATE_NULL),
      GST_STATE_CHANGE_SUCCESS);
}

GST_END_TEST;

/* A sensor that pauses for a second and comes back: the pause is a
 * drop-out, not its sample interval, so the latency the fuse reports (the
 * ticks' wait) stays about one interval.  Before, the longest gap ever
 * seen counted: its max-age (500 ms) was added to the pipeline's latency
 * for good. */
GST_START_TEST (test_dropout_leaves_latency)
{
  GstElement *p = live_pipeline ("robocachefuse name=f rate=50/1 "
      "latency=20000000 ! appsink name=sink sync=false "
      "robocachejointsrc is-live=true rate=200/1 ! f.sink_0 "
      "appsrc name=b is-live=true format=time do-timestamp=true "
      "min-latency=0 max-latency=1000000000 caps=\"" VEC1 "\" ! f.sink_1");
  GstClockTime min_latency = GST_CLOCK_TIME_NONE;
  GstQuery *query;
  GstPad *src;

  if (!p)
    return;
  gst_element_set_state (p, GST_STATE_PLAYING);
  feed_b (p, G_USEC_PER_SEC / 2, 5);
  /* The pause: ticks go on, b stale. */
  for (guint i = 0; i < 50; i++) {
    GstSample *sample = gst_app_sink_try_pull_sample (GST_APP_SINK (by_name
            (p, "sink")), 20 * GST_MSECOND);

    if (sample)
      gst_sample_unref (sample);
  }
  feed_b (p, G_USEC_PER_SEC / 2, 5);
  src = gst_element_get_static_pad (by_name (p, "f"), "src");
  query = gst_query_new_latency ();
  fail_unless (gst_pad_query (src, query));
  gst_query_parse_latency (query, NULL, &min_latency, NULL);
  fail_unless (min_latency < 200 * GST_MSECOND, "latency %" GST_TIME_FORMAT
      " after a 1 s drop-out", GST_TIME_ARGS (min_latency));
  gst_query_unref (query);
  gst_object_unref (src);
  fail_unless_equals_int (gst_element_set_state (p, GST_STATE_NULL),
      GST_STATE_CHANGE_SUCCESS);
}

GST_END_TEST;

/* A pad that never delivers, at 1 Hz: the first tick, found from the
 * joints' first sample (1 s), waits for its own deadline, not the one of
 * the tick the wait began for (0 s): it left at once, the joints stale
 * 990 ms before it. */
GST_START_TEST (test_first_tick_waits_its_deadline)
{
  GstElement *p = live_pipeline ("robocachefuse name=f rate=1/1 ! "
      "appsink name=sink sync=false "
      "robocachejointsrc is-live=true rate=100/1 ! f.sink_0 "
      "appsrc name=b is-live=true format=time do-timestamp=true "
      "min-latency=0 max-latency=1000000000 caps=\"" VEC1 "\" ! f.sink_1");
  const GstRobocacheFusedStream *joints;
  GstSample *sample;

  if (!p)
    return;
  gst_element_set_state (p, GST_STATE_PLAYING);
  sample = gst_app_sink_try_pull_sample (GST_APP_SINK (by_name (p, "sink")),
      10 * GST_SECOND);
  fail_unless (sample != NULL, "no tick");
  joints = stream_of (sample, "sink_0");
  fail_if (joints->stale, "joints stale at the first tick");
  fail_unless (ABS (joints->offset) < 50 * GST_MSECOND,
      "joints %" G_GINT64_FORMAT " ns from the first tick", joints->offset);
  gst_sample_unref (sample);
  fail_unless_equals_int (gst_element_set_state (p, GST_STATE_NULL),
      GST_STATE_CHANGE_SUCCESS);
}

GST_END_TEST;

/* Every live sensor silent at once (a stalled machine, a shared bus):
 * the ticks go on, all stale, and the stream goes on when they come back
 * (a timeout that found every queue empty ended the stream with EOS). */
GST_START_TEST (test_all_sensors_pause)
{
  GstElement *p = live_pipeline ("robocachefuse name=f rate=50/1 "
      "latency=20000000 ! appsink name=sink sync=false "
      "appsrc name=a is-live=true format=time do-timestamp=true "
      "min-latency=0 max-latency=1000000000 caps=\"" VEC1 "\" ! f.sink_0 "
      "appsrc name=b is-live=true format=time do-timestamp=true "
      "min-latency=0 max-latency=1000000000 caps=\"" VEC1 "\" ! f.sink_1");
  GstElement *sink, *src[2];
  guint stale = 0, fresh_after = 0;
  gint64 silent_from, silent_to, give_up;
  GstSample *sample;

  if (!p)
    return;
  sink = by_name (p, "sink");
  src[0] = by_name (p, "a");
  src[1] = by_name (p, "b");
  for (guint i = 0; i < 2; i++)
    g_object_set (pad_of (by_name (p, "f"), i ? "sink_1" : "sink_0"),
        "max-age", (guint64) 60 * GST_MSECOND, NULL);
  gst_element_set_state (p, GST_STATE_PLAYING);
  silent_from = g_get_monotonic_time () + G_USEC_PER_SEC / 2;
  silent_to = silent_from + G_USEC_PER_SEC;
  give_up = silent_to + 30 * G_USEC_PER_SEC;
  /* Until 10 fresh ticks after the silence (however slowly they come). */
  while (fresh_after < 10 && g_get_monotonic_time () < give_up) {
    gint64 now = g_get_monotonic_time ();

    if (now < silent_from || now >= silent_to) {
      for (guint i = 0; i < 2; i++) {
        float v = (float) i;
        gst_app_src_push_buffer (GST_APP_SRC (src[i]),
            gst_buffer_new_memdup (&v, sizeof (v)));
      }
    }
    while ((sample = gst_app_sink_try_pull_sample (GST_APP_SINK (sink), 0))) {
      gboolean s = stream_of (sample, "sink_0")->stale &&
          stream_of (sample, "sink_1")->stale;
      stale += s;
      fresh_after += stale > 0 && !s && now >= silent_to;
      gst_sample_unref (sample);
    }
    fail_if (gst_app_sink_is_eos (GST_APP_SINK (sink)), "EOS while live");
    g_usleep (10000);
  }
  fail_unless (stale > 0, "no stale tick while every sensor was silent");
  fail_unless_equals_int (fresh_after, 10);
  fail_unless_equals_int (gst_element_set_state (p, GST_STATE_NULL),
      GST_STATE_CHANGE_SUCCESS);
}

GST_END_TEST;

/* A sensor restarting with its timestamps 9 s ahead: nothing is dropped;
 * its stream is stale between (an interpolation across the jump has its
 * farther end 9 s away) until the ticks reach its new times, then fused as
 * before. */
GST_START_TEST (test_restart_jump_forward)
{
  GstElement *p = offline_fuse ();
  GstElement *a = by_name (p, "a"), *b = by_name (p, "b");
  GPtrArray *out;

  for (guint i = 0; i <= 30; i++)
    push_value (a, i * 100 * GST_MSECOND, (float) i);
  for (guint i = 0; i < 10; i++)
    push_value (b, i * 100 * GST_MSECOND, (float) i);
  for (guint i = 0; i <= 5; i++)
    push_value (b, (100 + i) * 100 * GST_MSECOND, 100.0f + i);
  gst_app_src_end_of_stream (GST_APP_SRC (a));
  gst_app_src_end_of_stream (GST_APP_SRC (b));
  out = pull_to_eos (p);
  /* Ticks 0 .. 10.5 s: up to the last data of any stream. */
  fail_unless_equals_int (out->len, 106);
  for (guint k = 0; k < out->len; k++) {
    const GstRobocacheFusedStream *s = stream_of (out->pdata[k], "sink_1");
    /* Interpolated across the jump: its farther end is 9 s away. */
    gboolean fresh = k <= 9 || k >= 100;

    fail_unless_equals_int (s->stale, !fresh);
    if (k <= 9 || k >= 100)
      fail_unless_equals_float (value_of (out->pdata[k], "sink_1"), (float) k);
  }
  fail_unless_equals_uint64 (pad_stat (by_name (p, "f"), "sink_1",
          "dropped-out-of-order"), 0);
  fail_unless_equals_uint64 (pad_stat (by_name (p, "f"), "sink_1", "buffers"),
      16);
  g_ptr_array_unref (out);
  gst_element_set_state (p, GST_STATE_NULL);
  gst_object_unref (p);
}

GST_END_TEST;

/* A sensor restarting with its timestamps 1.5 s back: its buffers up to
 * the last one accepted are dropped, counted and warned about once (they
 * cannot be aligned: their times are behind the ticks); from then on it is
 * fused as before, never stale across the restart. */
GST_START_TEST (test_restart_jump_backward)
{
  GstElement *p = offline_fuse ();
  GstElement *a = by_name (p, "a"), *b = by_name (p, "b");
  GstElement *f = by_name (p, "f");
  GstMessage *msg;
  GPtrArray *out;

  for (guint i = 0; i <= 30; i++)
    push_value (a, i * 100 * GST_MSECOND, (float) i);
  /* b: 0 .. 1.9 s, restarted at 0.5 s .. 3.0 s. */
  for (guint i = 0; i < 20; i++)
    push_value (b, i * 100 * GST_MSECOND, (float) i);
  for (guint i = 5; i <= 30; i++)
    push_value (b, i * 100 * GST_MSECOND, 1000.0f + i);
  gst_app_src_end_of_stream (GST_APP_SRC (a));
  gst_app_src_end_of_stream (GST_APP_SRC (b));
  out = pull_to_eos (p);
  fail_unless_equals_int (out->len, 31);
  for (guint k = 0; k < out->len; k++) {
    fail_if (stream_of (out->pdata[k], "sink_1")->stale, "tick %u stale", k);
    fail_unless_equals_float (value_of (out->pdata[k], "sink_1"),
        k < 20 ? (float) k : 1000.0f + k);
  }
  /* 0.5 .. 1.8 s earlier than 1.9 s, and 1.9 s itself once more. */
  fail_unless_equals_uint64 (pad_stat (f, "sink_1", "dropped-out-of-order"),
      14);
  fail_unless_equals_uint64 (pad_stat (f, "sink_1", "dropped-duplicate"), 1);
  msg = gst_bus_pop_filtered (GST_ELEMENT_BUS (p), GST_MESSAGE_WARNING);
  fail_unless (msg != NULL, "no warning");
  gst_message_unref (msg);
  fail_unless (gst_bus_pop_filtered (GST_ELEMENT_BUS (p),
          GST_MESSAGE_WARNING) == NULL, "warned twice");
  g_ptr_array_unref (out);
  gst_element_set_state (p, GST_STATE_NULL);
  gst_object_unref (p);
}

GST_END_TEST;

/* A live sensor whose clock runs 1 % fast: its samples are matched by their
 * own timestamps (never stale while its lead stays under max-age), the
 * ticks keep the pipeline's pace, and the fuse takes its buffers as they
 * come: the appsrc's queue stays short (the fuse holds at most its
 * latency of a stream running ahead, then pushes back). */
GST_START_TEST (test_clock_one_percent_fast)
{
  GstElement *p = live_pipeline ("robocachefuse name=f rate=50/1 "
      "latency=20000000 ! appsink name=sink sync=false "
      "robocachejointsrc is-live=true rate=100/1 ! f.sink_0 "
      "appsrc name=b is-live=true format=time min-latency=0 "
      "max-latency=1000000000 caps=\"" VEC1 "\" ! f.sink_1");
  GstElement *sink, *b;
  GstClock *clock;
  guint ticks = 0, stale = 0;
  guint64 max_level = 0;
  gint64 end;

  if (!p)
    return;
  sink = by_name (p, "sink");
  b = by_name (p, "b");
  g_object_set (pad_of (by_name (p, "f"), "sink_1"), "max-age",
      (guint64) 100 * GST_MSECOND, NULL);
  gst_element_set_state (p, GST_STATE_PLAYING);
  /* The clock, once the live pipeline runs (b's first sample comes from
   * this test: nothing waits for preroll). */
  for (guint i = 0; !(clock = gst_element_get_clock (p)) && i < 500; i++)
    g_usleep (10000);
  fail_unless (clock != NULL);
  end = g_get_monotonic_time () + 3 * G_USEC_PER_SEC;
  while (g_get_monotonic_time () < end) {
    GstClockTime rt = gst_clock_get_time (clock) -
        gst_element_get_base_time (p);
    GstSample *sample;
    guint64 level = 0;

    push_value (b, rt + rt / 100, 1.0f);

    g_object_get (b, "current-level-buffers", &level, NULL);
    max_level = MAX (max_level, level);
    while ((sample = gst_app_sink_try_pull_sample (GST_APP_SINK (sink), 0))) {
      /* After the first half second (the first ticks wait for latency). */
      if (++ticks > 25)
        stale += stream_of (sample, "sink_1")->stale;

      gst_sample_unref (sample);
    }
    g_usleep (10000);
  }
  fail_unless (ticks > 25, "%u ticks", ticks);
  fail_unless_equals_int (stale, 0);
  /* A second of it at most, also on a slow machine. */
  fail_unless (max_level < 100, "the appsrc queued %" G_GUINT64_FORMAT
      " buffers", max_level);
  fail_unless_equals_uint64 (pad_stat (by_name (p, "f"), "sink_1",
          "dropped-out-of-order"), 0);
  fail_unless_equals_int (gst_element_set_state (p, GST_STATE_NULL),
      GST_STATE_CHANGE_SUCCESS);
  gst_object_unref (clock);
}

GST_END_TEST;

/* ---- Flushing seeks with buffers in flight ---------------------------- */

static gchar *work_dir;

#define N_SWEEPS 60
#define N_JOINTS 600

/* 6 s of lidar (10 Hz) and joints (100 Hz) recorded by robocachemcapsink. */
static gchar *
record (void)
{
  gchar *path = g_build_filename (work_dir, "run.mcap", NULL);
  gchar *desc = g_strdup_printf ("robocachemcapsink name=m location=\"%s\" "
      "sink_0::topic=/lidar sink_1::topic=/joint_states "
      "robocachelidarsrc num-buffers=%d points-per-sweep=2048 ! m.sink_0 "
      "robocachejointsrc num-buffers=%d rate=100/1 ! m.sink_1", path,
      N_SWEEPS, N_JOINTS);
  GstElement *p = gst_parse_launch (desc, NULL);
  GstMessage *msg = run_to_end_or (p, 60 * GST_SECOND, 0);

  fail_unless (msg == NULL, "recording failed");
  gst_object_unref (p);
  g_free (desc);
  return path;
}

/* Pulls from "sink" until EOS (TRUE) or @n samples (FALSE), checking that
 * every time is at or after @from and never goes back. */
static gboolean
pull_checked (GstElement * sink, guint n, GstClockTime from, guint * got)
{
  GstClockTime last = from;
  GstSample *sample;

  *got = 0;
  while (*got < n && (sample = gst_app_sink_try_pull_sample (GST_APP_SINK
              (sink), 20 * GST_SECOND))) {
    GstClockTime pts = GST_BUFFER_PTS (gst_sample_get_buffer (sample));

    fail_unless (pts >= from, "a buffer at %" GST_TIME_FORMAT " after a seek "
        "to %" GST_TIME_FORMAT, GST_TIME_ARGS (pts), GST_TIME_ARGS (from));
    fail_unless (pts >= last, "time went back to %" GST_TIME_FORMAT,
        GST_TIME_ARGS (pts));
    last = pts;
    (*got)++;
    gst_sample_unref (sample);
  }
  if (*got < n)
    fail_unless (gst_app_sink_is_eos (GST_APP_SINK (sink)),
        "neither EOS nor buffers (stalled)");
  return *got < n;
}

/* Seeks forward and back while queues hold buffers: after each flushing
 * seek to T, every buffer out is at T or later (none from before the
 * flush), and the replay plays on to EOS. */
static void
seek_while_playing (const gchar * tail, guint min_after_last)
{
  static const guint targets_ms[] = { 3000, 1000, 4500, 500, 2000 };
  gchar *path = record ();
  gchar *desc = g_strdup_printf ("robocachemcapsrc name=m location=\"%s\" "
      "topics=/lidar,/joint_states %s", path, tail);
  GstElement *p = gst_parse_launch (desc, NULL);
  GstElement *sink = by_name (p, "sink");
  guint got;

  fail_unless (p != NULL, "%s", desc);
  gst_element_set_state (p, GST_STATE_PLAYING);
  fail_if (pull_checked (sink, 5, 0, &got), "ended before the seeks");
  for (guint i = 0; i < G_N_ELEMENTS (targets_ms); i++) {
    GstClockTime t = targets_ms[i] * GST_MSECOND;

    fail_unless (gst_element_seek_simple (p, GST_FORMAT_TIME,
            GST_SEEK_FLAG_FLUSH, t), "seek to %" GST_TIME_FORMAT,
        GST_TIME_ARGS (t));
    /* A few out, queues refilling, then the next seek. */
    fail_if (pull_checked (sink, 3, t, &got), "ended right after a seek");
  }
  fail_unless (pull_checked (sink, G_MAXUINT, 2 * GST_SECOND, &got));
  fail_unless (got >= min_after_last, "%u buffers after the last seek", got);
  fail_unless (gst_bus_pop_filtered (GST_ELEMENT_BUS (p),
          GST_MESSAGE_ERROR) == NULL);
  fail_unless_equals_int (gst_element_set_state (p, GST_STATE_NULL),
      GST_STATE_CHANGE_SUCCESS);
  gst_object_unref (p);
  g_unlink (path);
  g_free (path);
  g_free (desc);
}

#define QSINK "appsink name=sink sync=false max-buffers=2"

GST_START_TEST (test_seek_in_flight_voxelize)
{
  /* 4 s of sweeps after 2 s: at least 35 of the 40 grids. */
  seek_while_playing ("m.src_0 ! queue ! robocachevoxelize backend=cpu "
      "mode=count ! queue ! " QSINK " m.src_1 ! queue ! fakesink sync=false",
      35);
}

GST_END_TEST;

GST_START_TEST (test_seek_in_flight_resample)
{
  seek_while_playing ("m.src_1 ! queue ! robocacheresample backend=cpu "
      "rate=50 ! queue ! " QSINK " m.src_0 ! queue ! fakesink sync=false", 150);
}

GST_END_TEST;

GST_START_TEST (test_seek_in_flight_fuse)
{
  seek_while_playing ("m.src_0 ! queue ! robocachevoxelize backend=cpu "
      "mode=count ! queue ! f.sink_0 m.src_1 ! queue ! robocacheresample "
      "backend=cpu rate=50 ! queue ! f.sink_1 robocachefuse name=f "
      "rate=10/1 ! " QSINK, 35);
}

GST_END_TEST;

static void
setup (void)
{
  work_dir = g_dir_make_tmp ("robocache-livefaults-XXXXXX", NULL);
}

static void
teardown (void)
{
  test_remove_tree (work_dir);
  g_clear_pointer (&work_dir, g_free);
}

static Suite *
livefaults_suite (void)
{
  Suite *s = suite_create ("robocache-live-faults");
  TCase *tc = tcase_create ("live");
  TCase *seek = tcase_create ("seek");

  suite_add_tcase (s, tc);
  tcase_add_checked_fixture (tc, NULL, live_teardown);
  tcase_add_test (tc, test_sensor_stops_for_good);
  tcase_add_loop_test (tc, test_stalled_sensor_blocks_no_other, 0, 2);
  tcase_add_test (tc, test_first_tick_waits_its_deadline);
  tcase_add_test (tc, test_dropout_leaves_latency);
  tcase_add_test (tc, test_all_sensors_pause);
  tcase_add_test (tc, test_restart_jump_forward);
  tcase_add_test (tc, test_restart_jump_backward);
  tcase_add_test (tc, test_clock_one_percent_fast);
  suite_add_tcase (s, seek);
  tcase_add_checked_fixture (seek, setup, teardown);
  tcase_add_test (seek, test_seek_in_flight_voxelize);
  tcase_add_test (seek, test_seek_in_flight_resample);
  tcase_add_test (seek, test_seek_in_flight_fuse);
  return s;
}

GST_CHECK_MAIN (livefaults);
