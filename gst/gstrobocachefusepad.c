/* The request pads of robocachefuse: their properties, the kind of stream
 * each carries, and the policies (interpolate, nearest, previous) that
 * choose what a stream says at a tick. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstrobocachefusepad.h"

#include "gstrobocachefields.h"

#include <gst/video/video.h>
#include <string.h>

#define GST_CAT_DEFAULT gst_robocache_fuse_debug

#define DEFAULT_PAD_POLICY FUSE_POLICY_AUTO
#define DEFAULT_PAD_MAX_AGE (500 * GST_MSECOND)
#define DEFAULT_PAD_MASTER FALSE

enum
{
  PROP_PAD_0,
  PROP_PAD_STREAM_NAME,
  PROP_PAD_POLICY,
  PROP_PAD_MAX_AGE,
  PROP_PAD_MASTER,
  PROP_PAD_STATS
};

G_DEFINE_TYPE (GstRobocacheFusePad, gst_robocache_fuse_pad,
    GST_TYPE_AGGREGATOR_PAD);

/* *INDENT-OFF* */
G_DEFINE_ENUM_TYPE (GstRobocacheFusePolicy, gst_robocache_fuse_policy,
    {FUSE_POLICY_AUTO, "interpolate for vectors, previous for the rest",
        "auto"},
    {FUSE_POLICY_INTERPOLATE, "Vectors interpolated at the tick (others: "
          "nearest)", "interpolate"},
    {FUSE_POLICY_NEAREST, "The buffer nearest to the tick", "nearest"},
    {FUSE_POLICY_PREVIOUS, "The latest buffer at or before the tick",
        "previous"});
/* *INDENT-ON* */

/* A buffer held ahead of its tick, with its running time: the pad's
 * segment may have changed by the time it is used. */
typedef struct
{
  GstBuffer *buf;
  GstClockTime rt;
} FuseHeldBuffer;

static void
held_buffer_clear (gpointer data)
{
  gst_clear_buffer (&((FuseHeldBuffer *) data)->buf);
}

/* Its pad's name until the application names the stream. */
static void
get_stream_name (GObject * object, GValue * value)
{
  GstRobocacheFusePad *pad = GST_ROBOCACHE_FUSE_PAD (object);

  g_value_set_string (value, pad->stream_name ? pad->stream_name :
      GST_PAD_NAME (pad));
}

static void
get_stats (GObject * object, GValue * value)
{
  GstRobocacheFusePad *pad = GST_ROBOCACHE_FUSE_PAD (object);

  g_value_take_boxed (value, gst_structure_new ("robocachefuse-pad-stats",
          "buffers", G_TYPE_UINT64, pad->stats.buffers,
          "dropped-bad-size", G_TYPE_UINT64, pad->stats.dropped_bad_size,
          "dropped-out-of-order", G_TYPE_UINT64,
          pad->stats.dropped_out_of_order,
          "dropped-duplicate", G_TYPE_UINT64, pad->stats.dropped_duplicate,
          NULL));
}

static const GstRobocacheField fields[] = {
  {PROP_PAD_STREAM_NAME, G_STRUCT_OFFSET (GstRobocacheFusePad, stream_name),
      0, get_stream_name},
  GST_ROBOCACHE_FIELD (PROP_PAD_POLICY, GstRobocacheFusePad, settings.policy),
  GST_ROBOCACHE_FIELD (PROP_PAD_MAX_AGE, GstRobocacheFusePad,
      settings.max_age),
  GST_ROBOCACHE_FIELD (PROP_PAD_MASTER, GstRobocacheFusePad, settings.master),
  GST_ROBOCACHE_FIELD_GETTER (PROP_PAD_STATS, get_stats),
  {0}
};

static void
gst_robocache_fuse_pad_finalize (GObject * object)
{
  GstRobocacheFusePad *pad = GST_ROBOCACHE_FUSE_PAD (object);

  fuse_pad_reset (pad);
  gst_queue_array_free (pad->held);
  gst_robocache_fuse_pad_free_copies (pad);
  g_free (pad->blend);
  gst_clear_caps (&pad->caps);
  g_free (pad->stream_name);
  g_free (pad->size_rule);
  g_slist_free_full (pad->pending_warnings, g_free);
  G_OBJECT_CLASS (gst_robocache_fuse_pad_parent_class)->finalize (object);
}

static GstFlowReturn
gst_robocache_fuse_pad_flush (GstAggregatorPad * aggpad, GstAggregator * agg)
{
  fuse_pad_reset (GST_ROBOCACHE_FUSE_PAD (aggpad));
  return GST_FLOW_OK;
}

