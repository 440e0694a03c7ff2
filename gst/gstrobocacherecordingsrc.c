/* The recording sources' base (gstrobocacherecordingsrc.h).  The file is
 * opened in READY->PAUSED through the reader interface; one Stream (a
 * sometimes pad) per chosen topic, and one decoder (gstrobocacherosmsg.h)
 * per topic.  A task on the first pad reads the messages in record-time
 * order and pushes each as a buffer on its topic's pad; flush seeks
 * restart it at the first message at or after the target.  The elements'
 * documentation (what plays, timestamps, seeking, errors) is in
 * gstrobocachebagsrc.c. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstrobocacherecordingsrcprivate.h"
#include "gstrobocachefields.h"
#include "gstrobocachecaps.h"
#include "gstrobocacherosmsg.h"
#include "gstrobocacherecordingfile.h"
#include "gstrobocacherecordingplay.h"
#include "gstrobocacherecordingtopics.h"

#include <gst/base/gstflowcombiner.h>
#include <gst/video/video.h>
#include <string.h>

GST_DEBUG_CATEGORY (gst_robocache_recording_src_debug);
#define GST_CAT_DEFAULT gst_robocache_recording_src_debug

#define DEFAULT_LOCATION NULL
#define DEFAULT_TOPICS NULL
#define DEFAULT_TIMESTAMPS GST_ROBOCACHE_BAG_TIMESTAMPS_HEADER

/* A GAP needs caps before its segment: for a topic that has not played
 * yet, how many of its first messages are read ahead for them. */
#define PEEK_MESSAGES 64
/* With timestamps=header, a message recorded this long after the stop is
 * taken to be stamped after it too (a header stamp is older than the
 * record time by the message's way to the recorder): reading ends there. */
#define STOP_SLACK GST_SECOND

enum
{
  PROP_0,
  PROP_LOCATION,
  PROP_TOPICS,
  PROP_TIMESTAMPS,
  PROP_STATS,
  PROP_START_TIME,
  PROP_STOP_TIME,
  PROP_RATE,
  PROP_LOOP
};

static GstStaticPadTemplate src_template = GST_STATIC_PAD_TEMPLATE ("src_%u",
    GST_PAD_SRC, GST_PAD_SOMETIMES,
    GST_STATIC_CAPS (GST_ROBOCACHE_POINTS_CAPS "; "
        GST_ROBOCACHE_VECTORS_CAPS "; "
        GST_VIDEO_CAPS_MAKE ("{ RGB, BGR, RGBA, BGRA, GRAY8, GRAY16_LE, "
            "GRAY16_BE }") "; image/jpeg; image/png"));

#define gst_robocache_recording_src_parent_class parent_class
G_DEFINE_ABSTRACT_TYPE_WITH_CODE (GstRobocacheRecordingSrc,
    gst_robocache_recording_src, GST_TYPE_ELEMENT,
    G_ADD_PRIVATE (GstRobocacheRecordingSrc);
    G_IMPLEMENT_INTERFACE (GST_TYPE_URI_HANDLER,
        gst_robocache_recording_src_uri_handler_init);
    GST_DEBUG_CATEGORY_INIT (gst_robocache_recording_src_debug,
        "robocacherecordingsrc", 0, "robocache recording sources"));

/* *INDENT-OFF* */
G_DEFINE_ENUM_TYPE (GstRobocacheBagTimestamps, gst_robocache_bag_timestamps,
    {GST_ROBOCACHE_BAG_TIMESTAMPS_HEADER, "The message's header.stamp",
        "header"},
    {GST_ROBOCACHE_BAG_TIMESTAMPS_RECORD, "The time the message was "
          "recorded (ROS bag record time, MCAP log_time)", "record"},
    {GST_ROBOCACHE_BAG_TIMESTAMPS_RECORD, "The same as record, as MCAP "
          "names it", "log-time"});
/* *INDENT-ON* */

/* ------------------------------------------------------------------ */
/* Properties                                                          */
/* ------------------------------------------------------------------ */

/* The element's factory name, e.g. "robocachebagsrc". */
static const gchar *
element_name (GstRobocacheRecordingSrc * self)
{
  GstElementFactory *factory = gst_element_get_factory (GST_ELEMENT (self));

  return factory ? GST_OBJECT_NAME (factory) : G_OBJECT_TYPE_NAME (self);
}

