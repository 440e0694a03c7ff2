/**
 * SECTION:element-robocacheresample
 * @title: robocacheresample
 *
 * Resamples timestamped vectors (other/x-robocache-vectors), such as joint
 * states arriving with jitter, onto a regular time grid of
 * #GstRobocacheResample:rate samples per second, with linear, nearest,
 * previous-sample or cubic interpolation.  Unit quaternion channels are
 * slerped and angle channels are interpolated the short way round; which
 * channels those are comes from the caps' quaternions and angles fields,
 * or from the properties of the same names when the caps carry none.
 * Runs on the GPU or on the CPU (#GstRobocacheResample:backend) with the
 * same times and the same values to within the kernels' rounding (a few
 * float32 units in the last place; nearest and previous are identical).
 * Either pad takes system or CUDA memory (CUDA out only when computing on
 * the GPU).  Single samples are small and go through host memory.  A chunk
 * in CUDA memory of the element's own context (the allocator it proposes)
 * stays on the GPU when computing there: only its timestamps are read
 * back, to be checked and put on the grid.
 *
 * Grid time k is origin + k / rate, computed afresh for every k (no drift),
 * in running time; the origin is the first sample's running time or 0
 * (#GstRobocacheResample:time-origin).  An output's duration is the time to
 * the next grid time.
 *
 * With layout "sample" in (one vector per buffer, the PTS its time), the
 * element keeps the last few samples and, when a sample arrives, produces
 * every grid time up to it (cubic waits for one more sample, as it needs a
 * neighbour on each side).  Nothing is extrapolated: grid times before the
 * first sample are not produced, and at EOS the last output is the last
 * grid time at or before the last sample.
 *
 * Gap policy: when two consecutive samples are more than
 * #GstRobocacheResample:max-gap apart, the grid times between them are not
 * interpolated: no buffer is produced for them and a GAP event covering
 * them is pushed instead (counted as "gaps" in the stats).
 *
 * A sample whose time is not after the last accepted one is dropped,
 * counted ("dropped-out-of-order") and warned about once.  A buffer whose
 * size does not match the caps (layout sample: not exactly one vector;
 * layout chunk: not a whole number of samples) is dropped, counted
 * ("dropped-bad-size") and warned about once.  A DISCONT buffer, a new
 * segment, a GAP event or a flush starts the history afresh (a flush
 * discards what was pending; the others first produce it).  A GAP event
 * that ends within max-gap of the last sample (the recording sources
 * send them for a topic that fell behind) is dropped instead.  With
 * time-origin=first-sample the grid then realigns to the next sample.
 *
 * With #GstRobocacheResample:samples-per-buffer above 1 the output is in
 * layout "chunk" (an int64 timestamp block, then the values), N grid times
 * per buffer; a shorter chunk is pushed before a gap, a discontinuity and
 * EOS.  The chunk being filled, with those in flight (samples-per-buffer
 * x (8 + the vector's size) each), must fit in max-memory; larger settings
 * are refused at negotiation.
 *
 * With layout "chunk" in, every buffer (batch trajectories of S samples,
 * their timestamps in buffer time like a PTS) is resampled in one kernel
 * call and comes out as one chunk with the same batch, holding the grid
 * times not yet produced up to the earliest of its trajectories' last
 * samples (with cubic, their last but one: the last interval needs the
 * sample after it), the grid times every trajectory already decides.  The
 * later ones wait for the next chunk: each trajectory keeps its samples
 * from the one at or before that cut (cubic: and the one before it), so
 * that the grid times between two chunks are interpolated too and the
 * outputs do not depend on where a recording was cut into chunks.  EOS, a
 * DISCONT chunk, a new segment, a GAP event, or a next chunk more than
 * max-gap after a trajectory's last sample (then a GAP event, as above)
 * or overlapping it in time first produce the remaining grid times up to
 * the latest sample kept, in a chunk of their own: a trajectory that ended
 * earlier holds its last value there.  The grid starts at the batch's
 * first sample: a trajectory that starts later holds its first value
 * until its own (the kernel's hold edge).  A chunk sample whose time
 * cannot be placed on the grid (a negative buffer time, or 2^62 ns and
 * beyond, such as INT64_MAX) is dropped, counted ("dropped-off-grid") and
 * warned about once; the rest of its trajectory is resampled, unless none
 * is left, which drops the chunk.  Inside a chunk, max-gap does not
 * apply.  The samples kept count in max-memory too (at negotiation, one
 * per trajectory, batch x (8 + the vector's size): larger caps are
 * refused); a trajectory far ahead of another keeps at most a chunk's
 * worth and two more, the cut then moving on, the trajectories behind
 * holding their last value up to it.
 *
 * Latency: upstream's plus max-gap (twice max-gap with cubic), the longest
 * the element waits for the sample that lets it produce an output.
 *
 * ## Example launch line
 * |[
 * gst-launch-1.0 robocachejointsrc num-buffers=100 quaternion=true ! \
 *     robocacheresample rate=50 method=cubic ! fakesink silent=false -v
 * ]|
 */
