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
 * discards what was pending; the others first produce it).  With
 * time-origin=first-sample the grid then realigns to the next sample.
 *
 * With #GstRobocacheResample:samples-per-buffer above 1 the output is in
 * layout "chunk" (an int64 timestamp block, then the values), N grid times
 * per buffer; a shorter chunk is pushed before a gap, a discontinuity and
 * EOS.
 *
 * With layout "chunk" in, every buffer (batch trajectories of S samples,
 * their timestamps in buffer time like a PTS) is resampled in one kernel
 * call onto the grid times not yet produced up to its latest sample (a
 * trajectory that ends earlier holds its last value), and comes out as one
 * chunk with the same batch.  The last sample
 * of each trajectory is kept for the next chunk, so that the grid times
 * between two chunks are interpolated too, unless the chunks are more than
 * max-gap apart (a GAP event, as above), overlap in time, or the next is
 * DISCONT.  Inside a chunk, max-gap does not apply; cubic has no neighbour
 * beyond a chunk's end.
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
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstrobocacheresample.h"
#include "gstrobocacheelements.h"
#include "gstrobocachecaps.h"
#include "gstrobocachegpu.h"

#include <string.h>

GST_DEBUG_CATEGORY_STATIC (gst_robocache_resample_debug);
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

/* Samples kept in the live path: cubic needs two on each side. */
#define MAX_HISTORY 4
/* Grid times per kernel call in the live path, so that the device scratch
 * allocated at negotiation is enough for good. */
#define LIVE_MAX_TARGETS 256
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
  PROP_BACKEND,
  PROP_DEVICE_ID,
  PROP_STATS
};

/* Property values, under the object lock. */
typedef struct
{
  gint rate_n;
  gint rate_d;
  rc_interp_method method;
  gchar *quaternions;
  gchar *angles;
  guint64 max_gap;
  GstRobocacheResampleTimeOrigin time_origin;
  guint samples_per_buffer;
} Settings;

/* Totals since start, under the object lock. */
typedef struct
{
  guint64 inputs;
  guint64 outputs;
  guint64 dropped_out_of_order;
  guint64 dropped_bad_size;
  guint64 gaps;
} Totals;

/* Built in start and at negotiation, dropped in stop; streaming thread
 * only (gpu.use_gpu and gpu.started are also read under the object
 * lock). */
typedef struct
{
  GstRobocacheGpu gpu;

  gboolean configured;
  GstCaps *refused_caps;        /* reported once, not at every re-send */
  GstRobocacheVectorsInfo in_info;
  GstRobocacheVectorsInfo out_info;
  gsize sample_size;
  rc_resample_params params;    /* batch and sizes set per call */
  gboolean out_cuda;
  /* Settings as they were at negotiation. */
  gint rate_n;
  gint rate_d;
  GstClockTime max_gap;
  GstRobocacheResampleTimeOrigin time_origin;
  guint samples_per_buffer;

  GstSegment segment;

  /* The grid, in running time. */
  gboolean aligned;
  GstClockTime origin;
  guint64 k_next;               /* first grid index not yet produced */

  /* The last samples (running times), oldest first. */
  guint history_len;
  guint n_hist;
  gint64 hist_t[MAX_HISTORY];
  guint8 *hist_v;
  gboolean have_last;
  GstClockTime last_t;

  /* The chunk being filled (layout sample in, samples-per-buffer > 1). */
  gint64 *chunk_t;
  guint8 *chunk_v;
  guint n_chunk;
  guint64 chunk_k;

  /* Layout chunk in: the last sample of each trajectory of the previous
   * chunk (buffer times), so that the grid times between two chunks are
   * interpolated too. */
  gboolean have_prev;
  gint64 *prev_t;
  guint8 *prev_v;

  /* Host scratch, grown to the largest size seen. */
  guint8 *scratch;
  gsize scratch_size;
  guint8 *src_scratch;
  gsize src_scratch_size;

  /* Device scratch, grown to the largest size seen. */
  GstRobocacheScratch device_src_t;
  GstRobocacheScratch device_src_v;
  GstRobocacheScratch device_tgt;
  GstRobocacheScratch device_out;
  /* Page-locked: a CUDA chunk's timestamps, read back. */
  GstRobocacheScratch host_times;

  gboolean discont;
  gboolean warned_order;
  gboolean warned_size;
} State;

struct _GstRobocacheResample
{
  GstElement parent;

  GstPad *sinkpad;
  GstPad *srcpad;

  Settings settings;
  Totals totals;
  State state;
};

#define gst_robocache_resample_parent_class parent_class
G_DEFINE_TYPE (GstRobocacheResample, gst_robocache_resample, GST_TYPE_ELEMENT);
GST_ELEMENT_REGISTER_DEFINE_WITH_CODE (robocacheresample, "robocacheresample",
    GST_RANK_NONE, GST_TYPE_ROBOCACHE_RESAMPLE,
    GST_DEBUG_CATEGORY_INIT (gst_robocache_resample_debug,
        "robocacheresample", 0, "robocache resampling"));

GType
gst_robocache_resample_method_get_type (void)
{
  static GType type = 0;
  static const GEnumValue values[] = {
    {RC_INTERP_LINEAR, "Straight line between the two neighbours "
          "(quaternions: slerp)", "linear"},
    {RC_INTERP_NEAREST, "The closer sample (the later on a tie)", "nearest"},
    {RC_INTERP_PREVIOUS, "The last sample at or before the grid time",
        "previous"},
    {RC_INTERP_CUBIC, "Cubic Hermite with Catmull-Rom tangents (one sample "
          "more of latency)", "cubic"},
    {0, NULL, NULL}
  };

  if (g_once_init_enter (&type)) {
    GType t = g_enum_register_static ("GstRobocacheResampleMethod", values);
    g_once_init_leave (&type, t);
  }
  return type;
}

GType
gst_robocache_resample_time_origin_get_type (void)
{
  static GType type = 0;
  static const GEnumValue values[] = {
    {GST_ROBOCACHE_RESAMPLE_ORIGIN_FIRST_SAMPLE, "The first sample's "
          "running time", "first-sample"},
    {GST_ROBOCACHE_RESAMPLE_ORIGIN_ZERO, "Running time 0", "zero"},
    {0, NULL, NULL}
  };

  if (g_once_init_enter (&type)) {
    GType t = g_enum_register_static ("GstRobocacheResampleTimeOrigin",
        values);
    g_once_init_leave (&type, t);
  }
  return type;
}

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
      "gaps", G_TYPE_UINT64, t->gaps, NULL);
}