static void
gst_robocache_fuse_pad_class_init (GstRobocacheFusePadClass * klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  GstAggregatorPadClass *aggpad_class = GST_AGGREGATOR_PAD_CLASS (klass);

  gst_robocache_fields_class_init (gobject_class, fields);
  gobject_class->finalize = gst_robocache_fuse_pad_finalize;
  aggpad_class->flush = GST_DEBUG_FUNCPTR (gst_robocache_fuse_pad_flush);

  /**
   * GstRobocacheFusePad:stream-name:
   *
   * The stream's name in the fused frame (default: the pad's name).  Read
   * at every tick: a new name while playing is in the next frame and in
   * new output caps.
   */
  g_object_class_install_property (gobject_class, PROP_PAD_STREAM_NAME,
      g_param_spec_string ("stream-name", "Stream name",
          "Name of the stream in the fused frame (default: the pad name)",
          NULL, G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
          GST_PARAM_MUTABLE_PLAYING));
  /**
   * GstRobocacheFusePad:policy:
   *
   * How the stream's data at a tick is chosen: auto (interpolate vectors,
   * previous for the rest), interpolate, nearest or previous.
   */
  g_object_class_install_property (gobject_class, PROP_PAD_POLICY,
      g_param_spec_enum ("policy", "Policy",
          "How this stream's data at a tick is chosen",
          GST_TYPE_ROBOCACHE_FUSE_POLICY, DEFAULT_PAD_POLICY,
          G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
          GST_PARAM_MUTABLE_PLAYING));
  /**
   * GstRobocacheFusePad:max-age:
   *
   * Data further than this from the tick (ns) is stale; it also bounds how
   * long a tick waits for this pad when live.
   */
  g_object_class_install_property (gobject_class, PROP_PAD_MAX_AGE,
      g_param_spec_uint64 ("max-age", "Maximum age",
          "Data further than this from the tick (ns) is stale", 0, G_MAXUINT64,
          DEFAULT_PAD_MAX_AGE, G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
          GST_PARAM_MUTABLE_PLAYING));
  /**
   * GstRobocacheFusePad:master:
   *
   * With rate=0/1, one tick per buffer of this pad.  Read at every tick:
   * set while playing, the next tick is this pad's next buffer.
   */
  g_object_class_install_property (gobject_class, PROP_PAD_MASTER,
      g_param_spec_boolean ("master", "Master",
          "With rate=0/1: one tick per buffer of this pad", DEFAULT_PAD_MASTER,
          G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
          GST_PARAM_MUTABLE_PLAYING));
  /**
   * GstRobocacheFusePad:stats:
   *
   * Counts since start: buffers (accepted), dropped-bad-size (not the size
   * the caps give), dropped-out-of-order (earlier than the previous
   * buffer), dropped-duplicate (at the previous buffer's time).
   */
  gst_robocache_fields_install_stats (gobject_class, PROP_PAD_STATS,
      "Counts since start");
}

static void
gst_robocache_fuse_pad_init (GstRobocacheFusePad * pad)
{
  gst_robocache_fields_init (pad, fields);
  pad->prev_rt = GST_CLOCK_TIME_NONE;
  pad->last_rt = GST_CLOCK_TIME_NONE;
  pad->segment_done_seqnum = GST_SEQNUM_INVALID;
  pad->held = gst_queue_array_new_for_struct (sizeof (FuseHeldBuffer), 16);
  gst_queue_array_set_clear_func (pad->held, held_buffer_clear);
}

gchar *
gst_robocache_fuse_pad_stream_name (GstRobocacheFusePad * pad)
{
  gchar *name;

  GST_OBJECT_LOCK (pad);
  name = g_strdup (pad->stream_name ? pad->stream_name : GST_PAD_NAME (pad));
  GST_OBJECT_UNLOCK (pad);
  return name;
}

FusePadSettings
gst_robocache_fuse_pad_get_settings (GstRobocacheFusePad * pad)
{
  FusePadSettings settings;

  gst_robocache_fields_read_locked (pad, &pad->settings, &settings,
      sizeof (settings));
  return settings;
}

static StreamKind
kind_of_caps (const GstCaps * caps)
{
  const GstStructure *s = gst_caps_get_structure (caps, 0);

  if (gst_structure_has_name (s, GST_ROBOCACHE_VECTORS_MEDIA_TYPE))
    return KIND_VECTORS;
  if (gst_structure_has_name (s, GST_ROBOCACHE_POINTS_MEDIA_TYPE))
    return KIND_POINTS;
  if (gst_structure_has_name (s, GST_ROBOCACHE_VOXELS_MEDIA_TYPE))
    return KIND_VOXELS;
  if (gst_structure_has_name (s, GST_ROBOCACHE_SPARSE_MEDIA_TYPE))
    return KIND_SPARSE;
  if (gst_structure_has_name (s, "video/x-raw"))
    return KIND_VIDEO;
  return KIND_UNKNOWN;
}

/* The size of a vectors buffer: layout sample, one vector; chunk, a
 * non-zero whole number of samples of the batch. */
