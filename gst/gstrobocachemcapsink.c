/**
 * SECTION:element-robocachemcapsink
 * @title: robocachemcapsink
 *
 * Records robocache streams as ROS 2 messages (CDR) in an MCAP file
 * (profile "ros2", schemas "ros2msg"), or with rosbag2=true in a rosbag2
 * directory: `<location>/<basename of location>_0.mcap` and the
 * metadata.yaml that ROS 2's `ros2 bag` reads.
 *
 * One request pad `sink_%u` per stream, one topic each (the pad's topic
 * property, by default /points, /voxels, /pillars, /joints or /image):
 *
 * - other/x-robocache-points: sensor_msgs/msg/PointCloud2 with the caps'
 *   fields and point-step, one row of every point in the buffer.
 * - other/x-robocache-voxels: a PointCloud2 of the occupied voxels'
 *   centres (x, y, z float32), with `count` (uint32) for count grids,
 *   `occupancy` (uint8, points padded to 16 bytes) for occupancy grids and
 *   `mean_<feature>` (float32) for mean grids.  A mean voxel is taken as
 *   occupied where any feature is not 0 (empty voxels hold 0).
 * - other/x-robocache-sparse-voxels (robocachepillars): a PointCloud2 of
 *   the used voxels' centres (x, y, z float32, from coords and the grid),
 *   with `count` (uint32, the voxel's points), in slot order.
 * - other/x-robocache-vectors (float32, float64; bfloat16 in chunks):
 *   sensor_msgs/msg/JointState, names from the caps' names (else joint0,
 *   joint1, ...).  Channels named as robocachebagsrc names them
 *   ("j.velocity", "j.effort" after the positions) go back to velocity
 *   and effort.  A chunk buffer (batch 1) gives one message per sample,
 *   each with its own time.
 * - video/x-raw RGB, BGR, GRAY8, GRAY16_LE: sensor_msgs/msg/Image rgb8,
 *   bgr8, mono8, mono16, rows packed.
 *
 * System memory only: CUDA caps are refused (put a download element
 * before the sink).  Refused caps post an error naming what is accepted.
 *
 * Times: a message's log_time, publish_time and header.stamp are the
 * buffer's (or chunk sample's) running time plus a base: the base-time
 * property, or with base-time 0 the wall-clock time when the first buffer
 * reached the sink.  Running times need TIME segments: a pad's segment
 * in another format (filesrc's bytes) is a stream error, and no message
 * of that stream is written.  With base-time set, a single-pad recording
 * is the same file byte for byte each run (with several pads the
 * interleaving of their messages follows thread scheduling).  A buffer
 * without PTS takes the running time of the pad's previous message.
 *
 * The element is a plain GstElement with the sink flag, not an
 * aggregator: it has no output to aggregate, and messages are written as
 * they arrive, each pad's chain serialised with the others by one lock.
 * It does not synchronise to the clock, but while PAUSED a buffer or EOS
 * waits for PLAYING, as a sink's after preroll (a pipeline paused, seeked
 * and played records from the seek; gstrobocachemcapsinkgate.c, which
 * also passes a pipeline's seek upstream out of every pad and answers
 * the position).  When every pad has had EOS the file is finished (index
 * and summary written) and EOS is posted; going from PAUSED to READY
 * finishes it too.  Chunks are written whole with
 * their index, so a recording killed mid-way, or stopped by a write error,
 * still holds every chunk closed before, readable by scanning.  Write
 * errors are resource errors.
 *
 * ## Example launch line
 * |[
 * gst-launch-1.0 robocachelidarsrc num-buffers=100 ! m.sink_0 \
 *     robocachejointsrc num-buffers=1000 ! m.sink_1 \
 *     robocachemcapsink name=m location=run rosbag2=true
 * ]|
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstrobocachemcapsinkprivate.h"
#include "gstrobocachechildproxy.h"
#include "gstrobocacheelements.h"
#include "gstrobocachefields.h"
#include "formats/mcap-writer.h"
#include "formats/ros2types.h"
#include "formats/rosbag2.h"
#include "formats/reader.h"

#include <errno.h>
#include <glib/gstdio.h>
#include <string.h>

GST_DEBUG_CATEGORY (gst_robocache_mcap_sink_debug);
#define GST_CAT_DEFAULT gst_robocache_mcap_sink_debug

#define DEFAULT_LOCATION NULL
#define DEFAULT_COMPRESSION GST_ROBOCACHE_MCAP_COMPRESSION_ZSTD
#define DEFAULT_CHUNK_SIZE RC_MCAP_DEFAULT_CHUNK_SIZE
#define DEFAULT_ROSBAG2 FALSE
#define DEFAULT_BASE_TIME 0

enum
{
  PROP_0,
  PROP_LOCATION,
  PROP_COMPRESSION,
  PROP_CHUNK_SIZE,
  PROP_ROSBAG2,
  PROP_BASE_TIME
};

/* Property values, under the object lock. */
typedef struct
{
  gchar *location;
  GstRobocacheMcapCompression compression;
  guint chunk_size;
  gboolean rosbag2;
  guint64 base_time;
} Settings;

