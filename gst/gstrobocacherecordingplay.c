/* The player controls of the recording sources (gstrobocacherecordingplay.h).
 *
 * Choices, as docs/recording.md ("Playing a recording") explains them:
 *
 * - rate is the rate of the segment the source starts with, the same as a
 *   seek with that rate would give.  The source is not live and does not
 *   wait for the clock itself: a sink (or identity) with sync=true paces
 *   the buffers at running time = (PTS - start) / rate, so rate=2 plays
 *   twice as fast; unsynced pipelines run as fast as they can, whatever
 *   the rate.  Buffer times stay the recording's.  A seek with another
 *   positive rate replaces it; negative rates (reverse) are refused.
 * - start-time and stop-time are the start and stop of that segment, in
 *   the recording's time (0 = the first message played), as a flushing
 *   seek would set them; a later seek replaces them.
 * - loop plays [start-time, stop-time) again and again, without EOS: each
 *   pass sends a new segment whose base is the running time where the
 *   previous pass ended, so buffer times restart at start-time while
 *   running times (what sinks, live consumers and robocachefuse use) keep
 *   growing.  This is what a segment seek loop gives in a GStreamer
 *   player; multifilesrc loop=true restarts the same way.  A pass ends one
 *   period (of the slowest topic) after its last message. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstrobocacherecordingplay.h"
#include "gstrobocacherecordingsrc.h"

#define MIN_RATE 0.001
#define MAX_RATE 1000.0

void
gst_robocache_recording_play_install_properties (GObjectClass * klass,
    guint first_id)
{
  const GParamFlags flags = G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
      GST_PARAM_MUTABLE_READY;

  /**
   * GstRobocacheRecordingSrc:start-time:
   *
   * Where playback starts, in ns of the recording's time (0 = the first
   * message played, the time buffer PTS are counted from): the first
   * message played is the first at or after it, as after a flushing
   * seek.  Beyond the end (up to the maximum): EOS at once, with loop
   * too.
   */
  g_object_class_install_property (klass, first_id,
      g_param_spec_uint64 ("start-time", "Start time",
          "Where playback starts (ns from the first message)", 0,
          G_MAXUINT64 - 1, GST_ROBOCACHE_RECORDING_DEFAULT_START_TIME, flags));
  /**
   * GstRobocacheRecordingSrc:stop-time:
   *
   * Where playback stops, in ns of the recording's time: messages at or
   * after it are not played (the segment's stop).  The maximum (default)
   * plays to the end.  Must be after start-time.
   */
  g_object_class_install_property (klass, first_id + 1,
      g_param_spec_uint64 ("stop-time", "Stop time",
          "Where playback stops (ns from the first message; max: the end)",
          0, G_MAXUINT64, GST_ROBOCACHE_RECORDING_DEFAULT_STOP_TIME, flags));
  /**
   * GstRobocacheRecordingSrc:rate:
   *
   * Playback speed: the rate of the segment played (2.0 twice as fast,
   * 0.5 half as fast).  Pacing is done by the sinks that sync to the
   * clock, as for any GStreamer playback rate; buffer times stay the
   * recording's.  A seek with a rate replaces it.
   */
  g_object_class_install_property (klass, first_id + 2,
      g_param_spec_double ("rate", "Rate",
          "Playback speed (segment rate; 1.0: as recorded)", MIN_RATE,
          MAX_RATE, GST_ROBOCACHE_RECORDING_DEFAULT_RATE, flags));
  /**
   * GstRobocacheRecordingSrc:loop:
   *
   * Play start-time..stop-time again and again, never EOS: buffer times
   * restart each pass, running times keep growing (each pass a new
   * segment whose base is where the previous one ended).
   */
  g_object_class_install_property (klass, first_id + 3,
      g_param_spec_boolean ("loop", "Loop",
          "Play again from start-time at the end (running time continues)",
          GST_ROBOCACHE_RECORDING_DEFAULT_LOOP, flags));
}

gboolean
gst_robocache_recording_play_check (GstElement * element,
    const GstRobocachePlaySettings * s)
{
  if (GST_CLOCK_TIME_IS_VALID (s->stop_time) && s->stop_time <= s->start_time) {
    GST_ELEMENT_ERROR (element, RESOURCE, SETTINGS, ("stop-time (%"
            GST_TIME_FORMAT ") is not after start-time (%" GST_TIME_FORMAT
            "); accepted: a stop-time after start-time, or the maximum "
            "(play to the end)", GST_TIME_ARGS (s->stop_time),
            GST_TIME_ARGS (s->start_time)), (NULL));
    return FALSE;
  }
  return TRUE;
}