static void
set_vectors_size_rule (GstRobocacheFusePad * pad,
    const GstRobocacheVectorsInfo * v)
{
  gsize ss = gst_robocache_vectors_sample_size (v);

  pad->size_whole = v->layout == GST_ROBOCACHE_VECTORS_LAYOUT_CHUNK;
  pad->size_nonzero = TRUE;
  if (pad->size_whole) {
    pad->size_unit = v->batch * (sizeof (gint64) + ss);
    pad->size_rule = g_strdup_printf ("a non-zero whole number of samples of "
        "%" G_GSIZE_FORMAT " bytes (an int64 timestamp and the values, for "
        "each of the %u trajectories of the batch)", pad->size_unit, v->batch);
  } else {
    pad->size_unit = ss;
    pad->size_rule = g_strdup_printf ("exactly one vector of %" G_GSIZE_FORMAT
        " bytes (channels x value size)", ss);
  }
}

/* Sets the size every buffer of @pad must have under @caps of @kind (the
 * vectors ones already parsed into @vectors); FALSE with *error when the
 * caps do not give it. */
static gboolean
set_size_rule (GstRobocacheFusePad * pad, StreamKind kind, GstCaps * caps,
    const GstRobocacheVectorsInfo * vectors, GError ** error)
{
  rc_point_layout layout = { 0 };
  rc_voxel_grid grid;
  GstRobocacheSparseInfo sparse;
  GstVideoInfo video;
  gint step = 0;

  g_clear_pointer (&pad->size_rule, g_free);
  pad->size_unit = 0;
  pad->size_whole = pad->size_nonzero = FALSE;
  switch (kind) {
    case KIND_VECTORS:
      set_vectors_size_rule (pad, vectors);
      break;
    case KIND_POINTS:
      /* The template caps hold point-step in [1, 65535]. */
      gst_structure_get_int (gst_caps_get_structure (caps, 0), "point-step",
          &step);
      pad->size_unit = MAX (step, 0);
      pad->size_whole = TRUE;
      pad->size_rule = g_strdup_printf ("a whole number of points of %d "
          "bytes (point-step; none for an empty sweep)", step);
      break;
    case KIND_VOXELS:
      if (!gst_robocache_voxels_caps_parse (caps, &grid, &layout.n_features,
              error))
        return FALSE;
      pad->size_unit = rc_voxelize_output_size (&layout, &grid);
      pad->size_rule = g_strdup_printf ("exactly one grid of %" G_GSIZE_FORMAT
          " bytes", pad->size_unit);
      break;
    case KIND_SPARSE:
      if (!gst_robocache_sparse_caps_parse (caps, &sparse, error))
        return FALSE;
      pad->size_unit = sparse.size;
      pad->size_rule = g_strdup_printf ("exactly one sweep's sparse voxels "
          "of %" G_GSIZE_FORMAT " bytes (features, coordinates, points per "
          "voxel and the count, for max-voxels %u)", pad->size_unit,
          sparse.params.max_voxels);
      break;
    case KIND_VIDEO:
      if (!gst_video_info_from_caps (&video, caps)) {
        g_set_error (error, GST_STREAM_ERROR, GST_STREAM_ERROR_FORMAT,
            "video caps without a complete frame format");
        return FALSE;
      }
      pad->size_unit = GST_VIDEO_INFO_SIZE (&video);
      pad->size_rule = g_strdup_printf ("at least one frame of %"
          G_GSIZE_FORMAT " bytes (more with padded rows, as CUDA memory "
          "has), or less with a video meta whose planes fit", pad->size_unit);
      break;
    default:
      break;
  }
  return TRUE;
}

/* Takes @caps for the pad's stream; FALSE (with an element error on
 * @element) when they are not acceptable. */
gboolean
gst_robocache_fuse_pad_set_caps (GstRobocacheFusePad * pad,
    GstElement * element, GstCaps * caps)
{
  StreamKind kind = kind_of_caps (caps);
  GstRobocacheVectorsInfo vectors;
  GError *error = NULL;

  /* A pad carries one kind of stream for its whole life: a camera pad
   * turning into a joint-state pad is a wiring mistake, not a format
   * change. */
  if (pad->kind != KIND_UNKNOWN && kind != pad->kind) {
    GST_ELEMENT_ERROR (element, STREAM, FORMAT,
        ("mismatched caps on %s: %" GST_PTR_FORMAT " after %" GST_PTR_FORMAT
            "; a pad keeps the kind of stream it started with",
            GST_PAD_NAME (pad), caps, pad->caps), (NULL));
    return FALSE;
  }
  vectors = pad->vectors;
  if ((kind == KIND_VECTORS &&
          !gst_robocache_vectors_caps_parse (caps, &vectors, &error)) ||
      !set_size_rule (pad, kind, caps, &vectors, &error)) {
    GST_ELEMENT_ERROR (element, STREAM, FORMAT, ("%s: %s", GST_PAD_NAME (pad),
            error->message), (NULL));
    g_clear_error (&error);
    return FALSE;
  }
  /* The buffers arriving from now on are checked against the new caps;
   * those held came before them, and are read through the old ones. */
  gst_caps_replace (&pad->pending_caps, caps);
  pad->pending_kind = kind;
  pad->pending_vectors = vectors;
  if (gst_queue_array_is_empty (pad->held))
    gst_robocache_fuse_pad_apply_pending_caps (pad);
  return TRUE;
}