/* A channel written, for metadata.yaml, and its messages' sequence: one
 * counter a channel, as one publisher's, for the pads that share it. */
typedef struct
{
  gchar *topic;
  const gchar *type;
  guint16 id;
  guint32 sequence;
} Channel;

/* From READY->PAUSED to PAUSED->READY, under the write lock. */
typedef struct
{
  RcMcapWriter *writer;
  gboolean finished;
  gboolean failed;              /* a write error was posted */
  gchar *path;                  /* the MCAP file */
  gchar *dir;                   /* rosbag2: the directory, else NULL */
  guint16 schema_of[MCAP_N_KINDS];
  guint topics_of[MCAP_N_KINDS];        /* default topics given */
  GArray *channels;             /* Channel */
  gboolean has_base;
  guint64 base;
  guint64 base_setting;
} State;

struct _GstRobocacheMcapSink
{
  GstElement parent;

  Settings settings;
  GMutex lock;                  /* the write lock */
  State state;
  McapGate gate;                /* PAUSED holds buffers back */
  guint next_pad;               /* under the object lock */
};

static GstStaticPadTemplate sink_template =
    GST_STATIC_PAD_TEMPLATE ("sink_%u", GST_PAD_SINK, GST_PAD_REQUEST,
    GST_STATIC_CAPS (GST_ROBOCACHE_POINTS_CAPS "; "
        GST_ROBOCACHE_VOXELS_CAPS "; " GST_ROBOCACHE_SPARSE_CAPS "; "
        GST_ROBOCACHE_VECTORS_CAPS "; "
        GST_VIDEO_CAPS_MAKE ("{ RGB, BGR, GRAY8, GRAY16_LE }")));


#define gst_robocache_mcap_sink_parent_class parent_class
G_DEFINE_TYPE_WITH_CODE (GstRobocacheMcapSink, gst_robocache_mcap_sink,
    GST_TYPE_ELEMENT, G_IMPLEMENT_INTERFACE (GST_TYPE_CHILD_PROXY,
        gst_robocache_sink_pads_child_proxy_init));
GST_ELEMENT_REGISTER_DEFINE_WITH_CODE (robocachemcapsink,
    "robocachemcapsink", GST_RANK_NONE, GST_TYPE_ROBOCACHE_MCAP_SINK,
    GST_DEBUG_CATEGORY_INIT (gst_robocache_mcap_sink_debug,
        "robocachemcapsink", 0, "robocache MCAP / rosbag2 writer"));

/* *INDENT-OFF* */
G_DEFINE_ENUM_TYPE (GstRobocacheMcapCompression,
    gst_robocache_mcap_compression,
    {GST_ROBOCACHE_MCAP_COMPRESSION_ZSTD, "Zstandard", "zstd"},
    {GST_ROBOCACHE_MCAP_COMPRESSION_LZ4, "LZ4 frames", "lz4"},
    {GST_ROBOCACHE_MCAP_COMPRESSION_NONE, "Uncompressed", "none"});
/* *INDENT-ON* */

G_STATIC_ASSERT ((gint) GST_ROBOCACHE_MCAP_COMPRESSION_ZSTD ==
    RC_MCAP_COMPRESSION_ZSTD);
G_STATIC_ASSERT ((gint) GST_ROBOCACHE_MCAP_COMPRESSION_LZ4 ==
    RC_MCAP_COMPRESSION_LZ4);
G_STATIC_ASSERT ((gint) GST_ROBOCACHE_MCAP_COMPRESSION_NONE ==
    RC_MCAP_COMPRESSION_NONE);

static const GstRobocacheField fields[] = {
  GST_ROBOCACHE_FIELD (PROP_LOCATION, GstRobocacheMcapSink, settings.location),
  GST_ROBOCACHE_FIELD (PROP_COMPRESSION, GstRobocacheMcapSink,
      settings.compression),
  GST_ROBOCACHE_FIELD (PROP_CHUNK_SIZE, GstRobocacheMcapSink,
      settings.chunk_size),
  GST_ROBOCACHE_FIELD (PROP_ROSBAG2, GstRobocacheMcapSink, settings.rosbag2),
  GST_ROBOCACHE_FIELD (PROP_BASE_TIME, GstRobocacheMcapSink,
      settings.base_time),
  {0}
};

/* ------------------------------------------------------------------ */
/* The file                                                            */
/* ------------------------------------------------------------------ */

static void
channel_clear (gpointer data)
{
  g_free (((Channel *) data)->topic);
}

/* Posts a writer error; with the write lock held. */
static void
post_write_error (GstRobocacheMcapSink * self, GError * error)
{
  self->state.failed = TRUE;
  GST_ELEMENT_ERROR (self, RESOURCE, WRITE, ("%s", error->message),
      ("the chunks written so far stay readable by scanning the file"));
  g_error_free (error);
}