/* The element on GstRobocacheBaseTransform, which owns the GPU side.  An
 * input gives any number of outputs and GAP events: submit_input_buffer
 * runs the live or chunk path, which pushes them on the source pad itself
 * (as videorate pushes its extra buffers); generate_output has nothing
 * left to give.  Caps, accept-caps and allocation are answered here as
 * the element always has, the base's renegotiation never runs. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstrobocacheresampleprivate.h"
#include "gstrobocacheelements.h"
#include "gstrobocachefields.h"

#include <string.h>

GST_DEBUG_CATEGORY (gst_robocache_resample_debug);
#define GST_CAT_DEFAULT gst_robocache_resample_debug

#define DEFAULT_RATE_N 100
#define DEFAULT_RATE_D 1
#define DEFAULT_METHOD RC_INTERP_LINEAR
#define DEFAULT_QUATERNIONS NULL
#define DEFAULT_ANGLES NULL
#define DEFAULT_MAX_GAP (100 * GST_MSECOND)
#define DEFAULT_TIME_ORIGIN GST_ROBOCACHE_RESAMPLE_ORIGIN_FIRST_SAMPLE
#define DEFAULT_SAMPLES_PER_BUFFER 1
#define MAX_SAMPLES_PER_BUFFER (1 << 20)

/* max-gap beyond this adds no more latency (it would overflow). */
#define MAX_LATENCY_GAP (24 * 3600 * GST_SECOND)

enum
{
  PROP_0,
  PROP_RATE,
  PROP_METHOD,
  PROP_QUATERNIONS,
  PROP_ANGLES,
  PROP_MAX_GAP,
  PROP_TIME_ORIGIN,
  PROP_SAMPLES_PER_BUFFER,
  PROP_STATS
};

#define gst_robocache_resample_parent_class parent_class
G_DEFINE_TYPE (GstRobocacheResample, gst_robocache_resample,
    GST_TYPE_ROBOCACHE_BASE_TRANSFORM);
GST_ELEMENT_REGISTER_DEFINE_WITH_CODE (robocacheresample, "robocacheresample",
    GST_RANK_NONE, GST_TYPE_ROBOCACHE_RESAMPLE,
    GST_DEBUG_CATEGORY_INIT (gst_robocache_resample_debug,
        "robocacheresample", 0, "robocache resampling"));

/* *INDENT-OFF* */
G_DEFINE_ENUM_TYPE (GstRobocacheResampleMethod, gst_robocache_resample_method,
    {RC_INTERP_LINEAR, "Straight line between the two neighbours "
          "(quaternions: slerp)", "linear"},
    {RC_INTERP_NEAREST, "The closer sample (the later on a tie)", "nearest"},
    {RC_INTERP_PREVIOUS, "The last sample at or before the grid time",
        "previous"},
    {RC_INTERP_CUBIC, "Cubic Hermite with Catmull-Rom tangents (one sample "
          "more of latency)", "cubic"});

