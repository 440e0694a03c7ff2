/**
 * SECTION:element-robocachebagsrc
 * @title: robocachebagsrc
 *
 * Plays a ROS 1 bag file (format 2.0, as written by rosbag record and
 * python rosbag; chunks uncompressed, bz2 or lz4) as GStreamer streams, one
 * sometimes pad per topic, in record-time order:
 *
 * - sensor_msgs/PointCloud2: other/x-robocache-points with the message's
 *   own point-step and fields (ring, time and any other field kept).  A
 *   field with count > 1 is expanded into "name_0", "name_1", ...; fields of
 *   unknown datatype or outside the point are left out of the caps (the
 *   bytes stay).  Row padding is dropped.  Big-endian clouds are skipped
 *   with a warning.
 * - sensor_msgs/JointState: other/x-robocache-vectors, format float64,
 *   layout sample, names = the joint names: the positions, then the
 *   velocities ("name.velocity") and efforts ("name.effort") where the
 *   message has one per joint.
 * - sensor_msgs/Image: video/x-raw (rgb8, bgr8, rgba8, bgra8, mono8,
 *   mono16, 8UC1, 16UC1); other encodings are skipped with a warning.
 *
 * Caps follow the messages: a message whose layout differs from the
 * previous one of its topic sends new caps.
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
#include "gstrobocachecaps.h"
#include "formats/robocachebag.h"

#include <gst/base/gstflowcombiner.h>
#include <gst/video/video.h>
#include <string.h>

GST_DEBUG_CATEGORY_STATIC (gst_robocache_bag_src_debug);
#define GST_CAT_DEFAULT gst_robocache_bag_src_debug

#define DEFAULT_LOCATION NULL
#define DEFAULT_TOPICS NULL
#define DEFAULT_TIMESTAMPS GST_ROBOCACHE_BAG_TIMESTAMPS_HEADER

#define TYPE_POINT_CLOUD2 "sensor_msgs/PointCloud2"
#define TYPE_JOINT_STATE "sensor_msgs/JointState"
#define TYPE_IMAGE "sensor_msgs/Image"

enum
{
  PROP_0,
  PROP_LOCATION,
  PROP_TOPICS,
  PROP_TIMESTAMPS
};

typedef enum
{
  KIND_POINTS,
  KIND_JOINTS,
  KIND_IMAGE
} Kind;

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
  Kind kind;
  GstCaps *caps;                /* last sent */
  gboolean need_start;
  gboolean need_segment;
  gboolean warned;
} Stream;

/* Built in READY->PAUSED, dropped in PAUSED->READY; the streaming task
 * and seeks use it under the stream lock of the first pad. */
