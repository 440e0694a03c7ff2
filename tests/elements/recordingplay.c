/* The player controls of robocachebagsrc and robocachemcapsrc
 * (gst/gstrobocacherecordingplay.h): start-time, stop-time, rate, loop,
 * the file:// URI handler, and flushing seeks in PAUSED and PLAYING, from
 * an application; and the GAP events of topics that fall behind.  Both
 * elements are tested on recordings written by robocachemcapsink (the
 * real writer, no other tool needed; both elements read either format):
 * for the controls, 20 joint states at 10 Hz, stamped 0, 0.1, ..., 1.9 s
 * from the first; and a topic recorded on channels of two types, which
 * is refused when named and skipped by default. */
#include <gst/check/gstcheck.h>
#include <gst/app/gstappsink.h>
#include <string.h>

#include "elementutil.h"
#include "formats/mcap-writer.h"
#include "formats/ros2enc.h"
#include "formats/ros2types.h"
#include "testutil.h"

#define N_MSGS 20
#define STEP (100 * GST_MSECOND)

static const gchar *elements[] = { "robocachebagsrc", "robocachemcapsrc" };

static gchar *rec_dir;
static gchar *rec_path;
static gchar *gaps_path;
static gchar *mixed_path;

static void write_gaps_recording (void);

/* Sets @p PLAYING and waits for its EOS. */
static void
play_to_eos (GstElement * p)
{
  GstBus *bus = gst_element_get_bus (p);
  GstMessage *msg;

  gst_element_set_state (p, GST_STATE_PLAYING);
  msg = gst_bus_timed_pop_filtered (bus, 30 * GST_SECOND,
      GST_MESSAGE_EOS | GST_MESSAGE_ERROR);
  fail_unless (msg && GST_MESSAGE_TYPE (msg) == GST_MESSAGE_EOS);
  gst_message_unref (msg);
  gst_object_unref (bus);
}

/* Plays the recording pipeline @desc (freed) to its end. */
static void
record (gchar * desc)
{
  GstElement *p = gst_parse_launch (desc, NULL);

  fail_unless (p != NULL, "cannot parse %s", desc);
  play_to_eos (p);
  gst_element_set_state (p, GST_STATE_NULL);
  gst_object_unref (p);
  g_free (desc);
}

/* The checked fixture: runs in each test's process (a pipeline run in
 * the parent before fork would leave GStreamer's threads behind). */
static void
write_recording (void)
{
  gchar *desc;

  desc = g_strdup_printf ("robocachejointsrc num-buffers=%d rate=10/1 "
      "jitter=0 ! robocachemcapsink location=\"%s\" base-time=1000000000000 "
      "sink_0::topic=/joint_states", N_MSGS, rec_path);
  record (desc);
}

/* @element playing the recording with @props into appsink s (sync
 * @sync). */
static GstElement *
player (const gchar * element, const gchar * props, gboolean sync)
{
  gchar *desc = g_strdup_printf ("%s name=src location=\"%s\" %s ! "
      "appsink name=s sync=%s", element, rec_path, props ? props : "",
      sync ? "true" : "false");
  GError *error = NULL;
  GstElement *p = gst_parse_launch (desc, &error);

  g_assert_no_error (error);
  g_free (desc);
  return p;
}

static GstAppSink *
sink_of (GstElement * p)
{
  GstElement *s = gst_bin_get_by_name (GST_BIN (p), "s");

  gst_object_unref (s);         /* the pipeline keeps it */
  return GST_APP_SINK (s);
}

/* Every sample to EOS (the pipeline set to PLAYING here). */
static GPtrArray *
pull_to_eos (GstElement * p)
{
  GPtrArray *out = g_ptr_array_new_with_free_func ((GDestroyNotify)
      gst_sample_unref);
  GstSample *sample;

  gst_element_set_state (p, GST_STATE_PLAYING);
  while ((sample = gst_app_sink_try_pull_sample (sink_of (p), 10 * GST_SECOND)))
    g_ptr_array_add (out, sample);
  fail_unless (gst_app_sink_is_eos (sink_of (p)), "no EOS after %u", out->len);
  return out;
}

static GstClockTime
pts_of (GstSample * sample)
{
  return GST_BUFFER_PTS (gst_sample_get_buffer (sample));
}

static GstClockTime
running_time_of (GstSample * sample)
{
  return gst_segment_to_running_time (gst_sample_get_segment (sample),
      GST_FORMAT_TIME, pts_of (sample));
}

static void
wait_paused (GstElement * p)
{
  gst_element_set_state (p, GST_STATE_PAUSED);
  fail_unless_equals_int (gst_element_get_state (p, NULL, NULL,
          10 * GST_SECOND), GST_STATE_CHANGE_SUCCESS);
}

/* Plays @p, a loop of the recording's first 0.5 s, for over three passes:
 * each pass's buffers stamped in the recording's time, their running time
 * going on. */
static void
check_passes (GstElement * p)
{
  gst_element_set_state (p, GST_STATE_PLAYING);
  for (guint k = 0; k < 17; k++) {
    GstSample *sample = gst_app_sink_try_pull_sample (sink_of (p),
        10 * GST_SECOND);

    fail_unless (sample != NULL, "no sample %u", k);
    fail_unless_equals_clocktime (pts_of (sample), (k % 5) * STEP);
    fail_unless_equals_clocktime (running_time_of (sample), k * STEP);
    gst_sample_unref (sample);
  }
}

/* start-time and stop-time: the messages in [start, stop), in a segment
 * that says so. */
GST_START_TEST (test_start_stop)
{
  GstElement *p = player (elements[__i__],
      "start-time=500000000 stop-time=1200000000", FALSE);
  GPtrArray *out = pull_to_eos (p);
  const GstSegment *seg;

  fail_unless_equals_int (out->len, 7);
  for (guint k = 0; k < out->len; k++)
    fail_unless_equals_clocktime (pts_of (g_ptr_array_index (out, k)),
        5 * STEP + k * STEP);
  seg = gst_sample_get_segment (g_ptr_array_index (out, 0));
  fail_unless_equals_clocktime (seg->start, 5 * STEP);
  fail_unless_equals_clocktime (seg->stop, 12 * STEP);
  fail_unless_equals_clocktime (running_time_of (g_ptr_array_index (out, 0)),
      0);
  g_ptr_array_unref (out);
  gst_element_set_state (p, GST_STATE_NULL);
  gst_object_unref (p);
}

GST_END_TEST;

/* The duration is where the last message ends, one period after it: a
 * seek past the end (clamped to the duration) plays nothing, as
 * start-time there does (it played the last message). */
GST_START_TEST (test_seek_past_end)
{
  GstElement *p = player (elements[__i__], NULL, FALSE);
  gint64 duration = 0;
  GPtrArray *out;

  wait_paused (p);
  fail_unless (gst_element_query_duration (p, GST_FORMAT_TIME, &duration));
  fail_unless_equals_int64 (duration, N_MSGS * STEP);
  fail_unless (gst_element_seek_simple (p, GST_FORMAT_TIME,
          GST_SEEK_FLAG_FLUSH, 10 * GST_SECOND));
  out = pull_to_eos (p);
  fail_unless_equals_int (out->len, 0);
  g_ptr_array_unref (out);
  gst_element_set_state (p, GST_STATE_NULL);
  gst_object_unref (p);
}

GST_END_TEST;

/* A start-time beyond the end gives EOS and nothing else. */
GST_START_TEST (test_start_after_end)
{
  GstElement *p = player (elements[__i__], "start-time=5000000000", FALSE);
  GPtrArray *out = pull_to_eos (p);

  fail_unless_equals_int (out->len, 0);
  g_ptr_array_unref (out);
  gst_element_set_state (p, GST_STATE_NULL);
  gst_object_unref (p);
}

GST_END_TEST;

/* A start-time of 2^63 or more, up to the top of its range, is beyond the
 * end too: EOS and nothing else, with loop as well (taken as a negative
 * gint64, it played the whole recording, with loop for ever). */
GST_START_TEST (test_start_beyond_int64)
{
  static const guint64 starts[] = { G_GUINT64_CONSTANT (1) << 63,
    G_MAXUINT64 - 1
  };

  for (guint k = 0; k < 2 * G_N_ELEMENTS (starts); k++) {
    gchar *props = g_strdup_printf ("start-time=%" G_GUINT64_FORMAT
        " loop=%s", starts[k / 2], k % 2 ? "true" : "false");
    GstElement *p = player (elements[__i__], props, FALSE);
    GstElement *src = gst_bin_get_by_name (GST_BIN (p), "src");
    GstStructure *stats = NULL;
    guint64 messages = 1, loops = 1;
    GstSample *sample;

    gst_element_set_state (p, GST_STATE_PLAYING);
    /* One pull, bounded: a loop playing on must not hold the test. */
    sample = gst_app_sink_try_pull_sample (sink_of (p), 10 * GST_SECOND);
    fail_unless (sample == NULL, "%s: a buffer at %" GST_TIME_FORMAT, props,
        GST_TIME_ARGS (pts_of (sample)));
    fail_unless (gst_app_sink_is_eos (sink_of (p)), "%s: no EOS", props);
    g_object_get (src, "stats", &stats, NULL);
    fail_unless (gst_structure_get_uint64 (stats, "messages", &messages));
    fail_unless (gst_structure_get_uint64 (stats, "loops", &loops));
    fail_unless_equals_uint64 (messages, 0);
    fail_unless_equals_uint64 (loops, 0);
    gst_structure_free (stats);
    gst_element_set_state (p, GST_STATE_NULL);
    gst_object_unref (src);
    gst_object_unref (p);
    g_free (props);
  }
}

GST_END_TEST;

/* A stop-time of 2^63 or more, below the maximum, is beyond the end: it
 * plays from start-time to the end, in a segment that says so. */
GST_START_TEST (test_stop_beyond_int64)
{
  static const guint64 stops[] = { G_GUINT64_CONSTANT (1) << 63,
    G_MAXUINT64 - 1
  };

  for (guint k = 0; k < G_N_ELEMENTS (stops); k++) {
    gchar *props = g_strdup_printf ("start-time=500000000 stop-time=%"
        G_GUINT64_FORMAT, stops[k]);
    GstElement *p = player (elements[__i__], props, FALSE);
    GPtrArray *out = pull_to_eos (p);
    const GstSegment *seg;

    fail_unless_equals_int (out->len, N_MSGS - 5);
    fail_unless_equals_clocktime (pts_of (g_ptr_array_index (out, 0)),
        5 * STEP);
    seg = gst_sample_get_segment (g_ptr_array_index (out, 0));
    fail_unless_equals_uint64 (seg->start, 5 * STEP);
    fail_unless_equals_uint64 (seg->stop, stops[k]);
    g_ptr_array_unref (out);
    gst_element_set_state (p, GST_STATE_NULL);
    gst_object_unref (p);
    g_free (props);
  }
}

GST_END_TEST;