/* The MCAP path, and for rosbag2 the directory made. */
static gboolean
make_paths (GstRobocacheMcapSink * self, const gchar * location,
    gboolean rosbag2)
{
  State *st = &self->state;
  gchar *base, *name;

  if (!rosbag2) {
    st->path = g_strdup (location);
    return TRUE;
  }
  if (g_mkdir_with_parents (location, 0777) != 0) {
    GST_ELEMENT_ERROR (self, RESOURCE, OPEN_WRITE, ("cannot create the "
            "rosbag2 directory %s: %s", location, g_strerror (errno)), (NULL));
    return FALSE;
  }
  st->dir = g_strdup (location);
  base = g_path_get_basename (location);
  name = g_strdup_printf ("%s_0.mcap", base);
  st->path = g_build_filename (location, name, NULL);
  g_free (name);
  g_free (base);
  return TRUE;
}

static void
stop (GstRobocacheMcapSink * self)
{
  State *st = &self->state;

  g_mutex_lock (&self->lock);
  g_clear_pointer (&st->writer, rc_mcap_writer_free);
  g_clear_pointer (&st->path, g_free);
  g_clear_pointer (&st->dir, g_free);
  g_clear_pointer (&st->channels, g_array_unref);
  g_mutex_unlock (&self->lock);
}

static gboolean
start (GstRobocacheMcapSink * self)
{
  State *st = &self->state;
  Settings s;
  GError *error = NULL;
  gboolean ok;

  GST_OBJECT_LOCK (self);
  s = self->settings;
  s.location = g_strdup (s.location);
  GST_OBJECT_UNLOCK (self);

  g_mutex_lock (&self->lock);
  memset (st, 0, sizeof (*st));
  st->base_setting = s.base_time;
  st->channels = g_array_new (FALSE, TRUE, sizeof (Channel));
  g_array_set_clear_func (st->channels, channel_clear);
  if (!s.location || !*s.location) {
    GST_ELEMENT_ERROR (self, RESOURCE, NOT_FOUND, ("no file given: set the "
            "location property"), (NULL));
    ok = FALSE;
  } else if ((ok = make_paths (self, s.location, s.rosbag2))) {
    st->writer = rc_mcap_writer_new (st->path, "ros2",
        (RcMcapCompression) s.compression, s.chunk_size, &error);
    if (!(ok = st->writer != NULL)) {
      GST_ELEMENT_ERROR (self, RESOURCE, OPEN_WRITE, ("%s", error->message),
          (NULL));
      g_error_free (error);
    }
  }
  g_mutex_unlock (&self->lock);
  g_free (s.location);
  if (!ok)
    stop (self);
  return ok;
}

/* metadata.yaml of the rosbag2 directory; with the write lock held. */
static gboolean
write_rosbag2_metadata (State * st, GError ** error)
{
  RcRosbag2Topic *topics = g_new0 (RcRosbag2Topic, st->channels->len);
  guint64 first, last;
  gchar *file = g_path_get_basename (st->path);
  gboolean ok;

  for (guint i = 0; i < st->channels->len; i++) {
    Channel *c = &g_array_index (st->channels, Channel, i);

    topics[i].name = c->topic;
    topics[i].type = c->type;
    topics[i].message_count =
        rc_mcap_writer_channel_message_count (st->writer, c->id);
  }
  rc_mcap_writer_time_range (st->writer, &first, &last);
  ok = rc_rosbag2_write_metadata (st->dir, file, first, last - first,
      rc_mcap_writer_message_count (st->writer), topics, st->channels->len,
      error);
  g_free (file);
  g_free (topics);
  return ok;
}

/* Writes the summary (and metadata.yaml), once; with the write lock
 * held.  FALSE after posting an error. */
static gboolean
finish_file (GstRobocacheMcapSink * self)
{
  State *st = &self->state;
  GError *error = NULL;

  if (!st->writer || st->finished || st->failed)
    return TRUE;
  st->finished = TRUE;
  if (!rc_mcap_writer_finish (st->writer, &error) ||
      (st->dir && !write_rosbag2_metadata (st, &error))) {
    post_write_error (self, error);
    return FALSE;
  }
  GST_INFO_OBJECT (self, "finished %s: %" G_GUINT64_FORMAT " messages",
      st->path, rc_mcap_writer_message_count (st->writer));
  return TRUE;
}

/* ------------------------------------------------------------------ */
/* Caps and channels                                                   */
/* ------------------------------------------------------------------ */

/* The pad's topic: its property, or the next default of its kind. */
static gchar *
pad_topic (GstRobocacheMcapSink * self, GstRobocacheMcapSinkPad * pad,
    McapKind kind)
{
  guint n;
  gchar *topic;

  GST_OBJECT_LOCK (pad);
  topic = g_strdup (pad->topic);
  GST_OBJECT_UNLOCK (pad);
  if (topic && *topic)
    return topic;
  g_free (topic);
  n = self->state.topics_of[kind]++;
  return n == 0 ? g_strdup (mcap_kind_topic (kind)) :
      g_strdup_printf ("%s_%u", mcap_kind_topic (kind), n);
}