static void
get_stats (GObject * object, GValue * value)
{
  GstRobocacheRecordingSrc *self = GST_ROBOCACHE_RECORDING_SRC (object);
  const Totals *t = &self->priv->totals;
  gchar *name = g_strconcat (element_name (self), "-stats", NULL);

  g_value_take_boxed (value, gst_structure_new (name,
          "messages", G_TYPE_UINT64, t->messages,
          "skipped-point-layout", G_TYPE_UINT64,
          t->skipped[GST_ROBOCACHE_ROS_SKIP_POINT_LAYOUT],
          "skipped-unsupported", G_TYPE_UINT64,
          t->skipped[GST_ROBOCACHE_ROS_SKIP_UNSUPPORTED],
          "skipped-before-origin", G_TYPE_UINT64,
          t->skipped[GST_ROBOCACHE_ROS_SKIP_BEFORE_ORIGIN],
          "skipped-other-types", G_TYPE_UINT64, t->skipped_other_types,
          "loops", G_TYPE_UINT64, t->loops, NULL));
  g_free (name);
}

static const GstRobocacheField fields[] = {
  GST_ROBOCACHE_FIELD (PROP_LOCATION, GstRobocacheRecordingSrc, location),
  GST_ROBOCACHE_FIELD (PROP_TOPICS, GstRobocacheRecordingSrc, topics),
  GST_ROBOCACHE_FIELD (PROP_TIMESTAMPS, GstRobocacheRecordingSrc,
      timestamps),
  GST_ROBOCACHE_FIELD_GETTER (PROP_STATS, get_stats),
  GST_ROBOCACHE_FIELD (PROP_START_TIME, GstRobocacheRecordingSrc, start_time),
  GST_ROBOCACHE_FIELD (PROP_STOP_TIME, GstRobocacheRecordingSrc, stop_time),
  GST_ROBOCACHE_FIELD (PROP_RATE, GstRobocacheRecordingSrc, rate),
  GST_ROBOCACHE_FIELD (PROP_LOOP, GstRobocacheRecordingSrc, loop),
  {0}
};

/* ------------------------------------------------------------------ */
/* Messages to buffers                                                 */
/* ------------------------------------------------------------------ */

/* A message that is well formed but cannot be played: skipped, counted,
 * and warned about once per topic and kind of reason. */
static void
skip_message (GstRobocacheRecordingSrc * self, Stream * s,
    const GstRobocacheRosSkip * skip)
{
  GST_OBJECT_LOCK (self);
  self->priv->totals.skipped[skip->kind]++;
  GST_OBJECT_UNLOCK (self);
  GST_DEBUG_OBJECT (self, "%s: skipping a message: %s", s->topic, skip->reason);
  if (!s->warned[skip->kind]) {
    GST_ELEMENT_WARNING (self, STREAM, FORMAT, ("%s: skipping messages: %s",
            s->topic, skip->reason), ("further such messages of the topic "
            "are skipped and counted in the stats property without a "
            "warning"));
    s->warned[skip->kind] = TRUE;
  }
}

/* The decoders share the bytes of @mapped, the file of the message at
 * hand, from now on (a split recording moves from file to file). */
static void
share_file (State * st, GMappedFile * mapped)
{
  GstMemory *file;

  if (mapped == st->shared)
    return;
  st->shared = mapped;
  file = gst_robocache_recording_file_memory (mapped);
  for (guint t = 0; t < rc_reader_n_topics (st->reader); t++) {
    if (st->decoders[t])
      gst_robocache_ros_decoder_set_file (st->decoders[t], file);
  }
  if (file)
    gst_memory_unref (file);
}

/* The buffer and caps of a message of @s; NULL if skipped (warned about)
 * or, with @error set, malformed. */
static GstBuffer *
message_buffer (GstRobocacheRecordingSrc * self, Stream * s,
    const RcMessage * msg, guint64 * stamp, GstCaps ** caps, GError ** error)
{
  GstRobocacheRosDecoder *decoder = self->priv->state.decoders[msg->topic];
  GstRobocacheRosSkip skip;
  GstBuffer *buf;

  share_file (&self->priv->state, msg->mapped);

  gst_robocache_ros_decoder_set_allocator (decoder, s->allocator, &s->params);
  buf = gst_robocache_ros_decoder_buffer_new (decoder, msg->data, msg->size,
      stamp, caps, &skip, error);

  if (skip.reason) {
    skip_message (self, s, &skip);
    g_free (skip.reason);
  }
  return buf;
}

/* ------------------------------------------------------------------ */
/* Streaming                                                           */
/* ------------------------------------------------------------------ */

GstPad *
recording_first_pad (GstRobocacheRecordingSrc * self)
{
  return ((Stream *) g_ptr_array_index (self->priv->state.streams, 0))->pad;
}

void
recording_push_event_all (GstRobocacheRecordingSrc * self, GstEvent * event,
    guint32 seqnum)
{
  gst_event_set_seqnum (event, seqnum);
  for (guint i = 0; i < self->priv->state.streams->len; i++) {
    Stream *s = g_ptr_array_index (self->priv->state.streams, i);
    gst_pad_push_event (s->pad, gst_event_ref (event));
  }
  gst_event_unref (event);
}