/* stop-time not after start-time is an error naming both. */
GST_START_TEST (test_stop_before_start_n)
{
  GstElement *p = player (elements[__i__],
      "start-time=1000000000 stop-time=500000000", FALSE);
  GstMessage *msg = run_to_end (p, 10 * GST_SECOND);
  GError *err = NULL;

  fail_unless (msg != NULL && GST_MESSAGE_TYPE (msg) == GST_MESSAGE_ERROR);
  gst_message_parse_error (msg, &err, NULL);
  fail_unless (strstr (err->message, "stop-time (0:00:00.500000000) is not "
          "after start-time (0:00:01.000000000)") != NULL, "%s", err->message);
  g_error_free (err);
  gst_message_unref (msg);
  gst_object_unref (p);
}

GST_END_TEST;

/* rate=4: the segment says so, buffer times stay the recording's, running
 * times are a quarter, and a synced sink plays the 1.9 s in about 0.5 s. */
GST_START_TEST (test_rate)
{
  GstElement *p = player (elements[__i__], "rate=4.0", TRUE);
  gint64 t0 = g_get_monotonic_time (), took;
  GPtrArray *out = pull_to_eos (p);
  GstSample *last;

  took = g_get_monotonic_time () - t0;
  fail_unless_equals_int (out->len, N_MSGS);
  last = g_ptr_array_index (out, N_MSGS - 1);
  fail_unless_equals_float (gst_sample_get_segment (last)->rate, 4.0);
  fail_unless_equals_clocktime (pts_of (last), 19 * STEP);
  fail_unless_equals_clocktime (running_time_of (last), 19 * STEP / 4);
  fail_unless (took >= 400000 && took < 1500000, "took %" G_GINT64_FORMAT
      " us", took);
  g_ptr_array_unref (out);
  gst_element_set_state (p, GST_STATE_NULL);
  gst_object_unref (p);
}

GST_END_TEST;

/* loop with stop-time 0.5 s: buffer times 0 .. 0.4 again and again, a
 * new segment per pass, running times 0, 0.1, 0.2, ... without a gap or
 * a repeat; stats count the passes. */
GST_START_TEST (test_loop)
{
  GstElement *p = player (elements[__i__], "loop=true stop-time=500000000",
      FALSE);
  GstElement *src = gst_bin_get_by_name (GST_BIN (p), "src");
  GstStructure *stats = NULL;
  guint64 loops = 0;

  check_passes (p);
  g_object_get (src, "stats", &stats, NULL);
  fail_unless (gst_structure_get_uint64 (stats, "loops", &loops));
  fail_unless (loops >= 3, "%" G_GUINT64_FORMAT " loops", loops);
  gst_structure_free (stats);
  gst_element_set_state (p, GST_STATE_NULL);
  gst_object_unref (src);
  gst_object_unref (p);
}

GST_END_TEST;

/* The same pipeline played, stopped (NULL) and played again, as a ROS
 * node restarts its pipeline: the pads stay, and with them the links
 * gst-launch made once (new pads each start were not linked: not-linked
 * from the second run on). */
GST_START_TEST (test_restart)
{
  GstElement *p = player (elements[__i__], NULL, FALSE);

  for (guint run = 0; run < 3; run++) {
    GPtrArray *out = pull_to_eos (p);

    fail_unless (out->len == N_MSGS, "run %u: %u samples", run, out->len);
    fail_unless_equals_clocktime (pts_of (g_ptr_array_index (out,
                N_MSGS - 1)), (N_MSGS - 1) * STEP);
    g_ptr_array_unref (out);
    fail_unless_equals_int (gst_element_set_state (p, GST_STATE_NULL),
        GST_STATE_CHANGE_SUCCESS);
  }
  gst_object_unref (p);
}

GST_END_TEST;

/* A looped pass through robocachefuse: the frames are stamped in each
 * pass's time, as the recording's buffers are, their running time going
 * on (the fuse kept the first pass's segment, whose stop left every
 * later frame without a timestamp). */
GST_START_TEST (test_loop_fused)
{
  GstElement *p = player (elements[__i__], "loop=true stop-time=500000000 "
      "! robocachefuse rate=10/1", FALSE);

  check_passes (p);
  gst_element_set_state (p, GST_STATE_NULL);
  gst_object_unref (p);
}

GST_END_TEST;

/* A non-flushing seek while playing at the recording's pace: it returns
 * at once and takes effect before the next message, the running time
 * going on (the caller was blocked until the recording ended, and the seek
 * lost: the task retook the stream lock the seek waited for). */
GST_START_TEST (test_seek_nonflushing_playing)
{
  GstElement *p = player (elements[__i__], NULL, TRUE);
  GstClockTime last_running = 0, first_after = GST_CLOCK_TIME_NONE;
  GstSample *sample;
  gint64 took;
  guint n = 0;

  gst_element_set_state (p, GST_STATE_PLAYING);
  for (guint k = 0; k < 3; k++) {
    sample = gst_app_sink_try_pull_sample (sink_of (p), 10 * GST_SECOND);
    fail_unless (sample != NULL, "no sample %u", k);
    last_running = running_time_of (sample);
    gst_sample_unref (sample);
  }
  took = g_get_monotonic_time ();
  fail_unless (gst_element_seek (p, 1.0, GST_FORMAT_TIME,
          GST_SEEK_FLAG_ACCURATE, GST_SEEK_TYPE_SET, 15 * STEP,
          GST_SEEK_TYPE_NONE, 0));
  took = g_get_monotonic_time () - took;
  fail_unless (took < G_USEC_PER_SEC, "the seek took %" G_GINT64_FORMAT
      " us", took);
  while ((sample = gst_app_sink_try_pull_sample (sink_of (p),
              10 * GST_SECOND))) {
    const GstClockTime pts = pts_of (sample), running =
        running_time_of (sample);

    /* At most the message in flight before the jump. */
    if (pts >= 15 * STEP && first_after == GST_CLOCK_TIME_NONE) {
      first_after = pts;
      fail_unless (running <= last_running + 3 * STEP, "running time %"
          GST_TIME_FORMAT " after %" GST_TIME_FORMAT, GST_TIME_ARGS (running),
          GST_TIME_ARGS (last_running));
    }
    fail_unless (pts < 15 * STEP ? first_after == GST_CLOCK_TIME_NONE &&
        n < 2 : TRUE, "%" GST_TIME_FORMAT " after the seek",
        GST_TIME_ARGS (pts));
    /* Strictly: the new segment goes on after the message pushed last
     * (it went on at its time, and a consumer took the next for a
     * repeat). */
    fail_unless (running > last_running, "running time %" GST_TIME_FORMAT
        " after %" GST_TIME_FORMAT, GST_TIME_ARGS (running),
        GST_TIME_ARGS (last_running));
    last_running = running;
    gst_sample_unref (sample);
    n++;
  }
  fail_unless (gst_app_sink_is_eos (sink_of (p)));
  fail_unless_equals_clocktime (first_after, 15 * STEP);
  fail_unless (n <= 7, "%u samples after the seek", n);
  gst_element_set_state (p, GST_STATE_NULL);
  gst_object_unref (p);
}

GST_END_TEST;

/* A seek whose start comes after the stop kept (stop-time here, the
 * seek's stop NONE) is refused, flushing or not, and the pass plays on
 * undisturbed (it was taken: a critical from gst_segment_do_seek, then the
 * kept segment replayed from its start with running time 0). */
GST_START_TEST (test_seek_start_after_stop_n)
{
  GstElement *p = player (elements[__i__], "stop-time=1000000000", TRUE);
  GstClockTime last = 0;
  GstSample *sample;
  guint n = 0;

  gst_element_set_state (p, GST_STATE_PLAYING);
  while ((sample = gst_app_sink_try_pull_sample (sink_of (p),
              10 * GST_SECOND))) {
    fail_unless_equals_clocktime (pts_of (sample), n * STEP);
    fail_unless (n == 0 || running_time_of (sample) > last);
    last = running_time_of (sample);
    gst_sample_unref (sample);
    if (++n == 3) {
      fail_if (gst_element_seek (p, 1.0, GST_FORMAT_TIME,
              GST_SEEK_FLAG_NONE, GST_SEEK_TYPE_SET, 15 * STEP,
              GST_SEEK_TYPE_NONE, -1));
      fail_if (gst_element_seek (p, 1.0, GST_FORMAT_TIME,
              GST_SEEK_FLAG_FLUSH, GST_SEEK_TYPE_SET, 15 * STEP,
              GST_SEEK_TYPE_NONE, -1));
    }
  }
  fail_unless (gst_app_sink_is_eos (sink_of (p)));
  fail_unless_equals_int (n, 10);
  gst_element_set_state (p, GST_STATE_NULL);
  gst_object_unref (p);
}

GST_END_TEST;

/* The same seek through two topics' pads (a pipeline seek reaches each):
 * refused by both copies, where the second was answered taken. */
GST_START_TEST (test_seek_start_after_stop_two_topics_n)
{
  gchar *desc;
  GstElement *p;

  write_gaps_recording ();
  desc = g_strdup_printf ("%s location=\"%s\" topics=/fast,/late "
      "stop-time=1000000000 name=src src.src_0 ! queue ! fakesink "
      "src.src_1 ! queue ! fakesink", elements[__i__], gaps_path);
  p = gst_parse_launch (desc, NULL);
  wait_paused (p);
  fail_if (gst_element_seek (p, 1.0, GST_FORMAT_TIME, GST_SEEK_FLAG_FLUSH,
          GST_SEEK_TYPE_SET, 15 * STEP, GST_SEEK_TYPE_NONE, -1));
  gst_element_set_state (p, GST_STATE_NULL);
  gst_object_unref (p);
  g_free (desc);
}

GST_END_TEST;

/* A seek that sets the stop alone goes on from the position reached, as
 * GStreamer's sources do (it restarted at the segment's start), and the
 * position query of the source says where it is. */