/* Whether @topic is a ROS 2 topic name as rosbag2 records it: "/", then
 * tokens of letters, digits and _ joined by "/", none starting with a
 * digit, no empty token. */
static gboolean
ros_topic_name (const gchar * topic)
{
  gboolean token_start = TRUE;

  if (topic[0] != '/' || !topic[1])
    return FALSE;
  for (const gchar * p = topic + 1; *p; p++) {
    if (*p == '/') {
      if (token_start)
        return FALSE;
      token_start = TRUE;
    } else if (g_ascii_isalpha (*p) || *p == '_' ||
        (!token_start && g_ascii_isdigit (*p))) {
      token_start = FALSE;
    } else {
      return FALSE;
    }
  }
  return !token_start;
}

/* A channel for @pad's messages of @kind (one per pad, a new one when its
 * message type changes); with the write lock held. */
static gboolean
ensure_channel (GstRobocacheMcapSink * self, GstRobocacheMcapSinkPad * pad,
    McapKind kind, GError ** error)
{
  State *st = &self->state;
  const gchar *type = mcap_kind_type (kind);
  const gchar *const metadata[] = { "offered_qos_profiles", "", NULL };
  Channel c = { NULL, type, 0 };

  if (pad->channel_id && !g_strcmp0 (mcap_kind_type (pad->channel_kind), type))
    return TRUE;
  if (!st->writer || st->finished) {
    g_set_error (error, RC_READER_ERROR, RC_READER_ERROR_IO, "caps after "
        "the file was finished");
    return FALSE;
  }
  if (!st->schema_of[kind]) {
    const gchar *text = rc_ros2_type_definition (type);
    guint16 id = 0;

    for (guint k = 0; k < MCAP_N_KINDS; k++)
      id = id ? id : (!g_strcmp0 (mcap_kind_type (k), type) ?
          st->schema_of[k] : 0);
    if (!id && !rc_mcap_writer_add_schema (st->writer, type, "ros2msg",
            text, strlen (text), &id, error))
      return FALSE;
    st->schema_of[kind] = id;
  }
  c.topic = pad_topic (self, pad, kind);
  if (!ros_topic_name (c.topic)) {
    g_set_error (error, GST_STREAM_ERROR, GST_STREAM_ERROR_FORMAT, "topic "
        "\"%s\" is not a ROS 2 topic name; accepted: \"/\", then tokens of "
        "letters, digits and _ joined by \"/\", none starting with a digit "
        "(e.g. /velodyne_points)", c.topic);
    g_free (c.topic);
    return FALSE;
  }
  for (guint i = 0; i < st->channels->len; i++) {
    const Channel *o = &g_array_index (st->channels, Channel, i);

    if (g_strcmp0 (o->topic, c.topic) != 0)
      continue;
    /* ROS 2 records one type a topic, and readers (robocache's among
     * them) refuse a topic of two. */
    if (g_strcmp0 (o->type, type) != 0) {
      g_set_error (error, GST_STREAM_ERROR, GST_STREAM_ERROR_FORMAT,
          "topic %s already carries %s and %s would add %s to it; one type "
          "a topic is accepted: give the stream a topic of its own (the "
          "pad's topic property)", c.topic, o->type, GST_PAD_NAME (pad), type);
      g_free (c.topic);
      return FALSE;
    }
    /* Another stream of that type: one channel, as one publisher, so that
     * metadata.yaml lists the topic once. */
    g_free (c.topic);
    pad->channel_id = o->id;
    pad->channel_kind = kind;
    return TRUE;
  }
  if (!rc_mcap_writer_add_channel (st->writer, c.topic, "cdr",
          st->schema_of[kind], metadata, &c.id, error)) {
    g_free (c.topic);
    return FALSE;
  }
  GST_INFO_OBJECT (pad, "topic %s (%s), channel %u", c.topic, type, c.id);
  g_array_append_val (st->channels, c);
  pad->channel_id = c.id;
  pad->channel_kind = kind;
  return TRUE;
}

static gboolean
set_caps (GstRobocacheMcapSink * self, GstRobocacheMcapSinkPad * pad,
    GstCaps * caps)
{
  McapFormat format;
  GError *error = NULL;
  gboolean ok;

  if (!mcap_format_from_caps (&format, caps, &error)) {
    GST_ELEMENT_ERROR (self, STREAM, FORMAT, ("%s: %s", GST_PAD_NAME (pad),
            error->message), (NULL));
    g_error_free (error);
    return FALSE;
  }
  g_mutex_lock (&self->lock);
  ok = ensure_channel (self, pad, format.kind, &error);
  if (!ok && error->domain == GST_STREAM_ERROR) {
    /* The stream's, not the file's: the others go on being written. */
    GST_ELEMENT_ERROR (self, STREAM, FORMAT, ("%s: %s", GST_PAD_NAME (pad),
            error->message), (NULL));
    g_error_free (error);
  } else if (!ok) {
    post_write_error (self, error);
  }
  g_mutex_unlock (&self->lock);
  mcap_format_clear (&pad->format);
  pad->format = format;
  return ok;
}