/* Stops the task and ends every stream. */
void
recording_pause_with_eos (GstRobocacheRecordingSrc * self, GstPad * pad)
{
  GstEvent *eos = gst_event_new_eos ();

  gst_pad_pause_task (pad);
  /* A topic without messages (or none after a seek) still gets its
   * stream-start and segment before EOS. */
  for (guint i = 0; i < self->priv->state.streams->len; i++)
    recording_prepare_stream (self,
        g_ptr_array_index (self->priv->state.streams, i), NULL);
  recording_push_event_all (self, eos, self->priv->state.seqnum);
}

static void
pause_on_error (GstRobocacheRecordingSrc * self, GstPad * pad,
    const RcMessage * msg, GError * error)
{
  GST_ELEMENT_ERROR (self, STREAM, DEMUX, ("%s: %s", self->priv->state.location,
          error->message), ("message %" G_GUINT64_FORMAT " of the index",
          msg->index));
  g_error_free (error);
  recording_pause_with_eos (self, pad);
}

/* Asks downstream of @s which allocator its buffers of @caps should come
 * from: a consumer on the GPU proposes page-locked memory. */
static void
query_allocator (Stream * s, GstCaps * caps)
{
  GstQuery *query = gst_query_new_allocation (caps, TRUE);

  gst_clear_object (&s->allocator);
  gst_allocation_params_init (&s->params);
  if (gst_pad_peer_query (s->pad, query)
      && gst_query_get_n_allocation_params (query) > 0)
    gst_query_parse_nth_allocation_param (query, 0, &s->allocator, &s->params);
  gst_query_unref (query);
}

/* Stream-start, caps (unless @caps is NULL) and segment, as far as they
 * are due. */
void
recording_prepare_stream (GstRobocacheRecordingSrc * self, Stream * s,
    GstCaps * caps)
{
  State *st = &self->priv->state;

  if (s->need_start) {
    /* Stream ids and tags are UTF-8; a file's topic names need not be. */
    gchar *topic = g_utf8_make_valid (s->topic, -1);
    gchar *id = g_strconcat (st->stream_id_prefix, topic, NULL);
    GstEvent *ev = gst_event_new_stream_start (id);

    gst_event_set_group_id (ev, st->group_id);
    gst_pad_push_event (s->pad, ev);
    g_free (id);
    g_free (topic);
    s->need_start = FALSE;
  }
  if (caps && (!s->caps || !gst_caps_is_equal (s->caps, caps))) {
    gboolean first = s->caps == NULL;

    gst_caps_replace (&s->caps, caps);
    gst_pad_push_event (s->pad, gst_event_new_caps (caps));
    /* Only before the stream's first buffer: the query is serialized, and
     * later it would wait behind the buffers a queue downstream holds,
     * which may wait in turn for another topic's buffer from this very
     * thread (a sink prerolling, robocachefuse): a deadlock.  The
     * allocator suits the new caps as well. */
    if (first)
      query_allocator (s, caps);
  }
  if (s->need_segment) {
    GstEvent *ev = gst_event_new_segment (&st->segment);
    gchar *title = g_utf8_make_valid (s->topic, -1);
    GstTagList *tags;

    gst_event_set_seqnum (ev, st->seqnum);
    gst_pad_push_event (s->pad, ev);
    s->position = st->segment.start;
    tags = gst_tag_list_new (GST_TAG_TITLE, title, NULL);
    gst_tag_list_set_scope (tags, GST_TAG_SCOPE_STREAM);
    gst_pad_push_event (s->pad, gst_event_new_tag (tags));
    g_free (title);
    s->need_segment = FALSE;
  }
}

/* @a + @b, or the maximum where that overflows: a start or stop near the
 * top of its range, added to the first message's stamp, lies past every
 * message rather than wrapping round to the recording's start. */
static guint64
add_saturated (guint64 a, guint64 b)
{
  return a > G_MAXUINT64 - b ? G_MAXUINT64 : a + b;
}

/* Reads from the segment's start again; every stream gets the new
 * segment before its next buffer or GAP.  The reader seeks by record
 * time: with timestamps=header, from as far before the start as stamps
 * ran ahead of their record times, and STOP_SLACK more (a sensor's clock
 * ahead of the recorder's; messages before the start are not played). */
void
recording_restart_streams (State * st)
{
  guint64 at = add_saturated (st->base, st->segment.start);
  guint64 ahead = st->timestamps == GST_ROBOCACHE_BAG_TIMESTAMPS_RECORD ? 0 :
      add_saturated (st->stamp_lead, STOP_SLACK);

  rc_reader_seek (st->reader, at > ahead ? at - ahead : 0);
  st->newest = st->segment.start;
  for (guint i = 0; i < st->streams->len; i++)
    ((Stream *) g_ptr_array_index (st->streams, i))->need_segment = TRUE;
}

