/**
 * SECTION:element-robocachebagsrc
 * @title: robocachebagsrc
 *
 * Plays a ROS 1 bag file (format 2.0, as written by rosbag record and
 * python rosbag; chunks uncompressed, bz2 or lz4) as GStreamer streams, one
 * sometimes pad per topic, in record-time order:
 *
 * sensor_msgs/PointCloud2 as other/x-robocache-points (any point-step and
 * fields), sensor_msgs/JointState as float64 other/x-robocache-vectors
 * (positions, then velocities and efforts), sensor_msgs/Image as
 * video/x-raw: gstrobocacheros1.h and docs/elements.md say exactly which
 * messages play and which are skipped.
 *
 * A skipped message is warned about once per stream and reason, and counted
 * in #GstRobocacheBagSrc:stats.
 *
 * A message laid out otherwise than the previous one sends new caps.
 *
 * Pad src_N carries the N-th topic of #GstRobocacheBagSrc:topics, or with
 * topics empty the N-th supported topic in name order; its stream-start
 * stream-id ends with the topic, and a tag event sets the title tag to the
 * topic.  Topics of other types are skipped with a warning.
 *
 * Timestamps come from header.stamp (or, with timestamps=record, the time
 * the message was recorded) and are mapped to running time from the first
 * message played: that message has PTS 0 and earlier stamps are clamped to
 * 0.  A zero header.stamp (unstamped) falls back to the record time.
 *
 * Not live.  Flush seeks in TIME on any pad, rate 1.0, restart from the
 * first message recorded at or after the target (found through the bag's
 * index); with timestamps=header, messages whose stamp is before the target
 * are then dropped (this assumes, as rosbag record gives, that a message is
 * recorded after its stamp).  EOS on every pad at the end.
 *
 * A bag that is truncated, corrupt, of another version or with length
 * fields larger than the file is an error naming what is wrong; nothing is
 * allocated from an unchecked length.
 *
 * ## Example launch line
 * |[
 * gst-launch-1.0 robocachebagsrc location=run.bag \
 *     topics=/velodyne_points,/joint_states name=b \
 *     b.src_0 ! robocachevoxelize ! f.sink_0  b.src_1 ! f.sink_1 \
 *     robocachefuse name=f rate=10/1 ! fakesink
 * ]|
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstrobocachebagsrc.h"
#include "gstrobocacheelements.h"
#include "gstrobocachefields.h"
#include "gstrobocachecaps.h"
#include "formats/reader.h"
#include "formats/ros1msg.h"
#include "gstrobocacheros1.h"

#include <gst/base/gstflowcombiner.h>
#include <gst/video/video.h>
#include <string.h>

GST_DEBUG_CATEGORY_STATIC (gst_robocache_bag_src_debug);
#define GST_CAT_DEFAULT gst_robocache_bag_src_debug

#define DEFAULT_LOCATION NULL
#define DEFAULT_TOPICS NULL
#define DEFAULT_TIMESTAMPS GST_ROBOCACHE_BAG_TIMESTAMPS_HEADER

enum
{
  PROP_0,
  PROP_LOCATION,
  PROP_TOPICS,
  PROP_TIMESTAMPS,
  PROP_STATS
};

/* Property values, under the object lock. */
typedef struct
{
  gchar *location;
  gchar *topics;
  GstRobocacheBagTimestamps timestamps;
} Settings;

typedef struct
{
  GstPad *pad;
  gchar *topic;
  GstCaps *caps;                /* last sent */
  gboolean need_start;
  gboolean need_segment;
  gboolean warned[GST_ROBOCACHE_ROS1_SKIP_KINDS];
} Stream;

/* Since start, under the object lock. */
typedef struct
{
  guint64 messages;             /* pushed */
  guint64 skipped[GST_ROBOCACHE_ROS1_SKIP_KINDS];
} Totals;

/* Built in READY->PAUSED, dropped in PAUSED->READY; the streaming task
 * and seeks use it under the stream lock of the first pad. */
