/* The recording sources' ends of a pass (EOS, the next pass of a loop,
 * SEGMENT_DONE after a segment seek) and their seeks and queries; the
 * streaming loop (gstrobocacherecordingsrc.c) reads and pushes. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstrobocacherecordingsrcprivate.h"

#define GST_CAT_DEFAULT gst_robocache_recording_src_debug

/* Where the pass being played ends: no earlier than its latest buffer,
 * whose stamp may lie further from its record time than its topic's
 * first's (a sensor clock drifting), so that the next pass's running
 * time goes on from there. */
static GstClockTime
pass_end (const State * st)
{
  return MAX (st->newest, gst_robocache_recording_play_pass_end (st->reader,
          st->stream_of, st->stamp_trails, st->base, &st->segment));
}

/* After a segment seek: SEGMENT_DONE (message, and event on every pad) in
 * place of EOS at the end of the pass, and the task paused, so that the
 * application's next seek (non-flushing) plays on without a gap, as in
 * any GStreamer player.  The position is where the pass ends (as loop
 * takes it): the next segment's running time starts there. */
static void
segment_done (GstRobocacheRecordingSrc * self, GstPad * pad)
{
  State *st = &self->priv->state;
  GstClockTime end = pass_end (st);
  GstMessage *msg;

  GST_DEBUG_OBJECT (self, "segment done at %" GST_TIME_FORMAT,
      GST_TIME_ARGS (end));
  gst_pad_pause_task (pad);
  /* Each stream has nothing more up to the end: consumers that wait for
   * every stream's next buffer (robocachefuse, GStreamer's aggregators)
   * make their last output of the pass. */
  for (guint i = 0; i < st->streams->len; i++) {
    Stream *s = g_ptr_array_index (st->streams, i);
    GstClockTime from = s->need_segment ? st->segment.start : s->position;

    recording_prepare_stream (self, s, NULL);
    if (GST_CLOCK_TIME_IS_VALID (end) && end > from)
      gst_pad_push_event (s->pad, gst_event_new_gap (from, end - from));
  }
  st->segment.position = end;
  msg = gst_message_new_segment_done (GST_OBJECT (self), GST_FORMAT_TIME, end);
  gst_message_set_seqnum (msg, st->seqnum);
  gst_element_post_message (GST_ELEMENT (self), msg);
  recording_push_event_all (self, gst_event_new_segment_done (GST_FORMAT_TIME,
          end), st->seqnum);
}

/* The end of the messages to play: SEGMENT_DONE after a segment seek,
 * else EOS, or with loop the next pass (an empty pass ends the loop, so
 * that an empty range cannot spin). */
void
recording_end_of_pass (GstRobocacheRecordingSrc * self, GstPad * pad)
{
  State *st = &self->priv->state;

  /* A non-flushing seek that came during the pass's last message. */
  if (recording_apply_pending_seek (self))
    return;
  if (st->segment.flags & GST_SEGMENT_FLAG_SEGMENT) {
    segment_done (self, pad);
    return;
  }
  if (!st->play.loop || st->pass_pushed == 0) {
    GST_DEBUG_OBJECT (self, "end of the recording");
    recording_pause_with_eos (self, pad);
    return;
  }
  gst_robocache_recording_play_next_pass (&st->segment, pass_end (st));
  st->pass_pushed = 0;
  recording_restart_streams (st);
  GST_OBJECT_LOCK (self);
  self->priv->totals.loops++;
  GST_OBJECT_UNLOCK (self);
}

/* Where a seek that leaves the start alone (GST_SEEK_TYPE_NONE) goes on
 * from: the position reached, as for any GStreamer source, not the old
 * segment's start; after a message pushed in this pass, just after it
 * (it is not played again, as GstBaseSrc reads on from its last buffer's
 * end). */
static GstClockTime
resume_position (const State * st)
{
  GstClockTime at = st->segment.position;

  if (!GST_CLOCK_TIME_IS_VALID (at) || at < st->segment.start)
    return st->segment.start;
  return st->pass_pushed > 0 && at < G_MAXUINT64 - 1 ? at + 1 : at;
}

/* The seek @event (parsed and checked by do_seek) applied, the stream
 * lock held: the segment, and every stream restarted at it.  @mid_pass:
 * a non-flushing seek taken by the task between two messages; the new
 * segment's running time then goes on where the message pushed last
 * ends, one period of the most frequent topic after it, as a source's
 * position is the end of its last buffer (from its time, the next message
 * had the same running time as that one, taken downstream for a
 * repeat). */