typedef struct
{
  RcBag *bag;
  GPtrArray *streams;           /* Stream */
  gint *stream_of;              /* per connection: stream index or -1 */
  GstFlowCombiner *combiner;
  GstRobocacheBagTimestamps timestamps;
  guint64 base;                 /* ns: the stamp of the first message */
  GstClockTime duration;
  gsize next;                   /* the next entry to play */
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

GType
gst_robocache_bag_timestamps_get_type (void)
{
  static GType type = 0;
  static const GEnumValue values[] = {
    {GST_ROBOCACHE_BAG_TIMESTAMPS_HEADER, "The message's header.stamp",
        "header"},
    {GST_ROBOCACHE_BAG_TIMESTAMPS_RECORD, "The time rosbag recorded the "
          "message", "record"},
    {0, NULL, NULL}
  };

  if (g_once_init_enter (&type)) {
    GType t = g_enum_register_static ("GstRobocacheBagTimestamps", values);
    g_once_init_leave (&type, t);
  }
  return type;
}

/* ------------------------------------------------------------------ */
/* Properties                                                          */
/* ------------------------------------------------------------------ */

static void
gst_robocache_bag_src_set_property (GObject * object, guint prop_id,
    const GValue * value, GParamSpec * pspec)
{
  GstRobocacheBagSrc *self = GST_ROBOCACHE_BAG_SRC (object);

  GST_OBJECT_LOCK (self);
  switch (prop_id) {
    case PROP_LOCATION:
      g_free (self->settings.location);
      self->settings.location = g_value_dup_string (value);
      break;
    case PROP_TOPICS:
      g_free (self->settings.topics);
      self->settings.topics = g_value_dup_string (value);
      break;
    case PROP_TIMESTAMPS:
      self->settings.timestamps = g_value_get_enum (value);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
  GST_OBJECT_UNLOCK (self);
}

static void
gst_robocache_bag_src_get_property (GObject * object, guint prop_id,
    GValue * value, GParamSpec * pspec)
{
  GstRobocacheBagSrc *self = GST_ROBOCACHE_BAG_SRC (object);

  GST_OBJECT_LOCK (self);
  switch (prop_id) {
    case PROP_LOCATION:
      g_value_set_string (value, self->settings.location);
      break;
    case PROP_TOPICS:
      g_value_set_string (value, self->settings.topics);
      break;
    case PROP_TIMESTAMPS:
      g_value_set_enum (value, self->settings.timestamps);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
  GST_OBJECT_UNLOCK (self);
}

/* ------------------------------------------------------------------ */
/* Messages to buffers                                                 */
/* ------------------------------------------------------------------ */

/* A message that is well formed but cannot be played: warned about once
 * per topic, then skipped. */
static void
skip_message (GstRobocacheBagSrc * self, Stream * s, const gchar * why)
{
  if (!s->warned) {
    GST_ELEMENT_WARNING (self, STREAM, FORMAT, ("%s: skipping messages: %s",
            s->topic, why), (NULL));
    s->warned = TRUE;
  }
}

/* Names become part of a comma-separated caps string. */
static gboolean
name_is_plain (const gchar * name)
{
  return name[0] && !strpbrk (name, ",:\"");
}

static GstBuffer *
points_buffer (GstRobocacheBagSrc * self, Stream * s, const guint8 * data,
    gsize size, guint64 * stamp, GstCaps ** caps, GError ** error)
{
  RcPointCloud2 msg;
  GPtrArray *names;
  GArray *types, *offsets;
  guint64 points, row_bytes;
  GstBuffer *buf = NULL;
  gchar *fields;

  if (!rc_bag_parse_point_cloud2 (data, size, &msg, error))
    return NULL;
  *stamp = msg.header.stamp;
  if (msg.is_bigendian) {
    skip_message (self, s, "big-endian point clouds are not supported");
    goto out;
  }
  if (msg.point_step == 0 || msg.point_step > 65535) {
    skip_message (self, s, "point_step must be 1 to 65535");
    goto out;
  }
  row_bytes = (guint64) msg.width * msg.point_step;
  points = (guint64) msg.width * msg.height;
  /* Rows are row_step apart; the last one needs only row_bytes. */
  if (points > 0 && ((msg.height > 1 && msg.row_step < row_bytes) ||
          (guint64) msg.row_step * (msg.height - 1) + row_bytes >
          msg.data_size)) {
    g_set_error (error, RC_BAG_ERROR, RC_BAG_ERROR_FORMAT, "PointCloud2: "
        "%u x %u points of %u bytes (row_step %u) do not fit in its %u data "
        "bytes", msg.width, msg.height, msg.point_step, msg.row_step,
        msg.data_size);
    goto out;
  }

  names = g_ptr_array_new_with_free_func (g_free);
  types = g_array_new (FALSE, FALSE, sizeof (rc_scalar_type));
  offsets = g_array_new (FALSE, FALSE, sizeof (guint));
  for (guint i = 0; i < msg.n_fields; i++) {
    const RcPointField *f = &msg.fields[i];
    rc_scalar_type t;
    gsize tsize;

    if (f->datatype < RC_POINT_FIELD_INT8 ||
        f->datatype > RC_POINT_FIELD_FLOAT64 || !name_is_plain (f->name))
      continue;
    /* PointField datatypes 1..8 are rc_scalar_type 0..7. */
    t = (rc_scalar_type) (f->datatype - 1);
    tsize = rc_scalar_type_size (t);
    for (guint32 c = 0; c < MAX (f->count, 1) && c < 65536; c++) {
      guint64 off = (guint64) f->offset + (guint64) c * tsize;

      if (off + tsize > msg.point_step)
        break;
      g_ptr_array_add (names, f->count > 1 ?
          g_strdup_printf ("%s_%u", f->name, c) : g_strdup (f->name));
      g_array_append_val (types, t);
      g_array_append_val (offsets, off);
    }
  }
  fields = gst_robocache_points_fields_to_string (names->len,
      (const gchar * const *) names->pdata, (rc_scalar_type *) types->data,
      (guint *) offsets->data);
  *caps = gst_caps_new_simple (GST_ROBOCACHE_POINTS_MEDIA_TYPE,
      "point-step", G_TYPE_INT, (gint) msg.point_step,
      "fields", G_TYPE_STRING, fields, NULL);
  g_free (fields);
  g_ptr_array_unref (names);
  g_array_unref (types);
  g_array_unref (offsets);

  if (points == 0) {
    buf = gst_buffer_new ();
  } else if (msg.height <= 1 || msg.row_step == row_bytes) {
    buf = gst_buffer_new_memdup (msg.data, points * msg.point_step);
  } else {
    GstMapInfo map;
    buf = gst_buffer_new_allocate (NULL, points * msg.point_step, NULL);
    gst_buffer_map (buf, &map, GST_MAP_WRITE);
    for (guint32 r = 0; r < msg.height; r++)
      memcpy (map.data + r * row_bytes, msg.data + (gsize) r * msg.row_step,
          row_bytes);
    gst_buffer_unmap (buf, &map);
  }
out:
  rc_bag_point_cloud2_clear (&msg);
  return buf;
}

static void
append_names (GString * names, const RcJointState * msg, const gchar * suffix)
{
  for (guint i = 0; i < msg->n_names; i++) {
    gchar *n = g_strdup (msg->names[i]);
    g_strdelimit (n, ",:\"", '_');
    g_string_append_printf (names, "%s%s%s", names->len ? "," : "", n, suffix);
    g_free (n);
  }
}

static GstBuffer *
joints_buffer (GstRobocacheBagSrc * self, Stream * s, const guint8 * data,
    gsize size, guint64 * stamp, GstCaps ** caps, GError ** error)
{
  RcJointState msg;
  GstRobocacheVectorsInfo info = { 0, };
  gboolean vel, eff;
  GString *names;
  GstBuffer *buf = NULL;
  GstMapInfo map;
  gdouble *out;

  if (!rc_bag_parse_joint_state (data, size, &msg, error))
    return NULL;
  *stamp = msg.header.stamp;
  if (msg.n_names == 0 || msg.n_position != msg.n_names) {
    skip_message (self, s, "a JointState needs one position per name");
    goto out;
  }
  vel = msg.n_velocity == msg.n_names;
  eff = msg.n_effort == msg.n_names;
  info.channels = msg.n_names * (1 + vel + eff);
  if (info.channels > 65535) {
    skip_message (self, s, "more than 65535 values");
    goto out;
  }
  info.type = RC_TYPE_FLOAT64;
  info.layout = GST_ROBOCACHE_VECTORS_LAYOUT_SAMPLE;
  names = g_string_new (NULL);
  append_names (names, &msg, "");
  if (vel)
    append_names (names, &msg, ".velocity");
  if (eff)
    append_names (names, &msg, ".effort");
  *caps = gst_robocache_vectors_caps_new (&info, names->str, FALSE);
  g_string_free (names, TRUE);

  buf = gst_buffer_new_allocate (NULL, info.channels * sizeof (gdouble), NULL);
  gst_buffer_map (buf, &map, GST_MAP_WRITE);
  out = (gdouble *) map.data;
  memcpy (out, msg.position, msg.n_names * sizeof (gdouble));
  out += msg.n_names;
  if (vel) {
    memcpy (out, msg.velocity, msg.n_names * sizeof (gdouble));
    out += msg.n_names;
  }
  if (eff)
    memcpy (out, msg.effort, msg.n_names * sizeof (gdouble));
  gst_buffer_unmap (buf, &map);
out:
  rc_bag_joint_state_clear (&msg);
  return buf;
}

static GstVideoFormat
image_format (const RcImage * msg, guint * bpp)
{
  static const struct
  {
    const gchar *encoding;
    GstVideoFormat format, format_be;
    guint bpp;
  } map[] = {
    {"rgb8", GST_VIDEO_FORMAT_RGB, GST_VIDEO_FORMAT_RGB, 3},
    {"bgr8", GST_VIDEO_FORMAT_BGR, GST_VIDEO_FORMAT_BGR, 3},
    {"rgba8", GST_VIDEO_FORMAT_RGBA, GST_VIDEO_FORMAT_RGBA, 4},
    {"bgra8", GST_VIDEO_FORMAT_BGRA, GST_VIDEO_FORMAT_BGRA, 4},
    {"mono8", GST_VIDEO_FORMAT_GRAY8, GST_VIDEO_FORMAT_GRAY8, 1},
    {"8UC1", GST_VIDEO_FORMAT_GRAY8, GST_VIDEO_FORMAT_GRAY8, 1},
    {"mono16", GST_VIDEO_FORMAT_GRAY16_LE, GST_VIDEO_FORMAT_GRAY16_BE, 2},
    {"16UC1", GST_VIDEO_FORMAT_GRAY16_LE, GST_VIDEO_FORMAT_GRAY16_BE, 2},
  };

  for (guint i = 0; i < G_N_ELEMENTS (map); i++) {
    if (!strcmp (msg->encoding, map[i].encoding)) {
      *bpp = map[i].bpp;
      return msg->is_bigendian ? map[i].format_be : map[i].format;
    }
  }
  return GST_VIDEO_FORMAT_UNKNOWN;
}

static GstBuffer *
image_buffer (GstRobocacheBagSrc * self, Stream * s, const guint8 * data,
    gsize size, guint64 * stamp, GstCaps ** caps, GError ** error)
{
  RcImage msg;
  GstVideoFormat format;
  GstVideoInfo vinfo;
  GstBuffer *buf = NULL;
  GstMapInfo map;
  guint bpp = 0;
  guint64 row_bytes;

  if (!rc_bag_parse_image (data, size, &msg, error))
    return NULL;
  *stamp = msg.header.stamp;
  format = image_format (&msg, &bpp);
  if (format == GST_VIDEO_FORMAT_UNKNOWN) {
    gchar *why = g_strdup_printf ("image encoding \"%s\" is not supported "
        "(rgb8, bgr8, rgba8, bgra8, mono8, mono16, 8UC1, 16UC1 are)",
        msg.encoding);
    skip_message (self, s, why);
    g_free (why);
    goto out;
  }
  row_bytes = (guint64) msg.width * bpp;
  if (msg.width == 0 || msg.height == 0 || msg.width > 65535 ||
      msg.height > 65535 || msg.step < row_bytes ||
      (guint64) msg.step * (msg.height - 1) + row_bytes > msg.data_size) {
    g_set_error (error, RC_BAG_ERROR, RC_BAG_ERROR_FORMAT, "Image: %u x %u "
        "%s with step %u does not fit in its %u data bytes", msg.width,
        msg.height, msg.encoding, msg.step, msg.data_size);
    goto out;
  }
  gst_video_info_set_format (&vinfo, format, msg.width, msg.height);
  *caps = gst_video_info_to_caps (&vinfo);
  buf = gst_buffer_new_allocate (NULL, GST_VIDEO_INFO_SIZE (&vinfo), NULL);
  gst_buffer_map (buf, &map, GST_MAP_WRITE);
  for (guint32 r = 0; r < msg.height; r++) {
    memcpy (map.data + (gsize) r * GST_VIDEO_INFO_PLANE_STRIDE (&vinfo, 0),
        msg.data + (gsize) r * msg.step, row_bytes);
  }
  gst_buffer_unmap (buf, &map);
out:
  rc_bag_image_clear (&msg);
  return buf;
}

/* ------------------------------------------------------------------ */
/* Streaming                                                           */
/* ------------------------------------------------------------------ */

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

static void
push_eos (GstRobocacheBagSrc * self)
{
  GstEvent *eos = gst_event_new_eos ();

  /* A topic without messages (or none after a seek) still gets its
   * stream-start and segment before EOS. */
  for (guint i = 0; i < self->state.streams->len; i++)
    prepare_stream (self, g_ptr_array_index (self->state.streams, i), NULL);
  gst_event_set_seqnum (eos, self->state.seqnum);
  push_event_all (self, eos);
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

static void
gst_robocache_bag_src_loop (GstPad * pad)
{
  GstRobocacheBagSrc *self = GST_ROBOCACHE_BAG_SRC (GST_PAD_PARENT (pad));
  State *st = &self->state;
  const RcBagEntry *e;
  const guint8 *data;
  gsize size;
  Stream *s;
  GstBuffer *buf = NULL;
  GstCaps *caps = NULL;
  GError *error = NULL;
  guint64 stamp = 0, ts;
  GstClockTime pts;
  GstFlowReturn ret;

  /* Find the next message of a played topic. */
  for (;;) {
    gint idx;

    if (st->next >= rc_bag_n_entries (st->bag))
      goto eos;
    e = rc_bag_get_entry (st->bag, st->next++);
    idx = st->stream_of[e->connection];
    if (idx >= 0) {
      s = g_ptr_array_index (st->streams, idx);
      break;
    }
  }
  if (st->timestamps == GST_ROBOCACHE_BAG_TIMESTAMPS_RECORD &&
      GST_CLOCK_TIME_IS_VALID (st->segment.stop) &&
      e->time > st->base + st->segment.stop)
    goto eos;

  if (!rc_bag_read (st->bag, e, &data, &size, &error))
    goto error;
  switch (s->kind) {
    case KIND_POINTS:
      buf = points_buffer (self, s, data, size, &stamp, &caps, &error);
      break;
    case KIND_JOINTS:
      buf = joints_buffer (self, s, data, size, &stamp, &caps, &error);
      break;
    case KIND_IMAGE:
      buf = image_buffer (self, s, data, size, &stamp, &caps, &error);
      break;
  }
  if (error)
    goto error;
  if (!buf) {
    gst_clear_caps (&caps);
    return;                     /* skipped (warned about) */
  }

  ts = st->timestamps == GST_ROBOCACHE_BAG_TIMESTAMPS_RECORD || stamp == 0 ?
      e->time : stamp;
  pts = ts > st->base ? ts - st->base : 0;
  if (pts < st->segment.start || (GST_CLOCK_TIME_IS_VALID (st->segment.stop)
          && pts > st->segment.stop)) {
    gst_buffer_unref (buf);
    gst_caps_unref (caps);
    return;
  }
  GST_BUFFER_PTS (buf) = pts;
  GST_BUFFER_DTS (buf) = pts;
  GST_BUFFER_OFFSET (buf) = st->next - 1;
  st->segment.position = pts;

  prepare_stream (self, s, caps);
  gst_caps_unref (caps);
  GST_LOG_OBJECT (self, "%s: pushing %" GST_TIME_FORMAT, s->topic,
      GST_TIME_ARGS (pts));
  ret = gst_pad_push (s->pad, buf);
  ret = gst_flow_combiner_update_pad_flow (st->combiner, s->pad, ret);
  if (ret == GST_FLOW_OK)
    return;
  GST_DEBUG_OBJECT (self, "pausing: %s", gst_flow_get_name (ret));
  gst_pad_pause_task (pad);
  if (ret == GST_FLOW_EOS) {
    push_eos (self);
  } else if (ret == GST_FLOW_NOT_LINKED || ret < GST_FLOW_EOS) {
    GST_ELEMENT_FLOW_ERROR (self, ret);
    push_eos (self);
  }
  return;

eos:
  GST_DEBUG_OBJECT (self, "end of the bag");
  gst_pad_pause_task (pad);
  push_eos (self);
  return;

error:
  GST_ELEMENT_ERROR (self, STREAM, DEMUX, ("%s: %s", st->location,
          error->message), ("message %" G_GSIZE_FORMAT " of the index",
          st->next - 1));
  g_clear_error (&error);
  gst_clear_caps (&caps);
  gst_pad_pause_task (pad);
  push_eos (self);
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
  pad0 = ((Stream *) g_ptr_array_index (st->streams, 0))->pad;

  ev = gst_event_new_flush_start ();
  gst_event_set_seqnum (ev, seqnum);
  push_event_all (self, ev);
  gst_pad_pause_task (pad0);

  GST_PAD_STREAM_LOCK (pad0);
  gst_segment_do_seek (&st->segment, rate, format, flags, start_type, start,
      stop_type, stop, &update);
  st->seqnum = seqnum;
  st->next = rc_bag_lower_bound (st->bag, st->base + st->segment.start);
  for (guint i = 0; i < st->streams->len; i++)
    ((Stream *) g_ptr_array_index (st->streams, i))->need_segment = TRUE;
  ev = gst_event_new_flush_stop (TRUE);
  gst_event_set_seqnum (ev, seqnum);
  push_event_all (self, ev);
  gst_flow_combiner_reset (st->combiner);
  GST_DEBUG_OBJECT (self, "seek to %" GST_TIME_FORMAT ": entry %"
      G_GSIZE_FORMAT, GST_TIME_ARGS (st->segment.start), st->next);
  gst_pad_start_task (pad0, (GstTaskFunction) gst_robocache_bag_src_loop,
      pad0, NULL);
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

static gboolean
kind_of_type (const gchar * type, Kind * kind)
{
  if (!strcmp (type, TYPE_POINT_CLOUD2))
    *kind = KIND_POINTS;
  else if (!strcmp (type, TYPE_JOINT_STATE))
    *kind = KIND_JOINTS;
  else if (!strcmp (type, TYPE_IMAGE))
    *kind = KIND_IMAGE;
  else
    return FALSE;
  return TRUE;
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
compare_strings (gconstpointer a, gconstpointer b)
{
  return strcmp (*(const gchar * const *) a, *(const gchar * const *) b);
}

/* The topics played, in pad order; NULL (and an element error) if a
 * requested topic cannot be played or none can. */
static gchar **
choose_topics (GstRobocacheBagSrc * self, RcBag * bag, const gchar * wanted)
{
  GHashTable *types = g_hash_table_new (g_str_hash, g_str_equal);
  GPtrArray *topics = g_ptr_array_new_with_free_func (g_free);
  GString *skipped = g_string_new (NULL);
  gchar **list = NULL;
  Kind kind;

  /* A topic may have several connections (one per publisher). */
  for (guint i = 0; i < rc_bag_n_connections (bag); i++) {
    const RcBagConnection *c = rc_bag_get_connection (bag, i);
    g_hash_table_insert (types, c->topic, c->type);
  }
  if (wanted && wanted[0]) {
    gchar **req = g_strsplit (wanted, ",", -1);

    for (gchar ** t = req; *t; t++) {
      const gchar *type;

      g_strstrip (*t);
      if (!**t)
        continue;
      type = g_hash_table_lookup (types, *t);
      if (!type) {
        GST_ELEMENT_ERROR (self, RESOURCE, NOT_FOUND, ("topic %s is not in "
                "%s", *t, self->state.location), (NULL));
        goto out_req;
      }
      if (!kind_of_type (type, &kind)) {
        GST_ELEMENT_ERROR (self, STREAM, CODEC_NOT_FOUND, ("topic %s is of "
                "type %s; supported are " TYPE_POINT_CLOUD2 ", "
                TYPE_JOINT_STATE " and " TYPE_IMAGE, *t, type), (NULL));
        goto out_req;
      }
      for (guint k = 0; k < topics->len; k++) {
        if (!strcmp (g_ptr_array_index (topics, k), *t)) {
          GST_ELEMENT_ERROR (self, RESOURCE, SETTINGS, ("topic %s is listed "
                  "twice in topics", *t), (NULL));
          goto out_req;
        }
      }
      g_ptr_array_add (topics, g_strdup (*t));
    }
    g_ptr_array_add (topics, NULL);
    list = (gchar **) g_ptr_array_free (topics, FALSE);
    topics = NULL;
  out_req:
    g_strfreev (req);
  } else {
    GHashTableIter it;
    gpointer topic, type;

    g_hash_table_iter_init (&it, types);
    while (g_hash_table_iter_next (&it, &topic, &type)) {
      if (kind_of_type (type, &kind))
        g_ptr_array_add (topics, g_strdup (topic));
      else
        g_string_append_printf (skipped, "%s%s (%s)", skipped->len ? ", " :
            "", (gchar *) topic, (gchar *) type);
    }
    g_ptr_array_sort (topics, compare_strings);
    if (skipped->len)
      GST_ELEMENT_WARNING (self, STREAM, CODEC_NOT_FOUND, ("skipping topics "
              "of unsupported types: %s", skipped->str), (NULL));
    g_ptr_array_add (topics, NULL);
    list = (gchar **) g_ptr_array_free (topics, FALSE);
    topics = NULL;
  }
  if (list && !list[0]) {
    GST_ELEMENT_ERROR (self, STREAM, CODEC_NOT_FOUND, ("%s has no topic to "
            "play (of type " TYPE_POINT_CLOUD2 ", " TYPE_JOINT_STATE " or "
            TYPE_IMAGE ")", self->state.location), (NULL));
    g_clear_pointer (&list, g_strfreev);
  }
  if (topics)
    g_ptr_array_unref (topics);
  g_string_free (skipped, TRUE);
  g_hash_table_unref (types);
  return list;
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
  g_clear_pointer (&st->bag, rc_bag_free);
  g_clear_pointer (&st->stream_id_prefix, g_free);
  g_clear_pointer (&st->location, g_free);
}

static gboolean
start (GstRobocacheBagSrc * self)
{
  State *st = &self->state;
  gchar *location, *wanted;
  gchar **topics = NULL;
  GError *error = NULL;
  gboolean ok = FALSE;
  gsize first = G_MAXSIZE, last = 0;

  GST_OBJECT_LOCK (self);
  location = g_strdup (self->settings.location);
  wanted = g_strdup (self->settings.topics);
  st->timestamps = self->settings.timestamps;
  GST_OBJECT_UNLOCK (self);

  if (!location) {
    GST_ELEMENT_ERROR (self, RESOURCE, NOT_FOUND, ("no bag file given: set "
            "the location property"), (NULL));
    goto out;
  }
  st->location = g_strdup (location);
  st->bag = rc_bag_open (location, 0, &error);
  if (!st->bag) {
    if (error->code == RC_BAG_ERROR_IO)
      GST_ELEMENT_ERROR (self, RESOURCE, OPEN_READ, ("%s", error->message),
          (NULL));
    else
      GST_ELEMENT_ERROR (self, STREAM, DEMUX, ("%s: %s", location,
              error->message), (NULL));
    goto out;
  }
  topics = choose_topics (self, st->bag, wanted);
  if (!topics)
    goto out;

  st->streams = g_ptr_array_new_with_free_func (stream_free);
  st->combiner = gst_flow_combiner_new ();
  st->stream_of = g_new (gint, MAX (rc_bag_n_connections (st->bag), 1));
  for (guint c = 0; c < rc_bag_n_connections (st->bag); c++) {
    const RcBagConnection *conn = rc_bag_get_connection (st->bag, c);
    st->stream_of[c] = -1;
    for (guint i = 0; topics[i]; i++) {
      if (!strcmp (topics[i], conn->topic)) {
        st->stream_of[c] = i;
        break;
      }
    }
  }
  {
    gchar *base = g_path_get_basename (location);
    st->stream_id_prefix = g_strdup_printf ("robocachebagsrc/%s", base);
    g_free (base);
  }
  for (guint i = 0; topics[i]; i++) {
    Stream *s = g_new0 (Stream, 1);
    gchar *name = g_strdup_printf ("src_%u", i);
    const RcBagConnection *conn = NULL;

    for (guint c = 0; c < rc_bag_n_connections (st->bag); c++) {
      if (st->stream_of[c] == (gint) i)
        conn = rc_bag_get_connection (st->bag, c);
    }
    s->topic = g_strdup (topics[i]);
    kind_of_type (conn->type, &s->kind);
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

  /* The time origin: the first message played. */
  for (gsize i = 0; i < rc_bag_n_entries (st->bag); i++) {
    const RcBagEntry *e = rc_bag_get_entry (st->bag, i);
    if (st->stream_of[e->connection] >= 0) {
      first = MIN (first, i);
      last = i;
    }
  }
  if (first == G_MAXSIZE) {
    st->base = 0;
    st->duration = 0;
  } else {
    const RcBagEntry *e = rc_bag_get_entry (st->bag, first);
    st->base = e->time;
    if (st->timestamps == GST_ROBOCACHE_BAG_TIMESTAMPS_HEADER) {
      const guint8 *data;
      gsize size;
      RcRosHeader h;

      if (!rc_bag_read (st->bag, e, &data, &size, &error) ||
          !rc_bag_parse_header (data, size, &h, &error)) {
        GST_ELEMENT_ERROR (self, STREAM, DEMUX, ("%s: %s", location,
                error->message), (NULL));
        goto out;
      }
      if (h.stamp != 0)
        st->base = h.stamp;
      rc_bag_header_clear (&h);
    }
    e = rc_bag_get_entry (st->bag, last);
    st->duration = e->time > st->base ? e->time - st->base : 0;
  }
  gst_segment_init (&st->segment, GST_FORMAT_TIME);
  st->segment.duration = st->duration;
  st->seqnum = gst_util_seqnum_next ();
  st->group_id = gst_util_group_id_next ();
  st->next = 0;

  for (guint i = 0; i < st->streams->len; i++) {
    Stream *s = g_ptr_array_index (st->streams, i);
    gst_pad_set_active (s->pad, TRUE);
    gst_element_add_pad (GST_ELEMENT (self), s->pad);
    gst_flow_combiner_add_pad (st->combiner, s->pad);
  }
  gst_element_no_more_pads (GST_ELEMENT (self));
  ok = TRUE;
out:
  g_clear_error (&error);
  g_strfreev (topics);
  g_free (location);
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
    case GST_STATE_CHANGE_READY_TO_PAUSED:{
      GstPad *pad0 = ((Stream *) g_ptr_array_index (self->state.streams,
              0))->pad;
      gst_pad_start_task (pad0, (GstTaskFunction) gst_robocache_bag_src_loop,
          pad0, NULL);
      break;
    }
    case GST_STATE_CHANGE_PAUSED_TO_READY:
      /* The pads are flushing now: the task stops at its next push. */
      if (self->state.streams)
        gst_pad_stop_task (((Stream *) g_ptr_array_index (self->state.streams,
                    0))->pad);
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

  gobject_class->set_property = gst_robocache_bag_src_set_property;
  gobject_class->get_property = gst_robocache_bag_src_get_property;
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