GST_START_TEST (test_seek_stop_only)
{
  GstElement *p = player (elements[__i__], NULL, TRUE);
  GstElement *src = gst_bin_get_by_name (GST_BIN (p), "src");
  GstClockTime reached = 0, went_on = GST_CLOCK_TIME_NONE, last = 0;
  GstSample *sample;
  gint64 position = -1;
  guint n = 0;

  gst_element_set_state (p, GST_STATE_PLAYING);
  for (guint k = 0; k < 5; k++) {
    sample = gst_app_sink_try_pull_sample (sink_of (p), 10 * GST_SECOND);
    fail_unless (sample != NULL);
    reached = pts_of (sample);
    gst_sample_unref (sample);
  }
  fail_unless (gst_element_query_position (src, GST_FORMAT_TIME, &position));
  fail_unless (position >= (gint64) reached && position <= (gint64) (reached +
          3 * STEP), "position %" G_GINT64_FORMAT " after %" GST_TIME_FORMAT,
      position, GST_TIME_ARGS (reached));
  fail_unless (gst_element_seek (p, 1.0, GST_FORMAT_TIME,
          GST_SEEK_FLAG_FLUSH, GST_SEEK_TYPE_NONE, -1, GST_SEEK_TYPE_SET,
          12 * STEP));
  while ((sample = gst_app_sink_try_pull_sample (sink_of (p),
              10 * GST_SECOND))) {
    if (!GST_CLOCK_TIME_IS_VALID (went_on))
      went_on = pts_of (sample);
    last = pts_of (sample);
    gst_sample_unref (sample);
    n++;
  }
  fail_unless (gst_app_sink_is_eos (sink_of (p)));
  fail_unless (went_on > reached && went_on <= reached + 3 * STEP,
      "went on at %" GST_TIME_FORMAT " after %" GST_TIME_FORMAT,
      GST_TIME_ARGS (went_on), GST_TIME_ARGS (reached));
  fail_unless_equals_clocktime (last, 11 * STEP);
  fail_unless_equals_int (n, (last - went_on) / STEP + 1);
  gst_object_unref (src);
  gst_element_set_state (p, GST_STATE_NULL);
  gst_object_unref (p);
}

GST_END_TEST;

/* Two recording sources under one segment seek: the application gets
 * one SEGMENT_DONE a pass, once both are done (each posts SEGMENT_START,
 * which the bin waits on; without it the bin relayed both, and a player
 * looping on SEGMENT_DONE seeked twice a pass). */
GST_START_TEST (test_segment_seek_two_sources)
{
  gchar *desc = g_strdup_printf ("%s location=\"%s\" ! fakesink "
      "%s location=\"%s\" ! fakesink", elements[__i__], rec_path,
      elements[__i__], rec_path);
  GstElement *p = gst_parse_launch (desc, NULL);
  GstBus *bus = gst_element_get_bus (p);
  GstMessage *msg;
  guint done = 0;

  wait_paused (p);
  fail_unless (gst_element_seek (p, 1.0, GST_FORMAT_TIME,
          GST_SEEK_FLAG_FLUSH | GST_SEEK_FLAG_SEGMENT, GST_SEEK_TYPE_SET,
          5 * STEP, GST_SEEK_TYPE_SET, 10 * STEP));
  gst_element_set_state (p, GST_STATE_PLAYING);
  while ((msg = gst_bus_timed_pop_filtered (bus, 2 * GST_SECOND,
              GST_MESSAGE_SEGMENT_DONE | GST_MESSAGE_EOS |
              GST_MESSAGE_ERROR))) {
    fail_unless_equals_int (GST_MESSAGE_TYPE (msg), GST_MESSAGE_SEGMENT_DONE);
    fail_unless (GST_MESSAGE_SRC (msg) == GST_OBJECT (p));
    gst_message_unref (msg);
    done++;
  }
  fail_unless_equals_int (done, 1);
  gst_object_unref (bus);
  gst_element_set_state (p, GST_STATE_NULL);
  gst_object_unref (p);
  g_free (desc);
}

GST_END_TEST;

/* An EOS sent to the pipeline (gst-launch-1.0 -e on Ctrl-C, an
 * application ending a recording) while it plays at the recording's pace
 * and loops for ever: every stream ends with it, the same seqnum, after
 * the sample being pushed (it was dropped, and the pipeline never ended:
 * a replay being recorded by robocachemcapsink was never finished). */
GST_START_TEST (test_eos_sent)
{
  GstElement *p = player (elements[__i__], "loop=true", TRUE);
  GstEvent *eos = gst_event_new_eos ();
  guint32 seqnum = gst_event_get_seqnum (eos);
  GstBus *bus = gst_element_get_bus (p);
  GstSample *sample;
  GstMessage *msg;
  guint n = 0;

  gst_element_set_state (p, GST_STATE_PLAYING);
  for (guint k = 0; k < 3; k++) {
    sample = gst_app_sink_try_pull_sample (sink_of (p), 10 * GST_SECOND);
    fail_unless (sample != NULL, "no sample %u", k);
    gst_sample_unref (sample);
  }
  fail_unless (gst_element_send_event (p, eos));
  /* Bounded: without the EOS the loop plays for ever. */
  while (n < 20 && (sample = gst_app_sink_try_pull_sample (sink_of (p),
              10 * GST_SECOND))) {
    gst_sample_unref (sample);
    n++;
  }
  fail_unless (n <= 2, "%u samples after the EOS was sent", n);
  fail_unless (gst_app_sink_is_eos (sink_of (p)), "no EOS");
  msg = gst_bus_timed_pop_filtered (bus, 10 * GST_SECOND, GST_MESSAGE_EOS |
      GST_MESSAGE_ERROR);
  fail_unless (msg && GST_MESSAGE_TYPE (msg) == GST_MESSAGE_EOS);
  fail_unless_equals_int (gst_message_get_seqnum (msg), seqnum);
  gst_message_unref (msg);
  gst_object_unref (bus);
  gst_element_set_state (p, GST_STATE_NULL);
  gst_object_unref (p);
}

GST_END_TEST;

/* loop over the whole recording: the second pass starts one period (0.1
 * s) after the last message, at running time 2.0 s. */
GST_START_TEST (test_loop_whole)
{
  GstElement *p = player (elements[__i__], "loop=true", FALSE);

  gst_element_set_state (p, GST_STATE_PLAYING);
  for (guint k = 0; k < N_MSGS + 3; k++) {
    GstSample *sample = gst_app_sink_try_pull_sample (sink_of (p),
        10 * GST_SECOND);

    fail_unless (sample != NULL);
    fail_unless_equals_clocktime (running_time_of (sample), k * STEP);
    gst_sample_unref (sample);
  }
  gst_element_set_state (p, GST_STATE_NULL);
  gst_object_unref (p);
}

GST_END_TEST;

/* file:// URIs set and give back the location; other URIs are refused. */
GST_START_TEST (test_uri)
{
  GstElement *src = gst_element_factory_make (elements[__i__], NULL);
  gchar *uri = gst_filename_to_uri (rec_path, NULL), *back, *location;
  GError *err = NULL;

  fail_unless (GST_IS_URI_HANDLER (src));
  fail_unless_equals_int (gst_uri_handler_get_uri_type (GST_URI_HANDLER
          (src)), GST_URI_SRC);
  fail_unless (gst_uri_handler_set_uri (GST_URI_HANDLER (src), uri, &err));
  g_object_get (src, "location", &location, NULL);
  fail_unless_equals_string (location, rec_path);
  back = gst_uri_handler_get_uri (GST_URI_HANDLER (src));
  fail_unless_equals_string (back, uri);
  fail_if (gst_uri_handler_set_uri (GST_URI_HANDLER (src),
          "file://elsewhere/run.bag", &err));
  fail_unless (strstr (err->message, "not a local file URI") != NULL);
  g_clear_error (&err);
  fail_if (gst_uri_handler_set_uri (GST_URI_HANDLER (src),
          "http://example.com/run.bag", &err));
  g_clear_error (&err);
  g_free (back);
  g_free (location);
  g_free (uri);
  gst_object_unref (src);
}

GST_END_TEST;

/* The element given its recording by URI plays. */
GST_START_TEST (test_uri_plays)
{
  gchar *uri = gst_filename_to_uri (rec_path, NULL);
  gchar *desc = g_strdup_printf ("%s name=src ! fakesink", elements[__i__]);
  GstElement *p = gst_parse_launch (desc, NULL);
  GstElement *src = gst_bin_get_by_name (GST_BIN (p), "src");

  fail_unless (gst_uri_handler_set_uri (GST_URI_HANDLER (src), uri, NULL));
  fail_unless (play_to_end (p));
  gst_object_unref (src);
  g_free (desc);
  g_free (uri);
}

GST_END_TEST;

/* Flushing seeks from an application: in PAUSED (prerolled at the
 * target) and in PLAYING (the next buffer is the target), and with rate
 * 2 (the segment says so). */
GST_START_TEST (test_seek_paused_playing)
{
  GstElement *p = player (elements[__i__], NULL, FALSE);
  GstSample *sample;
  GPtrArray *out;

  wait_paused (p);
  fail_unless (gst_element_seek_simple (p, GST_FORMAT_TIME,
          GST_SEEK_FLAG_FLUSH, 15 * STEP));
  wait_paused (p);
  sample = gst_app_sink_try_pull_preroll (sink_of (p), 10 * GST_SECOND);
  fail_unless_equals_clocktime (pts_of (sample), 15 * STEP);
  gst_sample_unref (sample);

  gst_element_set_state (p, GST_STATE_PLAYING);
  sample = gst_app_sink_try_pull_sample (sink_of (p), 10 * GST_SECOND);
  fail_unless_equals_clocktime (pts_of (sample), 15 * STEP);
  gst_sample_unref (sample);
  fail_unless (gst_element_seek_simple (p, GST_FORMAT_TIME,
          GST_SEEK_FLAG_FLUSH | GST_SEEK_FLAG_ACCURATE, 3 * STEP));
  sample = gst_app_sink_try_pull_sample (sink_of (p), 10 * GST_SECOND);
  fail_unless_equals_clocktime (pts_of (sample), 3 * STEP);
  fail_unless_equals_clocktime (running_time_of (sample), 0);
  gst_sample_unref (sample);

  fail_unless (gst_element_seek (p, 2.0, GST_FORMAT_TIME,
          GST_SEEK_FLAG_FLUSH, GST_SEEK_TYPE_SET, 10 * STEP,
          GST_SEEK_TYPE_NONE, -1));
  out = pull_to_eos (p);
  fail_unless_equals_int (out->len, 10);
  fail_unless_equals_float (gst_sample_get_segment (g_ptr_array_index (out,
              0))->rate, 2.0);
  g_ptr_array_unref (out);
  gst_element_set_state (p, GST_STATE_NULL);
  gst_object_unref (p);
}

GST_END_TEST;

/* A segment seek ends with SEGMENT_DONE (at the pass's end), not EOS; a
 * non-flushing segment seek from there plays the range again, running
 * times going on without a gap, as a GStreamer player loops. */
static GstPadProbeReturn
count_segment_done (GstPad * pad, GstPadProbeInfo * info, gpointer count)
{
  if (GST_EVENT_TYPE (GST_PAD_PROBE_INFO_EVENT (info)) ==
      GST_EVENT_SEGMENT_DONE)
    g_atomic_int_inc ((gint *) count);
  return GST_PAD_PROBE_OK;
}

/* @sync: the sink at the clock, so that the next pass's seek comes while
 * robocachefuse still owes ticks of the pass (it repeated one and lost
 * the last, the seek's segment taken at once).  One segment-done event
 * reaches the sink a pass (robocachefuse passed on each stream's). */