static void
gst_robocache_resample_set_property (GObject * object, guint prop_id,
    const GValue * value, GParamSpec * pspec)
{
  GstRobocacheResample *self = GST_ROBOCACHE_RESAMPLE (object);
  Settings *s = &self->settings;

  if (gst_robocache_gpu_set_property (&self->state.gpu, GST_ELEMENT (self),
          PROP_BACKEND, prop_id, value))
    return;
  GST_OBJECT_LOCK (self);
  switch (prop_id) {
    case PROP_RATE:
      s->rate_n = gst_value_get_fraction_numerator (value);
      s->rate_d = gst_value_get_fraction_denominator (value);
      break;
    case PROP_METHOD:
      s->method = (rc_interp_method) g_value_get_enum (value);
      break;
    case PROP_QUATERNIONS:
      g_free (s->quaternions);
      s->quaternions = g_value_dup_string (value);
      break;
    case PROP_ANGLES:
      g_free (s->angles);
      s->angles = g_value_dup_string (value);
      break;
    case PROP_MAX_GAP:
      s->max_gap = g_value_get_uint64 (value);
      break;
    case PROP_TIME_ORIGIN:
      s->time_origin = (GstRobocacheResampleTimeOrigin)
          g_value_get_enum (value);
      break;
    case PROP_SAMPLES_PER_BUFFER:
      s->samples_per_buffer = g_value_get_uint (value);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
  GST_OBJECT_UNLOCK (self);
}

static void
gst_robocache_resample_get_property (GObject * object, guint prop_id,
    GValue * value, GParamSpec * pspec)
{
  GstRobocacheResample *self = GST_ROBOCACHE_RESAMPLE (object);
  Settings *s = &self->settings;

  if (gst_robocache_gpu_set_property (&self->state.gpu, GST_ELEMENT (self),
          PROP_BACKEND, prop_id, value))
    return;
  GST_OBJECT_LOCK (self);
  switch (prop_id) {
    case PROP_RATE:
      gst_value_set_fraction (value, s->rate_n, s->rate_d);
      break;
    case PROP_METHOD:
      g_value_set_enum (value, s->method);
      break;
    case PROP_QUATERNIONS:
      g_value_set_string (value, s->quaternions);
      break;
    case PROP_ANGLES:
      g_value_set_string (value, s->angles);
      break;
    case PROP_MAX_GAP:
      g_value_set_uint64 (value, s->max_gap);
      break;
    case PROP_TIME_ORIGIN:
      g_value_set_enum (value, s->time_origin);
      break;
    case PROP_SAMPLES_PER_BUFFER:
      g_value_set_uint (value, s->samples_per_buffer);
      break;
    case PROP_STATS:
      g_value_take_boxed (value, totals_to_structure (&self->totals));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
  GST_OBJECT_UNLOCK (self);
}

/* ------------------------------------------------------------------ */
/* The grid                                                            */
/* ------------------------------------------------------------------ */

static GstClockTime
grid_time (const State * st, guint64 k)
{
  return st->origin + gst_util_uint64_scale (k, GST_SECOND * st->rate_d,
      st->rate_n);
}

/* The first grid index whose time is >= @t. */
static guint64
grid_index_ge (const State * st, GstClockTime t)
{
  guint64 k;

  if (t <= st->origin)
    return 0;
  k = gst_util_uint64_scale_ceil (t - st->origin, st->rate_n,
      GST_SECOND * st->rate_d);
  /* grid_time() rounds down: settle the last nanosecond exactly. */
  while (k > 0 && grid_time (st, k - 1) >= t)
    k--;
  while (grid_time (st, k) < t)
    k++;
  return k;
}

/* The first grid index whose time is > @t. */
static guint64
grid_index_gt (const State * st, GstClockTime t)
{
  return grid_index_ge (st, t + 1);
}

/* Buffer time of running time @rt in the current segment. */
static GstClockTime
to_pts (const State * st, GstClockTime rt)
{
  GstClockTime pts = gst_segment_position_from_running_time (&st->segment,
      GST_FORMAT_TIME, rt);

  return GST_CLOCK_TIME_IS_VALID (pts) ? pts : rt;
}

/* Places the grid for a run of samples that starts at running time @t. */
static void
align_grid (State * st, GstClockTime t)
{
  if (st->time_origin == GST_ROBOCACHE_RESAMPLE_ORIGIN_FIRST_SAMPLE) {
    st->origin = t;
    st->k_next = 0;
  } else {
    st->origin = 0;
    st->k_next = grid_index_ge (st, t);
  }
  st->aligned = TRUE;
}

/* ------------------------------------------------------------------ */
/* Computing                                                           */
/* ------------------------------------------------------------------ */

static gboolean
ensure_host (GstRobocacheResample * self, guint8 ** ptr, gsize * have,
    gsize size)
{
  if (*have >= size)
    return TRUE;
  g_free (*ptr);
  *ptr = g_try_malloc (size);
  *have = *ptr ? size : 0;
  if (!*ptr) {
    GST_ELEMENT_ERROR (self, RESOURCE, NO_SPACE_LEFT,
        ("cannot allocate %" G_GSIZE_FORMAT " bytes of resampling scratch",
            size), (NULL));
    return FALSE;
  }
  return TRUE;
}

/* Device scratch for a call: the grid times always, the sources and the
 * output values where the call has no device memory of its own for them. */
static gboolean
ensure_device (GstRobocacheResample * self, guint batch, gsize n_source,
    gsize n_target, gboolean sources, gboolean out)
{
  State *st = &self->state;
  gsize src = (gsize) batch * n_source, tgt = (gsize) batch *n_target;

  return (!sources
      || (gst_robocache_gpu_ensure_device (&st->gpu, GST_ELEMENT (self),
              &st->device_src_t, src * sizeof (gint64), "source times")
          && gst_robocache_gpu_ensure_device (&st->gpu, GST_ELEMENT (self),
              &st->device_src_v, src * st->sample_size, "source values")))
      && gst_robocache_gpu_ensure_device (&st->gpu, GST_ELEMENT (self),
      &st->device_tgt, tgt * sizeof (gint64), "grid times")
      && (!out
      || gst_robocache_gpu_ensure_device (&st->gpu, GST_ELEMENT (self),
          &st->device_out, tgt * st->sample_size, "resampled values"));
}

static gboolean
push_context (GstRobocacheResample * self)
{
  if (gst_robocache_gpu_push (&self->state.gpu))
    return TRUE;
  GST_ELEMENT_ERROR (self, RESOURCE, FAILED,
      ("cannot make the CUDA context current"), (NULL));
  return FALSE;
}

/* Posts the error of a failed GPU step and returns GST_FLOW_ERROR. */
static GstFlowReturn
gpu_failed (GstRobocacheResample * self, rc_status ret)
{
  GST_ELEMENT_ERROR (self, STREAM, FAILED, ("GPU resampling failed: %s",
          rc_status_message (ret)), ("%s", rc_error_detail ()));
  return GST_FLOW_ERROR;
}

/* Resamples @batch trajectories of @n_source samples onto @n_target times
 * each; every pointer is host memory.  On the GPU the data goes through
 * the element's device scratch and only its own stream is waited for. */
static GstFlowReturn
compute (GstRobocacheResample * self, guint batch, guint n_source,
    guint n_target, const gint64 * src_t, const guint8 * src_v,
    const gint64 * tgt, guint8 * out)
{
  State *st = &self->state;
  rc_resample_params p = st->params;
  gsize n_src = (gsize) batch * n_source, n_tgt = (gsize) batch *n_target;
  rc_status ret;

  p.batch = batch;
  p.n_source = n_source;
  p.n_target = n_target;
  if (!st->gpu.use_gpu) {
    ret = rc_resample_cpu (&p, src_t, src_v, tgt, out);
    if (ret != RC_OK) {
      GST_ELEMENT_ERROR (self, STREAM, FAILED, ("resampling failed: %s",
              rc_status_message (ret)), (NULL));
      return GST_FLOW_ERROR;
    }
    return GST_FLOW_OK;
  }

  if (!push_context (self))
    return GST_FLOW_ERROR;
  if (!ensure_device (self, batch, n_source, n_target, TRUE, TRUE)) {
    gst_robocache_gpu_pop (&st->gpu);
    return GST_FLOW_ERROR;
  }
  ret = rc_device_copy_async (st->device_src_t.ptr, src_t,
      n_src * sizeof (gint64), RC_COPY_HOST_TO_DEVICE, st->gpu.stream);
  if (ret == RC_OK)
    ret = rc_device_copy_async (st->device_src_v.ptr, src_v,
        n_src * st->sample_size, RC_COPY_HOST_TO_DEVICE, st->gpu.stream);
  if (ret == RC_OK)
    ret =
        rc_device_copy_async (st->device_tgt.ptr, tgt, n_tgt * sizeof (gint64),
        RC_COPY_HOST_TO_DEVICE, st->gpu.stream);
  if (ret == RC_OK)
    ret = rc_resample_cuda (&p, st->device_src_t.ptr, st->device_src_v.ptr,
        st->device_tgt.ptr, st->device_out.ptr, st->gpu.stream);
  if (ret == RC_OK)
    ret =
        rc_device_copy_async (out, st->device_out.ptr, n_tgt * st->sample_size,
        RC_COPY_DEVICE_TO_HOST, st->gpu.stream);
  if (ret == RC_OK)
    ret = rc_stream_synchronize (st->gpu.stream);
  gst_robocache_gpu_pop (&st->gpu);
  return ret == RC_OK ? GST_FLOW_OK : gpu_failed (self, ret);
}

/* ------------------------------------------------------------------ */
/* Layout chunk in CUDA memory                                         */
/* ------------------------------------------------------------------ */

/* A chunk in CUDA memory of the element's own context keeps its values on
 * the GPU: only its timestamps come back to the host (they are checked and
 * turned into running time here), the previous chunk's last samples are
 * put in front on the device, and the kernel writes straight into the
 * output buffer when that is CUDA memory too. */

/* Reads the @n timestamps at @device back into st->host_times. */
static const gint64 *
read_back_times (GstRobocacheResample * self, gconstpointer device, gsize n)
{
  State *st = &self->state;
  rc_status ret;

  if (!push_context (self))
    return NULL;
  if (!gst_robocache_gpu_ensure_pinned (&st->gpu, GST_ELEMENT (self),
          &st->host_times, n * sizeof (gint64), "chunk times")) {
    gst_robocache_gpu_pop (&st->gpu);
    return NULL;
  }
  ret = rc_device_copy_async (st->host_times.ptr, device, n * sizeof (gint64),
      RC_COPY_DEVICE_TO_HOST, st->gpu.stream);
  if (ret == RC_OK)
    ret = rc_stream_synchronize (st->gpu.stream);
  gst_robocache_gpu_pop (&st->gpu);
  if (ret != RC_OK) {
    gpu_failed (self, ret);
    return NULL;
  }
  return (const gint64 *) st->host_times.ptr;
}

/* Copies @batch rows of @n_in items of @size bytes from @in (device) to
 * @dst (device), each row one item further on, with the row's item of
 * @prev (host, one per row) in the gap. */
static rc_status
put_previous_in_front (gpointer dst, gconstpointer prev, gconstpointer in,
    guint batch, gsize n_in, gsize size, gpointer stream)
{
  rc_status ret = rc_device_copy_2d_async (dst, (n_in + 1) * size, prev,
      size, size, batch, RC_COPY_HOST_TO_DEVICE, stream);

  if (ret == RC_OK)
    ret = rc_device_copy_2d_async ((guint8 *) dst + size, (n_in + 1) * size,
        in, n_in * size, n_in * size, batch, RC_COPY_DEVICE_TO_DEVICE, stream);
  return ret;
}

/* A chunk's sources on the device, from the chunk at @in (its times block,
 * then its values: @batch trajectories of @n_in samples): the chunk itself,
 * or with @extend a copy in device scratch with the previous chunk's last
 * sample in front of each trajectory.  Then keeps this chunk's last values
 * as the next one's (the caller keeps the times).  FALSE on error
 * (posted). */
static gboolean
stage_device_sources (GstRobocacheResample * self, gconstpointer in,
    guint batch, gsize n_in, gboolean extend, gconstpointer * src_t,
    gconstpointer * src_v)
{
  State *st = &self->state;
  gsize ss = st->sample_size, ts = sizeof (gint64);
  const guint8 *in_v = (const guint8 *) in + batch * n_in * ts;
  rc_status ret = RC_OK;

  *src_t = in;
  *src_v = in_v;
  if (!push_context (self))
    return FALSE;
  if (extend) {
    if (!gst_robocache_gpu_ensure_device (&st->gpu, GST_ELEMENT (self),
            &st->device_src_t, (gsize) batch * (n_in + 1) * ts, "source times")
        || !gst_robocache_gpu_ensure_device (&st->gpu, GST_ELEMENT (self),
            &st->device_src_v, (gsize) batch * (n_in + 1) * ss,
            "source values")) {
      gst_robocache_gpu_pop (&st->gpu);
      return FALSE;
    }
    ret = put_previous_in_front (st->device_src_t.ptr, st->prev_t, in, batch,
        n_in, ts, st->gpu.stream);
    if (ret == RC_OK)
      ret =
          put_previous_in_front (st->device_src_v.ptr, st->prev_v, in_v, batch,
          n_in, ss, st->gpu.stream);
    *src_t = st->device_src_t.ptr;
    *src_v = st->device_src_v.ptr;
  }
  /* Into pageable memory: done when the call returns, and so are the
   * copies before it, which read the previous values. */
  if (ret == RC_OK)
    ret = rc_device_copy_2d_async (st->prev_v, ss, in_v + (n_in - 1) * ss,
        n_in * ss, ss, batch, RC_COPY_DEVICE_TO_HOST, st->gpu.stream);
  gst_robocache_gpu_pop (&st->gpu);
  if (ret != RC_OK) {
    gpu_failed (self, ret);
    return FALSE;
  }
  return TRUE;
}

/* Resamples a chunk staged by stage_device_sources() onto @n_target grid
 * times (@tgt, host) into @out: its times block, then the values. */
static GstFlowReturn
compute_on_device (GstRobocacheResample * self, guint batch, gsize n_source,
    gsize n_target, gconstpointer src_t, gconstpointer src_v,
    const gint64 * tgt, GstBuffer * out)
{
  State *st = &self->state;
  rc_resample_params p = st->params;
  gsize times = (gsize) batch * n_target * sizeof (gint64);
  gsize values = (gsize) batch * n_target * st->sample_size;
  GstMapInfo map;
  gpointer dst;
  rc_status ret;

  p.batch = batch;
  p.n_source = (uint32_t) n_source;
  p.n_target = (uint32_t) n_target;
  if (!push_context (self))
    return GST_FLOW_ERROR;
  if (!ensure_device (self, batch, n_source, n_target, FALSE, !st->out_cuda)) {
    gst_robocache_gpu_pop (&st->gpu);
    return GST_FLOW_ERROR;
  }
  if (!gst_buffer_map (out, &map, GST_MAP_WRITE |
          (st->out_cuda ? GST_ROBOCACHE_MAP_CUDA : 0))) {
    gst_robocache_gpu_pop (&st->gpu);
    GST_ELEMENT_ERROR (self, RESOURCE, FAILED, ("cannot map a buffer"), (NULL));
    return GST_FLOW_ERROR;
  }
  dst = st->out_cuda ? map.data + times : st->device_out.ptr;
  ret = rc_device_copy_async (st->device_tgt.ptr, tgt, times,
      RC_COPY_HOST_TO_DEVICE, st->gpu.stream);
  if (ret == RC_OK)
    ret = rc_resample_cuda (&p, src_t, src_v, st->device_tgt.ptr, dst,
        st->gpu.stream);
  if (ret == RC_OK && st->out_cuda)
    ret = rc_device_copy_async (map.data, st->device_tgt.ptr, times,
        RC_COPY_DEVICE_TO_DEVICE, st->gpu.stream);
  if (ret == RC_OK && !st->out_cuda)
    ret = rc_device_copy_async (map.data + times, st->device_out.ptr, values,
        RC_COPY_DEVICE_TO_HOST, st->gpu.stream);
  /* Downstream may read the output at once. */
  if (ret == RC_OK)
    ret = rc_stream_synchronize (st->gpu.stream);
  gst_robocache_gpu_pop (&st->gpu);
  if (ret == RC_OK && !st->out_cuda)
    memcpy (map.data, tgt, times);
  gst_buffer_unmap (out, &map);
  return ret == RC_OK ? GST_FLOW_OK : gpu_failed (self, ret);
}

/* ------------------------------------------------------------------ */
/* Output                                                              */
/* ------------------------------------------------------------------ */

static GstBuffer *
new_output (GstRobocacheResample * self, gsize size)
{
  State *st = &self->state;
  GstBuffer *buf = gst_buffer_new_allocate (st->out_cuda ?
      st->gpu.allocator : NULL, size, NULL);

  if (!buf)
    GST_ELEMENT_ERROR (self, RESOURCE, NO_SPACE_LEFT,
        ("cannot allocate an output buffer of %" G_GSIZE_FORMAT " bytes",
            size), (NULL));
  return buf;
}

/* Stamps @buf as grid times [k0, k_end) and pushes it. */
static GstFlowReturn
push_output (GstRobocacheResample * self, GstBuffer * buf, guint64 k0,
    guint64 k_end, guint64 n_outputs)
{
  State *st = &self->state;
  GstClockTime start = to_pts (st, grid_time (st, k0));

  GST_BUFFER_PTS (buf) = start;
  GST_BUFFER_DTS (buf) = GST_CLOCK_TIME_NONE;
  GST_BUFFER_DURATION (buf) = to_pts (st, grid_time (st, k_end)) - start;
  GST_BUFFER_OFFSET (buf) = k0;
  GST_BUFFER_OFFSET_END (buf) = k_end;
  if (st->discont) {
    GST_BUFFER_FLAG_SET (buf, GST_BUFFER_FLAG_DISCONT);
    st->discont = FALSE;
  }
  GST_OBJECT_LOCK (self);
  self->totals.outputs += n_outputs;
  GST_OBJECT_UNLOCK (self);
  GST_LOG_OBJECT (self, "grid %" G_GUINT64_FORMAT "-%" G_GUINT64_FORMAT
      " at %" GST_TIME_FORMAT, k0, k_end, GST_TIME_ARGS (start));
  return gst_pad_push (self->srcpad, buf);
}

/* Pushes the chunk being filled, if any. */
static GstFlowReturn
finish_chunk (GstRobocacheResample * self)
{
  State *st = &self->state;
  guint n = st->n_chunk;
  gsize times = (gsize) n * sizeof (gint64), values = n * st->sample_size;
  GstBuffer *buf;

  if (n == 0)
    return GST_FLOW_OK;
  st->n_chunk = 0;
  buf = new_output (self, times + values);
  if (!buf)
    return GST_FLOW_ERROR;
  gst_buffer_fill (buf, 0, st->chunk_t, times);
  gst_buffer_fill (buf, times, st->chunk_v, values);
  return push_output (self, buf, st->chunk_k, st->chunk_k + n, n);
}

/* Sends out @n resampled vectors for grid times from @k0: one buffer each,
 * or appended to the chunk being filled. */
static GstFlowReturn
push_vectors (GstRobocacheResample * self, guint64 k0, guint n,
    const guint8 * values)
{
  State *st = &self->state;
  GstFlowReturn flow = GST_FLOW_OK;

  for (guint i = 0; i < n && flow == GST_FLOW_OK; i++) {
    const guint8 *v = values + (gsize) i * st->sample_size;

    if (st->samples_per_buffer > 1) {
      if (st->n_chunk == 0)
        st->chunk_k = k0 + i;
      st->chunk_t[st->n_chunk] = (gint64) to_pts (st, grid_time (st, k0 + i));
      memcpy (st->chunk_v + (gsize) st->n_chunk * st->sample_size, v,
          st->sample_size);
      if (++st->n_chunk == st->samples_per_buffer)
        flow = finish_chunk (self);
    } else {
      GstBuffer *buf = new_output (self, st->sample_size);

      if (!buf)
        return GST_FLOW_ERROR;
      gst_buffer_fill (buf, 0, v, st->sample_size);
      flow = push_output (self, buf, k0 + i, k0 + i + 1, 1);
    }
  }
  return flow;
}

/* Produces grid times [k_next, k_end) from the history. */
static GstFlowReturn
emit_until (GstRobocacheResample * self, guint64 k_end)
{
  State *st = &self->state;
  gsize values = (gsize) LIVE_MAX_TARGETS * st->sample_size;
  GstFlowReturn flow = GST_FLOW_OK;

  if (st->n_hist == 0 || st->k_next >= k_end)
    return GST_FLOW_OK;
  if (!ensure_host (self, &st->scratch, &st->scratch_size,
          LIVE_MAX_TARGETS * sizeof (gint64) + values))
    return GST_FLOW_ERROR;
  while (st->k_next < k_end && flow == GST_FLOW_OK) {
    guint n = (guint) MIN (k_end - st->k_next, LIVE_MAX_TARGETS);
    gint64 *tgt = (gint64 *) st->scratch;
    guint8 *out = st->scratch + LIVE_MAX_TARGETS * sizeof (gint64);
    guint64 k0 = st->k_next;

    for (guint i = 0; i < n; i++)
      tgt[i] = (gint64) grid_time (st, k0 + i);
    flow = compute (self, 1, st->n_hist, n, st->hist_t, st->hist_v, tgt, out);
    st->k_next = k0 + n;
    if (flow == GST_FLOW_OK)
      flow = push_vectors (self, k0, n, out);
  }
  return flow;
}

/* Produces what the history still owes (grid times up to its last sample)
 * and the chunk being filled. */
static GstFlowReturn
drain (GstRobocacheResample * self)
{
  State *st = &self->state;
  GstFlowReturn flow = GST_FLOW_OK;

  if (!st->configured)
    return GST_FLOW_OK;
  if (st->n_hist > 0)
    flow = emit_until (self, grid_index_gt (st, st->hist_t[st->n_hist - 1]));
  if (flow == GST_FLOW_OK)
    flow = finish_chunk (self);
  return flow;
}

/* Starts afresh: the next sample begins a new history (and, with
 * time-origin=first-sample, a new grid). */
static void
reset_history (State * st)
{
  st->n_hist = 0;
  st->have_prev = FALSE;
  st->aligned = FALSE;
  st->discont = TRUE;
}

/* Forgets everything about the stream's timing (flush, new segment). */
static void
reset_timing (State * st)
{
  reset_history (st);
  st->n_chunk = 0;
  st->have_last = FALSE;
  st->k_next = 0;
}

/* ------------------------------------------------------------------ */
/* Input                                                               */
/* ------------------------------------------------------------------ */

static void
drop_bad_size (GstRobocacheResample * self, gsize size, const gchar * what)
{
  State *st = &self->state;

  GST_OBJECT_LOCK (self);
  self->totals.dropped_bad_size++;
  GST_OBJECT_UNLOCK (self);
  if (!st->warned_size) {
    GST_ELEMENT_WARNING (self, STREAM, FORMAT,
        ("dropping a buffer of %" G_GSIZE_FORMAT " bytes: %s", size, what),
        ("further such buffers are dropped and counted in the stats "
            "property (dropped-bad-size) without a warning"));
    st->warned_size = TRUE;
  }
}

static void
drop_out_of_order (GstRobocacheResample * self, GstClockTime t)
{
  State *st = &self->state;

  GST_OBJECT_LOCK (self);
  self->totals.dropped_out_of_order++;
  GST_OBJECT_UNLOCK (self);
  GST_DEBUG_OBJECT (self, "dropping a sample at running time %"
      GST_TIME_FORMAT ", not after %" GST_TIME_FORMAT, GST_TIME_ARGS (t),
      GST_TIME_ARGS (st->last_t));
  if (!st->warned_order) {
    GST_ELEMENT_WARNING (self, STREAM, FORMAT,
        ("dropping a sample at %" GST_TIME_FORMAT " (running time): its "
            "time is not after the last accepted sample's (%" GST_TIME_FORMAT
            "); samples must come in strictly increasing time order",
            GST_TIME_ARGS (t), GST_TIME_ARGS (st->last_t)),
        ("further such samples are dropped and counted in the stats property "
            "(dropped-out-of-order) without a warning"));
    st->warned_order = TRUE;
  }
}

/* Grid times [k_a, k_b) fall in a gap: a GAP event instead of outputs. */
static void
push_gap (GstRobocacheResample * self, guint64 k_a, guint64 k_b)
{
  State *st = &self->state;
  GstClockTime start, end;

  GST_OBJECT_LOCK (self);
  self->totals.gaps++;
  GST_OBJECT_UNLOCK (self);
  /* Nothing was interpolated across: the next output is a new start. */
  st->discont = TRUE;
  if (k_b <= k_a)
    return;
  start = to_pts (st, grid_time (st, k_a));
  end = to_pts (st, grid_time (st, k_b));
  GST_DEBUG_OBJECT (self, "gap: no outputs from %" GST_TIME_FORMAT " to %"
      GST_TIME_FORMAT, GST_TIME_ARGS (start), GST_TIME_ARGS (end));
  gst_pad_push_event (self->srcpad, gst_event_new_gap (start, end - start));
}

static GstFlowReturn
process_sample (GstRobocacheResample * self, GstBuffer * buf)
{
  State *st = &self->state;
  gsize size = gst_buffer_get_size (buf);
  GstClockTime pts = GST_BUFFER_PTS (buf), t;
  GstFlowReturn flow = GST_FLOW_OK;
  guint64 k_end;

  if (size != st->sample_size) {
    gchar *what = g_strdup_printf ("layout sample needs exactly one vector "
        "of %" G_GSIZE_FORMAT " bytes (channels x value size)",
        st->sample_size);
    drop_bad_size (self, size, what);
    g_free (what);
    return GST_FLOW_OK;
  }
  if (!GST_CLOCK_TIME_IS_VALID (pts)) {
    GST_ELEMENT_ERROR (self, STREAM, FORMAT,
        ("a sample without a PTS: with layout sample, every buffer's PTS "
            "must be its sample time"), (NULL));
    return GST_FLOW_ERROR;
  }
  t = gst_segment_to_running_time (&st->segment, GST_FORMAT_TIME, pts);
  if (!GST_CLOCK_TIME_IS_VALID (t)) {
    GST_DEBUG_OBJECT (self, "sample at %" GST_TIME_FORMAT " is outside the "
        "segment", GST_TIME_ARGS (pts));
    return GST_FLOW_OK;
  }

  if (GST_BUFFER_FLAG_IS_SET (buf, GST_BUFFER_FLAG_DISCONT) && st->n_hist) {
    flow = drain (self);
    reset_history (st);
    if (flow != GST_FLOW_OK)
      return flow;
  }
  if (st->have_last && t <= st->last_t) {
    drop_out_of_order (self, t);
    return GST_FLOW_OK;
  }
  GST_OBJECT_LOCK (self);
  self->totals.inputs++;
  GST_OBJECT_UNLOCK (self);

  if (st->n_hist > 0 && t - (GstClockTime) st->hist_t[st->n_hist - 1] >
      st->max_gap) {
    guint64 k_b;

    flow = drain (self);
    if (flow != GST_FLOW_OK)
      return flow;
    k_b = grid_index_ge (st, t);
    push_gap (self, st->k_next, k_b);
    st->k_next = MAX (st->k_next, k_b);
    st->n_hist = 0;
  }
  if (!st->aligned)
    align_grid (st, t);

  if (st->n_hist == st->history_len) {
    memmove (st->hist_t, st->hist_t + 1, (st->n_hist - 1) * sizeof (gint64));
    memmove (st->hist_v, st->hist_v + st->sample_size,
        (st->n_hist - 1) * st->sample_size);
    st->n_hist--;
  }
  st->hist_t[st->n_hist] = (gint64) t;
  gst_buffer_extract (buf, 0, st->hist_v + st->n_hist * st->sample_size,
      st->sample_size);
  st->n_hist++;
  st->last_t = t;
  st->have_last = TRUE;

  /* Cubic produces up to the previous sample: it needs a neighbour after
   * the interval. */
  if (st->params.method == RC_INTERP_CUBIC)
    k_end = st->n_hist >= 2 ?
        grid_index_gt (st, st->hist_t[st->n_hist - 2]) : st->k_next;
  else
    k_end = grid_index_gt (st, t);
  return emit_until (self, k_end);
}

/* Whether the previous chunk's last samples extend this chunk: each must
 * come strictly before its trajectory's first new sample, and the gap
 * between the chunks be at most max-gap (else a GAP event for the grid
 * times inside it). */
static gboolean
continue_chunk (GstRobocacheResample * self, const gint64 * src_t,
    gsize n_source, gint64 first, GstClockTime rt_first)
{
  State *st = &self->state;
  gint64 prev_last = G_MININT64;

  if (!st->have_prev)
    return FALSE;
  for (guint b = 0; b < st->in_info.batch; b++) {
    /* Overlapping chunks: this one alone, and no grid time twice. */
    if (st->prev_t[b] >= src_t[b * n_source])
      return FALSE;
    prev_last = MAX (prev_last, st->prev_t[b]);
  }
  if ((guint64) (first - prev_last) > st->max_gap) {
    guint64 k_b = grid_index_ge (st, rt_first);

    push_gap (self, st->k_next, k_b);
    st->k_next = MAX (st->k_next, k_b);
    return FALSE;
  }
  return TRUE;
}

static GstFlowReturn
process_chunk (GstRobocacheResample * self, GstBuffer * buf)
{
  State *st = &self->state;
  guint batch = st->in_info.batch;
  gsize size = gst_buffer_get_size (buf);
  gsize ss = st->sample_size, row = sizeof (gint64) + ss;
  GstFlowReturn flow = GST_FLOW_OK;
  gint64 first = G_MAXINT64, last = G_MININT64, span_first;
  GstClockTime rt_first, rt_last, rt_span;
  guint64 k_a, k_b;
  gsize n_in, n_source, n_target, out_times, out_size;
  const gint64 *in_t, *src_t;
  const guint8 *in_v, *src_v;
  gconstpointer dev_t = NULL, dev_v = NULL;     /* on the device */
  gboolean extend, on_device;
  GstMapInfo map;
  GstBuffer *out;

  if (size == 0 || size % ((gsize) batch * row) != 0) {
    gchar *what = g_strdup_printf ("layout chunk needs a whole number of "
        "samples of %" G_GSIZE_FORMAT " bytes (an int64 timestamp and the "
        "values) for each of the %u trajectories of the batch", row, batch);
    drop_bad_size (self, size, what);
    g_free (what);
    return GST_FLOW_OK;
  }
  n_in = size / ((gsize) batch * row);
  if (n_in >= G_MAXUINT32) {
    drop_bad_size (self, size, "more than 2^32 samples per trajectory");
    return GST_FLOW_OK;
  }
  on_device = st->gpu.use_gpu && gst_buffer_n_memory (buf) == 1 &&
      gst_robocache_gpu_memory_is_native (&st->gpu,
      gst_buffer_peek_memory (buf, 0));
  if (!gst_buffer_map (buf, &map, GST_MAP_READ |
          (on_device ? GST_ROBOCACHE_MAP_CUDA : 0))) {
    GST_ELEMENT_ERROR (self, RESOURCE, FAILED, ("cannot map a buffer"), (NULL));
    return GST_FLOW_ERROR;
  }
  /* On the device, in_v is a device pointer and in_t a host copy; the
   * sources are then dev_t and dev_v. */
  in_v = map.data + batch * n_in * sizeof (gint64);
  in_t = on_device ? read_back_times (self, map.data, batch * n_in) :
      (const gint64 *) map.data;
  if (!in_t) {
    gst_buffer_unmap (buf, &map);
    return GST_FLOW_ERROR;
  }
  for (guint b = 0; b < batch; b++) {
    const gint64 *ts = in_t + b * n_in;

    for (gsize i = 1; i < n_in; i++) {
      if (ts[i] < ts[i - 1]) {
        gst_buffer_unmap (buf, &map);
        drop_out_of_order (self, (GstClockTime) ts[i]);
        return GST_FLOW_OK;
      }
    }
    first = MIN (first, ts[0]);
    last = MAX (last, ts[n_in - 1]);
  }
  rt_first = first < 0 ? GST_CLOCK_TIME_NONE :
      gst_segment_to_running_time (&st->segment, GST_FORMAT_TIME, first);
  rt_last = last < 0 ? GST_CLOCK_TIME_NONE :
      gst_segment_to_running_time (&st->segment, GST_FORMAT_TIME, last);
  if (!GST_CLOCK_TIME_IS_VALID (rt_first) || !GST_CLOCK_TIME_IS_VALID (rt_last)) {
    GST_DEBUG_OBJECT (self, "chunk from %" G_GINT64_FORMAT " to %"
        G_GINT64_FORMAT " ns is outside the segment", first, last);
    gst_buffer_unmap (buf, &map);
    return GST_FLOW_OK;
  }
  GST_OBJECT_LOCK (self);
  self->totals.inputs += batch * n_in;
  GST_OBJECT_UNLOCK (self);

  if (GST_BUFFER_FLAG_IS_SET (buf, GST_BUFFER_FLAG_DISCONT))
    reset_history (st);
  if (!st->aligned)
    align_grid (st, rt_first);

  /* Each trajectory with the previous chunk's last sample in front. */
  extend = continue_chunk (self, in_t, n_in, first, rt_first);
  src_t = in_t;
  src_v = in_v;
  n_source = extend ? n_in + 1 : n_in;
  span_first = first;
  for (guint b = 0; extend && b < batch; b++)
    span_first = MIN (span_first, st->prev_t[b]);
  if (on_device) {
    if (!stage_device_sources (self, map.data, batch, n_in, extend, &dev_t,
            &dev_v)) {
      gst_buffer_unmap (buf, &map);
      return GST_FLOW_ERROR;
    }
  } else if (extend) {
    gsize times = batch * n_source * sizeof (gint64);

    if (!ensure_host (self, &st->src_scratch, &st->src_scratch_size,
            times + batch * n_source * ss)) {
      gst_buffer_unmap (buf, &map);
      return GST_FLOW_ERROR;
    }
    for (guint b = 0; b < batch; b++) {
      gint64 *t = (gint64 *) st->src_scratch + b * n_source;
      guint8 *v = st->src_scratch + times + b * n_source * ss;

      t[0] = st->prev_t[b];
      memcpy (t + 1, in_t + b * n_in, n_in * sizeof (gint64));
      memcpy (v, st->prev_v + b * ss, ss);
      memcpy (v + ss, in_v + b * n_in * ss, n_in * ss);
    }
    src_t = (const gint64 *) st->src_scratch;
    src_v = st->src_scratch + times;
  }
  for (guint b = 0; b < batch; b++) {
    st->prev_t[b] = in_t[b * n_in + n_in - 1];
    if (!on_device)
      memcpy (st->prev_v + b * ss, in_v + (b * n_in + n_in - 1) * ss, ss);
  }
  st->have_prev = TRUE;

  rt_span = gst_segment_to_running_time (&st->segment, GST_FORMAT_TIME,
      span_first);
  if (!GST_CLOCK_TIME_IS_VALID (rt_span))
    rt_span = rt_first;
  k_a = MAX (st->k_next, grid_index_ge (st, rt_span));
  k_b = grid_index_gt (st, rt_last);
  if (k_b <= k_a || k_b - k_a > G_MAXUINT32) {
    gst_buffer_unmap (buf, &map);
    return GST_FLOW_OK;
  }
  n_target = k_b - k_a;

  /* The output buffer's layout: its times block is the kernel's target
   * times, the same grid for every trajectory. */
  out_times = batch * n_target * sizeof (gint64);
  out_size = out_times + batch * n_target * ss;
  if (!ensure_host (self, &st->scratch, &st->scratch_size,
          on_device ? out_times : out_size)) {
    gst_buffer_unmap (buf, &map);
    return GST_FLOW_ERROR;
  }
  for (gsize i = 0; i < n_target; i++) {
    gint64 t = (gint64) to_pts (st, grid_time (st, k_a + i));

    for (guint b = 0; b < batch; b++)
      ((gint64 *) st->scratch)[b * n_target + i] = t;
  }
  if (on_device) {
    out = new_output (self, out_size);
    flow = out ? compute_on_device (self, batch, n_source, n_target, dev_t,
        dev_v, (const gint64 *) st->scratch, out) : GST_FLOW_ERROR;
  } else {
    flow = compute (self, batch, (guint) n_source, (guint) n_target, src_t,
        src_v, (gint64 *) st->scratch, st->scratch + out_times);
    out = flow == GST_FLOW_OK ? new_output (self, out_size) : NULL;
    if (out)
      gst_buffer_fill (out, 0, st->scratch, out_size);
    else
      flow = GST_FLOW_ERROR;
  }
  gst_buffer_unmap (buf, &map);
  st->k_next = k_b;
  if (flow != GST_FLOW_OK) {
    if (out)
      gst_buffer_unref (out);
    return flow;
  }
  return push_output (self, out, k_a, k_b, batch * n_target);
}

static GstFlowReturn
gst_robocache_resample_chain (GstPad * pad, GstObject * parent, GstBuffer * buf)
{
  GstRobocacheResample *self = GST_ROBOCACHE_RESAMPLE (parent);
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
    flow = process_chunk (self, buf);
  else
    flow = process_sample (self, buf);
  gst_buffer_unref (buf);
  return flow;
}

/* ------------------------------------------------------------------ */
/* Negotiation                                                         */
/* ------------------------------------------------------------------ */

/* May the element hand out CUDA memory?  Before start, whenever the GPU
 * could be used; after, only when it is. */
static gboolean
may_use_gpu (GstRobocacheResample * self)
{
  return gst_robocache_gpu_may_offer_cuda (&self->state.gpu,
      GST_ELEMENT (self));
}

/* The caps on the other side of @caps: any layout and batch (the element
 * converts between them), in either memory. */
static GstCaps *
transform_caps (GstRobocacheResample * self, GstCaps * caps, GstPad * to,
    GstCaps * filter)
{
  GstCaps *templ = gst_pad_get_pad_template_caps (to);
  GstCaps *ret;

  if (gst_caps_is_any (caps)) {
    ret = templ;
  } else {
    GstCaps *tmp = gst_caps_new_empty ();

    for (guint i = 0; i < gst_caps_get_size (caps); i++) {
      GstStructure *s = gst_structure_copy (gst_caps_get_structure (caps, i));

      gst_structure_remove_fields (s, "layout", "batch", NULL);
      if (to == self->srcpad && !may_use_gpu (self)) {
        tmp = gst_caps_merge_structure (tmp, s);
        continue;
      }
      tmp = gst_caps_merge_structure_full (tmp, gst_structure_copy (s),
          gst_caps_features_new (GST_ROBOCACHE_CAPS_FEATURE_CUDA, NULL));
      tmp = gst_caps_merge_structure (tmp, s);
    }
    ret = gst_caps_intersect_full (tmp, templ, GST_CAPS_INTERSECT_FIRST);
    gst_caps_unref (tmp);
    gst_caps_unref (templ);
  }
  if (filter) {
    GstCaps *tmp = gst_caps_intersect_full (filter, ret,
        GST_CAPS_INTERSECT_FIRST);
    gst_caps_unref (ret);
    ret = tmp;
  }
  return ret;
}

/* Resolves the channel groups: the caps' own, else the properties'. */
static gboolean
resolve_groups (GstRobocacheResample * self, GstRobocacheVectorsInfo * info,
    const gchar * quaternions, const gchar * angles)
{
  GError *error = NULL;

  if (!info->has_quaternions &&
      !gst_robocache_vectors_parse_quaternions (quaternions, info->channels,
          &info->n_quaternions, info->quaternion_first, &error))
    goto bad;
  if (!info->has_angles &&
      !gst_robocache_vectors_parse_angles (angles, info->channels,
          &info->n_angle_ranges, info->angle_ranges, &error))
    goto bad;
  for (guint a = 0; a < info->n_angle_ranges; a++) {
    for (guint q = 0; q < info->n_quaternions; q++) {
      guint32 first = info->angle_ranges[a].first;
      guint32 count = info->angle_ranges[a].count;
      guint32 qf = info->quaternion_first[q];

      if (first < qf + 4 && qf < first + count) {
        GST_ELEMENT_ERROR (self, STREAM, FORMAT,
            ("angle channels %u-%u overlap the quaternion at channels %u-%u; "
                "a channel is at most one of angle or quaternion", first,
                first + count - 1, qf, qf + 3), (NULL));
        return FALSE;
      }
    }
  }
  return TRUE;

bad:
  GST_ELEMENT_ERROR (self, STREAM, FORMAT, ("%s", error->message), (NULL));
  g_clear_error (&error);
  return FALSE;
}

static void
free_buffers (State * st)
{
  g_clear_pointer (&st->hist_v, g_free);
  g_clear_pointer (&st->chunk_t, g_free);
  g_clear_pointer (&st->chunk_v, g_free);
  g_clear_pointer (&st->prev_t, g_free);
  g_clear_pointer (&st->prev_v, g_free);
  g_clear_pointer (&st->scratch, g_free);
  st->scratch_size = 0;
  g_clear_pointer (&st->src_scratch, g_free);
  st->src_scratch_size = 0;
}

static gboolean
configure (GstRobocacheResample * self, GstCaps * caps)
{
  State *st = &self->state;
  GstRobocacheVectorsInfo in;
  GError *error = NULL;
  Settings s;
  GstCaps *candidates, *peer, *outcaps;
  const gchar *names;
  gboolean ok = TRUE;

  if (!gst_robocache_vectors_caps_parse (caps, &in, &error)) {
    GST_ELEMENT_ERROR (self, STREAM, FORMAT, ("%s", error->message), (NULL));
    g_clear_error (&error);
    return FALSE;
  }

  GST_OBJECT_LOCK (self);
  s = self->settings;
  s.quaternions = g_strdup (s.quaternions);
  s.angles = g_strdup (s.angles);
  GST_OBJECT_UNLOCK (self);
  ok = resolve_groups (self, &in, s.quaternions, s.angles);
  g_free (s.quaternions);
  g_free (s.angles);
  if (!ok)
    return FALSE;
  if (s.rate_n <= 0 || s.rate_d <= 0) {
    GST_ELEMENT_ERROR (self, LIBRARY, SETTINGS,
        ("rate %d/%d is not a positive number of samples per second",
            s.rate_n, s.rate_d), (NULL));
    return FALSE;
  }

  /* What the previous caps still owe goes out under them. */
  if (st->configured)
    drain (self);

  st->configured = FALSE;
  st->in_info = in;
  st->out_info = in;
  if (in.layout == GST_ROBOCACHE_VECTORS_LAYOUT_SAMPLE &&
      s.samples_per_buffer > 1)
    st->out_info.layout = GST_ROBOCACHE_VECTORS_LAYOUT_CHUNK;
  st->sample_size = gst_robocache_vectors_sample_size (&in);
  memset (&st->params, 0, sizeof (st->params));
  st->params.batch = 1;
  st->params.n_source = 1;
  st->params.n_target = 1;
  st->params.channels = in.channels;
  st->params.type = in.type;
  st->params.method = s.method;
  st->params.edge = RC_EDGE_HOLD;
  st->params.n_quaternions = in.n_quaternions;
  memcpy (st->params.quaternion_first, in.quaternion_first,
      sizeof (in.quaternion_first));
  st->params.n_angle_ranges = in.n_angle_ranges;
  memcpy (st->params.angle_ranges, in.angle_ranges, sizeof (in.angle_ranges));
  if (rc_resample_check (&st->params) != RC_OK) {
    GST_ELEMENT_ERROR (self, STREAM, FORMAT,
        ("the channel groups of caps %" GST_PTR_FORMAT " are not accepted "
            "together", caps), (NULL));
    return FALSE;
  }
  st->rate_n = s.rate_n;
  st->rate_d = s.rate_d;
  st->max_gap = s.max_gap;
  st->time_origin = s.time_origin;
  st->samples_per_buffer =
      in.layout == GST_ROBOCACHE_VECTORS_LAYOUT_SAMPLE ?
      s.samples_per_buffer : 1;
  st->history_len = s.method == RC_INTERP_CUBIC ? 4 : 2;

  /* Output: CUDA memory first when computing on the GPU, else system
   * memory, whichever downstream takes. */
  names = gst_structure_get_string (gst_caps_get_structure (caps, 0), "names");
  candidates = gst_caps_new_empty ();
  if (st->gpu.use_gpu)
    gst_caps_append (candidates,
        gst_robocache_vectors_caps_new (&st->out_info, names, TRUE));
  gst_caps_append (candidates,
      gst_robocache_vectors_caps_new (&st->out_info, names, FALSE));
  peer = gst_pad_peer_query_caps (self->srcpad, candidates);
  gst_caps_unref (candidates);
  if (gst_caps_is_empty (peer)) {
    gst_caps_unref (peer);
    GST_ELEMENT_ERROR (self, CORE, NEGOTIATION,
        ("downstream accepts none of the output caps for input %"
            GST_PTR_FORMAT, caps), (NULL));
    return FALSE;
  }
  outcaps = gst_caps_fixate (peer);
  st->out_cuda = gst_robocache_caps_is_cuda (outcaps);

  free_buffers (st);
  st->hist_v = g_malloc0 (MAX_HISTORY * st->sample_size);
  if (in.layout == GST_ROBOCACHE_VECTORS_LAYOUT_CHUNK) {
    st->prev_t = g_new0 (gint64, in.batch);
    st->prev_v = g_malloc0 ((gsize) in.batch * st->sample_size);
  }
  if (st->samples_per_buffer > 1) {
    st->chunk_t = g_new0 (gint64, st->samples_per_buffer);
    st->chunk_v = g_malloc0 ((gsize) st->samples_per_buffer * st->sample_size);
  }
  reset_history (st);
  st->n_chunk = 0;

  if (st->gpu.use_gpu) {
    ok = push_context (self);
    if (ok) {
      /* The live path's whole working set, once. */
      ok = ensure_device (self, 1, MAX_HISTORY, LIVE_MAX_TARGETS, TRUE, TRUE);
      gst_robocache_gpu_pop (&st->gpu);
    }
  }
  if (ok)
    ok = gst_pad_push_event (self->srcpad, gst_event_new_caps (outcaps));
  GST_INFO_OBJECT (self, "%s, %d/%d Hz, %s, in %" GST_PTR_FORMAT
      " out %" GST_PTR_FORMAT, st->gpu.use_gpu ? "GPU" : "CPU", st->rate_n,
      st->rate_d, g_enum_get_value (g_type_class_peek
          (GST_TYPE_ROBOCACHE_RESAMPLE_METHOD), s.method)->value_nick, caps,
      outcaps);
  gst_caps_unref (outcaps);
  st->configured = ok;
  return ok;
}

/* Sticky caps come again before every event and buffer after a refusal:
 * the error is posted for the first time only. */
static gboolean
set_caps (GstRobocacheResample * self, GstCaps * caps)
{
  State *st = &self->state;

  if (st->refused_caps && gst_caps_is_equal (caps, st->refused_caps))
    return FALSE;
  gst_clear_caps (&st->refused_caps);
  if (configure (self, caps))
    return TRUE;
  st->configured = FALSE;
  st->refused_caps = gst_caps_ref (caps);
  return FALSE;
}

/* ------------------------------------------------------------------ */
/* Events and queries                                                  */
/* ------------------------------------------------------------------ */

static gboolean
gst_robocache_resample_sink_event (GstPad * pad, GstObject * parent,
    GstEvent * event)
{
  GstRobocacheResample *self = GST_ROBOCACHE_RESAMPLE (parent);
  State *st = &self->state;

  switch (GST_EVENT_TYPE (event)) {
    case GST_EVENT_CAPS:{
      GstCaps *caps;
      gboolean ret;

      gst_event_parse_caps (event, &caps);
      ret = set_caps (self, caps);
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
      drain (self);
      gst_segment_copy_into (segment, &st->segment);
      reset_timing (st);
      break;
    }
    case GST_EVENT_GAP:
    case GST_EVENT_EOS:
      drain (self);
      reset_history (st);
      break;
    case GST_EVENT_FLUSH_STOP:
      gst_segment_init (&st->segment, GST_FORMAT_TIME);
      reset_timing (st);
      break;
    default:
      break;
  }
  return gst_pad_event_default (pad, parent, event);
}

/* Answers a CAPS query on @to with what the peer of @from can take,
 * transformed across the element. */
static void
answer_caps_query (GstRobocacheResample * self, GstQuery * query,
    GstPad * from, GstPad * to)
{
  GstCaps *filter, *peer, *caps;

  gst_query_parse_caps (query, &filter);
  peer = gst_pad_peer_query_caps (from, NULL);
  caps = transform_caps (self, peer, to, filter);
  gst_caps_unref (peer);
  gst_query_set_caps_result (query, caps);
  gst_caps_unref (caps);
}

static gboolean
gst_robocache_resample_sink_query (GstPad * pad, GstObject * parent,
    GstQuery * query)
{
  GstRobocacheResample *self = GST_ROBOCACHE_RESAMPLE (parent);

  switch (GST_QUERY_TYPE (query)) {
    case GST_QUERY_CAPS:
      answer_caps_query (self, query, self->srcpad, self->sinkpad);
      return TRUE;
    case GST_QUERY_ACCEPT_CAPS:{
      GstCaps *caps;

      /* Any vectors caps reach the CAPS event, which says precisely what
       * is wrong with them, rather than a bare not-negotiated. */
      gst_query_parse_accept_caps (query, &caps);
      gst_query_set_accept_caps_result (query, gst_caps_is_fixed (caps) &&
          gst_structure_has_name (gst_caps_get_structure (caps, 0),
              GST_ROBOCACHE_VECTORS_MEDIA_TYPE));
      return TRUE;
    }
    case GST_QUERY_ALLOCATION:{
      GstCaps *caps;

      /* Samples are small and come one by one: no pool.  CUDA memory
       * upstream gets the allocator of the element's context. */
      gst_query_parse_allocation (query, &caps, NULL);
      gst_robocache_gpu_propose_allocator (&self->state.gpu, query);
      return TRUE;
    }
    case GST_QUERY_CONTEXT:
      if (gst_robocache_gpu_query_context (&self->state.gpu,
              GST_ELEMENT (self), query))
        return TRUE;
      break;
    default:
      break;
  }
  return gst_pad_query_default (pad, parent, query);
}

static gboolean
gst_robocache_resample_src_query (GstPad * pad, GstObject * parent,
    GstQuery * query)
{
  GstRobocacheResample *self = GST_ROBOCACHE_RESAMPLE (parent);

  switch (GST_QUERY_TYPE (query)) {
    case GST_QUERY_CAPS:
      answer_caps_query (self, query, self->sinkpad, self->srcpad);
      return TRUE;
    case GST_QUERY_LATENCY:{
      GstClockTime min, max, gap;
      gboolean live;

      if (!gst_pad_peer_query (self->sinkpad, query))
        return FALSE;
      gst_query_parse_latency (query, &live, &min, &max);
      GST_OBJECT_LOCK (self);
      gap = MIN (self->settings.max_gap, MAX_LATENCY_GAP);
      if (self->settings.method == RC_INTERP_CUBIC)
        gap *= 2;
      GST_OBJECT_UNLOCK (self);
      /* An output waits for the sample after it, at most max-gap away
       * (cubic: one more). */
      min += gap;
      if (GST_CLOCK_TIME_IS_VALID (max))
        max += gap;
      GST_DEBUG_OBJECT (self, "latency %" GST_TIME_FORMAT " - %"
          GST_TIME_FORMAT, GST_TIME_ARGS (min), GST_TIME_ARGS (max));
      gst_query_set_latency (query, live, min, max);
      return TRUE;
    }
    case GST_QUERY_CONTEXT:
      if (gst_robocache_gpu_query_context (&self->state.gpu,
              GST_ELEMENT (self), query))
        return TRUE;
      break;
    default:
      break;
  }
  return gst_pad_query_default (pad, parent, query);
}

static void
gst_robocache_resample_set_context (GstElement * element, GstContext * ctx)
{
  GstRobocacheResample *self = GST_ROBOCACHE_RESAMPLE (element);

  gst_robocache_gpu_set_context (&self->state.gpu, element, ctx);
  GST_ELEMENT_CLASS (parent_class)->set_context (element, ctx);
}

/* ------------------------------------------------------------------ */
/* Start, stop                                                         */
/* ------------------------------------------------------------------ */

static gboolean
start (GstRobocacheResample * self)
{
  State *st = &self->state;

  GST_OBJECT_LOCK (self);
  memset (&self->totals, 0, sizeof (self->totals));
  GST_OBJECT_UNLOCK (self);

  if (!gst_robocache_gpu_start (&st->gpu, GST_ELEMENT (self)))
    return FALSE;
  gst_segment_init (&st->segment, GST_FORMAT_TIME);
  reset_timing (st);
  st->warned_order = FALSE;
  st->warned_size = FALSE;
  return TRUE;
}

static void
stop (GstRobocacheResample * self)
{
  State *st = &self->state;
  GstRobocacheGpu gpu;

  gst_robocache_gpu_stop (&st->gpu, GST_ELEMENT (self));
  free_buffers (st);
  gst_clear_caps (&st->refused_caps);
  /* Everything but the GPU side, which keeps its settings. */
  gpu = st->gpu;
  memset (st, 0, sizeof (*st));
  st->gpu = gpu;
}

static GstStateChangeReturn
gst_robocache_resample_change_state (GstElement * element,
    GstStateChange transition)
{
  GstRobocacheResample *self = GST_ROBOCACHE_RESAMPLE (element);
  GstStateChangeReturn ret;

  if (transition == GST_STATE_CHANGE_READY_TO_PAUSED && !start (self))
    return GST_STATE_CHANGE_FAILURE;
  ret = GST_ELEMENT_CLASS (parent_class)->change_state (element, transition);
  if (transition == GST_STATE_CHANGE_PAUSED_TO_READY)
    stop (self);
  return ret;
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
  free_buffers (&self->state);
  gst_clear_caps (&self->state.refused_caps);
  gst_robocache_gpu_finalize (&self->state.gpu);
  G_OBJECT_CLASS (parent_class)->finalize (object);
}

static void
gst_robocache_resample_class_init (GstRobocacheResampleClass * klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  GstElementClass *element_class = GST_ELEMENT_CLASS (klass);

  gobject_class->set_property = gst_robocache_resample_set_property;
  gobject_class->get_property = gst_robocache_resample_get_property;
  gobject_class->finalize = gst_robocache_resample_finalize;

  /**
   * GstRobocacheResample:rate:
   *
   * Output samples per second: grid time k is origin + k / rate.
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
  /* backend and cuda-device-id (PROP_DEVICE_ID follows PROP_BACKEND). */
  gst_robocache_gpu_install_properties (gobject_class, PROP_BACKEND);
  /**
   * GstRobocacheResample:stats:
   *
   * Totals since the element started: inputs (samples accepted; a chunk
   * counts its batch x samples), outputs (grid times produced, per
   * trajectory), dropped-out-of-order (samples or chunks), dropped-bad-size
   * (buffers) and gaps (longer than max-gap).
   */
  g_object_class_install_property (gobject_class, PROP_STATS,
      g_param_spec_boxed ("stats", "Statistics", "Totals since start",
          GST_TYPE_STRUCTURE, G_PARAM_READABLE | G_PARAM_STATIC_STRINGS));

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
      "the GPU or the CPU", "robocache developers");

  element_class->change_state =
      GST_DEBUG_FUNCPTR (gst_robocache_resample_change_state);
  element_class->set_context =
      GST_DEBUG_FUNCPTR (gst_robocache_resample_set_context);

  gst_type_mark_as_plugin_api (GST_TYPE_ROBOCACHE_RESAMPLE_METHOD, 0);
  gst_type_mark_as_plugin_api (GST_TYPE_ROBOCACHE_RESAMPLE_TIME_ORIGIN, 0);
}

static void
gst_robocache_resample_init (GstRobocacheResample * self)
{
  GstElementClass *klass = GST_ELEMENT_GET_CLASS (self);
  Settings *s = &self->settings;

  self->sinkpad = gst_pad_new_from_template
      (gst_element_class_get_pad_template (klass, "sink"), "sink");
  gst_pad_set_chain_function (self->sinkpad,
      GST_DEBUG_FUNCPTR (gst_robocache_resample_chain));
  gst_pad_set_event_function (self->sinkpad,
      GST_DEBUG_FUNCPTR (gst_robocache_resample_sink_event));
  gst_pad_set_query_function (self->sinkpad,
      GST_DEBUG_FUNCPTR (gst_robocache_resample_sink_query));
  gst_element_add_pad (GST_ELEMENT (self), self->sinkpad);

  self->srcpad = gst_pad_new_from_template
      (gst_element_class_get_pad_template (klass, "src"), "src");
  gst_pad_set_query_function (self->srcpad,
      GST_DEBUG_FUNCPTR (gst_robocache_resample_src_query));
  gst_element_add_pad (GST_ELEMENT (self), self->srcpad);

  s->rate_n = DEFAULT_RATE_N;
  s->rate_d = DEFAULT_RATE_D;
  s->method = DEFAULT_METHOD;
  s->quaternions = g_strdup (DEFAULT_QUATERNIONS);
  s->angles = g_strdup (DEFAULT_ANGLES);
  s->max_gap = DEFAULT_MAX_GAP;
  s->time_origin = DEFAULT_TIME_ORIGIN;
  s->samples_per_buffer = DEFAULT_SAMPLES_PER_BUFFER;
  gst_robocache_gpu_init (&self->state.gpu);
  gst_segment_init (&self->state.segment, GST_FORMAT_TIME);
}