typedef struct
{
  RcReader *reader;
  GPtrArray *streams;           /* Stream */
  gint *stream_of;              /* per topic: stream index or -1 */
  GstFlowCombiner *combiner;
  GstRobocacheBagTimestamps timestamps;
  guint64 base;                 /* ns: the stamp of the first message */
  GstClockTime duration;
  GstSegment segment;
  guint32 seqnum;
  guint32 seek_seqnum;          /* of the last seek handled */
  guint group_id;               /* one group: the streams of one bag */
  gchar *location;
  gchar *stream_id_prefix;
} State;

struct _GstRobocacheBagSrc
{
  GstElement parent;

  Settings settings;
  State state;
  Totals totals;
};

static GstStaticPadTemplate src_template = GST_STATIC_PAD_TEMPLATE ("src_%u",
    GST_PAD_SRC, GST_PAD_SOMETIMES,
    GST_STATIC_CAPS (GST_ROBOCACHE_POINTS_CAPS "; "
        GST_ROBOCACHE_VECTORS_CAPS "; "
        GST_VIDEO_CAPS_MAKE ("{ RGB, BGR, RGBA, BGRA, GRAY8, GRAY16_LE, "
            "GRAY16_BE }")));

#define gst_robocache_bag_src_parent_class parent_class
G_DEFINE_TYPE (GstRobocacheBagSrc, gst_robocache_bag_src, GST_TYPE_ELEMENT);
GST_ELEMENT_REGISTER_DEFINE_WITH_CODE (robocachebagsrc, "robocachebagsrc",
    GST_RANK_NONE, GST_TYPE_ROBOCACHE_BAG_SRC,
    GST_DEBUG_CATEGORY_INIT (gst_robocache_bag_src_debug, "robocachebagsrc",
        0, "robocache ROS bag source"));

/* *INDENT-OFF* */
G_DEFINE_ENUM_TYPE (GstRobocacheBagTimestamps, gst_robocache_bag_timestamps,
    {GST_ROBOCACHE_BAG_TIMESTAMPS_HEADER, "The message's header.stamp",
        "header"},
    {GST_ROBOCACHE_BAG_TIMESTAMPS_RECORD, "The time rosbag recorded the "
          "message", "record"});
/* *INDENT-ON* */

/* ------------------------------------------------------------------ */
/* Properties                                                          */
/* ------------------------------------------------------------------ */

static void
get_stats (GObject * object, GValue * value)
{
  GstRobocacheBagSrc *self = GST_ROBOCACHE_BAG_SRC (object);

  g_value_take_boxed (value, gst_structure_new ("robocachebagsrc-stats",
          "messages", G_TYPE_UINT64, self->totals.messages,
          "skipped-point-layout", G_TYPE_UINT64,
          self->totals.skipped[GST_ROBOCACHE_ROS1_SKIP_POINT_LAYOUT],
          "skipped-unsupported", G_TYPE_UINT64,
          self->totals.skipped[GST_ROBOCACHE_ROS1_SKIP_UNSUPPORTED], NULL));
}

static const GstRobocacheField fields[] = {
  GST_ROBOCACHE_FIELD (PROP_LOCATION, GstRobocacheBagSrc, settings.location),
  GST_ROBOCACHE_FIELD (PROP_TOPICS, GstRobocacheBagSrc, settings.topics),
  GST_ROBOCACHE_FIELD (PROP_TIMESTAMPS, GstRobocacheBagSrc,
      settings.timestamps),
  GST_ROBOCACHE_FIELD_GETTER (PROP_STATS, get_stats),
  {0}
};

/* ------------------------------------------------------------------ */
/* Messages to buffers                                                 */
/* ------------------------------------------------------------------ */

/* A message that is well formed but cannot be played: skipped, counted,
 * and warned about once per topic and kind of reason. */