void
gst_robocache_fuse_pad_apply_pending_caps (GstRobocacheFusePad * pad)
{
  if (!pad->pending_caps)
    return;
  /* The buffer before the tick was made under the old caps: read through
   * the new ones (another channel count, format or point layout) it would
   * be garbage or read past its end.  The stream starts afresh with the
   * first buffer under the new caps. */
  if (pad->caps && !gst_caps_is_equal (pad->caps, pad->pending_caps)) {
    GST_INFO_OBJECT (pad, "caps changed: the buffer before the tick dropped");
    gst_clear_buffer (&pad->prev);
    pad->prev_rt = GST_CLOCK_TIME_NONE;
  }
  pad->kind = pad->pending_kind;
  pad->vectors = pad->pending_vectors;
  gst_caps_take (&pad->caps, pad->pending_caps);
  pad->pending_caps = NULL;
}

/* The running time of @buf on @pad; NONE without a PTS. */
GstClockTime
gst_robocache_fuse_pad_running_time (GstAggregatorPad * pad, GstBuffer * buf)
{
  if (!GST_BUFFER_PTS_IS_VALID (buf))
    return GST_CLOCK_TIME_NONE;
  return gst_segment_to_running_time (&pad->segment, GST_FORMAT_TIME,
      GST_BUFFER_PTS (buf));
}

GstBuffer *
gst_robocache_fuse_pad_peek (GstRobocacheFusePad * pad, GstClockTime * rt)
{
  FuseHeldBuffer *held = gst_queue_array_peek_head_struct (pad->held);
  GstAggregatorPad *aggpad = GST_AGGREGATOR_PAD (pad);
  GstBuffer *buf;

  if (held) {
    *rt = held->rt;
    return gst_buffer_ref (held->buf);
  }
  /* Every held buffer used: now the queue's, under the caps after them. */
  gst_robocache_fuse_pad_apply_pending_caps (pad);
  buf = gst_aggregator_pad_peek_buffer (aggpad);
  *rt = buf ? gst_robocache_fuse_pad_running_time (aggpad, buf) :
      GST_CLOCK_TIME_NONE;
  return buf;
}

GstBuffer *
gst_robocache_fuse_pad_pop (GstRobocacheFusePad * pad)
{
  FuseHeldBuffer *held = gst_queue_array_pop_head_struct (pad->held);

  return held ? held->buf :
      gst_aggregator_pad_pop_buffer (GST_AGGREGATOR_PAD (pad));
}

gboolean
gst_robocache_fuse_pad_ended (GstRobocacheFusePad * pad)
{
  return gst_queue_array_is_empty (pad->held) &&
      gst_aggregator_pad_is_eos (GST_AGGREGATOR_PAD (pad));
}

/* The running time of the aggregator's next queued buffer when it is one
 * to hold (at or before @horizon), else NONE. */
static GstClockTime
queued_to_hold (GstAggregatorPad * aggpad, GstClockTime horizon)
{
  GstBuffer *buf;
  GstClockTime rt;

  /* None past new caps, which apply only once the held buffers are used. */
  if (GST_ROBOCACHE_FUSE_PAD (aggpad)->pending_caps ||
      !(buf = gst_aggregator_pad_peek_buffer (aggpad)))
    return GST_CLOCK_TIME_NONE;
  rt = gst_robocache_fuse_pad_running_time (aggpad, buf);
  gst_buffer_unref (buf);
  return GST_CLOCK_TIME_IS_VALID (rt) && rt <= horizon ? rt :
      GST_CLOCK_TIME_NONE;
}

/* Beyond @horizon (a sensor stamping far ahead of the ticks) buffers stay
 * in the aggregator's queue, which bounds them; so does one without a
 * timestamp, for the timeline to refuse. */
void
gst_robocache_fuse_pad_hold (GstRobocacheFusePad * pad, GstClockTime horizon)
{
  GstAggregatorPad *aggpad = GST_AGGREGATOR_PAD (pad);
  GstClockTime rt;

  while (GST_CLOCK_TIME_IS_VALID (rt = queued_to_hold (aggpad, horizon))) {
    FuseHeldBuffer held = { gst_aggregator_pad_pop_buffer (aggpad), rt };

    if (!held.buf)
      break;
    gst_queue_array_push_tail_struct (pad->held, &held);
  }
}

gboolean
gst_robocache_fuse_pad_can_hold (GstRobocacheFusePad * pad,
    GstClockTime horizon)
{
  return GST_CLOCK_TIME_IS_VALID (queued_to_hold (GST_AGGREGATOR_PAD (pad),
          horizon));
}