/* Whether @msg, read in record order, ends the pass: recorded after the
 * segment's stop, with timestamps=header STOP_SLACK after it and as far
 * as stamps trailed their record times, so that a stop early in a long
 * recording does not read (and decode) the rest. */
static gboolean
recorded_after_stop (const State * st, const RcMessage * msg)
{
  GstClockTime slack = st->timestamps == GST_ROBOCACHE_BAG_TIMESTAMPS_RECORD ?
      0 : add_saturated (STOP_SLACK, st->stamp_lag);

  return GST_CLOCK_TIME_IS_VALID (st->segment.stop) &&
      msg->time > add_saturated (st->base, add_saturated (st->segment.stop,
          slack));
}

/* The time a message plays at: @stamp (header.stamp) or, with
 * timestamps=record or a message stamped 0, its record time. */
static guint64
message_time (const State * st, const RcMessage * msg, guint64 stamp)
{
  return st->timestamps == GST_ROBOCACHE_BAG_TIMESTAMPS_RECORD ||
      stamp == 0 ? msg->time : stamp;
}

/* Whether the message is stamped before the recording's time 0 (the
 * earliest stamp of the played topics' first messages): a clock that went
 * back.  It has no running time (it played at 0, out of order), so it is
 * skipped, counted and warned about. */
static gboolean
skipped_before_origin (GstRobocacheRecordingSrc * self, Stream * s,
    const RcMessage * msg, guint64 stamp)
{
  State *st = &self->priv->state;
  guint64 ts = message_time (st, msg, stamp);
  GstRobocacheRosSkip skip = { GST_ROBOCACHE_ROS_SKIP_BEFORE_ORIGIN, NULL };

  if (ts >= st->base)
    return FALSE;
  skip.reason = g_strdup_printf ("stamped %.3f s before time 0 (the "
      "earliest stamp of the played topics' first messages), a clock that "
      "went back; timestamps=record plays them by record time",
      (gdouble) (st->base - ts) / GST_SECOND);
  skip_message (self, s, &skip);
  g_free (skip.reason);
  return TRUE;
}

/* Sets the buffer's times from @stamp (header.stamp) or the record time;
 * FALSE if they are outside the segment. */
static gboolean
set_buffer_times (State * st, GstBuffer * buf, const RcMessage * msg,
    guint64 stamp)
{
  guint64 ts = message_time (st, msg, stamp);
  GstClockTime pts = ts > st->base ? ts - st->base : 0;

  if (pts < st->segment.start || (GST_CLOCK_TIME_IS_VALID (st->segment.stop)
          && pts >= st->segment.stop && st->segment.stop > st->segment.start))
    return FALSE;
  GST_BUFFER_PTS (buf) = pts;
  GST_BUFFER_DTS (buf) = pts;
  GST_BUFFER_OFFSET (buf) = msg->index;
  st->segment.position = pts;
  return TRUE;
}

/* Pushes @buf on @s; pauses the task when the combined flow says stop. */
static void
push_buffer (GstRobocacheRecordingSrc * self, GstPad * task_pad, Stream * s,
    GstBuffer * buf)
{
  GstFlowReturn ret;

  GST_LOG_OBJECT (self, "%s: pushing %" GST_TIME_FORMAT, s->topic,
      GST_TIME_ARGS (GST_BUFFER_PTS (buf)));
  GST_OBJECT_LOCK (self);
  self->priv->totals.messages++;
  GST_OBJECT_UNLOCK (self);
  ret = gst_pad_push (s->pad, buf);
  ret =
      gst_flow_combiner_update_pad_flow (self->priv->state.combiner, s->pad,
      ret);
  if (ret == GST_FLOW_OK)
    return;
  GST_DEBUG_OBJECT (self, "pausing: %s", gst_flow_get_name (ret));
  if (ret == GST_FLOW_EOS) {
    recording_pause_with_eos (self, task_pad);
  } else if (ret == GST_FLOW_NOT_LINKED || ret < GST_FLOW_EOS) {
    GST_ELEMENT_FLOW_ERROR (self, ret);
    recording_pause_with_eos (self, task_pad);
  } else {
    gst_pad_pause_task (task_pad);
  }
}

/* GAP events on the streams that fell GAP_LAG behind the newest buffer:
 * a topic that stops for a while (or starts late) does not hold up
 * consumers that wait for every stream. */