void
gst_robocache_recording_play_segment (GstSegment * segment,
    const GstRobocachePlaySettings * s)
{
  /* What gst_segment_do_seek gives a new segment, set here: it clamps
   * positions as gint64, so a start-time or stop-time of 2^63 or more
   * would become 0 and play the whole recording (or nothing). */
  segment->rate = s->rate;
  segment->start = s->start_time;
  segment->time = s->start_time;
  segment->position = s->start_time;
  segment->stop = s->stop_time;
}

/* The mean interval between a topic's messages; 0 with fewer than two. */
static guint64
topic_period (const RcTopic * topic)
{
  if (topic->n_messages < 2)
    return 0;
  return (topic->last_time - topic->first_time) / (topic->n_messages - 1);
}

GstClockTime
gst_robocache_recording_play_pass_end (RcReader * reader,
    const gint * stream_of, const gint64 * trails, guint64 base,
    const GstSegment * segment)
{
  GstClockTime end = segment->start;

  for (guint t = 0; t < rc_reader_n_topics (reader); t++) {
    const RcTopic *topic = rc_reader_get_topic (reader, t);
    gint64 trail = trails ? trails[t] : 0;
    guint64 stamp, last;

    if (stream_of[t] < 0 || topic->n_messages == 0)
      continue;
    /* The last message's stamp, as far from its record time as the
     * topic's first message's. */
    if (trail >= 0) {
      stamp = topic->last_time > (guint64) trail ?
          topic->last_time - (guint64) trail : 0;
    } else {
      guint64 lead = (guint64) 0 - (guint64) trail;

      stamp = topic->last_time > G_MAXUINT64 - lead ? G_MAXUINT64 :
          topic->last_time + lead;
    }
    last = stamp > base ? stamp - base : 0;
    end = MAX (end, last + topic_period (topic));
  }
  if (GST_CLOCK_TIME_IS_VALID (segment->stop))
    end = MIN (end, segment->stop);
  return MAX (end, segment->start);
}

GstClockTime
gst_robocache_recording_play_shortest_period (RcReader * reader,
    const gint * stream_of)
{
  guint64 shortest = 0;

  for (guint t = 0; t < rc_reader_n_topics (reader); t++) {
    guint64 period = topic_period (rc_reader_get_topic (reader, t));

    if (stream_of[t] >= 0 && period > 0 && (!shortest || period < shortest))
      shortest = period;
  }
  return shortest;
}

void
gst_robocache_recording_play_next_pass (GstSegment * segment,
    GstClockTime pass_end)
{
  guint64 running = 0;

  gst_segment_to_running_time_full (segment, GST_FORMAT_TIME, pass_end,
      &running);
  segment->base = running;
  segment->position = segment->start;
  segment->time = segment->start;
}

/* ------------------------------------------------------------------ */
/* URI handler                                                         */
/* ------------------------------------------------------------------ */

static GstURIType
uri_get_type (GType type)
{
  return GST_URI_SRC;
}

static const gchar *const *
uri_get_protocols (GType type)
{
  static const gchar *const protocols[] = { "file", NULL };

  return protocols;
}

static gchar *
uri_get_uri (GstURIHandler * handler)
{
  GstRobocacheRecordingSrc *self = GST_ROBOCACHE_RECORDING_SRC (handler);
  gchar *uri = NULL;

  GST_OBJECT_LOCK (self);
  if (self->location)
    uri = gst_filename_to_uri (self->location, NULL);
  GST_OBJECT_UNLOCK (self);
  return uri;
}

static gboolean
uri_set_uri (GstURIHandler * handler, const gchar * uri, GError ** error)
{
  GstRobocacheRecordingSrc *self = GST_ROBOCACHE_RECORDING_SRC (handler);
  gchar *host = NULL, *path;

  if (GST_STATE (self) > GST_STATE_READY) {
    g_set_error (error, GST_URI_ERROR, GST_URI_ERROR_BAD_STATE,
        "the URI can only be set in the NULL or READY state");
    return FALSE;
  }
  path = g_filename_from_uri (uri, &host, NULL);
  if (!path || (host && *host && g_strcmp0 (host, "localhost") != 0)) {
    g_set_error (error, GST_URI_ERROR, GST_URI_ERROR_BAD_URI,
        "%s is not a local file URI; accepted: file:///path/to/recording", uri);
    g_free (path);
    g_free (host);
    return FALSE;
  }
  g_free (host);
  g_object_set (self, "location", path, NULL);
  g_free (path);
  return TRUE;
}

void
gst_robocache_recording_src_uri_handler_init (gpointer g_iface,
    gpointer iface_data)
{
  GstURIHandlerInterface *iface = g_iface;

  iface->get_type = uri_get_type;
  iface->get_protocols = uri_get_protocols;
  iface->get_uri = uri_get_uri;
  iface->set_uri = uri_set_uri;
}