/* Refuses caps that match the template but that no message can carry
 * (unreadable fields, a batch of trajectories), saying why once. */
static gboolean
accept_caps (GstRobocacheMcapSink * self, GstRobocacheMcapSinkPad * pad,
    GstCaps * caps)
{
  GstCaps *templ = gst_pad_get_pad_template_caps (GST_PAD (pad));
  McapFormat format;
  GError *error = NULL;
  gboolean ok = gst_caps_is_subset (caps, templ);

  gst_caps_unref (templ);
  if (ok && gst_caps_is_fixed (caps)) {
    ok = mcap_format_from_caps (&format, caps, &error);
    if (ok) {
      mcap_format_clear (&format);
    } else {
      if (!pad->warned_caps)
        GST_ELEMENT_ERROR (self, STREAM, FORMAT, ("%s: %s",
                GST_PAD_NAME (pad), error->message), (NULL));
      pad->warned_caps = TRUE;
      g_error_free (error);
    }
  }
  return ok;
}

static gboolean
sink_query (GstPad * pad, GstObject * parent, GstQuery * query)
{
  GstCaps *caps;

  if (GST_QUERY_TYPE (query) != GST_QUERY_ACCEPT_CAPS)
    return gst_pad_query_default (pad, parent, query);
  gst_query_parse_accept_caps (query, &caps);
  gst_query_set_accept_caps_result (query,
      accept_caps (GST_ROBOCACHE_MCAP_SINK (parent),
          GST_ROBOCACHE_MCAP_SINK_PAD (pad), caps));
  return TRUE;
}

/* ------------------------------------------------------------------ */
/* Streaming                                                           */
/* ------------------------------------------------------------------ */

typedef struct
{
  GstRobocacheMcapSink *self;
  GstRobocacheMcapSinkPad *pad;
} EmitTarget;

/* The next sequence number of channel @id (under the write lock). */
static guint32
channel_sequence (State * st, guint16 id)
{
  for (guint i = 0; i < st->channels->len; i++) {
    Channel *c = &g_array_index (st->channels, Channel, i);

    if (c->id == id)
      return c->sequence++;
  }
  return 0;
}

static gboolean
emit_message (gpointer user_data, guint64 stamp, GByteArray * cdr,
    GError ** error)
{
  EmitTarget *t = user_data;
  State *st = &t->self->state;
  gboolean ok;

  /* builtin_interfaces/Time holds int32 seconds: a later stamp would
   * wrap to 1901 in the message while its log_time stays right. */
  if (stamp / GST_SECOND > G_MAXINT32) {
    g_set_error (error, GST_STREAM_ERROR, GST_STREAM_ERROR_FORMAT, "stamp %"
        G_GUINT64_FORMAT " ns is after 2038-01-19 03:14:07 UTC, the last "
        "time a ROS 2 header (int32 seconds) holds: the base-time property "
        "or the running time is too large", stamp);
    return FALSE;
  }
  g_mutex_lock (&t->self->lock);
  ok = st->writer && !st->finished && !st->failed;
  if (!ok)
    g_set_error (error, RC_READER_ERROR, RC_READER_ERROR_IO, "a message "
        "after the file was %s", st->failed ? "broken" : "finished");
  else
    ok = rc_mcap_writer_write_message (st->writer, t->pad->channel_id,
        channel_sequence (st, t->pad->channel_id), stamp, stamp, cdr->data,
        cdr->len, error);
  g_mutex_unlock (&t->self->lock);
  t->pad->last_running_time = stamp - st->base;
  return ok;
}

/* The base of the stamps: base-time, or the wall clock now. */
static guint64
stamp_base (GstRobocacheMcapSink * self)
{
  State *st = &self->state;
  guint64 base;

  g_mutex_lock (&self->lock);
  if (!st->has_base) {
    st->base = st->base_setting ? st->base_setting :
        (guint64) g_get_real_time () * 1000;
    st->has_base = TRUE;
  }
  base = st->base;
  g_mutex_unlock (&self->lock);
  return base;
}