/* With a video meta (strided or padded frames, e.g. CUDA memory), the
 * meta's planes must lie inside the buffer: each plane takes its stride
 * times its rows from its offset.  Computed here rather than with
 * gst_video_meta_get_plane_size, which (GStreamer 1.22) refuses strides
 * that are not a multiple of 4, as a ROS image's step often is (mono8
 * width 5; rgb8 1242 wide, step 3726). */
static gboolean
video_meta_fits (GstVideoMeta * meta, gsize size)
{
  const GstVideoFormatInfo *finfo = gst_video_format_get_info (meta->format);
  guint height = meta->height + meta->alignment.padding_top +
      meta->alignment.padding_bottom;

  if (!finfo || GST_VIDEO_FORMAT_INFO_IS_TILED (finfo) ||
      meta->n_planes > GST_VIDEO_MAX_PLANES)
    return FALSE;
  for (guint i = 0; i < meta->n_planes; i++) {
    gint comp[GST_VIDEO_MAX_COMPONENTS];
    guint64 rows;

    gst_video_format_info_component (finfo, i, comp);
    if (comp[0] < 0 || meta->stride[i] <= 0)
      return FALSE;
    rows = GST_VIDEO_FORMAT_INFO_SCALE_HEIGHT (finfo, comp[0], height);
    if ((guint64) meta->offset[i] + (guint64) meta->stride[i] * rows > size)
      return FALSE;
  }
  return TRUE;
}

gboolean
gst_robocache_fuse_pad_is_gap (GstBuffer * buf)
{
  return gst_buffer_get_size (buf) == 0 &&
      GST_BUFFER_FLAG_IS_SET (buf, GST_BUFFER_FLAG_GAP);
}

static gboolean
size_is_accepted (GstRobocacheFusePad * pad, GstBuffer * buf)
{
  gsize size = gst_buffer_get_size (buf);
  GstVideoMeta *meta;

  if (pad->size_unit == 0)
    return TRUE;
  /* Frames may be padded (a row pitch, as GStreamer's CUDA memory has):
   * at least the caps' frame, or smaller only with a video meta whose
   * planes fit. */
  if (pad->kind == KIND_VIDEO) {
    if (size >= pad->size_unit)
      return TRUE;
    meta = gst_buffer_get_video_meta (buf);
    return meta && video_meta_fits (meta, size);
  }
  if (!pad->size_whole)
    return size == pad->size_unit;
  return size % pad->size_unit == 0 && (size > 0 || !pad->size_nonzero);
}

/* The first drop of a kind on the pad is warned about; the warning waits
 * for the aggregate function, as the aggregator calls clip (and so
 * gst_robocache_fuse_pad_check_arrival) with the pad's lock held and
 * posting a message then could deadlock with a sink pad's chain. */
static void
warn_once (GstRobocacheFusePad * pad, gboolean * warned, gchar * text)
{
  if (*warned) {
    g_free (text);
    return;
  }
  *warned = TRUE;
  pad->pending_warnings = g_slist_append (pad->pending_warnings, text);
}

typedef enum
{
  ARRIVAL_OK,
  ARRIVAL_BAD_SIZE,
  ARRIVAL_BACKWARDS,
  ARRIVAL_DUPLICATE
} Arrival;

static void
warn_bad_size (GstRobocacheFusePad * pad, gsize size)
{
  GST_DEBUG_OBJECT (pad, "dropping a buffer of %" G_GSIZE_FORMAT " bytes",
      size);
  warn_once (pad, &pad->warned_size, g_strdup_printf ("%s: dropping a "
          "buffer of %" G_GSIZE_FORMAT " bytes: the pad takes %s",
          GST_PAD_NAME (pad), size, pad->size_rule));
}

static void
warn_out_of_order (GstRobocacheFusePad * pad, GstClockTime rt)
{
  const gchar *what = rt < pad->last_rt ? "earlier than" : "the same as";

  GST_DEBUG_OBJECT (pad, "dropping a buffer at %" GST_TIME_FORMAT ", %s %"
      GST_TIME_FORMAT, GST_TIME_ARGS (rt), what, GST_TIME_ARGS (pad->last_rt));
  warn_once (pad, &pad->warned_order, g_strdup_printf ("%s: dropping a "
          "buffer at %" GST_TIME_FORMAT " (running time): %s the previous "
          "buffer's (%" GST_TIME_FORMAT "); a pad's buffers must come in "
          "strictly increasing time order", GST_PAD_NAME (pad),
          GST_TIME_ARGS (rt), what, GST_TIME_ARGS (pad->last_rt)));
}

/* The aggregator's clip: @buf back when it may be fused, else NULL, after
 * counting and (once per pad and kind) warning: a buffer of the wrong
 * size for the caps, or one not after the previous buffer, never reaches
 * a tick. */