static void
apply_seek (GstRobocacheRecordingSrc * self, GstEvent * event,
    gboolean mid_pass)
{
  State *st = &self->priv->state;
  GstFormat format;
  GstSeekFlags flags;
  GstSeekType start_type, stop_type;
  gint64 start, stop;
  gdouble rate;
  gboolean update;

  gst_event_parse_seek (event, &rate, &format, &flags, &start_type, &start,
      &stop_type, &stop);
  if (start_type == GST_SEEK_TYPE_NONE) {
    start_type = GST_SEEK_TYPE_SET;
    start = resume_position (st);
  }
  if (mid_pass && GST_CLOCK_TIME_IS_VALID (st->segment.position)) {
    guint64 period = MAX (gst_robocache_recording_play_shortest_period
        (st->reader, st->stream_of), 1);

    st->segment.position = st->segment.position < G_MAXUINT64 - 1 - period ?
        st->segment.position + period : G_MAXUINT64 - 1;
  }
  gst_segment_do_seek (&st->segment, rate, format, flags, start_type, start,
      stop_type, stop, &update);
  st->seqnum = gst_event_get_seqnum (event);
  st->pass_pushed = 0;
  recording_restart_streams (st);
  /* So that a bin holding several sources relays SEGMENT_DONE once all
   * of them are done, as it does for GstBaseSrc's. */
  if (st->segment.flags & GST_SEGMENT_FLAG_SEGMENT) {
    GstMessage *msg = gst_message_new_segment_start (GST_OBJECT (self),
        GST_FORMAT_TIME, st->segment.start);

    gst_message_set_seqnum (msg, st->seqnum);
    gst_element_post_message (GST_ELEMENT (self), msg);
  }
}

/* Whether the seek's start and stop, resolved on @segment as
 * gst_segment_do_seek resolves them, make a range.  A start past the
 * stop is refused here: gst_segment_do_seek would print a critical and
 * leave the segment as it was, the seek taken for done. */
static gboolean
seek_range_valid (const State * st, GstSeekType start_type, gint64 start,
    GstSeekType stop_type, gint64 stop)
{
  const GstSegment *segment = &st->segment;
  guint64 duration = segment->duration;
  guint64 from = start, to = stop;

  if ((start_type == GST_SEEK_TYPE_END || stop_type == GST_SEEK_TYPE_END) &&
      !GST_CLOCK_TIME_IS_VALID (duration))
    return FALSE;
  if (start_type == GST_SEEK_TYPE_NONE)
    from = resume_position (st);
  else if (start_type == GST_SEEK_TYPE_END)
    from = (guint64) MAX ((gint64) duration + start, 0);
  if (stop_type == GST_SEEK_TYPE_NONE)
    to = segment->stop;
  else if (stop_type == GST_SEEK_TYPE_END)
    to = (guint64) MAX ((gint64) duration + stop, 0);
  if (GST_CLOCK_TIME_IS_VALID (duration)) {
    from = MIN (from, duration);
    to = GST_CLOCK_TIME_IS_VALID (to) ? MIN (to, duration) : to;
  }
  return !GST_CLOCK_TIME_IS_VALID (to) || from <= to;
}

/* Takes the non-flushing seek left for the task, or NULL. */
static GstEvent *
take_pending_seek (GstRobocacheRecordingSrc * self)
{
  GstEvent *event;

  GST_OBJECT_LOCK (self);
  event = g_steal_pointer (&self->priv->pending_seek);
  GST_OBJECT_UNLOCK (self);
  return event;
}

gboolean
recording_apply_pending_seek (GstRobocacheRecordingSrc * self)
{
  GstEvent *event = take_pending_seek (self);

  if (!event)
    return FALSE;
  GST_DEBUG_OBJECT (self, "non-flushing seek, in the streaming thread");
  apply_seek (self, event, TRUE);
  gst_event_unref (event);
  return TRUE;
}