static GstFlowReturn
sink_chain (GstPad * gpad, GstObject * parent, GstBuffer * buf)
{
  GstRobocacheMcapSink *self = GST_ROBOCACHE_MCAP_SINK (parent);
  GstRobocacheMcapSinkPad *pad = GST_ROBOCACHE_MCAP_SINK_PAD (gpad);
  EmitTarget target = { self, pad };
  McapStamp stamp = { &pad->segment, 0, pad->last_running_time, NULL };
  GError *error = NULL;
  gchar *frame_id;
  gboolean ok;

  if (pad->format.kind == MCAP_KIND_NONE) {
    gst_buffer_unref (buf);
    GST_ELEMENT_ERROR (self, CORE, NEGOTIATION, ("%s: a buffer before caps",
            GST_PAD_NAME (pad)), (NULL));
    return GST_FLOW_NOT_NEGOTIATED;
  }
  if (mcap_gate_wait (&self->gate, pad) != GST_FLOW_OK) {
    gst_buffer_unref (buf);
    return GST_FLOW_FLUSHING;
  }
  stamp.base = stamp_base (self);
  GST_OBJECT_LOCK (pad);
  frame_id = g_strdup (pad->frame_id ? pad->frame_id :
      pad->format.frame_id ? pad->format.frame_id : "map");
  GST_OBJECT_UNLOCK (pad);
  stamp.frame_id = frame_id;
  ok = mcap_format_encode (&pad->format, buf, &stamp, pad->scratch,
      emit_message, &target, &error);
  g_free (frame_id);
  if (ok) {
    GST_OBJECT_LOCK (pad);
    pad->position = gst_segment_to_stream_time (&pad->segment,
        GST_FORMAT_TIME, GST_BUFFER_PTS (buf));
    GST_OBJECT_UNLOCK (pad);
  }
  gst_buffer_unref (buf);
  if (ok)
    return GST_FLOW_OK;
  if (error->domain == GST_STREAM_ERROR) {
    GST_ELEMENT_ERROR (self, STREAM, FORMAT, ("%s: %s", GST_PAD_NAME (pad),
            error->message), (NULL));
    g_error_free (error);
  } else {
    g_mutex_lock (&self->lock);
    /* Once broken, the first error said it all. */
    if (self->state.failed)
      g_error_free (error);
    else
      post_write_error (self, error);
    g_mutex_unlock (&self->lock);
  }
  return GST_FLOW_ERROR;
}

/* Whether every pad has had EOS; with the write lock held. */
static gboolean
all_eos (GstRobocacheMcapSink * self)
{
  gboolean all = TRUE;

  GST_OBJECT_LOCK (self);
  for (GList * l = GST_ELEMENT (self)->sinkpads; l && all; l = l->next)
    all = GST_ROBOCACHE_MCAP_SINK_PAD (l->data)->eos;
  GST_OBJECT_UNLOCK (self);
  return all;
}

/* At the last EOS: the file finished and EOS posted. */
static void
pad_eos (GstRobocacheMcapSink * self, GstRobocacheMcapSinkPad * pad,
    guint32 seqnum)
{
  gboolean post;

  g_mutex_lock (&self->lock);
  pad->eos = TRUE;
  post = all_eos (self) && self->state.writer && !self->state.finished;
  if (post)
    finish_file (self);
  g_mutex_unlock (&self->lock);
  if (post) {
    GstMessage *msg = gst_message_new_eos (GST_OBJECT (self));

    gst_message_set_seqnum (msg, seqnum);
    gst_element_post_message (GST_ELEMENT (self), msg);
  }
}

/* "sink_0 (topic /points)" for messages: the pad and the topic of its
 * channel, else of its property; the pad alone before either. */
static gchar *
pad_label (GstRobocacheMcapSink * self, GstRobocacheMcapSinkPad * pad)
{
  State *st = &self->state;
  gchar *topic = NULL, *label;

  g_mutex_lock (&self->lock);
  for (guint i = 0; pad->channel_id && st->channels &&
      i < st->channels->len && !topic; i++) {
    const Channel *c = &g_array_index (st->channels, Channel, i);

    if (c->id == pad->channel_id)
      topic = g_strdup (c->topic);
  }
  g_mutex_unlock (&self->lock);
  GST_OBJECT_LOCK (pad);
  if (!topic && pad->topic && *pad->topic)
    topic = g_strdup (pad->topic);
  GST_OBJECT_UNLOCK (pad);
  label = topic ? g_strdup_printf ("%s (topic %s)", GST_PAD_NAME (pad),
      topic) : g_strdup (GST_PAD_NAME (pad));
  g_free (topic);
  return label;
}

/* Stamps are running times, which only a TIME segment gives: another
 * (filesrc's bytes) is refused here, so that the pad's sticky segment
 * fails and none of its buffers reach sink_chain.  Upstream sends it
 * again before each buffer and EOS: the error is posted once. */
static gboolean
set_segment (GstRobocacheMcapSink * self, GstRobocacheMcapSinkPad * pad,
    GstEvent * event)
{
  const GstSegment *segment;
  gchar *label;

  gst_event_parse_segment (event, &segment);
  if (segment->format == GST_FORMAT_TIME) {
    gst_segment_copy_into (segment, &pad->segment);
    pad->warned_segment = FALSE;
    return TRUE;
  }
  if (pad->warned_segment)
    return FALSE;
  pad->warned_segment = TRUE;
  label = pad_label (self, pad);
  GST_ELEMENT_ERROR (self, STREAM, FORMAT, ("%s: a %s segment: only TIME "
          "segments are accepted, the stamps being running times; give it "
          "timestamped buffers from a source that works in time (appsrc "
          "format=time, robocachemcapsrc, robocachelidarsrc), not bytes as "
          "filesrc and multifilesrc give", label,
          gst_format_get_name (segment->format)), (NULL));
  g_free (label);
  return FALSE;
}