G_DEFINE_ENUM_TYPE (GstRobocacheResampleTimeOrigin,
    gst_robocache_resample_time_origin,
    {GST_ROBOCACHE_RESAMPLE_ORIGIN_FIRST_SAMPLE, "The first sample's "
          "running time", "first-sample"},
    {GST_ROBOCACHE_RESAMPLE_ORIGIN_ZERO, "Running time 0", "zero"});
/* *INDENT-ON* */

/* ------------------------------------------------------------------ */
/* Properties                                                          */
/* ------------------------------------------------------------------ */

static GstStructure *
totals_to_structure (const Totals * t)
{
  return gst_structure_new ("robocacheresample-stats",
      "inputs", G_TYPE_UINT64, t->inputs,
      "outputs", G_TYPE_UINT64, t->outputs,
      "dropped-out-of-order", G_TYPE_UINT64, t->dropped_out_of_order,
      "dropped-bad-size", G_TYPE_UINT64, t->dropped_bad_size,
      "dropped-off-grid", G_TYPE_UINT64, t->dropped_off_grid,
      "gaps", G_TYPE_UINT64, t->gaps,
      "small-on-cpu", G_TYPE_UINT64, t->small_on_cpu, NULL);
}

static void
get_stats (GObject * object, GValue * value)
{
  g_value_take_boxed (value,
      totals_to_structure (&GST_ROBOCACHE_RESAMPLE (object)->totals));
}

static const GstRobocacheField fields[] = {
  GST_ROBOCACHE_FIELD_FRACTION (PROP_RATE, GstRobocacheResample,
      settings.rate_n, settings.rate_d),
  GST_ROBOCACHE_FIELD (PROP_METHOD, GstRobocacheResample, settings.method),
  GST_ROBOCACHE_FIELD (PROP_QUATERNIONS, GstRobocacheResample,
      settings.quaternions),
  GST_ROBOCACHE_FIELD (PROP_ANGLES, GstRobocacheResample, settings.angles),
  GST_ROBOCACHE_FIELD (PROP_MAX_GAP, GstRobocacheResample, settings.max_gap),
  GST_ROBOCACHE_FIELD (PROP_TIME_ORIGIN, GstRobocacheResample,
      settings.time_origin),
  GST_ROBOCACHE_FIELD (PROP_SAMPLES_PER_BUFFER, GstRobocacheResample,
      settings.samples_per_buffer),
  GST_ROBOCACHE_FIELD_GETTER (PROP_STATS, get_stats),
  {0}
};


/* ------------------------------------------------------------------ */
/* Data, events and queries                                            */
/* ------------------------------------------------------------------ */

static GstFlowReturn
gst_robocache_resample_submit_input_buffer (GstBaseTransform * trans,
    gboolean is_discont, GstBuffer * buf)
{
  GstRobocacheResample *self = GST_ROBOCACHE_RESAMPLE (trans);
  State *st = &self->state;
  GstFlowReturn flow;

  if (!st->configured) {
    gst_buffer_unref (buf);
    /* Refused caps have had their error already. */
    if (!st->refused_caps)
      GST_ELEMENT_ERROR (self, CORE, NEGOTIATION,
          ("a buffer came before any accepted caps"),
          ("the sink caps must be fixed " GST_ROBOCACHE_VECTORS_MEDIA_TYPE));
    return GST_FLOW_NOT_NEGOTIATED;
  }
  if (st->in_info.layout == GST_ROBOCACHE_VECTORS_LAYOUT_CHUNK)
    flow = resample_process_chunk (self, buf);
  else
    flow = resample_process_sample (self, buf);
  gst_buffer_unref (buf);
  return flow;
}

/* Every output has been pushed by submit_input_buffer. */
static GstFlowReturn
gst_robocache_resample_generate_output (GstBaseTransform * trans,
    GstBuffer ** outbuf)
{
  *outbuf = NULL;
  return GST_FLOW_OK;
}