static void
push_gaps (GstRobocacheRecordingSrc * self, Stream * current)
{
  State *st = &self->priv->state;

  if (st->newest < GAP_LAG)
    return;
  for (guint i = 0; i < st->streams->len; i++) {
    Stream *s = g_ptr_array_index (st->streams, i);
    GstClockTime reached = s->need_segment ? st->segment.start : s->position;
    GstClockTime until = st->newest - GAP_LAG / 2;

    if (s == current || reached + GAP_LAG >= st->newest)
      continue;
    if (!s->caps && !s->peeked) {
      GstCaps *caps = gst_robocache_recording_peek_caps (st->reader,
          s->reader_topic, st->decoders[s->reader_topic], PEEK_MESSAGES);

      /* Without caps (none of its first messages plays), GAPs still go
       * out after a segment: a stall would be worse than caps coming
       * after it. */
      s->peeked = TRUE;
      if (caps)
        recording_prepare_stream (self, s, caps);
      gst_clear_caps (&caps);
    }
    recording_prepare_stream (self, s, NULL);
    GST_LOG_OBJECT (self, "%s: gap from %" GST_TIME_FORMAT " to %"
        GST_TIME_FORMAT, s->topic, GST_TIME_ARGS (s->position),
        GST_TIME_ARGS (until));
    gst_pad_push_event (s->pad, gst_event_new_gap (s->position,
            until - s->position));
    s->position = until;
  }
}

/* One message of a played topic per call, on the task of the first pad. */
static void
gst_robocache_recording_src_loop (GstPad * pad)
{
  GstRobocacheRecordingSrc *self =
      GST_ROBOCACHE_RECORDING_SRC (GST_PAD_PARENT (pad));
  State *st = &self->priv->state;
  RcMessage msg;
  Stream *s;
  GstBuffer *buf;
  GstCaps *caps = NULL;
  GError *error = NULL;
  guint64 stamp = 0;
  guint32 eos_seqnum = g_atomic_int_get (&self->priv->eos_seqnum);

  if (eos_seqnum != 0) {
    GST_DEBUG_OBJECT (self, "an EOS was sent: ending every stream");
    st->seqnum = eos_seqnum;
    recording_pause_with_eos (self, pad);
    return;
  }
  recording_apply_pending_seek (self);
  switch (rc_reader_next (st->reader, &msg, &error)) {
    case RC_READER_OK:
      break;
    case RC_READER_FAILED:
      pause_on_error (self, pad, &msg, error);
      return;
    case RC_READER_END:
      recording_end_of_pass (self, pad);
      return;
  }
  if (recorded_after_stop (st, &msg)) {
    recording_end_of_pass (self, pad);
    return;
  }
  s = g_ptr_array_index (st->streams, st->stream_of[msg.topic]);
  buf = message_buffer (self, s, &msg, &stamp, &caps, &error);
  if (error) {
    /* Which message of which topic: a recording may hold several of one
     * type. */
    g_prefix_error (&error, "topic %s, the message recorded at %"
        G_GUINT64_FORMAT ".%09u s: ", rc_reader_get_topic (st->reader,
            msg.topic)->name, msg.time / GST_SECOND,
        (guint) (msg.time % GST_SECOND));
    gst_clear_caps (&caps);
    pause_on_error (self, pad, &msg, error);
  } else if (!buf) {
    gst_clear_caps (&caps);     /* skipped (warned about) */
  } else if (skipped_before_origin (self, s, &msg, stamp) ||
      !set_buffer_times (st, buf, &msg, stamp)) {
    gst_buffer_unref (buf);
    gst_caps_unref (caps);
  } else {
    recording_prepare_stream (self, s, caps);
    gst_caps_unref (caps);
    st->pass_pushed++;
    s->position = MAX (s->position, GST_BUFFER_PTS (buf));
    st->newest = MAX (st->newest, GST_BUFFER_PTS (buf));
    push_gaps (self, s);
    push_buffer (self, pad, s, buf);
  }
}

void
recording_start_task (GstRobocacheRecordingSrc * self)
{
  GstPad *pad0 = recording_first_pad (self);

  gst_pad_start_task (pad0, (GstTaskFunction) gst_robocache_recording_src_loop,
      pad0, NULL);
}

/* ------------------------------------------------------------------ */
/* Start and stop                                                      */
/* ------------------------------------------------------------------ */

static void
stream_free (gpointer data)
{
  Stream *s = data;

  g_free (s->topic);
  gst_clear_caps (&s->caps);
  gst_clear_object (&s->allocator);
  g_free (s);
}

/* One stream (and its pad, not added yet) per chosen topic; the reader
 * reads the chosen topics only. */
