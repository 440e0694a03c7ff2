/* The recording sources' time origin: the header.stamp (or record time)
 * that running time 0 stands for, the duration, and how far the played
 * topics' stamps lie from their record times (the reader seeks and stops
 * by record time). */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstrobocacherecordingsrcprivate.h"
#include "gstrobocacherosmsg.h"

#define GST_CAT_DEFAULT gst_robocache_recording_src_debug

/* Whether topic @t's message @msg is one the topic skips (a
 * compressedDepth camera, an unsupported encoding): decoded whole, as
 * playing will; a fault is left for playing to report. */
static gboolean
skipped_message (State * st, guint t, const RcMessage * msg)
{
  GstRobocacheRosSkip skip;
  GstCaps *caps = NULL;
  GError *error = NULL;
  guint64 stamp;
  GstBuffer *buf = gst_robocache_ros_decoder_buffer_new (st->decoders[t],
      msg->data, msg->size, &stamp, &caps, &skip, &error);
  gboolean skipped = skip.reason != NULL;

  gst_clear_buffer (&buf);
  gst_clear_caps (&caps);
  g_clear_error (&error);
  g_free (skip.reason);
  return skipped;
}

/* The header.stamp of topic @t's first message into @stamp, 0 if
 * unstamped, and in @skipped whether the topic skips that message. */
static gboolean
topic_first_stamp (State * st, guint t, guint64 * stamp, gboolean * skipped,
    GError ** error)
{
  const guint64 first = rc_reader_get_topic (st->reader, t)->first_time;
  RcMessage msg;

  *stamp = 0;
  *skipped = FALSE;
  rc_reader_seek (st->reader, first);
  for (;;) {
    switch (rc_reader_next (st->reader, &msg, error)) {
      case RC_READER_FAILED:
        return FALSE;
      case RC_READER_END:
        return TRUE;
      case RC_READER_OK:
        break;
    }
    /* Other topics' messages recorded at the same time may come first. */
    if (msg.time > first)
      return TRUE;
    if (msg.topic != t)
      continue;
    if (!gst_robocache_ros_decoder_stamp (st->decoders[t], msg.data,
            msg.size, stamp, error))
      return FALSE;
    *skipped = skipped_message (st, t, &msg);
    return TRUE;
  }
}

/* How far the topics' stamps trail their record times (their first
 * messages'; an unstamped topic plays at its record times): st's lead
 * and lag, and the two topics furthest apart. */
static void
set_stamp_offsets (State * st, const gint64 * trails)
{
  gint64 least = G_MAXINT64, most = G_MININT64;

  for (guint t = 0; t < rc_reader_n_topics (st->reader); t++) {
    if (st->stream_of[t] < 0)
      continue;
    if (trails[t] < least)
      least = trails[st->least_trailing = t];
    if (trails[t] > most)
      most = trails[st->most_trailing = t];
  }
  st->stamp_lead = least < 0 ? (GstClockTime) - least : 0;
  st->stamp_lag = most > 0 ? (GstClockTime) most : 0;
  st->stamp_spread = most > least ? (GstClockTime) (most - least) : 0;
}

/* The earliest header.stamp of the played topics' first messages, 0 if
 * none is stamped.  Not the first message's alone: a driver stamps a
 * sweep when it began, 50 to 100 ms before it is recorded, so a lidar's
 * first sweep can be stamped before a joint state recorded earlier.  A
 * topic that skips its first message (a compressedDepth camera stamped
 * before the others) counts only where every topic does.  A sensor's
 * clock may run seconds ahead of the recorder's or behind it:
 * set_stamp_offsets. */
static gboolean
earliest_stamp (State * st, guint64 * earliest, GError ** error)
{
  gint64 *trails = g_new0 (gint64, MAX (rc_reader_n_topics (st->reader), 1));
  guint64 played = 0, any = 0;
  gboolean ok = TRUE;

  for (guint t = 0; ok && t < rc_reader_n_topics (st->reader); t++) {
    const RcTopic *topic = rc_reader_get_topic (st->reader, t);
    guint64 stamp;
    gboolean skipped;

    if (st->stream_of[t] < 0 || topic->n_messages == 0)
      continue;
    ok = topic_first_stamp (st, t, &stamp, &skipped, error);
    if (ok && stamp != 0) {
      trails[t] = (gint64) (topic->first_time - stamp);
      any = any == 0 ? stamp : MIN (any, stamp);
      if (!skipped)
        played = played == 0 ? stamp : MIN (played, stamp);
    }
  }
  *earliest = played != 0 ? played : any;
  if (ok)
    set_stamp_offsets (st, trails);
  g_free (st->stamp_trails);
  st->stamp_trails = trails;
  return ok;
}

/* The time origin (the first message played, or the earliest stamp of
 * the played topics' first messages) and the duration: where the last
 * message ends, one period of its topic after it, as a loop's pass ends
 * (at the last message's own time, a seek to the duration played it);
 * FALSE with @error set if a first message cannot be read. */
gboolean
recording_find_time_origin (State * st, GError ** error)
{
  gboolean any = FALSE;
  guint64 first = G_MAXUINT64, stamp = 0;
  GstSegment whole;

  for (guint t = 0; t < rc_reader_n_topics (st->reader); t++) {
    const RcTopic *topic = rc_reader_get_topic (st->reader, t);

    if (st->stream_of[t] >= 0 && topic->n_messages > 0) {
      any = TRUE;
      first = MIN (first, topic->first_time);
    }
  }
  st->base = 0;
  st->duration = 0;
  st->stamp_lead = st->stamp_lag = st->stamp_spread = 0;
  g_clear_pointer (&st->stamp_trails, g_free);
  if (!any)
    return TRUE;
  if (st->timestamps == GST_ROBOCACHE_BAG_TIMESTAMPS_HEADER &&
      !earliest_stamp (st, &stamp, error))
    return FALSE;
  st->base = stamp != 0 ? stamp : first;
  gst_segment_init (&whole, GST_FORMAT_TIME);
  st->duration = gst_robocache_recording_play_pass_end (st->reader,
      st->stream_of, st->stamp_trails, st->base, &whole);
  return TRUE;
}

/* Topics stamped apart from their record times, one more than another:
 * played by header.stamp, in record order, the trailing one's messages
 * come that late, and past GAP_LAG they are taken for a topic that
 * dropped out. */
void
recording_warn_stamp_spread (GstRobocacheRecordingSrc * self)
{
  State *st = &self->priv->state;

  if (st->timestamps == GST_ROBOCACHE_BAG_TIMESTAMPS_RECORD ||
      st->stamp_spread <= GAP_LAG)
    return;
  GST_ELEMENT_WARNING (self, STREAM, DEMUX, ("%s: topic %s is stamped "
          "%.1f s further behind its record times than topic %s: played by "
          "header.stamp, in record order, its messages come that late, and "
          "consumers that wait for every topic (robocachefuse) take it for "
          "a topic that dropped out (GAP events); play with "
          "timestamps=record, or correct the sensor's clock", st->location,
          rc_reader_get_topic (st->reader, st->most_trailing)->name,
          (gdouble) st->stamp_spread / GST_SECOND,
          rc_reader_get_topic (st->reader, st->least_trailing)->name),
      (NULL));
}