static gboolean
gst_robocache_resample_sink_event (GstBaseTransform * trans, GstEvent * event)
{
  GstRobocacheResample *self = GST_ROBOCACHE_RESAMPLE (trans);
  State *st = &self->state;

  /* A chunk output still on the GPU keeps its place before the event;
   * a flush drops it. */
  if (GST_EVENT_TYPE (event) == GST_EVENT_FLUSH_STOP) {
    resample_finish_chunk (self, FALSE);
    st->defer_known = FALSE;
  } else if (GST_EVENT_IS_SERIALIZED (event)) {
    resample_finish_chunk (self, TRUE);
  }
  switch (GST_EVENT_TYPE (event)) {
    case GST_EVENT_CAPS:{
      GstCaps *caps;
      gboolean ret;

      /* Negotiated here, not by the base: the output caps follow from
       * the input and the properties, and a refusal says why. */
      gst_event_parse_caps (event, &caps);
      ret = resample_set_caps (self, caps);
      gst_event_unref (event);
      return ret;
    }
    case GST_EVENT_SEGMENT:{
      const GstSegment *segment;

      gst_event_parse_segment (event, &segment);
      if (segment->format != GST_FORMAT_TIME) {
        GST_ELEMENT_ERROR (self, STREAM, FORMAT,
            ("a %s segment: only TIME segments are accepted",
                gst_format_get_name (segment->format)), (NULL));
        gst_event_unref (event);
        return FALSE;
      }
      resample_drain (self);
      gst_segment_copy_into (segment, &st->segment);
      resample_reset_timing (st);
      break;
    }
    case GST_EVENT_GAP:{
      GstClockTime start, duration, end;

      /* A GAP that ends within max-gap of the last sample (a recording
       * source's, for a topic half a second behind) is no gap here: the
       * next sample decides by max-gap, as without the event. */
      gst_event_parse_gap (event, &start, &duration);
      end = gst_segment_to_running_time (&st->segment, GST_FORMAT_TIME, start);
      if (GST_CLOCK_TIME_IS_VALID (end) && GST_CLOCK_TIME_IS_VALID (duration))
        end += duration;
      if (st->have_last && GST_CLOCK_TIME_IS_VALID (end)
          && end <= st->last_t + st->max_gap) {
        gst_event_unref (event);
        return TRUE;
      }
      resample_drain (self);
      resample_reset_history (st);
      break;
    }
    case GST_EVENT_EOS:
      resample_drain (self);
      resample_reset_history (st);
      break;
    case GST_EVENT_FLUSH_STOP:
      gst_segment_init (&st->segment, GST_FORMAT_TIME);
      resample_reset_timing (st);
      break;
    default:
      break;
  }
  return GST_BASE_TRANSFORM_CLASS (parent_class)->sink_event (trans, event);
}

/* Upstream's latency plus the wait for the sample after an output, at
 * most max-gap away (cubic: one more). */
static gboolean
answer_latency_query (GstRobocacheResample * self, GstQuery * query)
{
  GstClockTime min, max, gap;
  gboolean live;

  if (!gst_pad_peer_query (GST_BASE_TRANSFORM_SINK_PAD (self), query))
    return FALSE;
  gst_query_parse_latency (query, &live, &min, &max);
  GST_OBJECT_LOCK (self);
  gap = MIN (self->settings.max_gap, MAX_LATENCY_GAP);
  if (self->settings.method == RC_INTERP_CUBIC)
    gap *= 2;
  GST_OBJECT_UNLOCK (self);
  min += gap;
  if (GST_CLOCK_TIME_IS_VALID (max))
    max += gap;
  GST_DEBUG_OBJECT (self, "latency %" GST_TIME_FORMAT " - %"
      GST_TIME_FORMAT, GST_TIME_ARGS (min), GST_TIME_ARGS (max));
  gst_query_set_latency (query, live, min, max);
  return TRUE;
}

/* A CAPS query on the @direction pad: what the peer of the other pad can
 * take, transformed across the element. */
static void
answer_caps_query (GstBaseTransform * trans, GstPadDirection direction,
    GstQuery * query)
{
  gboolean on_sink = direction == GST_PAD_SINK;
  GstCaps *filter, *peer, *caps;

  gst_query_parse_caps (query, &filter);
  peer = gst_pad_peer_query_caps (on_sink ? GST_BASE_TRANSFORM_SRC_PAD (trans)
      : GST_BASE_TRANSFORM_SINK_PAD (trans), NULL);
  caps = resample_transform_caps (trans,
      on_sink ? GST_PAD_SRC : GST_PAD_SINK, peer, filter);
  gst_caps_unref (peer);
  gst_query_set_caps_result (query, caps);
  gst_caps_unref (caps);
}