static gboolean
do_seek (GstRobocacheRecordingSrc * self, GstEvent * event)
{
  State *st = &self->priv->state;
  GstPad *pad0;
  GstFormat format;
  GstSeekFlags flags;
  GstSeekType start_type, stop_type;
  gint64 start, stop;
  gdouble rate;
  gboolean flush;
  guint32 seqnum = gst_event_get_seqnum (event);
  GstEvent *pending;

  gst_event_parse_seek (event, &rate, &format, &flags, &start_type, &start,
      &stop_type, &stop);
  if (format != GST_FORMAT_TIME || rate <= 0.0) {
    GST_WARNING_OBJECT (self, "only seeks in TIME at a positive rate are "
        "supported");
    return FALSE;
  }
  flush = (flags & GST_SEEK_FLAG_FLUSH) != 0;
  /* A pipeline seek reaches every linked pad: handle it once, and answer
   * its other copies as the first. */
  GST_OBJECT_LOCK (self);
  if (!st->streams || st->seek_seqnum == seqnum) {
    gboolean taken = st->streams != NULL && st->seek_taken;

    GST_OBJECT_UNLOCK (self);
    return taken;
  }
  st->seek_seqnum = seqnum;
  st->seek_taken = seek_range_valid (st, start_type, start, stop_type, stop);
  GST_OBJECT_UNLOCK (self);
  if (!st->seek_taken) {
    GST_WARNING_OBJECT (self, "refusing a seek whose start would come after "
        "its stop");
    return FALSE;
  }
  pad0 = recording_first_pad (self);

  /* Without a flush, while the task runs: the task applies it before its
   * next message, the new segment's running time going on from the
   * position reached.  Waiting here for the stream lock instead blocked
   * the caller until the recording ended (the task takes it again as
   * soon as it lets it go), and the seek was lost. */
  if (!flush && gst_pad_get_task_state (pad0) == GST_TASK_STARTED) {
    GST_OBJECT_LOCK (self);
    gst_event_replace (&self->priv->pending_seek, event);
    GST_OBJECT_UNLOCK (self);
    /* Unless the task paused meanwhile (the end of a pass): then here. */
    if (gst_pad_get_task_state (pad0) == GST_TASK_STARTED)
      return TRUE;
  }
  if (flush) {
    recording_push_event_all (self, gst_event_new_flush_start (), seqnum);
    gst_pad_pause_task (pad0);
  }

  /* Without a flush after SEGMENT_DONE or EOS paused the task: the new
   * segment's running time goes on from the position reached. */
  GST_PAD_STREAM_LOCK (pad0);
  /* A flush, or the task paused: a seek left for it is superseded. */
  pending = take_pending_seek (self);
  if (pending)
    gst_event_unref (pending);
  apply_seek (self, event, FALSE);
  if (flush) {
    recording_push_event_all (self, gst_event_new_flush_stop (TRUE), seqnum);
    gst_flow_combiner_reset (st->combiner);
  }
  GST_DEBUG_OBJECT (self, "%s seek to %" GST_TIME_FORMAT, flush ? "flushing" :
      "non-flushing", GST_TIME_ARGS (st->segment.start));
  recording_start_task (self);
  GST_PAD_STREAM_UNLOCK (pad0);
  return TRUE;
}

gboolean
recording_src_event (GstPad * pad, GstObject * parent, GstEvent * event)
{
  GstRobocacheRecordingSrc *self = GST_ROBOCACHE_RECORDING_SRC (parent);
  gboolean ret;

  switch (GST_EVENT_TYPE (event)) {
    case GST_EVENT_SEEK:
      ret = do_seek (self, event);
      gst_event_unref (event);
      return ret;
    default:
      return gst_pad_event_default (pad, parent, event);
  }
}

gboolean
recording_src_query (GstPad * pad, GstObject * parent, GstQuery * query)
{
  GstRobocacheRecordingSrc *self = GST_ROBOCACHE_RECORDING_SRC (parent);
  GstFormat format;

  switch (GST_QUERY_TYPE (query)) {
    case GST_QUERY_DURATION:
      gst_query_parse_duration (query, &format, NULL);
      if (format != GST_FORMAT_TIME)
        return FALSE;
      gst_query_set_duration (query, GST_FORMAT_TIME,
          self->priv->state.duration);
      return TRUE;
    case GST_QUERY_POSITION:
      gst_query_parse_position (query, &format, NULL);
      if (format != GST_FORMAT_TIME)
        return FALSE;
      /* The last message pushed (the segment's start before any). */
      gst_query_set_position (query, GST_FORMAT_TIME,
          MAX (self->priv->state.segment.position,
              self->priv->state.segment.start));
      return TRUE;
    case GST_QUERY_SEEKING:
      gst_query_parse_seeking (query, &format, NULL, NULL, NULL);
      if (format != GST_FORMAT_TIME)
        return FALSE;
      gst_query_set_seeking (query, GST_FORMAT_TIME, TRUE, 0,
          self->priv->state.duration);
      return TRUE;
    default:
      return gst_pad_query_default (pad, parent, query);
  }
}