static gboolean
sink_event (GstPad * gpad, GstObject * parent, GstEvent * event)
{
  GstRobocacheMcapSink *self = GST_ROBOCACHE_MCAP_SINK (parent);
  GstRobocacheMcapSinkPad *pad = GST_ROBOCACHE_MCAP_SINK_PAD (gpad);
  gboolean ok = TRUE;
  GstCaps *caps;

  switch (GST_EVENT_TYPE (event)) {
    case GST_EVENT_CAPS:
      gst_event_parse_caps (event, &caps);
      ok = set_caps (self, pad, caps);
      break;
    case GST_EVENT_SEGMENT:
      ok = set_segment (self, pad, event);
      break;
    case GST_EVENT_FLUSH_START:
      mcap_gate_flush (&self->gate, pad, TRUE);
      break;
    case GST_EVENT_FLUSH_STOP:
      gst_segment_init (&pad->segment, GST_FORMAT_TIME);
      mcap_gate_flush (&self->gate, pad, FALSE);
      break;
    case GST_EVENT_EOS:
      if (mcap_gate_wait (&self->gate, pad) == GST_FLOW_OK)
        pad_eos (self, pad, gst_event_get_seqnum (event));
      break;
    default:
      break;
  }
  gst_event_unref (event);
  return ok;
}

/* ------------------------------------------------------------------ */
/* Pads and states                                                     */
/* ------------------------------------------------------------------ */

static GstPad *
gst_robocache_mcap_sink_request_new_pad (GstElement * element,
    GstPadTemplate * templ, const gchar * name, const GstCaps * caps)
{
  GstPad *pad;
  gchar *pad_name = mcap_sink_pad_name (element,
      &GST_ROBOCACHE_MCAP_SINK (element)->next_pad, name);

  if (!pad_name)
    return NULL;
  pad = g_object_new (GST_TYPE_ROBOCACHE_MCAP_SINK_PAD, "name", pad_name,
      "direction", GST_PAD_SINK, "template", templ, NULL);
  g_free (pad_name);
  gst_pad_set_chain_function (pad, GST_DEBUG_FUNCPTR (sink_chain));
  gst_pad_set_event_function (pad, GST_DEBUG_FUNCPTR (sink_event));
  gst_pad_set_query_function (pad, GST_DEBUG_FUNCPTR (sink_query));
  if (GST_STATE (element) > GST_STATE_READY)
    gst_pad_set_active (pad, TRUE);
  if (!gst_element_add_pad (element, pad))
    return NULL;                /* a name taken: the pad is freed */
  gst_child_proxy_child_added (GST_CHILD_PROXY (element), G_OBJECT (pad),
      GST_OBJECT_NAME (pad));
  return pad;
}

static void
gst_robocache_mcap_sink_release_pad (GstElement * element, GstPad * pad)
{
  GstRobocacheMcapSink *self = GST_ROBOCACHE_MCAP_SINK (element);

  gst_child_proxy_child_removed (GST_CHILD_PROXY (element), G_OBJECT (pad),
      GST_OBJECT_NAME (pad));
  gst_element_remove_pad (element, pad);
  /* The other pads may all have ended already. */
  g_mutex_lock (&self->lock);
  if (element->numsinkpads > 0 && all_eos (self))
    finish_file (self);
  g_mutex_unlock (&self->lock);
}

static GstStateChangeReturn
gst_robocache_mcap_sink_change_state (GstElement * element,
    GstStateChange transition)
{
  GstRobocacheMcapSink *self = GST_ROBOCACHE_MCAP_SINK (element);
  GstStateChangeReturn ret;

  if (transition == GST_STATE_CHANGE_READY_TO_PAUSED) {
    for (GList * l = element->sinkpads; l; l = l->next) {
      GstRobocacheMcapSinkPad *pad = l->data;
      pad->eos = FALSE;
      pad->channel_id = 0;
      pad->warned_caps = FALSE;
      pad->warned_segment = FALSE;
      pad->last_running_time = 0;
      pad->position = GST_CLOCK_TIME_NONE;
      /* A flush that began before the last stop has no FLUSH_STOP. */
      mcap_gate_flush (&self->gate, pad, FALSE);
    }
    if (!start (self))
      return GST_STATE_CHANGE_FAILURE;
  }
  if (transition == GST_STATE_CHANGE_READY_TO_PAUSED ||
      transition == GST_STATE_CHANGE_PLAYING_TO_PAUSED)
    mcap_gate_set (&self->gate, FALSE, FALSE);
  else if (transition == GST_STATE_CHANGE_PAUSED_TO_PLAYING)
    mcap_gate_set (&self->gate, TRUE, FALSE);
  else if (transition == GST_STATE_CHANGE_PAUSED_TO_READY)
    mcap_gate_set (&self->gate, FALSE, TRUE);
  ret = GST_ELEMENT_CLASS (parent_class)->change_state (element, transition);
  if (ret == GST_STATE_CHANGE_FAILURE) {
    if (transition == GST_STATE_CHANGE_READY_TO_PAUSED)
      stop (self);
    return ret;
  }
  if (transition == GST_STATE_CHANGE_PAUSED_TO_READY) {
    /* The pads are inactive now: no chain runs. */
    g_mutex_lock (&self->lock);
    finish_file (self);
    g_mutex_unlock (&self->lock);
    stop (self);
  }
  return ret;
}