static void
skip_message (GstRobocacheBagSrc * self, Stream * s,
    const GstRobocacheRos1Skip * skip)
{
  GST_OBJECT_LOCK (self);
  self->totals.skipped[skip->kind]++;
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

/* The buffer and caps of a message of @s; NULL if skipped (warned about)
 * or, with @error set, malformed. */
static GstBuffer *
message_buffer (GstRobocacheBagSrc * self, Stream * s, const RcMessage * msg,
    guint64 * stamp, GstCaps ** caps, GError ** error)
{
  GstRobocacheRos1Skip skip;
  GstBuffer *buf = gst_robocache_ros1_buffer_new (msg->type, msg->data,
      msg->size, stamp, caps, &skip, error);

  if (skip.reason) {
    skip_message (self, s, &skip);
    g_free (skip.reason);
  }
  return buf;
}

/* ------------------------------------------------------------------ */
/* Streaming                                                           */
/* ------------------------------------------------------------------ */

static GstPad *
first_pad (GstRobocacheBagSrc * self)
{
  return ((Stream *) g_ptr_array_index (self->state.streams, 0))->pad;
}

static void
push_event_all (GstRobocacheBagSrc * self, GstEvent * event)
{
  for (guint i = 0; i < self->state.streams->len; i++) {
    Stream *s = g_ptr_array_index (self->state.streams, i);
    gst_pad_push_event (s->pad, gst_event_ref (event));
  }
  gst_event_unref (event);
}

static void prepare_stream (GstRobocacheBagSrc * self, Stream * s,
    GstCaps * caps);

/* Stops the task and ends every stream. */
static void
pause_with_eos (GstRobocacheBagSrc * self, GstPad * pad)
{
  GstEvent *eos = gst_event_new_eos ();

  gst_pad_pause_task (pad);
  /* A topic without messages (or none after a seek) still gets its
   * stream-start and segment before EOS. */
  for (guint i = 0; i < self->state.streams->len; i++)
    prepare_stream (self, g_ptr_array_index (self->state.streams, i), NULL);
  gst_event_set_seqnum (eos, self->state.seqnum);
  push_event_all (self, eos);
}

static void
pause_on_error (GstRobocacheBagSrc * self, GstPad * pad,
    const RcMessage * msg, GError * error)
{
  GST_ELEMENT_ERROR (self, STREAM, DEMUX, ("%s: %s", self->state.location,
          error->message), ("message %" G_GUINT64_FORMAT " of the index",
          msg->index));
  g_error_free (error);
  pause_with_eos (self, pad);
}

/* Stream-start, caps (unless @caps is NULL) and segment, as far as they
 * are due. */
static void
prepare_stream (GstRobocacheBagSrc * self, Stream * s, GstCaps * caps)
{
  State *st = &self->state;

  if (s->need_start) {
    gchar *id = g_strconcat (st->stream_id_prefix, s->topic, NULL);
    GstEvent *ev = gst_event_new_stream_start (id);

    gst_event_set_group_id (ev, st->group_id);
    gst_pad_push_event (s->pad, ev);
    g_free (id);
    s->need_start = FALSE;
  }
  if (caps && (!s->caps || !gst_caps_is_equal (s->caps, caps))) {
    gst_caps_replace (&s->caps, caps);
    gst_pad_push_event (s->pad, gst_event_new_caps (caps));
  }
  if (s->need_segment) {
    GstEvent *ev = gst_event_new_segment (&st->segment);
    GstTagList *tags;

    gst_event_set_seqnum (ev, st->seqnum);
    gst_pad_push_event (s->pad, ev);
    tags = gst_tag_list_new (GST_TAG_TITLE, s->topic, NULL);
    gst_tag_list_set_scope (tags, GST_TAG_SCOPE_STREAM);
    gst_pad_push_event (s->pad, gst_event_new_tag (tags));
    s->need_segment = FALSE;
  }
}

/* With timestamps=record, a message recorded after the segment ends the
 * playback. */
static gboolean
recorded_after_stop (const State * st, const RcMessage * msg)
{
  return st->timestamps == GST_ROBOCACHE_BAG_TIMESTAMPS_RECORD &&
      GST_CLOCK_TIME_IS_VALID (st->segment.stop) &&
      msg->time > st->base + st->segment.stop;
}

/* Sets the buffer's times from @stamp (header.stamp) or the record time;
 * FALSE if they are outside the segment. */
static gboolean
set_buffer_times (State * st, GstBuffer * buf, const RcMessage * msg,
    guint64 stamp)
{
  guint64 ts = st->timestamps == GST_ROBOCACHE_BAG_TIMESTAMPS_RECORD ||
      stamp == 0 ? msg->time : stamp;
  GstClockTime pts = ts > st->base ? ts - st->base : 0;

  if (pts < st->segment.start || (GST_CLOCK_TIME_IS_VALID (st->segment.stop)
          && pts > st->segment.stop))
    return FALSE;
  GST_BUFFER_PTS (buf) = pts;
  GST_BUFFER_DTS (buf) = pts;
  GST_BUFFER_OFFSET (buf) = msg->index;
  st->segment.position = pts;
  return TRUE;
}

/* Pushes @buf on @s; pauses the task when the combined flow says stop. */
static void
push_buffer (GstRobocacheBagSrc * self, GstPad * task_pad, Stream * s,
    GstBuffer * buf)
{
  GstFlowReturn ret;

  GST_LOG_OBJECT (self, "%s: pushing %" GST_TIME_FORMAT, s->topic,
      GST_TIME_ARGS (GST_BUFFER_PTS (buf)));
  GST_OBJECT_LOCK (self);
  self->totals.messages++;
  GST_OBJECT_UNLOCK (self);
  ret = gst_pad_push (s->pad, buf);
  ret = gst_flow_combiner_update_pad_flow (self->state.combiner, s->pad, ret);
  if (ret == GST_FLOW_OK)
    return;
  GST_DEBUG_OBJECT (self, "pausing: %s", gst_flow_get_name (ret));
  if (ret == GST_FLOW_EOS) {
    pause_with_eos (self, task_pad);
  } else if (ret == GST_FLOW_NOT_LINKED || ret < GST_FLOW_EOS) {
    GST_ELEMENT_FLOW_ERROR (self, ret);
    pause_with_eos (self, task_pad);
  } else {
    gst_pad_pause_task (task_pad);
  }
}

/* One message of a played topic per call, on the task of the first pad. */
static void
gst_robocache_bag_src_loop (GstPad * pad)
{
  GstRobocacheBagSrc *self = GST_ROBOCACHE_BAG_SRC (GST_PAD_PARENT (pad));
  State *st = &self->state;
  RcMessage msg;
  Stream *s;
  GstBuffer *buf;
  GstCaps *caps = NULL;
  GError *error = NULL;
  guint64 stamp = 0;

  switch (rc_reader_next (st->reader, &msg, &error)) {
    case RC_READER_OK:
      break;
    case RC_READER_FAILED:
      pause_on_error (self, pad, &msg, error);
      return;
    case RC_READER_END:
      GST_DEBUG_OBJECT (self, "end of the bag");
      pause_with_eos (self, pad);
      return;
  }
  if (recorded_after_stop (st, &msg)) {
    GST_DEBUG_OBJECT (self, "end of the bag");
    pause_with_eos (self, pad);
    return;
  }
  s = g_ptr_array_index (st->streams, st->stream_of[msg.topic]);
  buf = message_buffer (self, s, &msg, &stamp, &caps, &error);
  if (error) {
    gst_clear_caps (&caps);
    pause_on_error (self, pad, &msg, error);
  } else if (!buf) {
    gst_clear_caps (&caps);     /* skipped (warned about) */
  } else if (!set_buffer_times (st, buf, &msg, stamp)) {
    gst_buffer_unref (buf);
    gst_caps_unref (caps);
  } else {
    prepare_stream (self, s, caps);
    gst_caps_unref (caps);
    push_buffer (self, pad, s, buf);
  }
}

static void
start_task (GstRobocacheBagSrc * self)
{
  GstPad *pad0 = first_pad (self);

  gst_pad_start_task (pad0, (GstTaskFunction) gst_robocache_bag_src_loop,
      pad0, NULL);
}

/* ------------------------------------------------------------------ */
/* Seeking and queries                                                 */
/* ------------------------------------------------------------------ */

static gboolean
do_seek (GstRobocacheBagSrc * self, GstEvent * event)
{
  State *st = &self->state;
  GstPad *pad0;
  GstFormat format;
  GstSeekFlags flags;
  GstSeekType start_type, stop_type;
  gint64 start, stop;
  gdouble rate;
  gboolean update;
  guint32 seqnum = gst_event_get_seqnum (event);
  GstEvent *ev;

  gst_event_parse_seek (event, &rate, &format, &flags, &start_type, &start,
      &stop_type, &stop);
  if (format != GST_FORMAT_TIME || rate != 1.0 ||
      !(flags & GST_SEEK_FLAG_FLUSH)) {
    GST_WARNING_OBJECT (self, "only flushing seeks in TIME at rate 1.0 are "
        "supported");
    return FALSE;
  }
  /* A pipeline seek reaches every linked pad: handle it once. */
  GST_OBJECT_LOCK (self);
  if (!st->streams || st->seek_seqnum == seqnum) {
    GST_OBJECT_UNLOCK (self);
    return st->streams != NULL;
  }
  st->seek_seqnum = seqnum;
  GST_OBJECT_UNLOCK (self);
  pad0 = first_pad (self);

  ev = gst_event_new_flush_start ();
  gst_event_set_seqnum (ev, seqnum);
  push_event_all (self, ev);
  gst_pad_pause_task (pad0);

  GST_PAD_STREAM_LOCK (pad0);
  gst_segment_do_seek (&st->segment, rate, format, flags, start_type, start,
      stop_type, stop, &update);
  st->seqnum = seqnum;
  rc_reader_seek (st->reader, st->base + st->segment.start);
  for (guint i = 0; i < st->streams->len; i++)
    ((Stream *) g_ptr_array_index (st->streams, i))->need_segment = TRUE;
  ev = gst_event_new_flush_stop (TRUE);
  gst_event_set_seqnum (ev, seqnum);
  push_event_all (self, ev);
  gst_flow_combiner_reset (st->combiner);
  GST_DEBUG_OBJECT (self, "seek to %" GST_TIME_FORMAT,
      GST_TIME_ARGS (st->segment.start));
  start_task (self);
  GST_PAD_STREAM_UNLOCK (pad0);
  return TRUE;
}

static gboolean
gst_robocache_bag_src_src_event (GstPad * pad, GstObject * parent,
    GstEvent * event)
{
  GstRobocacheBagSrc *self = GST_ROBOCACHE_BAG_SRC (parent);
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

static gboolean
gst_robocache_bag_src_src_query (GstPad * pad, GstObject * parent,
    GstQuery * query)
{
  GstRobocacheBagSrc *self = GST_ROBOCACHE_BAG_SRC (parent);
  GstFormat format;

  switch (GST_QUERY_TYPE (query)) {
    case GST_QUERY_DURATION:
      gst_query_parse_duration (query, &format, NULL);
      if (format != GST_FORMAT_TIME)
        return FALSE;
      gst_query_set_duration (query, GST_FORMAT_TIME, self->state.duration);
      return TRUE;
    case GST_QUERY_SEEKING:
      gst_query_parse_seeking (query, &format, NULL, NULL, NULL);
      if (format != GST_FORMAT_TIME)
        return FALSE;
      gst_query_set_seeking (query, GST_FORMAT_TIME, TRUE, 0,
          self->state.duration);
      return TRUE;
    default:
      return gst_pad_query_default (pad, parent, query);
  }
}

/* ------------------------------------------------------------------ */
/* Start and stop                                                      */
/* ------------------------------------------------------------------ */

/* Whether the messages of @topic can be made buffers. */
static gboolean
topic_is_playable (const RcTopic * topic)
{
  return !strcmp (topic->encoding, "ros1") &&
      gst_robocache_ros1_type_is_supported (topic->type);
}

static void
stream_free (gpointer data)
{
  Stream *s = data;

  g_free (s->topic);
  gst_clear_caps (&s->caps);
  g_free (s);
}

static gint
compare_topic_names (gconstpointer a, gconstpointer b)
{
  const RcTopic *x = *(const RcTopic * const *) a;
  const RcTopic *y = *(const RcTopic * const *) b;

  return strcmp (x->name, y->name);
}

/* The topics of @wanted (comma-separated) into @topics; FALSE (and an
 * element error) if one is missing, unsupported or listed twice. */
static gboolean
add_requested_topics (GstRobocacheBagSrc * self, const gchar * wanted,
    GPtrArray * topics)
{
  gchar **names = g_strsplit (wanted, ",", -1);
  gboolean ok = FALSE;

  for (gchar ** n = names; *n; n++) {
    const RcTopic *topic;

    g_strstrip (*n);
    if (!**n)
      continue;
    topic = rc_reader_find_topic (self->state.reader, *n);
    if (!topic) {
      GST_ELEMENT_ERROR (self, RESOURCE, NOT_FOUND, ("topic %s is not in "
              "%s", *n, self->state.location), (NULL));
      goto out;
    }
    if (!topic_is_playable (topic)) {
      GST_ELEMENT_ERROR (self, STREAM, CODEC_NOT_FOUND, ("topic %s is of "
              "type %s; supported are " RC_ROS1_TYPE_POINT_CLOUD2 ", "
              RC_ROS1_TYPE_JOINT_STATE " and " RC_ROS1_TYPE_IMAGE, *n,
              topic->type), (NULL));
      goto out;
    }
    if (g_ptr_array_find (topics, topic, NULL)) {
      GST_ELEMENT_ERROR (self, RESOURCE, SETTINGS, ("topic %s is listed "
              "twice in topics", *n), (NULL));
      goto out;
    }
    g_ptr_array_add (topics, (gpointer) topic);
  }
  ok = TRUE;
out:
  g_strfreev (names);
  return ok;
}

/* Every topic of a supported type into @topics, in name order; the others
 * are warned about. */
static void
add_supported_topics (GstRobocacheBagSrc * self, GPtrArray * topics)
{
  RcReader *reader = self->state.reader;
  GString *skipped = g_string_new (NULL);

  for (guint t = 0; t < rc_reader_n_topics (reader); t++) {
    const RcTopic *topic = rc_reader_get_topic (reader, t);

    if (topic_is_playable (topic))
      g_ptr_array_add (topics, (gpointer) topic);
    else
      g_string_append_printf (skipped, "%s%s (%s)", skipped->len ? ", " :
          "", topic->name, topic->type);
  }
  g_ptr_array_sort (topics, compare_topic_names);
  if (skipped->len)
    GST_ELEMENT_WARNING (self, STREAM, CODEC_NOT_FOUND, ("skipping topics "
            "of unsupported types: %s", skipped->str), (NULL));
  g_string_free (skipped, TRUE);
}

/* The topics played (const RcTopic *), in pad order; NULL (and an element
 * error) if a requested topic cannot be played or none can. */
static GPtrArray *
choose_topics (GstRobocacheBagSrc * self, const gchar * wanted)
{
  GPtrArray *topics = g_ptr_array_new ();

  if (wanted && wanted[0]) {
    if (!add_requested_topics (self, wanted, topics))
      g_clear_pointer (&topics, g_ptr_array_unref);
  } else {
    add_supported_topics (self, topics);
  }
  if (topics && topics->len == 0) {
    GST_ELEMENT_ERROR (self, STREAM, CODEC_NOT_FOUND, ("%s has no topic to "
            "play (of type " RC_ROS1_TYPE_POINT_CLOUD2 ", "
            RC_ROS1_TYPE_JOINT_STATE " or " RC_ROS1_TYPE_IMAGE ")",
            self->state.location), (NULL));
    g_clear_pointer (&topics, g_ptr_array_unref);
  }
  return topics;
}

/* Opens the bag; FALSE and an element error if it cannot be read. */
static gboolean
open_reader (GstRobocacheBagSrc * self, const gchar * location)
{
  State *st = &self->state;
  GError *error = NULL;

  st->reader = rc_reader_open (location, &error);
  if (st->reader)
    return TRUE;
  if (error->code == RC_READER_ERROR_IO)
    GST_ELEMENT_ERROR (self, RESOURCE, OPEN_READ, ("%s", error->message),
        (NULL));
  else
    GST_ELEMENT_ERROR (self, STREAM, DEMUX, ("%s: %s", location,
            error->message), (NULL));
  g_error_free (error);
  return FALSE;
}

/* One stream (and its pad, not added yet) per chosen topic; the reader
 * reads the chosen topics only. */
static void
create_streams (GstRobocacheBagSrc * self, GPtrArray * topics)
{
  State *st = &self->state;
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
    s->pad = gst_pad_new_from_static_template (&src_template, name);
    g_free (name);
    gst_pad_set_event_function (s->pad,
        GST_DEBUG_FUNCPTR (gst_robocache_bag_src_src_event));
    gst_pad_set_query_function (s->pad,
        GST_DEBUG_FUNCPTR (gst_robocache_bag_src_src_query));
    gst_pad_use_fixed_caps (s->pad);
    g_ptr_array_add (st->streams, s);
  }
}

/* The header.stamp of the first message played, 0 if unstamped. */
static gboolean
first_stamp (State * st, guint64 * stamp, GError ** error)
{
  RcMessage msg;
  RcRosHeader header;

  *stamp = 0;
  rc_reader_seek (st->reader, 0);
  switch (rc_reader_next (st->reader, &msg, error)) {
    case RC_READER_FAILED:
      return FALSE;
    case RC_READER_END:
      return TRUE;
    case RC_READER_OK:
      break;
  }
  if (!rc_ros1_parse_header (msg.data, msg.size, &header, error))
    return FALSE;
  *stamp = header.stamp;
  rc_ros_header_clear (&header);
  return TRUE;
}

/* The time origin (the first message played) and the duration; FALSE with
 * @error set if the first message cannot be read. */
static gboolean
find_time_origin (State * st, GError ** error)
{
  gboolean any = FALSE;
  guint64 first = G_MAXUINT64, last = 0, stamp = 0;

  for (guint t = 0; t < rc_reader_n_topics (st->reader); t++) {
    const RcTopic *topic = rc_reader_get_topic (st->reader, t);

    if (st->stream_of[t] >= 0 && topic->n_messages > 0) {
      any = TRUE;
      first = MIN (first, topic->first_time);
      last = MAX (last, topic->last_time);
    }
  }
  st->base = 0;
  st->duration = 0;
  if (!any)
    return TRUE;
  if (st->timestamps == GST_ROBOCACHE_BAG_TIMESTAMPS_HEADER &&
      !first_stamp (st, &stamp, error))
    return FALSE;
  st->base = stamp != 0 ? stamp : first;
  st->duration = last > st->base ? last - st->base : 0;
  return TRUE;
}

static void
stop (GstRobocacheBagSrc * self)
{
  State *st = &self->state;

  if (st->streams) {
    for (guint i = 0; i < st->streams->len; i++) {
      Stream *s = g_ptr_array_index (st->streams, i);
      gst_flow_combiner_remove_pad (st->combiner, s->pad);
      /* start() may fail before the pads are added. */
      if (GST_OBJECT_PARENT (s->pad) == GST_OBJECT (self)) {
        gst_element_remove_pad (GST_ELEMENT (self), s->pad);
      } else {
        gst_object_ref_sink (s->pad);
        gst_object_unref (s->pad);
      }
    }
    g_clear_pointer (&st->streams, g_ptr_array_unref);
  }
  g_clear_pointer (&st->combiner, gst_flow_combiner_free);
  g_clear_pointer (&st->stream_of, g_free);
  g_clear_pointer (&st->reader, rc_reader_free);
  g_clear_pointer (&st->stream_id_prefix, g_free);
  g_clear_pointer (&st->location, g_free);
}

/* Adds the pads, ready to play from the first message. */
static void
add_pads (GstRobocacheBagSrc * self)
{
  State *st = &self->state;

  gst_segment_init (&st->segment, GST_FORMAT_TIME);
  st->segment.duration = st->duration;
  st->seqnum = gst_util_seqnum_next ();
  st->group_id = gst_util_group_id_next ();
  rc_reader_seek (st->reader, 0);
  for (guint i = 0; i < st->streams->len; i++) {
    Stream *s = g_ptr_array_index (st->streams, i);
    gst_pad_set_active (s->pad, TRUE);
    gst_element_add_pad (GST_ELEMENT (self), s->pad);
    gst_flow_combiner_add_pad (st->combiner, s->pad);
  }
  gst_element_no_more_pads (GST_ELEMENT (self));
}

static gboolean
start (GstRobocacheBagSrc * self)
{
  State *st = &self->state;
  gchar *wanted, *base;
  GPtrArray *topics = NULL;
  GError *error = NULL;
  gboolean ok = FALSE;

  GST_OBJECT_LOCK (self);
  st->location = g_strdup (self->settings.location);
  wanted = g_strdup (self->settings.topics);
  st->timestamps = self->settings.timestamps;
  memset (&self->totals, 0, sizeof (self->totals));
  GST_OBJECT_UNLOCK (self);

  if (!st->location) {
    GST_ELEMENT_ERROR (self, RESOURCE, NOT_FOUND, ("no bag file given: set "
            "the location property"), (NULL));
    goto out;
  }
  if (!open_reader (self, st->location) ||
      !(topics = choose_topics (self, wanted)))
    goto out;
  create_streams (self, topics);
  base = g_path_get_basename (st->location);
  st->stream_id_prefix = g_strdup_printf ("robocachebagsrc/%s", base);
  g_free (base);
  if (!find_time_origin (st, &error)) {
    GST_ELEMENT_ERROR (self, STREAM, DEMUX, ("%s: %s", st->location,
            error->message), (NULL));
    g_error_free (error);
    goto out;
  }
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

static GstStateChangeReturn
gst_robocache_bag_src_change_state (GstElement * element,
    GstStateChange transition)
{
  GstRobocacheBagSrc *self = GST_ROBOCACHE_BAG_SRC (element);
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
      start_task (self);
      break;
    case GST_STATE_CHANGE_PAUSED_TO_READY:
      /* The pads are flushing now: the task stops at its next push. */
      if (self->state.streams)
        gst_pad_stop_task (first_pad (self));
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
gst_robocache_bag_src_finalize (GObject * object)
{
  GstRobocacheBagSrc *self = GST_ROBOCACHE_BAG_SRC (object);

  g_free (self->settings.location);
  g_free (self->settings.topics);
  G_OBJECT_CLASS (parent_class)->finalize (object);
}

static void
gst_robocache_bag_src_class_init (GstRobocacheBagSrcClass * klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  GstElementClass *element_class = GST_ELEMENT_CLASS (klass);

  gst_robocache_fields_class_init (gobject_class, fields);
  gobject_class->finalize = gst_robocache_bag_src_finalize;

  /**
   * GstRobocacheBagSrc:location:
   *
   * Path of the ROS 1 bag file (format 2.0).
   */
  g_object_class_install_property (gobject_class, PROP_LOCATION,
      g_param_spec_string ("location", "Location", "Path of the ROS bag file",
          DEFAULT_LOCATION, G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
          GST_PARAM_MUTABLE_READY));
  /**
   * GstRobocacheBagSrc:topics:
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
   * GstRobocacheBagSrc:timestamps:
   *
   * Where buffer timestamps come from: the message's header.stamp or the
   * time rosbag recorded it.
   */
  g_object_class_install_property (gobject_class, PROP_TIMESTAMPS,
      g_param_spec_enum ("timestamps", "Timestamps",
          "Buffer times from header.stamp or the record time",
          GST_TYPE_ROBOCACHE_BAG_TIMESTAMPS, DEFAULT_TIMESTAMPS,
          G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
          GST_PARAM_MUTABLE_READY));
  /**
   * GstRobocacheBagSrc:stats:
   *
   * Totals since the element started: messages (pushed),
   * skipped-point-layout (PointCloud2 whose point_step or fields points
   * caps cannot describe) and skipped-unsupported (big-endian clouds, other
   * image encodings, JointState without one position per name).
   */
  g_object_class_install_property (gobject_class, PROP_STATS,
      g_param_spec_boxed ("stats", "Statistics", "Totals since start",
          GST_TYPE_STRUCTURE, G_PARAM_READABLE | G_PARAM_STATIC_STRINGS));

  element_class->change_state =
      GST_DEBUG_FUNCPTR (gst_robocache_bag_src_change_state);
  gst_element_class_add_static_pad_template (element_class, &src_template);
  gst_element_class_set_static_metadata (element_class, "ROS bag source",
      "Source/File", "Plays the point clouds, joint states and images of a "
      "ROS 1 bag file", "robocache");
  gst_type_mark_as_plugin_api (GST_TYPE_ROBOCACHE_BAG_TIMESTAMPS, 0);
}

static void
gst_robocache_bag_src_init (GstRobocacheBagSrc * self)
{
  self->settings.location = DEFAULT_LOCATION;
  self->settings.topics = DEFAULT_TOPICS;
  self->settings.timestamps = DEFAULT_TIMESTAMPS;
}