static void
check_segment_seek_in (GstElement * p)
{
  GstBus *bus = gst_element_get_bus (p);
  GstPad *sinkpad = gst_element_get_static_pad (GST_ELEMENT (sink_of (p)),
      "sink");
  GstClockTime last_rt = 0;
  gint segment_dones = 0;

  gst_pad_add_probe (sinkpad, GST_PAD_PROBE_TYPE_EVENT_DOWNSTREAM,
      count_segment_done, &segment_dones, NULL);
  wait_paused (p);
  fail_unless (gst_element_seek (p, 1.0, GST_FORMAT_TIME,
          GST_SEEK_FLAG_FLUSH | GST_SEEK_FLAG_SEGMENT, GST_SEEK_TYPE_SET,
          5 * STEP, GST_SEEK_TYPE_SET, 10 * STEP));
  gst_element_set_state (p, GST_STATE_PLAYING);
  for (guint pass = 0; pass < 2; pass++) {
    GstMessage *msg = gst_bus_timed_pop_filtered (bus, 10 * GST_SECOND,
        GST_MESSAGE_SEGMENT_DONE | GST_MESSAGE_EOS | GST_MESSAGE_ERROR);
    GstFormat format;
    gint64 position;

    fail_unless (msg && GST_MESSAGE_TYPE (msg) == GST_MESSAGE_SEGMENT_DONE,
        "pass %u: no SEGMENT_DONE", pass);
    gst_message_parse_segment_done (msg, &format, &position);
    fail_unless_equals_int (format, GST_FORMAT_TIME);
    fail_unless_equals_int64 (position, 10 * STEP);
    gst_message_unref (msg);
    for (guint k = 0; k < 5; k++) {
      GstSample *sample = gst_app_sink_try_pull_sample (sink_of (p),
          10 * GST_SECOND);

      fail_unless (sample != NULL, "pass %u: %u samples", pass, k);
      fail_unless_equals_clocktime (pts_of (sample), (5 + k) * STEP);
      fail_unless_equals_clocktime (running_time_of (sample),
          (pass * 5 + k) * STEP);
      fail_unless (pass + k == 0 || running_time_of (sample) > last_rt);
      last_rt = running_time_of (sample);
      gst_sample_unref (sample);
    }
    if (pass == 0)
      fail_unless (gst_element_seek (p, 1.0, GST_FORMAT_TIME,
              GST_SEEK_FLAG_SEGMENT, GST_SEEK_TYPE_SET, 5 * STEP,
              GST_SEEK_TYPE_SET, 10 * STEP), "the non-flushing seek");
  }
  fail_if (gst_app_sink_is_eos (sink_of (p)));
  /* The pass's event follows its message and samples: wait for it. */
  for (guint k = 0; k < 100 && g_atomic_int_get (&segment_dones) < 2; k++)
    g_usleep (50 * 1000);
  g_usleep (100 * 1000);
  fail_unless_equals_int (g_atomic_int_get (&segment_dones), 2);
  gst_object_unref (sinkpad);
  gst_object_unref (bus);
  gst_element_set_state (p, GST_STATE_NULL);
  gst_object_unref (p);
}

static void
check_segment_seek (const gchar * element, const gchar * props, gboolean sync)
{
  check_segment_seek_in (player (element, props, sync));
}

GST_START_TEST (test_segment_seek)
{
  check_segment_seek (elements[__i__], NULL, FALSE);
}

GST_END_TEST;

/* The same through robocachefuse: every tick of each pass, the last too
 * (each stream's GAP up to the pass's end is its sample after it; the
 * last tick waited for a sample that never came), in each pass's time. */
GST_START_TEST (test_segment_seek_fused)
{
  check_segment_seek (elements[__i__], "! robocachefuse rate=10/1", FALSE);
  check_segment_seek (elements[__i__], "! robocachefuse rate=10/1", TRUE);
}

GST_END_TEST;

/* Two topics into robocachefuse (each ends the pass with SEGMENT_DONE):
 * one segment-done event a pass downstream, after its last tick. */
GST_START_TEST (test_segment_seek_fused_two_topics)
{
  gchar *desc;
  GstElement *p;

  write_gaps_recording ();
  desc = g_strdup_printf ("%s name=src location=\"%s\" "
      "topics=/fast,/late src.src_0 ! queue ! f.sink_0 "
      "src.src_1 ! queue ! f.sink_1 robocachefuse name=f rate=10/1 ! "
      "appsink name=s sync=true", elements[__i__], gaps_path);
  p = gst_parse_launch (desc, NULL);
  fail_unless (p != NULL);
  check_segment_seek_in (p);
  g_free (desc);
}

GST_END_TEST;

/* A non-flushing seek through robocachefuse while it plays at the clock:
 * the ticks of the data before the seek keep the old segment, the new
 * segment's from its first tick, so running time goes on tick by tick
 * (GstAggregator took the seek's segment at once: the ticks still owed
 * were stamped 1.3 s late, then running time went back). */
GST_START_TEST (test_seek_nonflushing_fused)
{
  GstElement *p = player (elements[__i__], "! robocachefuse rate=10/1", TRUE);
  GstClockTime last_rt = GST_CLOCK_TIME_NONE, last_pts = 0;
  GstQuery *seeking = gst_query_new_seeking (GST_FORMAT_TIME);
  gboolean seekable = FALSE;
  gint64 start = -1, end = -1;
  GstSample *sample;
  guint n = 0;

  /* Seekable through the fuse, over the recording (GstAggregator said
   * not seekable). */
  wait_paused (p);
  fail_unless (gst_element_query (p, seeking));
  gst_query_parse_seeking (seeking, NULL, &seekable, &start, &end);
  fail_unless (seekable);
  fail_unless_equals_int64 (start, 0);
  fail_unless (end >= (gint64) ((N_MSGS - 1) * STEP), "end %" G_GINT64_FORMAT,
      end);
  gst_query_unref (seeking);
  gst_element_set_state (p, GST_STATE_PLAYING);
  while ((sample = gst_app_sink_try_pull_sample (sink_of (p),
              10 * GST_SECOND))) {
    GstClockTime rt = running_time_of (sample);

    if (GST_CLOCK_TIME_IS_VALID (last_rt))
      fail_unless_equals_clocktime (rt, last_rt + STEP);
    last_rt = rt;
    last_pts = pts_of (sample);
    gst_sample_unref (sample);
    if (++n == 3)
      fail_unless (gst_element_seek (p, 1.0, GST_FORMAT_TIME,
              GST_SEEK_FLAG_NONE, GST_SEEK_TYPE_SET, 15 * STEP,
              GST_SEEK_TYPE_NONE, -1));
  }
  fail_unless (gst_app_sink_is_eos (sink_of (p)));
  fail_unless_equals_clocktime (last_pts, (N_MSGS - 1) * STEP);
  fail_unless (n >= 8 && n <= 12, "%u ticks", n);
  gst_element_set_state (p, GST_STATE_NULL);
  gst_object_unref (p);
}

GST_END_TEST;

/* With timestamps=header, a stop early in a recording ends the reading a
 * second of record time after it: the rest is not read, so a message
 * that cannot be played at 2.5 s is not decoded, nor skipped and counted
 * (it is, without a stop). */
GST_START_TEST (test_stop_reads_no_further)
{
  static const gchar *names[] = { "j0", "j1" };
  gchar *path = g_build_filename (rec_dir, "late-bad.mcap", NULL);
  RcMcapWriter *w = rc_mcap_writer_new (path, "ros2",
      RC_MCAP_COMPRESSION_NONE, 1 << 12, NULL);
  const gchar *text = rc_ros2_type_definition ("sensor_msgs/msg/JointState");
  GByteArray *out = g_byte_array_new ();
  guint16 schema, channel;

  fail_unless (w != NULL);
  fail_unless (rc_mcap_writer_add_schema (w, "sensor_msgs/msg/JointState",
          "ros2msg", text, strlen (text), &schema, NULL));
  fail_unless (rc_mcap_writer_add_channel (w, "/joints", "cdr", schema, NULL,
          &channel, NULL));
  for (guint k = 0; k < 30; k++) {
    const guint64 t = 1000000000000 + k * STEP;
    gdouble position[2] = { k, -(gdouble) k };
    /* At 2.5 s, one position for two names: skipped, warned about. */
    RcJointState js = { {0, t, (gchar *) "base"}, 2, (gchar **) names,
      k == 25 ? 1 : 2, 0, 0, position, NULL, NULL
    };

    rc_ros2_encode_joint_state (out, &js);
    fail_unless (rc_mcap_writer_write_message (w, channel, k, t, t,
            out->data, out->len, NULL));
  }
  fail_unless (rc_mcap_writer_finish (w, NULL));
  rc_mcap_writer_free (w);
  g_byte_array_unref (out);

  for (guint stop = 0; stop < 2; stop++) {
    gchar *desc = g_strdup_printf ("%s name=src location=\"%s\" %s ! "
        "fakesink", elements[__i__], path, stop ? "stop-time=1000000000" : "");
    GstElement *p = gst_parse_launch (desc, NULL);
    GstElement *src = gst_bin_get_by_name (GST_BIN (p), "src");
    GstStructure *stats = NULL;
    guint64 messages = 0, skipped = 0;

    play_to_eos (p);
    g_object_get (src, "stats", &stats, NULL);
    fail_unless (gst_structure_get_uint64 (stats, "messages", &messages));
    fail_unless (gst_structure_get_uint64 (stats, "skipped-unsupported",
            &skipped));
    fail_unless_equals_uint64 (messages, stop ? 10 : 29);
    fail_unless_equals_uint64 (skipped, stop ? 0 : 1);
    gst_structure_free (stats);
    gst_object_unref (src);
    gst_element_set_state (p, GST_STATE_NULL);
    gst_object_unref (p);
    g_free (desc);
  }
  g_free (path);
}

GST_END_TEST;

/* Reverse playback is refused (the seek fails, playback goes on). */
GST_START_TEST (test_seek_reverse_n)
{
  GstElement *p = player (elements[__i__], NULL, FALSE);
  GPtrArray *out;

  wait_paused (p);
  fail_if (gst_element_seek (p, -1.0, GST_FORMAT_TIME, GST_SEEK_FLAG_FLUSH,
          GST_SEEK_TYPE_SET, 0, GST_SEEK_TYPE_SET, 10 * STEP));
  out = pull_to_eos (p);
  fail_unless_equals_int (out->len, N_MSGS);
  g_ptr_array_unref (out);
  gst_element_set_state (p, GST_STATE_NULL);
  gst_object_unref (p);
}

GST_END_TEST;

/* ---- GAP events ---------------------------------------------------- */

/* A topic that falls half a second behind the newest message played gets
 * GAP events, so that consumers waiting for every stream
 * (robocache_merge, queues bounded in time) go on.  A second recording:
 * /fast at 10 Hz from 0 to 3.9 s, /slow at 1 Hz from 0 to 3 s, /late at
 * 10 Hz from 1.5 s to 2.4 s. */

static const gchar *gap_topics[] = { "fast", "slow", "late" };

#define GAP_LAG (GST_SECOND / 2)