GstBuffer *
gst_robocache_fuse_pad_check_arrival (GstRobocacheFusePad * pad,
    GstBuffer * buf)
{
  GstClockTime rt =
      gst_robocache_fuse_pad_running_time (GST_AGGREGATOR_PAD (pad), buf);
  Arrival arrival = ARRIVAL_OK;

  /* A gap is no sample: it may start at the last one (a recording's
   * topic at the end of a segment seek's pass). */
  if (gst_robocache_fuse_pad_is_gap (buf))
    return buf;
  if (!size_is_accepted (pad, buf))
    arrival = ARRIVAL_BAD_SIZE;
  /* One without a timestamp goes on to the error a tick gives it. */
  else if (GST_CLOCK_TIME_IS_VALID (rt) &&
      GST_CLOCK_TIME_IS_VALID (pad->last_rt) && rt <= pad->last_rt)
    arrival = rt < pad->last_rt ? ARRIVAL_BACKWARDS : ARRIVAL_DUPLICATE;

  GST_OBJECT_LOCK (pad);
  pad->stats.buffers += arrival == ARRIVAL_OK;
  pad->stats.dropped_bad_size += arrival == ARRIVAL_BAD_SIZE;
  pad->stats.dropped_out_of_order += arrival == ARRIVAL_BACKWARDS;
  pad->stats.dropped_duplicate += arrival == ARRIVAL_DUPLICATE;
  GST_OBJECT_UNLOCK (pad);

  if (arrival == ARRIVAL_OK) {
    if (GST_CLOCK_TIME_IS_VALID (rt))
      pad->last_rt = rt;
    return buf;
  }
  if (arrival == ARRIVAL_BAD_SIZE)
    warn_bad_size (pad, gst_buffer_get_size (buf));
  else
    warn_out_of_order (pad, rt);
  gst_buffer_unref (buf);
  return NULL;
}

/* Posts the warnings of gst_robocache_fuse_pad_check_arrival: from the
 * aggregate function, without locks. */
void
gst_robocache_fuse_pad_post_warnings (GstRobocacheFusePad * pad,
    GstElement * element)
{
  GSList *texts = pad->pending_warnings;

  pad->pending_warnings = NULL;
  for (GSList * l = texts; l; l = l->next)
    GST_ELEMENT_WARNING (element, STREAM, FORMAT, ("%s", (gchar *) l->data),
        ("further such buffers on the pad are dropped and counted in its "
            "stats property without a warning"));
  g_slist_free_full (texts, g_free);
}

void
gst_robocache_fuse_pad_reset_stats (GstRobocacheFusePad * pad)
{
  GST_OBJECT_LOCK (pad);
  memset (&pad->stats, 0, sizeof (pad->stats));
  GST_OBJECT_UNLOCK (pad);
  pad->warned_size = pad->warned_order = FALSE;
  g_slist_free_full (pad->pending_warnings, g_free);
  pad->pending_warnings = NULL;
}

FusePadStats
gst_robocache_fuse_pad_get_stats (GstRobocacheFusePad * pad)
{
  FusePadStats stats;

  gst_robocache_fields_read_locked (pad, &pad->stats, &stats, sizeof (stats));
  return stats;
}

/* A vector stream of single samples that the flat output and interpolation
 * take. */
gboolean
gst_robocache_fuse_pad_is_flat_vector (GstRobocacheFusePad * pad)
{
  return pad->kind == KIND_VECTORS &&
      pad->vectors.layout == GST_ROBOCACHE_VECTORS_LAYOUT_SAMPLE &&
      pad->vectors.type != RC_TYPE_BFLOAT16;
}

guint64
gst_robocache_fuse_pad_frame_bytes (GstRobocacheFusePad * pad)
{
  /* The newest caps: those of the held buffers are used up first. */
  const GstRobocacheVectorsInfo *v = pad->pending_caps ?
      &pad->pending_vectors : &pad->vectors;
  StreamKind kind = pad->pending_caps ? pad->pending_kind : pad->kind;

  if (kind != KIND_VECTORS)
    return 0;
  /* The two samples copied, the one interpolated, the flat float32. */
  return 3 * gst_robocache_vectors_sample_size (v) +
      (guint64) v->channels * sizeof (float);
}

/* A kept copy whose fused frames are all gone (the pad's own reference
 * the last, so nothing reads it any more), else a new one: kept while
 * there are fewer than FUSE_PAD_MAX_COPIES, so that steady state
 * allocates nothing, and beyond that made for this frame alone, so that
 * frames held downstream never grow the set without bound. */