static gboolean
gst_robocache_resample_query (GstBaseTransform * trans,
    GstPadDirection direction, GstQuery * query)
{
  gboolean on_sink = direction == GST_PAD_SINK;
  GstCaps *caps;

  switch (GST_QUERY_TYPE (query)) {
    case GST_QUERY_CAPS:
      answer_caps_query (trans, direction, query);
      return TRUE;
    case GST_QUERY_ACCEPT_CAPS:
      /* Sink: any vectors caps reach the CAPS event, which says precisely
       * what is wrong with them, rather than a bare not-negotiated.  Src:
       * the pad's default, against what the element can give now. */
      if (!on_sink)
        return gst_pad_query_default (GST_BASE_TRANSFORM_SRC_PAD (trans),
            GST_OBJECT (trans), query);
      gst_query_parse_accept_caps (query, &caps);
      gst_query_set_accept_caps_result (query, gst_caps_is_fixed (caps) &&
          gst_structure_has_name (gst_caps_get_structure (caps, 0),
              GST_ROBOCACHE_VECTORS_MEDIA_TYPE));
      return TRUE;
    case GST_QUERY_ALLOCATION:
      /* Straight to the base's proposal: the base's own handling would
       * first renegotiate the output its way. */
      if (on_sink)
        return GST_BASE_TRANSFORM_CLASS (parent_class)->propose_allocation
            (trans, NULL, query);
      break;
    case GST_QUERY_LATENCY:
      if (!on_sink)
        return answer_latency_query (GST_ROBOCACHE_RESAMPLE (trans), query);
      break;
    case GST_QUERY_DRAIN:
      if (on_sink)
        resample_finish_chunk (GST_ROBOCACHE_RESAMPLE (trans), TRUE);
      break;
    case GST_QUERY_POSITION:
      /* Outputs bypass the base, which knows no position: upstream's. */
      return gst_pad_peer_query (on_sink ? GST_BASE_TRANSFORM_SRC_PAD (trans)
          : GST_BASE_TRANSFORM_SINK_PAD (trans), query);
    default:
      break;
  }
  return GST_BASE_TRANSFORM_CLASS (parent_class)->query (trans, direction,
      query);
}

/* ------------------------------------------------------------------ */
/* Start, stop                                                         */
/* ------------------------------------------------------------------ */

static gboolean
gst_robocache_resample_start (GstBaseTransform * trans)
{
  GstRobocacheResample *self = GST_ROBOCACHE_RESAMPLE (trans);
  State *st = &self->state;

  if (!GST_BASE_TRANSFORM_CLASS (parent_class)->start (trans))
    return FALSE;
  GST_OBJECT_LOCK (self);
  memset (&self->totals, 0, sizeof (self->totals));
  st->backend_auto = st->gpu->backend == GST_ROBOCACHE_BACKEND_AUTO;
  GST_OBJECT_UNLOCK (self);
  gst_segment_init (&st->segment, GST_FORMAT_TIME);
  resample_reset_timing (st);
  st->warned_order = FALSE;
  st->warned_size = FALSE;
  st->warned_off_grid = FALSE;
  return TRUE;
}

static gboolean
gst_robocache_resample_stop (GstBaseTransform * trans)
{
  GstRobocacheResample *self = GST_ROBOCACHE_RESAMPLE (trans);
  State *st = &self->state;
  GstRobocacheGpu *gpu = st->gpu;

  /* Before the base closes the GPU side, which the wait needs. */
  resample_finish_chunk (self, FALSE);
  /* The base frees the GPU scratch; the host side is the element's. */
  GST_BASE_TRANSFORM_CLASS (parent_class)->stop (trans);
  resample_free_buffers (st);
  gst_clear_caps (&st->refused_caps);
  memset (st, 0, sizeof (*st));
  st->gpu = gpu;
  return TRUE;
}