static void
write_gaps_recording (void)
{
  gchar *desc;

  desc = g_strdup_printf ("robocachemcapsink name=m location=\"%s\" "
      "base-time=1000000000000 sink_0::topic=/fast sink_1::topic=/slow "
      "sink_2::topic=/late sink_2::offset=1500000000 "
      "robocachejointsrc num-buffers=40 rate=10/1 jitter=0 ! m.sink_0 "
      "robocachejointsrc num-buffers=4 rate=1/1 jitter=0 ! m.sink_1 "
      "robocachejointsrc num-buffers=10 rate=10/1 jitter=0 ! m.sink_2",
      gaps_path);
  record (desc);
}

/* Links pad src_N of the recording source to queue qN of @pipeline. */
static void
link_to_queue (GstElement * src, GstPad * pad, GstElement * pipeline)
{
  gchar *name = g_strdup_printf ("q%s", GST_PAD_NAME (pad) + strlen ("src_"));
  GstElement *queue = gst_bin_get_by_name (GST_BIN (pipeline), name);
  GstPad *sink = gst_element_get_static_pad (queue, "sink");

  fail_unless_equals_int (gst_pad_link (pad, sink), GST_PAD_LINK_OK);
  gst_object_unref (sink);
  gst_object_unref (queue);
  g_free (name);
}

/* Everything each appsink got, events and samples in order, once the
 * recording played to its end: @got[0] from the first pass, @got[1] from
 * a second one of the same elements after READY. */
static void
play (const gchar * element, GPtrArray * got[2][3])
{
  GString *desc = g_string_new (NULL);
  GstElement *p, *src;
  guint pass, i;

  /* The pads come anew after READY: linked as they come. */
  g_string_printf (desc, "%s name=src location=\"%s\" "
      "topics=/fast,/slow,/late", element, gaps_path);
  for (i = 0; i < 3; i++)
    g_string_append_printf (desc, " queue name=q%u ! appsink name=%s "
        "sync=false wait-on-eos=false", i, gap_topics[i]);
  p = gst_parse_launch (desc->str, NULL);
  fail_unless (p != NULL);
  src = gst_bin_get_by_name (GST_BIN (p), "src");
  g_signal_connect (src, "pad-added", G_CALLBACK (link_to_queue), p);
  gst_object_unref (src);
  for (pass = 0; pass < 2; pass++) {
    play_to_eos (p);
    for (i = 0; i < 3; i++) {
      GstElement *sink = gst_bin_get_by_name (GST_BIN (p), gap_topics[i]);
      GstMiniObject *object;

      got[pass][i] = g_ptr_array_new_with_free_func ((GDestroyNotify)
          gst_mini_object_unref);
      while ((object = gst_app_sink_try_pull_object (GST_APP_SINK (sink), 0)))
        g_ptr_array_add (got[pass][i], object);
      gst_object_unref (sink);
    }
    gst_element_set_state (p, GST_STATE_READY);
  }
  gst_element_set_state (p, GST_STATE_NULL);
  gst_object_unref (p);
  g_string_free (desc, TRUE);
}

static gboolean
is_gap (GstMiniObject * object)
{
  return GST_IS_EVENT (object) && GST_EVENT_TYPE (object) == GST_EVENT_GAP;
}

/* Checks the GAPs among @got against its buffers: each starts where the
 * stream had got to (its last buffer or GAP), ends before its next
 * buffer, and none comes while the stream is less than GAP_LAG behind
 * the buffer times of @other (the 10 Hz stream, as the source played it).
 * Returns how many there are. */
static guint
check_gaps (GPtrArray * got, GPtrArray * other, const gchar * what)
{
  GstClockTime reached = 0;
  guint n_gaps = 0, i, j;

  for (i = 0; i < got->len; i++) {
    GstMiniObject *object = g_ptr_array_index (got, i);
    GstClockTime start, duration;

    if (GST_IS_SAMPLE (object)) {
      GstClockTime pts = GST_BUFFER_PTS (gst_sample_get_buffer
          (GST_SAMPLE (object)));

      fail_unless (pts >= reached, "%s: a buffer at %" GST_TIME_FORMAT
          " after a GAP to %" GST_TIME_FORMAT, what, GST_TIME_ARGS (pts),
          GST_TIME_ARGS (reached));
      reached = pts;
      continue;
    }
    if (!is_gap (object))
      continue;
    gst_event_parse_gap (GST_EVENT (object), &start, &duration);
    fail_unless_equals_uint64 (start, reached);
    fail_unless (GST_CLOCK_TIME_IS_VALID (duration) && duration > 0);
    reached = start + duration;
    /* The 10 Hz stream had reached at least reached + GAP_LAG / 2. */
    for (j = 0; j < other->len; j++) {
      GstMiniObject *o = g_ptr_array_index (other, j);

      if (GST_IS_SAMPLE (o) && GST_BUFFER_PTS (gst_sample_get_buffer
              (GST_SAMPLE (o))) >= reached + GAP_LAG / 2)
        break;
    }
    fail_unless (j < other->len, "%s: a GAP to %" GST_TIME_FORMAT
        " beyond what was played", what, GST_TIME_ARGS (reached));
    n_gaps++;
  }
  return n_gaps;
}

static GstClockTime
first_buffer_pts (GPtrArray * got, guint * index)
{
  for (*index = 0; *index < got->len; (*index)++) {
    GstMiniObject *object = g_ptr_array_index (got, *index);

    if (GST_IS_SAMPLE (object))
      return GST_BUFFER_PTS (gst_sample_get_buffer (GST_SAMPLE (object)));
  }
  return GST_CLOCK_TIME_NONE;
}

GST_START_TEST (test_gaps)
{
  GPtrArray *passes[2][3];

  write_gaps_recording ();
  play (elements[__i__], passes);
  /* The second pass, after READY, starts from nothing as the first. */
  for (guint pass = 0; pass < 2; pass++) {
    GPtrArray **got = passes[pass];
    GstCaps *caps_before_gap = NULL;
    guint first_index, i, n_gaps = 0;
    GstClockTime late_start;

    /* 10 Hz never falls half a second behind. */
    fail_unless_equals_int (check_gaps (got[0], got[0], "/fast"), 0);
    /* A second without a message: GAPs up to a quarter second behind
     * the newest, so more than one between two messages. */
    fail_unless (check_gaps (got[1], got[0], "/slow") >= 4);
    /* Starting at 1.5 s: GAPs from the start, after its stream-start,
     * caps (read ahead from its first message) and segment. */
    fail_unless (check_gaps (got[2], got[0], "/late") >= 2);
    late_start = first_buffer_pts (got[2], &first_index);
    fail_unless_equals_uint64 (late_start, 1500 * GST_MSECOND);
    for (i = 0; i < first_index; i++) {
      GstMiniObject *object = g_ptr_array_index (got[2], i);

      if (GST_IS_EVENT (object) && GST_EVENT_TYPE (object) == GST_EVENT_CAPS
          && n_gaps == 0)
        gst_event_parse_caps (GST_EVENT (object), &caps_before_gap);
      n_gaps += is_gap (object);
    }
    fail_unless (n_gaps >= 2 && caps_before_gap != NULL);
    fail_unless (gst_caps_is_equal (caps_before_gap, gst_sample_get_caps
            (GST_SAMPLE (g_ptr_array_index (got[2], first_index)))));
    for (i = 0; i < 3; i++)
      g_ptr_array_unref (got[i]);
  }
}

GST_END_TEST;

/* Adds a ros2msg schema of @type to @w; its id. */
static guint16
add_schema (RcMcapWriter * w, const gchar * type)
{
  const gchar *text = rc_ros2_type_definition (type);
  guint16 id = 0;

  fail_unless (rc_mcap_writer_add_schema (w, type, "ros2msg", text,
          strlen (text), &id, NULL));
  return id;
}

/* A recording of one topic on channels of two types, /mixed (5 clouds
 * and 10 joint states), and of one on two channels of one type, /joints
 * (10 joint states each): what two publishers of a topic leave, written
 * with the format's writer (robocachemcapsink records one type a
 * topic). */
static void
write_mixed_recording (void)
{
  static const gchar *names[] = { "j0", "j1" };
  static RcPointField xyz[] = { {(gchar *) "x", 0, 7, 1},
  {(gchar *) "y", 4, 7, 1}, {(gchar *) "z", 8, 7, 1}
  };
  RcMcapWriter *w = rc_mcap_writer_new (mixed_path, "ros2",
      RC_MCAP_COMPRESSION_NONE, 1 << 16, NULL);
  GByteArray *out = g_byte_array_new ();
  guint16 clouds, joints, ch[4];
  gfloat points[100 * 3];

  fail_unless (w != NULL);
  clouds = add_schema (w, "sensor_msgs/msg/PointCloud2");
  joints = add_schema (w, "sensor_msgs/msg/JointState");
  fail_unless (rc_mcap_writer_add_channel (w, "/mixed", "cdr", clouds, NULL,
          &ch[0], NULL));
  for (guint c = 1; c < 4; c++)
    fail_unless (rc_mcap_writer_add_channel (w, c == 1 ? "/mixed" :
            "/joints", "cdr", joints, NULL, &ch[c], NULL));
  for (guint i = 0; i < G_N_ELEMENTS (points); i++)
    points[i] = (gfloat) i / 10;
  for (guint k = 0; k < 10; k++) {
    const guint64 t = 1000000000000 + k * 100 * GST_MSECOND;
    gdouble position[2] = { k, -(gdouble) k };
    RcJointState js = { {0, t, (gchar *) "base"}, 2, (gchar **) names, 2,
      0, 0, position, NULL, NULL
    };
    RcPointCloud2 pc = { {0, t, (gchar *) "lidar"}, 1, 100, 3, xyz, FALSE,
      12, 1200, (const guint8 *) points, sizeof (points), TRUE
    };

    rc_ros2_encode_joint_state (out, &js);
    for (guint c = 1; c < 4; c++)
      fail_unless (rc_mcap_writer_write_message (w, ch[c], k, t, t,
              out->data, out->len, NULL));
    if (k % 2)
      continue;
    rc_ros2_encode_point_cloud2 (out, &pc);
    fail_unless (rc_mcap_writer_write_message (w, ch[0], k, t, t, out->data,
            out->len, NULL));
  }
  fail_unless (rc_mcap_writer_finish (w, NULL));
  rc_mcap_writer_free (w);
  g_byte_array_unref (out);
}

/* @element playing the mixed recording with @props into appsink s. */
static GstElement *
mixed_player (const gchar * element, const gchar * props)
{
  gchar *desc = g_strdup_printf ("%s name=src location=\"%s\" %s ! "
      "appsink name=s sync=false", element, mixed_path, props);
  GError *error = NULL;
  GstElement *p = gst_parse_launch (desc, &error);

  g_assert_no_error (error);
  g_free (desc);
  return p;
}

/* Without topics, /mixed is skipped with a warning naming it and its
 * two definitions; /joints plays every message of both its channels. */