static void
create_streams (GstRobocacheRecordingSrc * self, GPtrArray * topics)
{
  State *st = &self->priv->state;
  guint n_topics = rc_reader_n_topics (st->reader);

  st->streams = g_ptr_array_new_with_free_func (stream_free);
  st->combiner = gst_flow_combiner_new ();
  st->stream_of = g_new (gint, MAX (n_topics, 1));
  for (guint t = 0; t < n_topics; t++) {
    guint i;

    st->stream_of[t] = g_ptr_array_find (topics,
        rc_reader_get_topic (st->reader, t), &i) ? (gint) i : -1;
    rc_reader_select_topic (st->reader, t, st->stream_of[t] >= 0);
  }
  for (guint i = 0; i < topics->len; i++) {
    const RcTopic *topic = g_ptr_array_index (topics, i);
    Stream *s = g_new0 (Stream, 1);
    gchar *name = g_strdup_printf ("src_%u", i);

    s->topic = g_strdup (topic->name);
    s->need_start = TRUE;
    s->need_segment = TRUE;
    g_ptr_array_add (st->streams, s);
    s->pad = i < self->priv->kept_pads->len ?
        g_ptr_array_index (self->priv->kept_pads, i) : NULL;
    if (s->pad && GST_OBJECT_PARENT (s->pad) == GST_OBJECT (self)) {
      g_free (name);
      continue;
    }
    s->pad = gst_pad_new_from_static_template (&src_template, name);
    g_free (name);
    gst_pad_set_event_function (s->pad,
        GST_DEBUG_FUNCPTR (recording_src_event));
    gst_pad_set_query_function (s->pad,
        GST_DEBUG_FUNCPTR (recording_src_query));
    gst_pad_use_fixed_caps (s->pad);
  }
  /* Pads of the last run that no topic plays now. */
  for (guint i = topics->len; i < self->priv->kept_pads->len; i++) {
    GstPad *pad = g_ptr_array_index (self->priv->kept_pads, i);

    if (GST_OBJECT_PARENT (pad) == GST_OBJECT (self))
      gst_element_remove_pad (GST_ELEMENT (self), pad);
  }
  g_ptr_array_set_size (self->priv->kept_pads, 0);
  for (guint t = 0; t < n_topics; t++)
    if (st->stream_of[t] >= 0)
      ((Stream *) g_ptr_array_index (st->streams,
              st->stream_of[t]))->reader_topic = t;
}

/* A decoder per played topic (sharing the file's bytes where it can,
 * share_file); FALSE and an element error if the schema the file stores
 * for one cannot be used. */
static gboolean
create_decoders (GstRobocacheRecordingSrc * self, GPtrArray * topics)
{
  State *st = &self->priv->state;
  guint n_topics = rc_reader_n_topics (st->reader);
  GError *error = NULL;
  gboolean ok = TRUE;

  st->decoders = g_new0 (GstRobocacheRosDecoder *, MAX (n_topics, 1));
  for (guint t = 0; t < n_topics; t++) {
    const RcTopic *topic = rc_reader_get_topic (st->reader, t);

    if (st->stream_of[t] < 0)
      continue;
    st->decoders[t] = gst_robocache_ros_decoder_new (topic, &error);
    if (!st->decoders[t]) {
      GST_ELEMENT_ERROR (self, STREAM, DECODE, ("%s: topic %s: %s",
              st->location, topic->name, error->message), ("schema %s (%s)",
              GST_STR_NULL (topic->schema_name),
              GST_STR_NULL (topic->schema_encoding)));
      g_error_free (error);
      ok = FALSE;
      break;
    }
  }
  /* Shared from the first message's file on (share_file). */
  st->shared = NULL;
  return ok;
}

static void
stop (GstRobocacheRecordingSrc * self)
{
  State *st = &self->priv->state;

  GST_OBJECT_LOCK (self);
  gst_clear_event (&self->priv->pending_seek);
  GST_OBJECT_UNLOCK (self);

  if (st->streams) {
    for (guint i = 0; i < st->streams->len; i++) {
      Stream *s = g_ptr_array_index (st->streams, i);
      gst_flow_combiner_remove_pad (st->combiner, s->pad);
      /* start() may fail before the pads are added. */
      if (GST_OBJECT_PARENT (s->pad) == GST_OBJECT (self)) {
        g_ptr_array_add (self->priv->kept_pads, gst_object_ref (s->pad));
      } else {
        gst_object_ref_sink (s->pad);
        gst_object_unref (s->pad);
      }
    }
    g_clear_pointer (&st->streams, g_ptr_array_unref);
  }
  g_clear_pointer (&st->combiner, gst_flow_combiner_free);
  if (st->decoders) {
    for (guint t = 0; t < rc_reader_n_topics (st->reader); t++)
      gst_robocache_ros_decoder_free (st->decoders[t]);
    g_clear_pointer (&st->decoders, g_free);
  }
  st->shared = NULL;
  g_clear_pointer (&st->stream_of, g_free);
  g_clear_pointer (&st->stamp_trails, g_free);
  g_clear_pointer (&st->reader, rc_reader_free);
  g_clear_pointer (&st->stream_id_prefix, g_free);
  g_clear_pointer (&st->location, g_free);
}