GstMemory *
gst_robocache_fuse_pad_copy_target (GstRobocacheFusePad * pad,
    GstRobocacheGpu * gpu, GstElement * element, gsize size)
{
  GstMemory *mem;
  guint kept;
  gchar *what;
  gboolean fits;

  if (!pad->copies)
    pad->copies = g_ptr_array_new_with_free_func ((GDestroyNotify)
        gst_memory_unref);
  /* Those of another size are the old caps': dropped (frames downstream
   * still hold theirs). */
  if (size != pad->copy_size) {
    g_ptr_array_set_size (pad->copies, 0);
    pad->copy_size = size;
  }
  for (guint i = 0; i < pad->copies->len; i++) {
    mem = g_ptr_array_index (pad->copies, i);
    if (GST_MINI_OBJECT_REFCOUNT_VALUE (mem) == 1)
      return gst_memory_ref (mem);
  }

  kept = pad->copies->len;
  what = g_strdup_printf ("%u copies of %s's buffers on the element's "
      "device", kept + 1, GST_PAD_NAME (pad));
  fits = gst_robocache_gpu_check_memory (gpu, element,
      GST_ROBOCACHE_MEMORY_DEVICE, gst_robocache_memory_mul (kept + 1, size),
      what, "the stream's buffers (its caps)");
  g_free (what);
  if (!fits)
    return NULL;
  mem = gst_allocator_alloc (gpu->allocator, size, NULL);
  if (!mem) {
    GST_ELEMENT_ERROR (element, RESOURCE, NO_SPACE_LEFT,
        ("cannot allocate %" G_GSIZE_FORMAT " bytes of device memory for "
            "the copy of %s's buffer on the element's device", size,
            GST_PAD_NAME (pad)), (NULL));
    return NULL;
  }
  if (kept < FUSE_PAD_MAX_COPIES) {
    g_ptr_array_add (pad->copies, gst_memory_ref (mem));
    return mem;
  }
  pad->copies_unkept++;
  GST_INFO_OBJECT (pad, "all %u copies held downstream: one more not kept "
      "(%" G_GUINT64_FORMAT " so far)", kept, pad->copies_unkept);
  return mem;
}

/* The copies go; those still in fused frames when the frames go. */
void
gst_robocache_fuse_pad_free_copies (GstRobocacheFusePad * pad)
{
  g_clear_pointer (&pad->copies, g_ptr_array_unref);
  pad->copy_size = 0;
  pad->copies_unkept = 0;
}

/* Vectors at @tick between @prev and @next, by the resampling kernel. */
static GstMemory *
interpolate_vectors (GstElement * element, GstRobocacheFusePad * pad,
    GstBuffer * next, GstClockTime next_rt, GstClockTime tick)
{
  const GstRobocacheVectorsInfo *info = &pad->vectors;
  gsize size = gst_robocache_vectors_sample_size (info);
  rc_resample_params params = { 0 };
  GstMapInfo a, b, out;
  GstMemory *mem;
  int64_t times[2] = { (int64_t) pad->prev_rt, (int64_t) next_rt };
  int64_t target = (int64_t) tick;
  rc_status ret;

  if (!gst_buffer_map (pad->prev, &a, GST_MAP_READ))
    return NULL;
  if (!gst_buffer_map (next, &b, GST_MAP_READ)) {
    gst_buffer_unmap (pad->prev, &a);
    return NULL;
  }
  if (a.size != size || b.size != size) {
    gst_buffer_unmap (pad->prev, &a);
    gst_buffer_unmap (next, &b);
    return NULL;
  }
  if (pad->blend_size < 2 * size) {
    pad->blend = g_realloc (pad->blend, 2 * size);
    pad->blend_size = 2 * size;
  }
  memcpy (pad->blend, a.data, size);
  memcpy (pad->blend + size, b.data, size);
  gst_buffer_unmap (pad->prev, &a);
  gst_buffer_unmap (next, &b);

  params.batch = 1;
  params.n_source = 2;
  params.n_target = 1;
  params.channels = info->channels;
  params.type = info->type;
  params.method = RC_INTERP_LINEAR;
  params.edge = RC_EDGE_HOLD;
  params.n_quaternions = info->n_quaternions;
  memcpy (params.quaternion_first, info->quaternion_first,
      sizeof (params.quaternion_first));
  params.n_angle_ranges = info->n_angle_ranges;
  memcpy (params.angle_ranges, info->angle_ranges,
      sizeof (params.angle_ranges));

  mem = gst_allocator_alloc (NULL, size, NULL);
  gst_memory_map (mem, &out, GST_MAP_WRITE);
  ret = rc_resample_cpu (&params, times, pad->blend, &target, out.data);
  gst_memory_unmap (mem, &out);
  if (ret != RC_OK) {
    GST_WARNING_OBJECT (element, "interpolation on %s failed: %s",
        GST_PAD_NAME (pad), rc_status_message (ret));
    gst_memory_unref (mem);
    return NULL;
  }
  return mem;
}