GST_START_TEST (test_mixed_default_topics)
{
  GstElement *p, *src;
  GPtrArray *out;
  GstBus *bus;
  GstMessage *msg;
  GError *err = NULL;

  write_mixed_recording ();
  p = mixed_player (elements[__i__], "");
  out = pull_to_eos (p);
  fail_unless_equals_int (out->len, 20);
  for (guint k = 0; k < out->len; k++)
    fail_unless (gst_structure_has_name (gst_caps_get_structure
            (gst_sample_get_caps (g_ptr_array_index (out, k)), 0),
            GST_ROBOCACHE_VECTORS_MEDIA_TYPE));
  g_ptr_array_unref (out);
  src = gst_bin_get_by_name (GST_BIN (p), "src");
  fail_unless_equals_int (src->numsrcpads, 1);
  gst_object_unref (src);
  bus = gst_element_get_bus (p);
  msg = gst_bus_pop_filtered (bus, GST_MESSAGE_WARNING);
  fail_unless (msg != NULL, "no warning");
  gst_message_parse_warning (msg, &err, NULL);
  /* The channels' order is the order their first buffers came in. */
  fail_unless (strstr (err->message, "several definitions: /mixed (") &&
      strstr (err->message, "sensor_msgs/msg/PointCloud2 (message "
          "encoding cdr, schema ros2msg of ") &&
      strstr (err->message, "sensor_msgs/msg/JointState (message "
          "encoding cdr, schema ros2msg of ") &&
      !strstr (err->message, "/joints"), "%s", err->message);
  g_error_free (err);
  gst_message_unref (msg);
  gst_object_unref (bus);
  gst_element_set_state (p, GST_STATE_NULL);
  gst_object_unref (p);
}

GST_END_TEST;

/* topics=/mixed is an element error naming the topic, both definitions
 * and what is accepted; nothing plays. */
GST_START_TEST (test_mixed_topic_n)
{
  GstElement *p;
  GstMessage *msg;
  GError *err = NULL;

  write_mixed_recording ();
  p = mixed_player (elements[__i__], "topics=/joints,/mixed");
  msg = run_to_end (p, 10 * GST_SECOND);
  fail_unless (msg != NULL && GST_MESSAGE_TYPE (msg) == GST_MESSAGE_ERROR);
  gst_message_parse_error (msg, &err, NULL);
  fail_unless (g_error_matches (err, GST_STREAM_ERROR,
          GST_STREAM_ERROR_WRONG_TYPE), "%s", err->message);
  fail_unless (strstr (err->message, "topic /mixed of ") &&
      strstr (err->message, "2 different definitions: ") &&
      strstr (err->message, "sensor_msgs/msg/PointCloud2 (") &&
      strstr (err->message, "sensor_msgs/msg/JointState (") &&
      strstr (err->message, "share one definition"), "%s", err->message);
  g_error_free (err);
  gst_message_unref (msg);
  gst_object_unref (p);
}

GST_END_TEST;

/* Stops and frees @p, which played the recording at @path (removed)
 * from @desc into @out. */
static void
finish_played (GstElement * p, GPtrArray * out, gchar * desc, gchar * path)
{
  if (out)
    g_ptr_array_unref (out);
  gst_element_set_state (p, GST_STATE_NULL);
  gst_object_unref (p);
  g_free (desc);
  g_unlink (path);
  g_free (path);
}

/* One topic whose strings are not UTF-8, as a file may hold them: the
 * topic's name, a point field's, a frame id and a joint's name (@cloud:
 * a PointCloud2, else a JointState); three messages. */
static gchar *
write_non_utf8_recording (gboolean cloud)
{
  static const gchar *joint_names[] = { "j\xff" "0" };
  static RcPointField fields[] = { {(gchar *) "x", 0, 7, 1},
  {(gchar *) "y", 4, 7, 1}, {(gchar *) "z", 8, 7, 1},
  {(gchar *) "int\xff" "ensity", 12, 7, 1}
  };
  gchar *path = g_build_filename (rec_dir, cloud ? "utf8-cloud.mcap" :
      "utf8-joints.mcap", NULL);
  RcMcapWriter *w = rc_mcap_writer_new (path, "ros2",
      RC_MCAP_COMPRESSION_NONE, 1 << 16, NULL);
  GByteArray *out = g_byte_array_new ();
  gfloat points[10 * 4];
  guint16 channel;

  fail_unless (w != NULL);
  fail_unless (rc_mcap_writer_add_channel (w, "/sensor\xfe", "cdr",
          add_schema (w, cloud ? "sensor_msgs/msg/PointCloud2" :
              "sensor_msgs/msg/JointState"), NULL, &channel, NULL));
  for (guint i = 0; i < G_N_ELEMENTS (points); i++)
    points[i] = (gfloat) i / 4;
  for (guint k = 0; k < 3; k++) {
    const guint64 t = 1000000000000 + k * 100 * GST_MSECOND;
    gdouble position = k;
    RcRosHeader header = { 0, t, (gchar *) "fr\xc3" "ame" };

    if (cloud) {
      RcPointCloud2 pc = { header, 1, 10, 4, fields, FALSE, 16, 160,
        (const guint8 *) points, sizeof (points), TRUE
      };
      rc_ros2_encode_point_cloud2 (out, &pc);
    } else {
      RcJointState js = { header, 1, (gchar **) joint_names, 1, 0, 0,
        &position, NULL, NULL
      };
      rc_ros2_encode_joint_state (out, &js);
    }
    fail_unless (rc_mcap_writer_write_message (w, channel, k, t, t,
            out->data, out->len, NULL));
  }
  fail_unless (rc_mcap_writer_finish (w, NULL));
  rc_mcap_writer_free (w);
  g_byte_array_unref (out);
  return path;
}

/* Strings a file holds in bytes that are not UTF-8 reach caps and tags
 * with U+FFFD in their place: GStreamer would drop such a caps field (the
 * points caps then lose their fields) with a warning. */
GST_START_TEST (test_non_utf8_names)
{
  for (guint cloud = 0; cloud < 2; cloud++) {
    gchar *path = write_non_utf8_recording (cloud);
    gchar *desc = g_strdup_printf ("%s location=\"%s\" ! appsink name=s "
        "sync=false", elements[__i__], path);
    GstElement *p = gst_parse_launch (desc, NULL);
    GPtrArray *out = pull_to_eos (p);
    const GstStructure *s;

    fail_unless_equals_int (out->len, 3);
    s = gst_caps_get_structure (gst_sample_get_caps (g_ptr_array_index (out,
                0)), 0);
    if (cloud) {
      fail_unless_equals_string (gst_structure_get_string (s, "fields"),
          "x:float32:0,y:float32:4,z:float32:8,int\xef\xbf\xbd" "ensity:"
          "float32:12");
    } else {
      fail_unless_equals_string (gst_structure_get_string (s, "names"),
          "j\xef\xbf\xbd" "0");
    }
    fail_unless_equals_string (gst_structure_get_string (s, "frame-id"),
        "fr\xef\xbf\xbd" "ame");
    finish_played (p, out, desc, path);
  }
}

GST_END_TEST;

/* A recording of CompressedImage topics @topics (NULL-terminated): @passes
 * messages each, 100 ms apart, of topic c in format @formats[c], stamped
 * @ahead[c] from its record time, all holding @data: the path of the file
 * written. */
static gchar *
write_compressed_images (const gchar * file, const gchar ** topics,
    const gchar ** formats, const GstClockTimeDiff * ahead, guint passes,
    GBytes * data)
{
  gchar *path = g_build_filename (rec_dir, file, NULL);
  RcMcapWriter *w = rc_mcap_writer_new (path, "ros2",
      RC_MCAP_COMPRESSION_NONE, 1 << 16, NULL);
  GByteArray *out = g_byte_array_new ();
  guint16 schema, channels[4];
  guint n = 0, k = 0;

  fail_unless (w != NULL);
  schema = add_schema (w, RC_ROS2_TYPE_COMPRESSED_IMAGE);
  for (; topics[n]; n++)
    fail_unless (rc_mcap_writer_add_channel (w, topics[n], "cdr", schema,
            NULL, &channels[n], NULL));
  for (guint pass = 0; pass < passes; pass++) {
    for (guint c = 0; c < n; c++, k++) {
      const guint64 t = 1000000000000 + pass * 100 * GST_MSECOND;
      RcCompressedImage msg = { {0, t + ahead[c], (gchar *) "camera"},
      (gchar *) formats[c], g_bytes_get_data (data, NULL),
        g_bytes_get_size (data)
      };

      rc_ros2_encode_compressed_image (out, &msg);
      fail_unless (rc_mcap_writer_write_message (w, channels[c], k, t, t,
              out->data, out->len, NULL));
    }
  }
  fail_unless (rc_mcap_writer_finish (w, NULL));
  rc_mcap_writer_free (w);
  g_byte_array_unref (out);
  return path;
}

/* A ROS 2 sensor_msgs/msg/CompressedImage topic (rosbag2's schema, CDR),
 * a PNG that GStreamer's pngenc made: played as image/png, it decodes to
 * the frame encoded, pixel for pixel. */
GST_START_TEST (test_compressed_image_ros2)
{
  const gchar *frame = "videotestsrc num-buffers=1 ! "
      "video/x-raw,format=RGB,width=32,height=24";
  const gchar *topics[] = { "/camera/png", NULL }, *formats[] = { "png" };
  const GstClockTimeDiff ahead[] = { 0 };
  gchar *launch = g_strdup_printf ("%s ! pngenc ! appsink name=s", frame);
  GBytes *png = first_buffer_bytes (launch, NULL), *want, *got;
  gchar *path = write_compressed_images ("compressed.mcap", topics, formats,
      ahead, 3, png);

  g_free (launch);
  launch = g_strdup_printf ("%s ! appsink name=s", frame);
  want = first_buffer_bytes (launch, NULL);
  g_free (launch);
  launch = g_strdup_printf ("%s location=\"%s\" ! pngdec ! videoconvert ! "
      "video/x-raw,format=RGB ! appsink name=s", elements[__i__], path);
  got = first_buffer_bytes (launch, NULL);
  fail_unless (g_bytes_equal (want, got));
  g_bytes_unref (want);
  g_bytes_unref (got);
  g_bytes_unref (png);
  g_free (launch);
  g_unlink (path);
  g_free (path);
}

GST_END_TEST;

/* A topic whose every message is skipped (a compressedDepth camera,
 * stamped 2 s before the colour camera) does not set time 0: the camera
 * played beside it starts at 0, as played alone (it started at 2 s). */