/* Adds the pads, ready to play from the first message. */
static void
add_pads (GstRobocacheRecordingSrc * self)
{
  State *st = &self->priv->state;

  gst_segment_init (&st->segment, GST_FORMAT_TIME);
  gst_robocache_recording_play_segment (&st->segment, &st->play);
  st->segment.duration = st->duration;
  st->pass_pushed = 0;
  st->seqnum = gst_util_seqnum_next ();
  st->group_id = gst_util_group_id_next ();
  recording_restart_streams (st);
  for (guint i = 0; i < st->streams->len; i++) {
    Stream *s = g_ptr_array_index (st->streams, i);
    gst_pad_set_active (s->pad, TRUE);
    if (GST_OBJECT_PARENT (s->pad) != GST_OBJECT (self))
      gst_element_add_pad (GST_ELEMENT (self), s->pad);
    gst_flow_combiner_add_pad (st->combiner, s->pad);
  }
  gst_element_no_more_pads (GST_ELEMENT (self));
}

static gboolean
start (GstRobocacheRecordingSrc * self)
{
  GstRobocacheRecordingSrcClass *klass =
      GST_ROBOCACHE_RECORDING_SRC_GET_CLASS (self);
  GstRobocacheRecordingSrcPrivate *priv = self->priv;
  State *st = &priv->state;
  RcReaderFlags flags = RC_READER_FLAGS_NONE;
  gchar *wanted, *base;
  GPtrArray *topics = NULL;
  GError *error = NULL;
  gboolean ok = FALSE;

  g_atomic_int_set (&priv->eos_seqnum, 0);
  GST_OBJECT_LOCK (self);
  st->location = g_strdup (self->location);
  wanted = g_strdup (self->topics);
  st->timestamps = self->timestamps;
  st->play.start_time = self->start_time;
  st->play.stop_time = self->stop_time;
  st->play.rate = self->rate;
  st->play.loop = self->loop;
  if (klass->reader_flags)
    flags = klass->reader_flags (self);
  memset (&priv->totals, 0, sizeof (priv->totals));
  GST_OBJECT_UNLOCK (self);

  if (!st->location) {
    GST_ELEMENT_ERROR (self, RESOURCE, NOT_FOUND, ("no file given: set "
            "the location property"), (NULL));
    goto out;
  }
  if (!gst_robocache_recording_play_check (GST_ELEMENT (self), &st->play))
    goto out;
  st->reader = gst_robocache_recording_open (GST_ELEMENT (self),
      st->location, flags);
  if (!st->reader || !(topics = gst_robocache_recording_choose_topics
          (GST_ELEMENT (self), st->reader, st->location, wanted,
              &self->priv->totals.skipped_other_types)))
    goto out;
  create_streams (self, topics);
  if (!create_decoders (self, topics))
    goto out;
  base = g_path_get_basename (st->location);
  st->stream_id_prefix = g_strdup_printf ("%s/%s", element_name (self), base);
  g_free (base);
  if (!recording_find_time_origin (st, &error)) {
    GST_ELEMENT_ERROR (self, STREAM, DEMUX, ("%s: %s", st->location,
            error->message), (NULL));
    g_error_free (error);
    goto out;
  }
  recording_warn_stamp_spread (self);
  add_pads (self);
  ok = TRUE;
out:
  if (topics)
    g_ptr_array_unref (topics);
  g_free (wanted);
  if (!ok)
    stop (self);
  return ok;
}

/* An EOS sent to the element (a bin sends it to its sources: what
 * gst-launch-1.0 -e does on Ctrl-C) ends every stream, as GstBaseSrc's
 * does: the loop pushes it before its next message (it was dropped, so a
 * paced replay being recorded never finished).  Other events: as for any
 * element. */
static gboolean
gst_robocache_recording_src_send_event (GstElement * element, GstEvent * event)
{
  GstRobocacheRecordingSrc *self = GST_ROBOCACHE_RECORDING_SRC (element);

  if (GST_EVENT_TYPE (event) != GST_EVENT_EOS)
    return GST_ELEMENT_CLASS (parent_class)->send_event (element, event);
  GST_DEBUG_OBJECT (self, "EOS sent: ending the streams");
  g_atomic_int_set (&self->priv->eos_seqnum, MAX (gst_event_get_seqnum
          (event), 1));
  gst_event_unref (event);
  return TRUE;
}

static GstStateChangeReturn
gst_robocache_recording_src_change_state (GstElement * element,
    GstStateChange transition)
{
  GstRobocacheRecordingSrc *self = GST_ROBOCACHE_RECORDING_SRC (element);
  GstStateChangeReturn ret;

  if (transition == GST_STATE_CHANGE_READY_TO_PAUSED && !start (self))
    return GST_STATE_CHANGE_FAILURE;

  ret = GST_ELEMENT_CLASS (parent_class)->change_state (element, transition);
  if (ret == GST_STATE_CHANGE_FAILURE) {
    if (transition == GST_STATE_CHANGE_READY_TO_PAUSED)
      stop (self);
    return ret;
  }

  switch (transition) {
    case GST_STATE_CHANGE_READY_TO_PAUSED:
      recording_start_task (self);
      break;
    case GST_STATE_CHANGE_PAUSED_TO_READY:
      /* The pads are flushing now: the task stops at its next push. */
      if (self->priv->state.streams)
        gst_pad_stop_task (recording_first_pad (self));
      stop (self);
      break;
    default:
      break;
  }
  return ret;
}