/* The policy @pad applies: auto resolved by the kind of stream. */
static FusePolicy
effective_policy (GstRobocacheFusePad * pad, FusePolicy policy)
{
  if (policy == FUSE_POLICY_AUTO)
    policy = pad->kind == KIND_VECTORS ? FUSE_POLICY_INTERPOLATE :
        FUSE_POLICY_PREVIOUS;
  /* Only vector samples are ever interpolated. */
  if (policy == FUSE_POLICY_INTERPOLATE &&
      !gst_robocache_fuse_pad_is_flat_vector (pad))
    policy = FUSE_POLICY_NEAREST;
  return policy;
}

/* The queued buffer after @tick with its running time, or NULL. */
static GstBuffer *
peek_next (GstRobocacheFusePad * pad, GstClockTime tick, GstClockTime * next_rt)
{
  GstBuffer *next = gst_robocache_fuse_pad_peek (pad, next_rt);

  /* A buffer that arrived since the pad was advanced may be at or before
   * the tick: it is not the sample after it; nor is a gap. */
  if (next && (!GST_CLOCK_TIME_IS_VALID (*next_rt) || *next_rt <= tick ||
          gst_robocache_fuse_pad_is_gap (next))) {
    gst_clear_buffer (&next);
    *next_rt = GST_CLOCK_TIME_NONE;
  }
  return next;
}

/* The vector at @tick between pad->prev and @next, or NULL.  The stream's
 * pts and *chosen_rt are the nearer neighbour's (its offset), *farthest_rt
 * the farther's: it decides whether the interpolation is stale. */
static GstMemory *
interpolate_at_tick (GstElement * element, GstRobocacheFusePad * pad,
    GstBuffer * next, GstClockTime next_rt, GstClockTime tick,
    GstRobocacheFusedStream * stream, GstClockTime * chosen_rt,
    GstClockTime * farthest_rt)
{
  GstMemory *mem = interpolate_vectors (element, pad, next, next_rt, tick);
  gboolean prev_nearer = tick - pad->prev_rt <= next_rt - tick;

  if (!mem)
    return NULL;
  stream->interpolated = TRUE;
  *chosen_rt = prev_nearer ? pad->prev_rt : next_rt;
  *farthest_rt = prev_nearer ? next_rt : pad->prev_rt;
  stream->pts = GST_BUFFER_PTS (prev_nearer ? pad->prev : next);
  return mem;
}

/* The memory of the buffer nearest to @tick (policy previous: of the one
 * at or before it), or NULL when there is none. */
static GstMemory *
take_buffer_at_tick (GstRobocacheFusePad * pad, FusePolicy policy,
    GstBuffer * next, GstClockTime next_rt, GstClockTime tick,
    GstRobocacheFusedStream * stream, GstClockTime * chosen_rt)
{
  gboolean take_next = FALSE;
  GstBuffer *chosen;

  if (policy != FUSE_POLICY_PREVIOUS && next)
    take_next = !pad->prev || next_rt - tick < tick - pad->prev_rt;
  chosen = take_next ? next : pad->prev;
  *chosen_rt = take_next ? next_rt : pad->prev_rt;
  if (!chosen)
    return NULL;
  stream->pts = GST_BUFFER_PTS (chosen);
  /* One memory per stream; a single memory is a reference, not a copy. */
  return gst_buffer_get_all_memory (chosen);
}

/* Fills @stream with what @pad says at @tick under its policy and returns
 * the stream's memory, or NULL when it has no data. */
GstMemory *
gst_robocache_fuse_pad_sample (GstRobocacheFusePad * pad, GstElement * element,
    GstClockTime tick, GstRobocacheFusedStream * stream)
{
  GstClockTime next_rt, chosen_rt = GST_CLOCK_TIME_NONE, farthest_rt;
  GstBuffer *next = peek_next (pad, tick, &next_rt);
  FusePadSettings settings = gst_robocache_fuse_pad_get_settings (pad);
  FusePolicy policy = effective_policy (pad, settings.policy);
  GstMemory *mem = NULL;

  stream->name = gst_robocache_fuse_pad_stream_name (pad);
  stream->caps = pad->caps ? gst_caps_ref (pad->caps) : NULL;
  if (policy == FUSE_POLICY_INTERPOLATE && pad->prev && next &&
      pad->prev_rt != tick)
    mem = interpolate_at_tick (element, pad, next, next_rt, tick, stream,
        &chosen_rt, &farthest_rt);
  if (!mem) {
    mem = take_buffer_at_tick (pad, policy, next, next_rt, tick, stream,
        &chosen_rt);
    farthest_rt = chosen_rt;
  }
  if (GST_CLOCK_TIME_IS_VALID (chosen_rt))
    stream->offset = GST_CLOCK_DIFF (tick, chosen_rt);
  stream->stale = !mem || !GST_CLOCK_TIME_IS_VALID (farthest_rt) ||
      (guint64) ABS (GST_CLOCK_DIFF (tick, farthest_rt)) > settings.max_age;
  if (next)
    gst_buffer_unref (next);
  return mem;
}