GST_START_TEST (test_skipped_topic_sets_no_origin)
{
  const gchar *topics[] = { "/depth", "/cam", NULL };
  const gchar *formats[] = { "16UC1; compressedDepth png", "png" };
  const GstClockTimeDiff ahead[] = { -2 * GST_SECOND, 0 };
  gchar *launch = g_strdup ("videotestsrc num-buffers=1 ! "
      "video/x-raw,format=RGB,width=8,height=8 ! pngenc ! appsink name=s");
  GBytes *png = first_buffer_bytes (launch, NULL);
  gchar *path = write_compressed_images ("depth-first.mcap", topics, formats,
      ahead, 3, png);
  gchar *desc;
  GstElement *p;
  GstSample *sample;

  desc = g_strdup_printf ("%s name=src location=\"%s\" topics=/depth,/cam "
      "src.src_0 ! queue ! fakesink src.src_1 ! queue ! appsink name=s "
      "sync=false", elements[__i__], path);
  p = gst_parse_launch (desc, NULL);
  gst_element_set_state (p, GST_STATE_PLAYING);
  sample = gst_app_sink_try_pull_sample (sink_of (p), 10 * GST_SECOND);
  fail_unless (sample != NULL);
  fail_unless_equals_clocktime (pts_of (sample), 0);
  gst_sample_unref (sample);
  g_bytes_unref (png);
  g_free (launch);
  finish_played (p, NULL, desc, path);
}

GST_END_TEST;

/* A JointState message of a recording written by write_joints. */
typedef struct
{
  guint channel;
  GstClockTime time;            /* from the recording's start */
  guint n;
  const gchar *names[3];
  gdouble position[3];
  GstClockTimeDiff stamp_ahead; /* header.stamp - record time */
} JointMsg;

/* A recording of JointState topics @topics (NULL-terminated) holding
 * @msgs, stamped and logged at their times. */
static gchar *
write_joints (const gchar * file, const gchar ** topics, const JointMsg * msgs,
    guint n_msgs)
{
  gchar *path = g_build_filename (rec_dir, file, NULL);
  RcMcapWriter *w = rc_mcap_writer_new (path, "ros2",
      RC_MCAP_COMPRESSION_NONE, 1 << 16, NULL);
  GByteArray *out = g_byte_array_new ();
  guint16 schema, channels[4];

  fail_unless (w != NULL);
  schema = add_schema (w, "sensor_msgs/msg/JointState");
  for (guint i = 0; topics[i]; i++)
    fail_unless (rc_mcap_writer_add_channel (w, topics[i], "cdr", schema,
            NULL, &channels[i], NULL));
  for (guint k = 0; k < n_msgs; k++) {
    const JointMsg *m = &msgs[k];
    const guint64 t = 1000000000000 + m->time;
    RcRosHeader header = { 0, t + m->stamp_ahead, (gchar *) "base" };
    RcJointState js = { header, m->n, (gchar **) m->names, m->n, 0, 0,
      (gdouble *) m->position, NULL, NULL
    };

    g_byte_array_set_size (out, 0);
    rc_ros2_encode_joint_state (out, &js);
    fail_unless (rc_mcap_writer_write_message (w, channels[m->channel], k, t,
            t, out->data, out->len, NULL));
  }
  fail_unless (rc_mcap_writer_finish (w, NULL));
  rc_mcap_writer_free (w);
  g_byte_array_unref (out);
  return path;
}

/* Two JointState topics: /arm, 10 messages 10 ms apart whose sixth names
 * a third joint (new caps), and /grip, whose first message is at 1 s. */
static gchar *
write_caps_change_recording (void)
{
  const gchar *topics[] = { "/arm", "/grip", NULL };
  JointMsg msgs[12];

  for (guint k = 0; k < 12; k++) {
    JointMsg m = { 0, k * 10 * GST_MSECOND, k < 5 ? 2 : 3, {"a", "b", "c"},
    {0.1, 0.2, 0.3}
    };

    if (k >= 10) {
      m.channel = 1;
      m.time = (k - 9) * GST_SECOND;
      m.n = 1;
      m.names[0] = "g";
    }
    msgs[k] = m;
  }
  return write_joints ("caps-change.mcap", topics, msgs, 12);
}

/* A JointState topic whose messages list the same joints in other orders
 * (merged publishers, a reconnect): one caps, the topic's first order, and
 * every value under its joint's name.  A message naming other joints has
 * caps of its own. */
GST_START_TEST (test_joints_reordered)
{
  const gchar *topics[] = { "/arm", NULL };
  const gchar *orders[3][3] = { {"a", "b", "c"}, {"c", "a", "b"},
  {"b", "c", "a"}
  };
  const JointMsg set_change = { 0, 600 * GST_MSECOND, 2, {"a", "b"},
  {6, 16}
  };
  JointMsg msgs[7];
  gchar *path, *desc;
  GstElement *p;
  GPtrArray *out;

  for (guint k = 0; k < 6; k++) {
    JointMsg m = { 0, k * 100 * GST_MSECOND, 3 };

    for (guint i = 0; i < 3; i++) {
      m.names[i] = orders[k % 3][i];
      /* a is k, b 10 + k, c 20 + k, wherever they stand. */
      m.position[i] = 10 * (m.names[i][0] - 'a') + k;
    }
    msgs[k] = m;
  }
  msgs[6] = set_change;
  path = write_joints ("reordered.mcap", topics, msgs, 7);
  desc = g_strdup_printf ("%s location=\"%s\" ! appsink name=s sync=false",
      elements[__i__], path);
  p = gst_parse_launch (desc, NULL);
  out = pull_to_eos (p);
  fail_unless_equals_int (out->len, 7);
  for (guint k = 0; k < out->len; k++) {
    GstSample *sample = g_ptr_array_index (out, k);
    const GstStructure *st =
        gst_caps_get_structure (gst_sample_get_caps (sample), 0);
    GstMapInfo map;

    fail_unless_equals_string (gst_structure_get_string (st, "names"),
        k < 6 ? "a,b,c" : "a,b");
    fail_unless (gst_buffer_map (gst_sample_get_buffer (sample), &map,
            GST_MAP_READ));
    for (guint c = 0; c < (k < 6 ? 3u : 2u); c++)
      fail_unless_equals_float (((const gdouble *) map.data)[c],
          10.0 * c + k);
    gst_buffer_unmap (gst_sample_get_buffer (sample), &map);
  }
  finish_played (p, out, desc, path);
}

GST_END_TEST;

/* A topic stamped @ahead of its record times (a sensor's clock ahead of
 * the recorder's, or behind it), 10 messages 100 ms apart, and with
 * @other_topic a second one stamped at its record times: the path of the
 * file written. */
static gchar *
write_skewed_recording (GstClockTimeDiff ahead, gboolean other_topic)
{
  const gchar *topics[] = { "/arm", "/grip", NULL };
  JointMsg msgs[20];
  guint n = 0;

  for (guint k = 0; k < 10; k++) {
    JointMsg arm = { 0, k * 100 * GST_MSECOND, 1, {"a"}, {k}, ahead };
    JointMsg grip = { 1, k * 100 * GST_MSECOND, 1, {"g"}, {k} };

    msgs[n++] = arm;
    if (other_topic)
      msgs[n++] = grip;
  }
  return write_joints ("skewed.mcap", topics, msgs, n);
}

/* timestamps=header (the default) with a sensor's clock 3 s ahead of the
 * recorder's, and 3 s behind with a stop 450 ms in: every message plays,
 * from 0 ms.  The reader seeks and stops by record time: from the first
 * stamp it passed by every message (recorded 3 s before it), and with the
 * stop it ended the pass before the first (recorded 3 s after its
 * stamp). */
GST_START_TEST (test_stamps_apart_from_record_times)
{
  const GstClockTimeDiff ahead[] = { 3 * GST_SECOND, -3 * GST_SECOND };
  const guint want[] = { 10, 5 };

  for (guint i = 0; i < G_N_ELEMENTS (ahead); i++) {
    gchar *path = write_skewed_recording (ahead[i], FALSE);
    gchar *desc = g_strdup_printf ("%s location=\"%s\" %s ! appsink name=s "
        "sync=false", elements[__i__], path, i ? "stop-time=450000000" : "");
    GstElement *p = gst_parse_launch (desc, NULL);
    GPtrArray *out = pull_to_eos (p);

    fail_unless_equals_int (out->len, want[i]);
    for (guint k = 0; k < out->len; k++)
      fail_unless_equals_uint64 (pts_of (g_ptr_array_index (out, k)),
          k * 100 * GST_MSECOND);
    finish_played (p, out, desc, path);
  }
}

GST_END_TEST;

/* A 100 Hz and a 10 Hz topic, each from its own source linked to the
 * fuse without a queue, under a segment seek over their first second: the
 * pass ends with SEGMENT_DONE (was: the 10 Hz source's GAP to the pass's
 * end dropped at the last tick while the other's buffers still came, its
 * pad then empty, the base class waiting on it for ever, the 100 Hz
 * source blocked pushing: no SEGMENT_DONE). */
GST_START_TEST (test_segment_seek_fused_two_sources)
{
  const gchar *topics[] = { "/fast", "/slow", NULL };
  JointMsg msgs[220];
  guint n = 0;
  gchar *path, *desc;
  GstElement *p;
  GstMessage *msg;

  for (guint k = 0; k < 200; k++) {
    JointMsg fast = { 0, k * 10 * GST_MSECOND, 1, {"f"}, {k} };
    JointMsg slow = { 1, k * 10 * GST_MSECOND, 1, {"s"}, {k} };

    msgs[n++] = fast;
    if (k % 10 == 0)
      msgs[n++] = slow;
  }
  path = write_joints ("two-rates.mcap", topics, msgs, n);
  desc = g_strdup_printf ("%s location=\"%s\" topics=/fast ! f.sink_0 "
      "%s location=\"%s\" topics=/slow ! f.sink_1 robocachefuse name=f "
      "rate=10/1 ! fakesink sync=true", elements[__i__], path,
      elements[__i__], path);
  p = gst_parse_launch (desc, NULL);
  wait_paused (p);
  fail_unless (gst_element_seek (p, 1.0, GST_FORMAT_TIME,
          GST_SEEK_FLAG_FLUSH | GST_SEEK_FLAG_SEGMENT, GST_SEEK_TYPE_SET, 0,
          GST_SEEK_TYPE_SET, GST_SECOND));
  gst_element_set_state (p, GST_STATE_PLAYING);
  msg = gst_bus_timed_pop_filtered (GST_ELEMENT_BUS (p), 10 * GST_SECOND,
      GST_MESSAGE_SEGMENT_DONE | GST_MESSAGE_EOS | GST_MESSAGE_ERROR);
  fail_unless (msg && GST_MESSAGE_TYPE (msg) == GST_MESSAGE_SEGMENT_DONE,
      "no SEGMENT_DONE");
  gst_message_unref (msg);
  finish_played (p, NULL, desc, path);
}

GST_END_TEST;

/* The same recordings' duration, where the last message ends (900 ms
 * stamped, and one period), and a loop of them: every pass's running
 * time goes on from the last (with the clock ahead each pass began 3 s
 * early, 100 ms after the previous; behind, 3 s late), and a seek to the
 * duration plays nothing (it played nine messages). */