/* ------------------------------------------------------------------ */
/* GObject                                                             */
/* ------------------------------------------------------------------ */

static void
gst_robocache_resample_finalize (GObject * object)
{
  GstRobocacheResample *self = GST_ROBOCACHE_RESAMPLE (object);

  g_free (self->settings.quaternions);
  g_free (self->settings.angles);
  resample_free_buffers (&self->state);
  gst_clear_caps (&self->state.refused_caps);
  G_OBJECT_CLASS (parent_class)->finalize (object);
}

static void
gst_robocache_resample_class_init (GstRobocacheResampleClass * klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  GstElementClass *element_class = GST_ELEMENT_CLASS (klass);
  GstBaseTransformClass *trans_class = GST_BASE_TRANSFORM_CLASS (klass);

  gst_robocache_fields_class_init (gobject_class, fields);
  gobject_class->finalize = gst_robocache_resample_finalize;

  /**
   * GstRobocacheResample:rate:
   *
   * Output samples per second: grid time k is origin + k / rate.  At
   * most 1000000000/1 (an error at start above: times 1 ns apart are the
   * finest a GstClockTime holds).
   */
  g_object_class_install_property (gobject_class, PROP_RATE,
      gst_param_spec_fraction ("rate", "Rate", "Output samples per second",
          1, G_MAXINT, G_MAXINT, 1, DEFAULT_RATE_N, DEFAULT_RATE_D,
          G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
          GST_PARAM_MUTABLE_READY));
  /**
   * GstRobocacheResample:method:
   *
   * How a grid time is computed from the samples around it.  Quaternion
   * channels are slerped with linear and cubic; nearest and previous pick
   * a sample for every channel alike.
   */
  g_object_class_install_property (gobject_class, PROP_METHOD,
      g_param_spec_enum ("method", "Method", "Interpolation method",
          GST_TYPE_ROBOCACHE_RESAMPLE_METHOD, DEFAULT_METHOD,
          G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
          GST_PARAM_MUTABLE_READY));
  /**
   * GstRobocacheResample:quaternions:
   *
   * First channels of unit quaternions (x, y, z, w), e.g. "3,10"; used
   * when the caps have no quaternions field.
   */
  g_object_class_install_property (gobject_class, PROP_QUATERNIONS,
      g_param_spec_string ("quaternions", "Quaternions",
          "First channels of (x,y,z,w) unit quaternions, e.g. \"3,10\" "
          "(when the caps carry none)", DEFAULT_QUATERNIONS,
          G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
          GST_PARAM_MUTABLE_READY));
  /**
   * GstRobocacheResample:angles:
   *
   * Angle channels in radians that wrap at +-pi, single or as inclusive
   * ranges, e.g. "0-2,5"; used when the caps have no angles field.
   */
  g_object_class_install_property (gobject_class, PROP_ANGLES,
      g_param_spec_string ("angles", "Angles",
          "Channels of wrapping angles, e.g. \"0-2,5\" (when the caps carry "
          "none)", DEFAULT_ANGLES,
          G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
          GST_PARAM_MUTABLE_READY));
  /**
   * GstRobocacheResample:max-gap:
   *
   * Longest time in nanoseconds between two consecutive samples that is
   * interpolated across.  The grid times inside a longer gap get no
   * output; a GAP event covering them is pushed instead.  It is also the
   * latency the element adds (twice with cubic).
   */
  g_object_class_install_property (gobject_class, PROP_MAX_GAP,
      g_param_spec_uint64 ("max-gap", "Maximum gap",
          "Longest gap between samples interpolated across (ns); longer gaps "
          "give a GAP event instead of outputs", 0, G_MAXUINT64,
          DEFAULT_MAX_GAP, G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
          GST_PARAM_MUTABLE_READY));
  /**
   * GstRobocacheResample:time-origin:
   *
   * Where the grid starts: at the first sample's running time, or at
   * running time 0 (so that several streams share one grid).
   */
  g_object_class_install_property (gobject_class, PROP_TIME_ORIGIN,
      g_param_spec_enum ("time-origin", "Time origin",
          "Grid aligned to the first sample or to running time 0",
          GST_TYPE_ROBOCACHE_RESAMPLE_TIME_ORIGIN, DEFAULT_TIME_ORIGIN,
          G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
          GST_PARAM_MUTABLE_READY));
  /**
   * GstRobocacheResample:samples-per-buffer:
   *
   * With layout sample in: 1 gives layout sample out, one grid time per
   * buffer; N > 1 gives layout chunk out, N grid times per buffer.
   * Chunks in always give one chunk out per buffer.
   */
  g_object_class_install_property (gobject_class, PROP_SAMPLES_PER_BUFFER,
      g_param_spec_uint ("samples-per-buffer", "Samples per buffer",
          "Grid times per output buffer (1: layout sample, more: layout "
          "chunk)", 1, MAX_SAMPLES_PER_BUFFER, DEFAULT_SAMPLES_PER_BUFFER,
          G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
          GST_PARAM_MUTABLE_READY));
  /**
   * GstRobocacheResample:stats:
   *
   * Totals since the element started: inputs (samples accepted; a chunk
   * counts the samples it keeps), outputs (grid times produced, per
   * trajectory), dropped-out-of-order (samples or chunks), dropped-bad-size
   * (buffers), dropped-off-grid (chunk samples whose times cannot be
   * placed on the grid), gaps (longer than max-gap) and small-on-cpu
   * (kernel calls on system memory that backend=auto, with a GPU in use,
   * made on the CPU because the CPU was expected to finish them sooner,
   * copies counted: the live path's calls and small chunks;
   * docs/elements.md).
   */
  gst_robocache_fields_install_stats (gobject_class, PROP_STATS,
      "Totals since start");

  gst_element_class_add_pad_template (element_class,
      gst_pad_template_new_with_gtype ("sink", GST_PAD_SINK, GST_PAD_ALWAYS,
          gst_robocache_caps_with_cuda (GST_ROBOCACHE_VECTORS_CAPS,
              GST_ROBOCACHE_VECTORS_CUDA_CAPS), GST_TYPE_PAD));
  gst_element_class_add_pad_template (element_class,
      gst_pad_template_new_with_gtype ("src", GST_PAD_SRC, GST_PAD_ALWAYS,
          gst_robocache_caps_with_cuda (GST_ROBOCACHE_VECTORS_CAPS,
              GST_ROBOCACHE_VECTORS_CUDA_CAPS), GST_TYPE_PAD));
  gst_element_class_set_static_metadata (element_class,
      "robocache resampler", "Filter/Converter/Robotics",
      "Resamples jittered timestamped vectors onto a regular time grid on "
      "the GPU or the CPU", GST_ROBOCACHE_AUTHOR);

  trans_class->transform_caps = GST_DEBUG_FUNCPTR (resample_transform_caps);
  trans_class->sink_event =
      GST_DEBUG_FUNCPTR (gst_robocache_resample_sink_event);
  trans_class->query = GST_DEBUG_FUNCPTR (gst_robocache_resample_query);
  trans_class->start = GST_DEBUG_FUNCPTR (gst_robocache_resample_start);
  trans_class->stop = GST_DEBUG_FUNCPTR (gst_robocache_resample_stop);
  trans_class->submit_input_buffer =
      GST_DEBUG_FUNCPTR (gst_robocache_resample_submit_input_buffer);
  trans_class->generate_output =
      GST_DEBUG_FUNCPTR (gst_robocache_resample_generate_output);

  gst_type_mark_as_plugin_api (GST_TYPE_ROBOCACHE_RESAMPLE_METHOD, 0);
  gst_type_mark_as_plugin_api (GST_TYPE_ROBOCACHE_RESAMPLE_TIME_ORIGIN, 0);
}

static void
gst_robocache_resample_init (GstRobocacheResample * self)
{
  gst_robocache_fields_init (self, fields);
  self->state.gpu =
      gst_robocache_base_transform_get_gpu (GST_ROBOCACHE_BASE_TRANSFORM
      (self));
  gst_segment_init (&self->state.segment, GST_FORMAT_TIME);
}