/* ------------------------------------------------------------------ */
/* Class                                                               */
/* ------------------------------------------------------------------ */

static void
gst_robocache_mcap_sink_finalize (GObject * object)
{
  GstRobocacheMcapSink *self = GST_ROBOCACHE_MCAP_SINK (object);

  g_free (self->settings.location);
  g_mutex_clear (&self->lock);
  mcap_gate_clear (&self->gate);
  G_OBJECT_CLASS (parent_class)->finalize (object);
}

static void
install_properties (GObjectClass * gobject_class)
{
  const GParamFlags flags = G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
      GST_PARAM_MUTABLE_READY;

  /**
   * GstRobocacheMcapSink:location:
   *
   * The MCAP file to write, or with rosbag2 the directory (made if
   * missing) that receives `<basename>_0.mcap` and metadata.yaml.
   */
  g_object_class_install_property (gobject_class, PROP_LOCATION,
      g_param_spec_string ("location", "Location", "MCAP file (rosbag2: "
          "directory) to write", DEFAULT_LOCATION, flags));
  /**
   * GstRobocacheMcapSink:compression:
   *
   * How chunks are compressed: zstd (default), lz4 (frames) or none.
   */
  g_object_class_install_property (gobject_class, PROP_COMPRESSION,
      g_param_spec_enum ("compression", "Compression", "Chunk compression",
          GST_TYPE_ROBOCACHE_MCAP_COMPRESSION, DEFAULT_COMPRESSION, flags));
  /**
   * GstRobocacheMcapSink:chunk-size:
   *
   * Bytes of uncompressed messages after which a chunk is written (1 MiB
   * by default).  The most the element holds in memory, besides one
   * message larger than it; what a killed recording may lose.
   */
  g_object_class_install_property (gobject_class, PROP_CHUNK_SIZE,
      g_param_spec_uint ("chunk-size", "Chunk size", "Uncompressed bytes per "
          "chunk", 1024, G_MAXINT32, DEFAULT_CHUNK_SIZE, flags));
  /**
   * GstRobocacheMcapSink:rosbag2:
   *
   * Write a rosbag2 directory (location/<basename>_0.mcap and
   * metadata.yaml, format version 5) instead of one MCAP file.
   */
  g_object_class_install_property (gobject_class, PROP_ROSBAG2,
      g_param_spec_boolean ("rosbag2", "rosbag2", "Write a rosbag2 "
          "directory", DEFAULT_ROSBAG2, flags));
  /**
   * GstRobocacheMcapSink:base-time:
   *
   * ns since the epoch added to running times to give log times and
   * header stamps.  0: the wall clock when the first buffer arrives.
   */
  g_object_class_install_property (gobject_class, PROP_BASE_TIME,
      g_param_spec_uint64 ("base-time", "Base time", "ns added to running "
          "times (0: wall clock at the first buffer)", 0, G_MAXUINT64,
          DEFAULT_BASE_TIME, flags));
}

static void
gst_robocache_mcap_sink_class_init (GstRobocacheMcapSinkClass * klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  GstElementClass *element_class = GST_ELEMENT_CLASS (klass);

  gst_robocache_fields_class_init (gobject_class, fields);
  gobject_class->finalize = gst_robocache_mcap_sink_finalize;
  install_properties (gobject_class);

  element_class->change_state =
      GST_DEBUG_FUNCPTR (gst_robocache_mcap_sink_change_state);
  element_class->send_event = GST_DEBUG_FUNCPTR (mcap_sink_send_event);
  element_class->query = GST_DEBUG_FUNCPTR (mcap_sink_query);
  element_class->request_new_pad =
      GST_DEBUG_FUNCPTR (gst_robocache_mcap_sink_request_new_pad);
  element_class->release_pad =
      GST_DEBUG_FUNCPTR (gst_robocache_mcap_sink_release_pad);
  gst_element_class_add_pad_template (element_class,
      gst_pad_template_new_from_static_pad_template_with_gtype
      (&sink_template, GST_TYPE_ROBOCACHE_MCAP_SINK_PAD));
  gst_element_class_set_static_metadata (element_class, "MCAP / rosbag2 sink",
      "Sink/File", "Records point clouds, voxel grids, pillars, joint states "
      "and images as ROS 2 messages in an MCAP file or rosbag2 directory",
      GST_ROBOCACHE_AUTHOR);
  gst_type_mark_as_plugin_api (GST_TYPE_ROBOCACHE_MCAP_COMPRESSION, 0);
  gst_type_mark_as_plugin_api (GST_TYPE_ROBOCACHE_MCAP_SINK_PAD, 0);
}

static void
gst_robocache_mcap_sink_init (GstRobocacheMcapSink * self)
{
  gst_robocache_fields_init (self, fields);
  g_mutex_init (&self->lock);
  mcap_gate_init (&self->gate);
  GST_OBJECT_FLAG_SET (self, GST_ELEMENT_FLAG_SINK);
}