/* ------------------------------------------------------------------ */
/* Class                                                               */
/* ------------------------------------------------------------------ */

static void
gst_robocache_recording_src_finalize (GObject * object)
{
  GstRobocacheRecordingSrc *self = GST_ROBOCACHE_RECORDING_SRC (object);

  g_free (self->location);
  g_free (self->topics);
  g_ptr_array_unref (self->priv->kept_pads);
  G_OBJECT_CLASS (parent_class)->finalize (object);
}

static void
gst_robocache_recording_src_class_init (GstRobocacheRecordingSrcClass * klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  GstElementClass *element_class = GST_ELEMENT_CLASS (klass);

  gst_robocache_fields_class_init (gobject_class, fields);
  gobject_class->finalize = gst_robocache_recording_src_finalize;

  /**
   * GstRobocacheRecordingSrc:location:
   *
   * Path of the recording: a ROS 1 bag (format 2.0), an MCAP file or a
   * rosbag2 SQLite file (.db3; the format is told from the file's first
   * bytes), either perhaps compressed whole by zstd (rosbag2's
   * --compression-mode file), or a folder of such files, as a rosbag2
   * recording (metadata.yaml beside run_0.mcap, or run_0.db3) or a split
   * one.
   */
  g_object_class_install_property (gobject_class, PROP_LOCATION,
      g_param_spec_string ("location", "Location", "Path of the recording",
          DEFAULT_LOCATION, G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
          GST_PARAM_MUTABLE_READY));
  /**
   * GstRobocacheRecordingSrc:topics:
   *
   * Comma-separated topics to play, one src pad each in this order, e.g.
   * "/velodyne_points,/joint_states".  Empty plays every topic of a
   * supported type, in name order.  A listed topic that is missing or of
   * an unsupported type is an error.
   */
  g_object_class_install_property (gobject_class, PROP_TOPICS,
      g_param_spec_string ("topics", "Topics",
          "Comma-separated topics, one src pad each (empty: all supported)",
          DEFAULT_TOPICS, G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
          GST_PARAM_MUTABLE_READY));
  /**
   * GstRobocacheRecordingSrc:timestamps:
   *
   * Where buffer timestamps come from: the message's header.stamp or the
   * time it was recorded (a ROS bag's record time, an MCAP log_time).
   */
  g_object_class_install_property (gobject_class, PROP_TIMESTAMPS,
      g_param_spec_enum ("timestamps", "Timestamps",
          "Buffer times from header.stamp or the record (log) time",
          GST_TYPE_ROBOCACHE_BAG_TIMESTAMPS, DEFAULT_TIMESTAMPS,
          G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
          GST_PARAM_MUTABLE_READY));
  /**
   * GstRobocacheRecordingSrc:stats:
   *
   * Totals since the element started: messages (pushed),
   * skipped-point-layout (PointCloud2 whose point_step or fields points
   * caps cannot describe), skipped-unsupported (big-endian clouds, other
   * image encodings, JointState without one position per name) and, when
   * every playable topic plays (topics empty), skipped-other-types: the
   * messages of the topics of other types or of several definitions
   * (channels or connections that disagree), which are not read; loops:
   * the passes restarted by #GstRobocacheRecordingSrc:loop.
   */
  gst_robocache_fields_install_stats (gobject_class, PROP_STATS,
      "Totals since start");

  gst_robocache_recording_play_install_properties (gobject_class,
      PROP_START_TIME);

  element_class->change_state =
      GST_DEBUG_FUNCPTR (gst_robocache_recording_src_change_state);
  element_class->send_event =
      GST_DEBUG_FUNCPTR (gst_robocache_recording_src_send_event);
  gst_element_class_add_static_pad_template (element_class, &src_template);
  gst_type_mark_as_plugin_api (GST_TYPE_ROBOCACHE_BAG_TIMESTAMPS, 0);
  gst_type_mark_as_plugin_api (GST_TYPE_ROBOCACHE_RECORDING_SRC, 0);
}

static void
gst_robocache_recording_src_init (GstRobocacheRecordingSrc * self)
{
  self->priv = gst_robocache_recording_src_get_instance_private (self);
  self->priv->kept_pads = g_ptr_array_new_with_free_func (gst_object_unref);
  gst_robocache_fields_init (self, fields);
  /* A source to its bin: an EOS sent to the pipeline comes here. */
  GST_OBJECT_FLAG_SET (self, GST_ELEMENT_FLAG_SOURCE);
}