GST_START_TEST (test_stamps_apart_duration_and_loop)
{
  const GstClockTimeDiff ahead[] = { 3 * GST_SECOND, -3 * GST_SECOND };

  for (guint i = 0; i < G_N_ELEMENTS (ahead); i++) {
    gchar *path = write_skewed_recording (ahead[i], FALSE);
    gchar *desc = g_strdup_printf ("%s location=\"%s\" loop=true ! "
        "appsink name=s sync=false max-buffers=1", elements[__i__], path);
    GstElement *p = gst_parse_launch (desc, NULL);
    gint64 duration = 0;
    GPtrArray *out;

    wait_paused (p);
    fail_unless (gst_element_query_duration (p, GST_FORMAT_TIME, &duration));
    fail_unless_equals_int64 (duration, GST_SECOND);
    gst_element_set_state (p, GST_STATE_PLAYING);
    for (guint k = 0; k < 25; k++) {
      GstSample *sample = gst_app_sink_pull_sample (sink_of (p));

      fail_unless (sample != NULL);
      fail_unless_equals_clocktime (running_time_of (sample),
          k * 100 * GST_MSECOND);
      gst_sample_unref (sample);
    }
    gst_element_set_state (p, GST_STATE_NULL);
    gst_object_unref (p);
    g_free (desc);

    desc = g_strdup_printf ("%s location=\"%s\" ! appsink name=s "
        "sync=false", elements[__i__], path);
    p = gst_parse_launch (desc, NULL);
    wait_paused (p);
    fail_unless (gst_element_seek_simple (p, GST_FORMAT_TIME,
            GST_SEEK_FLAG_FLUSH, duration));
    out = pull_to_eos (p);
    fail_unless_equals_int (out->len, 0);
    finish_played (p, out, desc, path);
  }
}

GST_END_TEST;

/* A message stamped before the recording's time 0 (a clock that went
 * back 2 s after the first messages): skipped, counted and warned about
 * (it played at 0, out of order, silently); the others play. */
GST_START_TEST (test_stamped_before_origin)
{
  const gchar *topics[] = { "/arm", NULL };
  JointMsg msgs[10];
  gchar *path, *desc;
  GstElement *p, *src;
  GstStructure *stats = NULL;
  GPtrArray *out;
  GstMessage *msg;
  guint64 skipped = 0;
  GError *err = NULL;

  for (guint k = 0; k < 10; k++) {
    JointMsg m = { 0, k * 100 * GST_MSECOND, 1, {"a"}, {k},
      k == 5 ? -2 * GST_SECOND : 0
    };
    msgs[k] = m;
  }
  path = write_joints ("went-back.mcap", topics, msgs, 10);
  desc = g_strdup_printf ("%s name=src location=\"%s\" ! appsink name=s "
      "sync=false", elements[__i__], path);
  p = gst_parse_launch (desc, NULL);
  out = pull_to_eos (p);
  fail_unless_equals_int (out->len, 9);
  for (guint k = 0, i = 0; k < 10; k++) {
    if (k != 5)
      fail_unless_equals_uint64 (pts_of (g_ptr_array_index (out, i++)),
          k * 100 * GST_MSECOND);
  }
  msg = gst_bus_pop_filtered (GST_ELEMENT_BUS (p), GST_MESSAGE_WARNING);
  fail_unless (msg != NULL);
  gst_message_parse_warning (msg, &err, NULL);
  fail_unless (strstr (err->message, "/arm: skipping messages: stamped "
          "1.500 s before time 0") != NULL, "%s", err->message);
  g_error_free (err);
  gst_message_unref (msg);
  src = gst_bin_get_by_name (GST_BIN (p), "src");
  g_object_get (src, "stats", &stats, NULL);
  fail_unless (gst_structure_get_uint64 (stats, "skipped-before-origin",
          &skipped));
  fail_unless_equals_uint64 (skipped, 1);
  gst_structure_free (stats);
  gst_object_unref (src);
  finish_played (p, out, desc, path);
}

GST_END_TEST;

/* Two topics, one stamped 3 s further behind its record times than the
 * other: played by header.stamp it comes 3 s late in record order, which
 * its GAP events take for a drop-out; a warning says so, naming both. */
GST_START_TEST (test_topics_stamped_apart_warned)
{
  gchar *path = write_skewed_recording (-3 * GST_SECOND, TRUE);
  gchar *desc = g_strdup_printf ("%s name=src location=\"%s\" "
      "topics=/arm,/grip src.src_0 ! queue ! fakesink "
      "src.src_1 ! queue ! fakesink", elements[__i__], path);
  GstElement *p = gst_parse_launch (desc, NULL);
  GstMessage *msg;
  GError *err = NULL;

  gst_element_set_state (p, GST_STATE_PLAYING);
  msg = gst_bus_timed_pop_filtered (GST_ELEMENT_BUS (p), 10 * GST_SECOND,
      GST_MESSAGE_WARNING | GST_MESSAGE_ERROR | GST_MESSAGE_EOS);
  fail_unless (msg && GST_MESSAGE_TYPE (msg) == GST_MESSAGE_WARNING);
  gst_message_parse_warning (msg, &err, NULL);
  fail_unless (strstr (err->message, "topic /arm is stamped 3.0 s further "
          "behind its record times than topic /grip") != NULL, "%s",
      err->message);
  g_error_free (err);
  gst_message_unref (msg);
  finish_played (p, NULL, desc, path);
}

GST_END_TEST;

/* New caps on one topic before another's first buffer, each topic through
 * a queue to a sink that prerolls: every topic is pushed from one thread,
 * and an ALLOCATION query sent at the change waited behind the first
 * topic's queued buffers, whose sink waited to preroll for the second
 * topic's first buffer, which never came: the pipeline hung. */
GST_START_TEST (test_caps_change_before_other_topic)
{
  gchar *path = write_caps_change_recording ();
  gchar *desc = g_strdup_printf ("%s name=src location=\"%s\" "
      "topics=/arm,/grip src.src_0 ! queue ! fakesink "
      "src.src_1 ! queue ! fakesink", elements[__i__], path);
  GstElement *p = gst_parse_launch (desc, NULL);
  GstMessage *msg;

  fail_unless (p != NULL, "%s", desc);
  gst_element_set_state (p, GST_STATE_PLAYING);
  msg = gst_bus_timed_pop_filtered (GST_ELEMENT_BUS (p), 20 * GST_SECOND,
      GST_MESSAGE_EOS | GST_MESSAGE_ERROR);
  fail_unless (msg != NULL, "hung: no EOS in 20 s");
  fail_unless_equals_int (GST_MESSAGE_TYPE (msg), GST_MESSAGE_EOS);
  gst_message_unref (msg);
  finish_played (p, NULL, desc, path);
}

GST_END_TEST;

static Suite *
recordingplay_suite (void)
{
  Suite *s = suite_create ("recordingplay");
  TCase *tc = tcase_create ("general");
  guint n = G_N_ELEMENTS (elements);

  suite_add_tcase (s, tc);
  tcase_add_checked_fixture (tc, write_recording, NULL);
  tcase_add_loop_test (tc, test_start_stop, 0, n);
  tcase_add_loop_test (tc, test_start_after_end, 0, n);
  tcase_add_loop_test (tc, test_start_beyond_int64, 0, n);
  tcase_add_loop_test (tc, test_stop_beyond_int64, 0, n);
  tcase_add_loop_test (tc, test_stop_before_start_n, 0, n);
  tcase_add_loop_test (tc, test_rate, 0, n);
  tcase_add_loop_test (tc, test_loop, 0, n);
  tcase_add_loop_test (tc, test_loop_fused, 0, n);
  tcase_add_loop_test (tc, test_restart, 0, n);
  tcase_add_loop_test (tc, test_loop_whole, 0, n);
  tcase_add_loop_test (tc, test_eos_sent, 0, n);
  tcase_add_loop_test (tc, test_seek_nonflushing_playing, 0, n);
  tcase_add_loop_test (tc, test_seek_past_end, 0, n);
  tcase_add_loop_test (tc, test_seek_start_after_stop_n, 0, n);
  tcase_add_loop_test (tc, test_seek_start_after_stop_two_topics_n, 0, n);
  tcase_add_loop_test (tc, test_seek_stop_only, 0, n);
  tcase_add_loop_test (tc, test_segment_seek_two_sources, 0, n);
  tcase_add_loop_test (tc, test_uri, 0, n);
  tcase_add_loop_test (tc, test_uri_plays, 0, n);
  tcase_add_loop_test (tc, test_seek_paused_playing, 0, n);
  tcase_add_loop_test (tc, test_seek_reverse_n, 0, n);
  tcase_add_loop_test (tc, test_segment_seek, 0, n);
  tcase_add_loop_test (tc, test_segment_seek_fused, 0, n);
  tcase_add_loop_test (tc, test_seek_nonflushing_fused, 0, n);
  tcase_add_loop_test (tc, test_segment_seek_fused_two_topics, 0, n);
  tcase_add_loop_test (tc, test_segment_seek_fused_two_sources, 0, n);
  tcase_add_loop_test (tc, test_stop_reads_no_further, 0, n);
  tcase_add_loop_test (tc, test_gaps, 0, n);
  tcase_add_loop_test (tc, test_mixed_default_topics, 0, n);
  tcase_add_loop_test (tc, test_mixed_topic_n, 0, n);
  tcase_add_loop_test (tc, test_non_utf8_names, 0, n);
  tcase_add_loop_test (tc, test_caps_change_before_other_topic, 0, n);
  tcase_add_loop_test (tc, test_joints_reordered, 0, n);
  tcase_add_loop_test (tc, test_stamps_apart_from_record_times, 0, n);
  tcase_add_loop_test (tc, test_stamps_apart_duration_and_loop, 0, n);
  tcase_add_loop_test (tc, test_topics_stamped_apart_warned, 0, n);
  tcase_add_loop_test (tc, test_stamped_before_origin, 0, n);
  tcase_add_loop_test (tc, test_compressed_image_ros2, 0, n);
  tcase_add_loop_test (tc, test_skipped_topic_sets_no_origin, 0, n);
  return s;
}

int
main (int argc, char **argv)
{
  int ret;

  rec_dir = g_dir_make_tmp ("robocache-play-XXXXXX", NULL);
  g_assert_nonnull (rec_dir);
  rec_path = g_build_filename (rec_dir, "joints.mcap", NULL);
  gaps_path = g_build_filename (rec_dir, "gaps.mcap", NULL);
  mixed_path = g_build_filename (rec_dir, "mixed.mcap", NULL);
  gst_check_init (&argc, &argv);
  ret = gst_check_run_suite (recordingplay_suite (), "recordingplay", __FILE__);
  test_remove_tree (rec_dir);
  g_free (rec_path);
  g_free (gaps_path);
  g_free (mixed_path);
  g_free (rec_dir);
  return ret;
}
