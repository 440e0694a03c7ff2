/**
 * SECTION:element-robocachefuse
 * @title: robocachefuse
 *
 * Aligns any number of live or recorded sensor streams onto one timeline
 * and outputs one fused frame per tick (other/x-robocache-fused): "what
 * every sensor said at this instant".  Request pads (sink_%u) take
 * robocache vectors, points, voxel grids, sparse voxels or pillars
 * (robocachepillars), and camera video (video/x-raw in system memory or
 * memory:CUDAMemory from GStreamer's CUDA elements, whose context
 * robocache shares).
 *
 * Ticks come at a fixed #GstRobocacheFuse:rate, aligned to running time 0,
 * or, with rate=0/1, one per buffer of the master pad (the pad with
 * master=true, else sink_0).
 *
 * Per pad (pad properties): stream-name, policy and max-age.  Policies:
 * interpolate (vectors in layout "sample": linear between the samples
 * around the tick, slerp for quaternion groups and short-way angles as in
 * robocacheresample; other streams are never interpolated and take the
 * nearest), nearest, previous (latest at or before the tick).  The chosen
 * data is stale when it is more than max-age from the tick or when the
 * stream has none.
 *
 * Output: one buffer per tick holding, for each stream with data, its
 * memory (the input's own memory, referenced, not copied: system or CUDA;
 * on the GPU, robocache CUDA memory of another device is copied onto the
 * element's own, so that the frame lies on one device; interpolated
 * vectors get a new system memory), and with
 * #GstRobocacheFuse:flat-output one float32 memory with every vector
 * stream concatenated (NaN for stale ones).  A GstRobocacheFusedMeta names
 * each stream with its caps, source timestamp, offset from the tick and
 * stale flag (see gstrobocachefusedmeta.h for the reading API).
 *
 * Live: each tick waits for the sample after it on every pad, up to the
 * latency: the longest observed sample interval of any pad (bounded by its
 * max-age) plus the aggregator's #GstAggregator:latency property.  A pad
 * that stops delivering never blocks beyond that: the tick is produced
 * with that stream stale (or dropped, #GstRobocacheFuse:stale-policy), and
 * it recovers when data comes back.  With a rate this holds from the
 * start: a pad that never delivers (not even caps) does not hold the first
 * tick, as the wait for the first data ends at a tick of the grid plus the
 * latency.  With rate=0/1 the ticks are the master's buffers: while the
 * master delivers nothing, nothing is output.  Pads may come and go while
 * playing.
 * Offline (not live) the element waits for data on every pad, so the same
 * inputs give byte-identical outputs.
 *
 * Each buffer is checked as it reaches the head of its pad's queue: one
 * whose size does not fit the pad's caps, or whose running time is earlier
 * than (or equal to) that of the last buffer accepted on the pad, is
 * dropped, counted in the pad's stats (dropped-bad-size,
 * dropped-out-of-order, dropped-duplicate) and warned about once per pad.
 * A buffer without timestamp is an error.
 *
 * ## Example launch line
 * |[
 * gst-launch-1.0 robocachefuse name=f rate=30/1 ! fakesink \
 *     videotestsrc is-live=true ! f.sink_0 \
 *     robocachejointsrc is-live=true ! f.sink_1 \
 *     robocachelidarsrc is-live=true ! robocachevoxelize ! f.sink_2
 * ]|
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstrobocachefuse.h"
#include "gstrobocachefusepad.h"
#include "gstrobocachefuseframe.h"
#include "gstrobocacheelements.h"
#include "gstrobocachecaps.h"
#include "gstrobocachefusedmeta.h"
#include "gstrobocachegpu.h"
#include "gstrobocachefields.h"

#include <string.h>

GST_DEBUG_CATEGORY (gst_robocache_fuse_debug);
#define GST_CAT_DEFAULT gst_robocache_fuse_debug

typedef enum
{
  STALE_MARK,
  STALE_DROP
} StalePolicy;

#define DEFAULT_RATE_N 30
#define DEFAULT_RATE_D 1
#define DEFAULT_FLAT_OUTPUT FALSE
#define DEFAULT_STALE_POLICY STALE_MARK
#define DEFAULT_IGNORE_INACTIVE FALSE

enum
{
  PROP_0,
  PROP_RATE,
  PROP_FLAT_OUTPUT,
  PROP_STALE_POLICY,
  PROP_IGNORE_INACTIVE_PADS,
  PROP_BACKEND,
  /* cuda-device-id, max-pinned-memory and max-memory follow PROP_BACKEND. */
  PROP_STATS = PROP_BACKEND + GST_ROBOCACHE_GPU_N_PROPERTIES,
};

typedef struct
{
  gint rate_n, rate_d;
  gboolean flat_output;
  StalePolicy stale_policy;
} Settings;

typedef struct
{
  guint64 ticks;
  guint64 dropped_ticks;
  guint64 stale_streams;
} Totals;

typedef struct
{
  /* The rate the element started with: a change of the property waits for
   * the next start, as the ticks, durations and caps hang on it. */
  gint rate_n, rate_d;
  gboolean have_tick;
  /* Rate mode: the next tick is index k; before the first tick, the tick
   * the live wait times out at. */
  guint64 tick_index;
  GstClockTime last_rt;         /* latest buffer running time on any pad */
  gchar *stream_names;          /* of the caps last set on the src pad */
  GstClockTime latency;         /* the wait reported for the pads */
} State;

struct _GstRobocacheFuse
{
  GstAggregator parent;

  /* The GPU side, as the CUDA filters' base holds it: the fused data is
   * referenced, but CUDA streams fused here share one context, and
   * another device's are copied onto it on the stream. */
  GstRobocacheGpu gpu;
  Settings settings;
  Totals totals;
  State state;
};

#define gst_robocache_fuse_parent_class parent_class
G_DEFINE_TYPE (GstRobocacheFuse, gst_robocache_fuse, GST_TYPE_AGGREGATOR);
GST_ELEMENT_REGISTER_DEFINE_WITH_CODE (robocachefuse, "robocachefuse",
    GST_RANK_NONE, GST_TYPE_ROBOCACHE_FUSE,
    GST_DEBUG_CATEGORY_INIT (gst_robocache_fuse_debug, "robocachefuse", 0,
        "robocache stream fusion"));

#define SINK_CAPS \
    GST_ROBOCACHE_VECTORS_CAPS "; " GST_ROBOCACHE_POINTS_CAPS "; " \
    GST_ROBOCACHE_VOXELS_CAPS "; " GST_ROBOCACHE_SPARSE_CAPS "; video/x-raw"
#define SINK_CUDA_CAPS \
    GST_ROBOCACHE_VECTORS_CUDA_CAPS "; " GST_ROBOCACHE_POINTS_CUDA_CAPS "; " \
    GST_ROBOCACHE_VOXELS_CUDA_CAPS "; " GST_ROBOCACHE_SPARSE_CUDA_CAPS "; " \
    "video/x-raw(memory:CUDAMemory)"

static GType stale_policy_get_type (void);

/* *INDENT-OFF* */
G_DEFINE_ENUM_TYPE (GstRobocacheFuseStalePolicy, stale_policy,
    {STALE_MARK, "Produce the tick with the stream marked stale", "mark"},
    {STALE_DROP, "Drop the tick", "drop"});
/* *INDENT-ON* */

/* ------------------------------------------------------------------ */
/* Element properties                                                  */
/* ------------------------------------------------------------------ */

static void
gst_robocache_fuse_set_property (GObject * object, guint prop_id,
    const GValue * value, GParamSpec * pspec)
{
  GstRobocacheFuse *self = GST_ROBOCACHE_FUSE (object);

  if (gst_robocache_gpu_set_property (&self->gpu, GST_ELEMENT (self),
          PROP_BACKEND, prop_id, value))
    return;
  if (prop_id == PROP_IGNORE_INACTIVE_PADS)
    gst_aggregator_set_ignore_inactive_pads (GST_AGGREGATOR (self),
        g_value_get_boolean (value));
  else
    gst_robocache_fields_set_property (object, prop_id, value, pspec);
}

/* The element's totals, and its pads' drops summed over the pads it has
 * now.  Called with the object lock. */
static GstStructure *
stats_structure (GstRobocacheFuse * self)
{
  FusePadStats sum = { 0 };

  for (GList * l = GST_ELEMENT (self)->sinkpads; l; l = l->next) {
    FusePadStats pad = gst_robocache_fuse_pad_get_stats (l->data);
    sum.dropped_bad_size += pad.dropped_bad_size;
    sum.dropped_out_of_order += pad.dropped_out_of_order;
    sum.dropped_duplicate += pad.dropped_duplicate;
  }
  return gst_structure_new ("robocachefuse-stats",
      "ticks", G_TYPE_UINT64, self->totals.ticks,
      "dropped-ticks", G_TYPE_UINT64, self->totals.dropped_ticks,
      "stale-streams", G_TYPE_UINT64, self->totals.stale_streams,
      "dropped-bad-size", G_TYPE_UINT64, sum.dropped_bad_size,
      "dropped-out-of-order", G_TYPE_UINT64, sum.dropped_out_of_order,
      "dropped-duplicate", G_TYPE_UINT64, sum.dropped_duplicate, NULL);
}

static void
get_stats (GObject * object, GValue * value)
{
  g_value_take_boxed (value, stats_structure (GST_ROBOCACHE_FUSE (object)));
}

/* The properties kept in settings; the others are set through the GPU
 * helper and the aggregator. */
static const GstRobocacheField fields[] = {
  GST_ROBOCACHE_FIELD_FRACTION (PROP_RATE, GstRobocacheFuse, settings.rate_n,
      settings.rate_d),
  GST_ROBOCACHE_FIELD (PROP_FLAT_OUTPUT, GstRobocacheFuse,
      settings.flat_output),
  GST_ROBOCACHE_FIELD (PROP_STALE_POLICY, GstRobocacheFuse,
      settings.stale_policy),
  GST_ROBOCACHE_FIELD_GETTER (PROP_STATS, get_stats),
  {0}
};

static void
gst_robocache_fuse_get_property (GObject * object, guint prop_id,
    GValue * value, GParamSpec * pspec)
{
  GstRobocacheFuse *self = GST_ROBOCACHE_FUSE (object);

  if (gst_robocache_gpu_get_property (&self->gpu, GST_ELEMENT (self),
          PROP_BACKEND, prop_id, value))
    return;
  if (prop_id == PROP_IGNORE_INACTIVE_PADS)
    g_value_set_boolean (value,
        gst_aggregator_get_ignore_inactive_pads (GST_AGGREGATOR (self)));
  else
    gst_robocache_fields_get_property (object, prop_id, value, pspec);
}

/* ------------------------------------------------------------------ */
/* Caps, events, queries                                               */
/* ------------------------------------------------------------------ */

/* What the fused frames in flight take of the element's own memory, with
 * every pad's caps so far, checked as each pad's caps come. */
static gboolean
check_frame_memory (GstRobocacheFuse * self)
{
  guint64 frame = 0;

  GST_OBJECT_LOCK (self);
  for (GList * l = GST_ELEMENT (self)->sinkpads; l; l = l->next)
    frame += gst_robocache_fuse_pad_frame_bytes (l->data);
  GST_OBJECT_UNLOCK (self);
  return gst_robocache_gpu_check_memory (&self->gpu, GST_ELEMENT (self),
      GST_ROBOCACHE_MEMORY_HOST, frame * GST_ROBOCACHE_BUFFERS_IN_FLIGHT,
      "the fused frames in flight (interpolated vectors)",
      "the vectors streams (channels)");
}

static gboolean
gst_robocache_fuse_sink_event (GstAggregator * agg, GstAggregatorPad * aggpad,
    GstEvent * event)
{
  GstRobocacheFuse *self = GST_ROBOCACHE_FUSE (agg);

  if (GST_EVENT_TYPE (event) == GST_EVENT_CAPS) {
    GstCaps *caps;
    gst_event_parse_caps (event, &caps);
    if (!gst_robocache_fuse_pad_set_caps (GST_ROBOCACHE_FUSE_PAD (aggpad),
            GST_ELEMENT (self), caps) || !check_frame_memory (self)) {
      gst_event_unref (event);
      return FALSE;
    }
  }
  return GST_AGGREGATOR_CLASS (parent_class)->sink_event (agg, aggpad, event);
}

static gboolean
gst_robocache_fuse_sink_query (GstAggregator * agg, GstAggregatorPad * aggpad,
    GstQuery * query)
{
  GstRobocacheFuse *self = GST_ROBOCACHE_FUSE (agg);

  if (gst_robocache_gpu_query_context (&self->gpu, GST_ELEMENT (self), query))
    return TRUE;
  return GST_AGGREGATOR_CLASS (parent_class)->sink_query (agg, aggpad, query);
}

/* Camera frames and other buffers in system memory land in page-locked
 * memory when fuse runs on the GPU, so that a copy to it runs at the
 * bus's full speed; CUDA video keeps the pools of GStreamer's CUDA
 * elements. */
static gboolean
gst_robocache_fuse_propose_allocation (GstAggregator * agg,
    GstAggregatorPad * pad, GstQuery * decide_query, GstQuery * query)
{
  GstRobocacheFuse *self = GST_ROBOCACHE_FUSE (agg);
  GstCaps *caps = NULL;

  gst_query_parse_allocation (query, &caps, NULL);
  if (caps && !gst_robocache_caps_is_cuda (caps))
    gst_robocache_gpu_propose_allocator (&self->gpu, query);
  return TRUE;
}

static gboolean
gst_robocache_fuse_src_query (GstAggregator * agg, GstQuery * query)
{
  GstRobocacheFuse *self = GST_ROBOCACHE_FUSE (agg);

  if (gst_robocache_gpu_query_context (&self->gpu, GST_ELEMENT (self), query))
    return TRUE;
  return GST_AGGREGATOR_CLASS (parent_class)->src_query (agg, query);
}

static void
gst_robocache_fuse_set_context (GstElement * element, GstContext * context)
{
  GstRobocacheFuse *self = GST_ROBOCACHE_FUSE (element);

  gst_robocache_gpu_set_context (&self->gpu, element, context);
  GST_ELEMENT_CLASS (parent_class)->set_context (element, context);
}

/* ------------------------------------------------------------------ */
/* Start and stop                                                      */
/* ------------------------------------------------------------------ */

static gboolean
gst_robocache_fuse_start (GstAggregator * agg)
{
  GstRobocacheFuse *self = GST_ROBOCACHE_FUSE (agg);

  GST_OBJECT_LOCK (self);
  memset (&self->totals, 0, sizeof (self->totals));
  for (GList * l = GST_ELEMENT (self)->sinkpads; l; l = l->next)
    gst_robocache_fuse_pad_reset_stats (l->data);
  GST_OBJECT_UNLOCK (self);

  if (!gst_robocache_gpu_start (&self->gpu, GST_ELEMENT (self)))
    return FALSE;
  GST_OBJECT_LOCK (self);
  self->state.rate_n = self->settings.rate_n;
  self->state.rate_d = self->settings.rate_d;
  self->state.tick_index = 0;
  GST_OBJECT_UNLOCK (self);
  self->state.have_tick = FALSE;
  self->state.last_rt = GST_CLOCK_TIME_NONE;
  self->state.latency = 0;
  return TRUE;
}

static gboolean
gst_robocache_fuse_stop (GstAggregator * agg)
{
  GstRobocacheFuse *self = GST_ROBOCACHE_FUSE (agg);
  GList *l;

  GST_OBJECT_LOCK (self);
  for (l = GST_ELEMENT (self)->sinkpads; l; l = l->next) {
    fuse_pad_reset (GST_ROBOCACHE_FUSE_PAD (l->data));
    gst_robocache_fuse_pad_free_copies (GST_ROBOCACHE_FUSE_PAD (l->data));
  }
  GST_OBJECT_UNLOCK (self);
  gst_robocache_gpu_stop (&self->gpu, GST_ELEMENT (self));
  g_clear_pointer (&self->state.stream_names, g_free);
  self->state.have_tick = FALSE;
  return TRUE;
}

/* After a flushing seek: the ticks start again from the first data that
 * follows it (each pad forgot its own in its flush), never from where they
 * were before it. */
static GstFlowReturn
gst_robocache_fuse_flush (GstAggregator * agg)
{
  GstRobocacheFuse *self = GST_ROBOCACHE_FUSE (agg);

  GST_OBJECT_LOCK (self);
  self->state.have_tick = FALSE;
  self->state.tick_index = 0;
  self->state.last_rt = GST_CLOCK_TIME_NONE;
  GST_OBJECT_UNLOCK (self);
  return GST_FLOW_OK;
}

/* ------------------------------------------------------------------ */
/* Aggregation                                                         */
/* ------------------------------------------------------------------ */

static GstClockTime
tick_time (GstRobocacheFuse * self, guint64 k)
{
  return gst_util_uint64_scale (k, GST_SECOND * (guint64) self->state.rate_d,
      self->state.rate_n);
}

/* The running time of @buf on @pad into *rt; FALSE (with an element error)
 * when it has none: streams are aligned by their timestamps. */
static gboolean
timed_running_time (GstRobocacheFuse * self, GstAggregatorPad * pad,
    GstBuffer * buf, GstClockTime * rt)
{
  *rt = gst_robocache_fuse_pad_running_time (pad, buf);
  if (GST_CLOCK_TIME_IS_VALID (*rt))
    return TRUE;
  GST_ELEMENT_ERROR (self, STREAM, FORMAT,
      ("a buffer on %s has no timestamp (or one outside the segment); "
          "robocachefuse aligns streams by their PTS", GST_PAD_NAME (pad)),
      (NULL));
  return FALSE;
}

/* The chosen master pad: master=true, else the first. */
static GstRobocacheFusePad *
master_pad (GList * pads)
{
  for (GList * l = pads; l; l = l->next) {
    if (gst_robocache_fuse_pad_get_settings (l->data).master)
      return l->data;
  }
  return pads ? pads->data : NULL;
}

/* Moves every queued buffer at or before @tick into pad->prev and leaves
 * the first later one queued; *has_next says whether there is one.  The
 * answer comes from the same look at the queue that stopped the loop: a
 * buffer arriving just after it may still be at or before the tick, and
 * must not pass for the one after it.  FALSE (with an element error) on a
 * buffer without timestamp. */
static gboolean
advance_pad (GstRobocacheFuse * self, GstRobocacheFusePad * pad,
    GstClockTime tick, gboolean * has_next)
{
  GstAggregatorPad *aggpad = GST_AGGREGATOR_PAD (pad);
  GstBuffer *buf;

  *has_next = FALSE;
  while ((buf = gst_aggregator_pad_peek_buffer (aggpad))) {
    GstClockTime rt;

    if (!timed_running_time (self, aggpad, buf, &rt)) {
      gst_buffer_unref (buf);
      return FALSE;
    }
    if (!GST_CLOCK_TIME_IS_VALID (self->state.last_rt) ||
        rt > self->state.last_rt)
      self->state.last_rt = rt;
    if (rt > tick) {
      gst_buffer_unref (buf);
      *has_next = TRUE;
      break;
    }
    if (GST_CLOCK_TIME_IS_VALID (pad->prev_rt) && rt > pad->prev_rt)
      pad->interval = MAX (pad->interval, rt - pad->prev_rt);
    gst_buffer_unref (buf);
    gst_clear_buffer (&pad->prev);
    pad->prev = gst_aggregator_pad_pop_buffer (aggpad);
    pad->prev_rt = rt;
  }
  return TRUE;
}

/* Sets the src caps when the set of streams changed. */
static void
update_src_caps (GstRobocacheFuse * self, GList * pads, gint rate_n,
    gint rate_d)
{
  GString *names = g_string_new (NULL);
  GstCaps *caps;

  for (GList * l = pads; l; l = l->next) {
    gchar *name = gst_robocache_fuse_pad_stream_name (l->data);
    g_string_append_printf (names, "%s%s", names->len ? "," : "", name);
    g_free (name);
  }
  if (g_strcmp0 (names->str, self->state.stream_names) == 0) {
    g_string_free (names, TRUE);
    return;
  }
  caps = gst_caps_new_simple (GST_ROBOCACHE_FUSED_MEDIA_TYPE,
      "streams", G_TYPE_STRING, names->str,
      "framerate", GST_TYPE_FRACTION, rate_n, rate_d, NULL);
  gst_aggregator_set_src_caps (GST_AGGREGATOR (self), caps);
  gst_caps_unref (caps);
  g_free (self->state.stream_names);
  self->state.stream_names = g_string_free (names, FALSE);
}

/* GstAggregator's negotiation would fixate the src template before the
 * first tick (framerate 0/1, no streams) and send those caps first; the
 * caps name the streams, known at a tick, where update_src_caps sets
 * them.  Until then the base class waits. */
static GstFlowReturn
gst_robocache_fuse_update_src_caps (GstAggregator * agg, GstCaps * downstream,
    GstCaps ** caps)
{
  *caps = NULL;
  return GST_AGGREGATOR_FLOW_NEED_DATA;
}

/* Reports the longest wait a tick may need: the largest sample interval
 * seen on any pad, each bounded by its max-age. */
static void
update_latency (GstRobocacheFuse * self, GList * pads)
{
  GstClockTime wait = 0;

  for (GList * l = pads; l; l = l->next) {
    GstRobocacheFusePad *pad = l->data;
    FusePadSettings settings = gst_robocache_fuse_pad_get_settings (pad);

    wait = MAX (wait, MIN (pad->interval, settings.max_age));
  }
  if (wait > self->state.latency) {
    self->state.latency = wait;
    GST_INFO_OBJECT (self, "waiting up to %" GST_TIME_FORMAT " for a pad",
        GST_TIME_ARGS (wait));
    gst_aggregator_set_latency (GST_AGGREGATOR (self), wait, wait);
  }
}

static gpointer
ref_pad (gconstpointer pad, gpointer unused)
{
  return gst_object_ref ((gpointer) pad);
}

static GList *
ref_sink_pads (GstRobocacheFuse * self)
{
  GList *pads;

  GST_OBJECT_LOCK (self);
  pads = g_list_copy_deep (GST_ELEMENT (self)->sinkpads, ref_pad, NULL);
  GST_OBJECT_UNLOCK (self);
  return pads;
}

/* rate=0/1: the tick is at the master's queued buffer, which stays queued
 * until the tick is certain to be produced. */
static GstFlowReturn
master_tick (GstRobocacheFuse * self, GstRobocacheFusePad * master,
    GstClockTime * tick)
{
  GstAggregatorPad *aggpad = GST_AGGREGATOR_PAD (master);
  GstBuffer *m = gst_aggregator_pad_peek_buffer (aggpad);

  if (!m)
    return gst_aggregator_pad_is_eos (aggpad) ? GST_FLOW_EOS :
        GST_AGGREGATOR_FLOW_NEED_DATA;
  if (!GST_BUFFER_PTS_IS_VALID (m)) {
    gst_buffer_unref (m);
    GST_ELEMENT_ERROR (self, STREAM, FORMAT,
        ("a buffer on %s has no timestamp; robocachefuse aligns streams "
            "by their PTS", GST_PAD_NAME (master)), (NULL));
    return GST_FLOW_ERROR;
  }
  *tick = gst_robocache_fuse_pad_running_time (aggpad, m);
  gst_buffer_unref (m);
  return GST_FLOW_OK;
}

/* Before the first tick, live, with no data on any pad: moves the tick the
 * wait times out at (state.tick_index) to the first after the clock's
 * running time now. */
static void
skip_past_clock (GstRobocacheFuse * self, gint rate_n, gint rate_d)
{
  GstClock *clock = gst_element_get_clock (GST_ELEMENT (self));
  GstClockTime base = gst_element_get_base_time (GST_ELEMENT (self));
  GstClockTime now = clock ? gst_clock_get_time (clock) : GST_CLOCK_TIME_NONE;
  guint64 k = self->state.tick_index + 1;

  if (GST_CLOCK_TIME_IS_VALID (now) && now > base)
    k = MAX (k, gst_util_uint64_scale (now - base, rate_n,
            GST_SECOND * (guint64) rate_d) + 1);
  gst_clear_object (&clock);
  GST_OBJECT_LOCK (self);
  self->state.tick_index = k;
  GST_OBJECT_UNLOCK (self);
}

/* At a fixed rate, the first tick: the first on the grid at or after the
 * earliest data.  state.have_tick says whether it was found.  Live, the
 * wait for every pad's first buffer ends at the tick state.tick_index
 * (plus the latency; see get_next_time): a pad that never delivers does
 * not hold the others. */
static GstFlowReturn
first_rate_tick (GstRobocacheFuse * self, GList * pads, gboolean timeout,
    gint rate_n, gint rate_d)
{
  GstClockTime first = GST_CLOCK_TIME_NONE;
  gboolean eos = TRUE;

  for (GList * l = pads; l; l = l->next) {
    GstAggregatorPad *aggpad = l->data;
    GstBuffer *b = gst_aggregator_pad_peek_buffer (aggpad);
    GstClockTime rt;
    gboolean timed;
    /* The aggregator also wakes up for a pad's events alone: the origin
     * waits for every pad's first buffer (unless the live timeout says to
     * go on), so that it never depends on which stream happened to arrive
     * first. */
    if (!b && !timeout && !gst_aggregator_pad_is_eos (aggpad) &&
        !gst_aggregator_pad_is_inactive (aggpad))
      return GST_AGGREGATOR_FLOW_NEED_DATA;
    if (!b)
      continue;
    timed = timed_running_time (self, aggpad, b, &rt);
    gst_buffer_unref (b);
    if (!timed)
      return GST_FLOW_ERROR;
    first = MIN (first, rt);
  }
  if (!GST_CLOCK_TIME_IS_VALID (first)) {
    for (GList * l = pads; l; l = l->next)
      eos &= gst_aggregator_pad_is_eos (l->data);
    if (eos)
      return GST_FLOW_EOS;
    if (!timeout)
      return GST_AGGREGATOR_FLOW_NEED_DATA;
    /* Live, and no pad delivered by the awaited tick: the next wait is
     * for the first tick still to come, not this one again (that would
     * time out at once, over and over). */
    skip_past_clock (self, rate_n, rate_d);
    return GST_FLOW_OK;
  }
  self->state.tick_index = gst_util_uint64_scale_ceil (first, rate_n,
      GST_SECOND * (guint64) rate_d);
  self->state.have_tick = TRUE;
  return GST_FLOW_OK;
}

/* The running time of the tick to make now into *tick, and with rate=0/1
 * the master pad into *master.  FALSE, with *ret, when there is none. */
static gboolean
next_tick (GstRobocacheFuse * self, GList * pads, gboolean timeout,
    const Settings * settings, GstRobocacheFusePad ** master,
    GstClockTime * tick, GstFlowReturn * ret)
{
  if (settings->rate_n == 0) {
    *master = master_pad (pads);
    *ret = master_tick (self, *master, tick);
    return *ret == GST_FLOW_OK;
  }
  if (!self->state.have_tick) {
    *ret = first_rate_tick (self, pads, timeout, settings->rate_n,
        settings->rate_d);
    if (!self->state.have_tick)
      return FALSE;
  }
  *tick = tick_time (self, self->state.tick_index);
  return TRUE;
}

/* Advances every pad but the master to @tick.  *all_ready: every pad that
 * can still deliver has its sample after the tick; *all_eos: every pad
 * has ended, with no sample after it.  FALSE on a buffer without
 * timestamp. */
static gboolean
advance_pads (GstRobocacheFuse * self, GList * pads,
    GstRobocacheFusePad * master, GstClockTime tick, gboolean * all_ready,
    gboolean * all_eos)
{
  *all_ready = TRUE;
  *all_eos = TRUE;
  for (GList * l = pads; l; l = l->next) {
    GstRobocacheFusePad *pad = l->data;
    GstAggregatorPad *aggpad = l->data;
    gboolean has_next;

    if (pad == master)
      has_next = TRUE;
    else if (!advance_pad (self, pad, tick, &has_next))
      return FALSE;
    /* Live, a timeout can find every queue empty while no pad has ended
     * (every sensor late at once): that is no end of stream. */
    if (has_next || !gst_aggregator_pad_is_eos (aggpad))
      *all_eos = FALSE;
    if (!has_next && !gst_aggregator_pad_is_eos (aggpad) &&
        !gst_aggregator_pad_is_inactive (aggpad))
      *all_ready = FALSE;
  }
  return TRUE;
}

/* Stamps the fused buffer with its tick and pushes it. */
static GstFlowReturn
push_tick (GstRobocacheFuse * self, GstBuffer * out, GstClockTime tick,
    GstRobocacheFusePad * master, guint n_stale)
{
  GstAggregator *agg = GST_AGGREGATOR (self);
  GstSegment *segment = &GST_AGGREGATOR_PAD (agg->srcpad)->segment;
  GstClockTime pts = gst_segment_position_from_running_time (segment,
      GST_FORMAT_TIME, tick);

  GST_BUFFER_PTS (out) = pts;
  /* Up to the next tick (tick_index has moved on to it), converted like
   * the PTS: at a segment rate other than 1 stream time and running time
   * differ. */
  if (!master) {
    GstClockTime next = gst_segment_position_from_running_time (segment,
        GST_FORMAT_TIME, tick_time (self, self->state.tick_index));
    if (GST_CLOCK_TIME_IS_VALID (pts) && GST_CLOCK_TIME_IS_VALID (next))
      GST_BUFFER_DURATION (out) = next > pts ? next - pts : pts - next;
  }
  segment->position = pts;
  GST_LOG_OBJECT (self, "tick %" GST_TIME_FORMAT ", %u stale",
      GST_TIME_ARGS (tick), n_stale);
  return gst_aggregator_finish_buffer (agg, out);
}

/* Makes the tick at @tick, now certain to be produced (or dropped by the
 * stale policy), and counts it. */
static GstFlowReturn
produce_tick (GstRobocacheFuse * self, GList * pads,
    GstRobocacheFusePad * master, GstClockTime tick, const Settings * settings)
{
  gboolean master_has_next;
  GstFlowReturn ret;
  GstBuffer *out;
  guint n_stale;

  /* The master's buffer is the tick's own: consumed only now. */
  if (master && !advance_pad (self, master, tick, &master_has_next))
    return GST_FLOW_ERROR;
  update_src_caps (self, pads, settings->rate_n, settings->rate_d);
  out = gst_robocache_fuse_frame_make (GST_ELEMENT (self), &self->gpu, pads,
      tick, settings->flat_output, settings->stale_policy == STALE_DROP,
      &n_stale, &ret);
  if (ret != GST_FLOW_OK)
    return ret;
  if (!master)
    self->state.tick_index++;

  GST_OBJECT_LOCK (self);
  self->totals.stale_streams += n_stale;
  if (out)
    self->totals.ticks++;
  else
    self->totals.dropped_ticks++;
  GST_OBJECT_UNLOCK (self);

  if (!out) {
    GST_DEBUG_OBJECT (self, "tick %" GST_TIME_FORMAT " dropped: %u stale",
        GST_TIME_ARGS (tick), n_stale);
    return GST_FLOW_OK;
  }
  return push_tick (self, out, tick, master, n_stale);
}

static GstFlowReturn
gst_robocache_fuse_aggregate (GstAggregator * agg, gboolean timeout)
{
  GstRobocacheFuse *self = GST_ROBOCACHE_FUSE (agg);
  GList *pads = ref_sink_pads (self);
  GstRobocacheFusePad *master = NULL;
  GstFlowReturn ret = GST_FLOW_OK;
  gboolean all_ready, all_eos;
  Settings settings;
  GstClockTime tick;

  GST_OBJECT_LOCK (self);
  settings = self->settings;
  GST_OBJECT_UNLOCK (self);
  settings.rate_n = self->state.rate_n;
  settings.rate_d = self->state.rate_d;

  if (!pads) {
    ret = timeout ? GST_FLOW_OK : GST_AGGREGATOR_FLOW_NEED_DATA;
    goto done;
  }
  if (!next_tick (self, pads, timeout, &settings, &master, &tick, &ret))
    goto done;
  if (!advance_pads (self, pads, master, tick, &all_ready, &all_eos)) {
    ret = GST_FLOW_ERROR;
    goto done;
  }
  update_latency (self, pads);

  if (!all_ready && !timeout) {
    ret = GST_AGGREGATOR_FLOW_NEED_DATA;
    goto done;
  }
  /* Every pad ended: ticks go on up to the last data, then EOS. */
  if (all_eos && (!GST_CLOCK_TIME_IS_VALID (self->state.last_rt) ||
          tick > self->state.last_rt)) {
    ret = GST_FLOW_EOS;
    goto done;
  }
  ret = produce_tick (self, pads, master, tick, &settings);

done:
  for (GList * l = pads; l; l = l->next)
    gst_robocache_fuse_pad_post_warnings (l->data, GST_ELEMENT (self));
  g_list_free_full (pads, gst_object_unref);
  return ret;
}

/* Buffers are checked as they reach the head of their pad's queue, after
 * the caps and segment before them: a bad one never reaches a tick. */
static GstBuffer *
gst_robocache_fuse_clip (GstAggregator * agg, GstAggregatorPad * aggpad,
    GstBuffer * buf)
{
  return gst_robocache_fuse_pad_check_arrival (GST_ROBOCACHE_FUSE_PAD
      (aggpad), buf);
}

/* rate=0/1: the tick is the master's queued buffer, and the live wait for
 * the other pads ends at its time (plus the latency).  Without one there
 * is no tick to make: the wait is for data, not for the clock (a clock
 * wait would time out at once again and again). */
static GstClockTime
master_next_time (GstRobocacheFuse * self)
{
  GList *pads = ref_sink_pads (self);
  GstRobocacheFusePad *master = master_pad (pads);
  GstClockTime next = GST_CLOCK_TIME_NONE;
  GstBuffer *buf;

  if (master && (buf = gst_aggregator_pad_peek_buffer (GST_AGGREGATOR_PAD
              (master)))) {
    next = gst_robocache_fuse_pad_running_time (GST_AGGREGATOR_PAD (master),
        buf);
    gst_buffer_unref (buf);
  }
  g_list_free_full (pads, gst_object_unref);
  return next;
}

static GstClockTime
gst_robocache_fuse_get_next_time (GstAggregator * agg)
{
  GstRobocacheFuse *self = GST_ROBOCACHE_FUSE (agg);
  GstClockTime next = GST_CLOCK_TIME_NONE;
  gint rate_n;

  GST_OBJECT_LOCK (self);
  rate_n = self->state.rate_n;
  /* The tick grid is known from the start: before the first tick too the
   * live wait ends at a tick (the aggregator adds the latency), so that
   * a pad that never delivers cannot hold the others forever. */
  if (rate_n > 0)
    next = tick_time (self, self->state.tick_index);
  GST_OBJECT_UNLOCK (self);
  if (rate_n == 0)
    next = master_next_time (self);
  return next;
}

static GstAggregatorPad *
gst_robocache_fuse_create_new_pad (GstAggregator * agg,
    GstPadTemplate * templ, const gchar * req_name, const GstCaps * caps)
{
  return GST_AGGREGATOR_CLASS (parent_class)->create_new_pad (agg, templ,
      req_name, caps);
}

/* ------------------------------------------------------------------ */
/* GObject                                                             */
/* ------------------------------------------------------------------ */

static void
gst_robocache_fuse_finalize (GObject * object)
{
  GstRobocacheFuse *self = GST_ROBOCACHE_FUSE (object);

  gst_robocache_gpu_finalize (&self->gpu);
  g_free (self->state.stream_names);
  G_OBJECT_CLASS (parent_class)->finalize (object);
}

static void
gst_robocache_fuse_class_init (GstRobocacheFuseClass * klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  GstElementClass *element_class = GST_ELEMENT_CLASS (klass);
  GstAggregatorClass *agg_class = GST_AGGREGATOR_CLASS (klass);
  GstCaps *sink_caps = gst_robocache_caps_with_cuda (SINK_CAPS,
      SINK_CUDA_CAPS);

  gobject_class->set_property = gst_robocache_fuse_set_property;
  gobject_class->get_property = gst_robocache_fuse_get_property;
  gst_robocache_fields_register (gobject_class, fields);
  gobject_class->finalize = gst_robocache_fuse_finalize;

  /**
   * GstRobocacheFuse:rate:
   *
   * Ticks per second, aligned to running time 0; 0/1 ticks once per buffer
   * of the master pad.  Read at start (READY to PAUSED): a value set later
   * takes effect at the next start, so the ticks, their durations and the
   * caps' framerate never change mid-stream.
   */
  g_object_class_install_property (gobject_class, PROP_RATE,
      gst_param_spec_fraction ("rate", "Rate",
          "Ticks per second (0/1: one per buffer of the master pad)", 0, 1,
          G_MAXINT, 1, DEFAULT_RATE_N, DEFAULT_RATE_D,
          G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
          GST_PARAM_MUTABLE_READY));
  /**
   * GstRobocacheFuse:flat-output:
   *
   * Add one float32 memory per tick holding every vector stream
   * concatenated in pad order (NaN for a stale stream).
   */
  g_object_class_install_property (gobject_class, PROP_FLAT_OUTPUT,
      g_param_spec_boolean ("flat-output", "Flat output",
          "Add every vector stream concatenated as one float32 memory",
          DEFAULT_FLAT_OUTPUT, G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
          GST_PARAM_MUTABLE_PLAYING));
  /**
   * GstRobocacheFuse:stale-policy:
   *
   * What a tick with a stale stream becomes: mark (the stream is flagged
   * in the meta) or drop (no output for that tick).
   */
  g_object_class_install_property (gobject_class, PROP_STALE_POLICY,
      g_param_spec_enum ("stale-policy", "Stale policy",
          "What a tick with a stale stream becomes", stale_policy_get_type (),
          DEFAULT_STALE_POLICY, G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
          GST_PARAM_MUTABLE_PLAYING));
  /**
   * GstRobocacheFuse:ignore-inactive-pads:
   *
   * Live: do not wait for pads that never delivered anything.
   */
  g_object_class_install_property (gobject_class, PROP_IGNORE_INACTIVE_PADS,
      g_param_spec_boolean ("ignore-inactive-pads", "Ignore inactive pads",
          "Live: do not wait for pads that never delivered data",
          DEFAULT_IGNORE_INACTIVE, G_PARAM_READWRITE |
          G_PARAM_STATIC_STRINGS | GST_PARAM_MUTABLE_READY));
  /* backend, cuda-device-id and max-pinned-memory. */
  gst_robocache_gpu_install_properties (gobject_class, PROP_BACKEND);
  /**
   * GstRobocacheFuse:stats:
   *
   * Totals since start: ticks, dropped-ticks, stale-streams; and summed
   * over the current pads, their dropped-bad-size, dropped-out-of-order
   * and dropped-duplicate (see the pads' stats).
   */
  gst_robocache_fields_install_stats (gobject_class, PROP_STATS,
      "Totals since start");

  gst_element_class_add_pad_template (element_class,
      gst_pad_template_new_with_gtype ("sink_%u", GST_PAD_SINK,
          GST_PAD_REQUEST, sink_caps, GST_TYPE_ROBOCACHE_FUSE_PAD));
  gst_element_class_add_pad_template (element_class,
      gst_pad_template_new_with_gtype ("src", GST_PAD_SRC, GST_PAD_ALWAYS,
          gst_caps_from_string (GST_ROBOCACHE_FUSED_CAPS),
          GST_TYPE_AGGREGATOR_PAD));
  gst_element_class_set_static_metadata (element_class,
      "robocache fusion", "Muxer/Robotics",
      "Aligns live sensor streams onto one timeline, one fused frame per "
      "tick (caps: streams = the stream names in pad order, framerate = the "
      "tick rate; the frame is read through its meta: docs/media-types.md)",
      GST_ROBOCACHE_AUTHOR);

  element_class->set_context =
      GST_DEBUG_FUNCPTR (gst_robocache_fuse_set_context);
  agg_class->aggregate = GST_DEBUG_FUNCPTR (gst_robocache_fuse_aggregate);
  agg_class->clip = GST_DEBUG_FUNCPTR (gst_robocache_fuse_clip);
  agg_class->update_src_caps =
      GST_DEBUG_FUNCPTR (gst_robocache_fuse_update_src_caps);
  agg_class->get_next_time =
      GST_DEBUG_FUNCPTR (gst_robocache_fuse_get_next_time);
  agg_class->sink_event = GST_DEBUG_FUNCPTR (gst_robocache_fuse_sink_event);
  agg_class->sink_query = GST_DEBUG_FUNCPTR (gst_robocache_fuse_sink_query);
  agg_class->propose_allocation =
      GST_DEBUG_FUNCPTR (gst_robocache_fuse_propose_allocation);
  agg_class->src_query = GST_DEBUG_FUNCPTR (gst_robocache_fuse_src_query);
  agg_class->start = GST_DEBUG_FUNCPTR (gst_robocache_fuse_start);
  agg_class->stop = GST_DEBUG_FUNCPTR (gst_robocache_fuse_stop);
  agg_class->flush = GST_DEBUG_FUNCPTR (gst_robocache_fuse_flush);
  agg_class->create_new_pad =
      GST_DEBUG_FUNCPTR (gst_robocache_fuse_create_new_pad);

  gst_type_mark_as_plugin_api (GST_TYPE_ROBOCACHE_FUSE_PAD, 0);
  gst_type_mark_as_plugin_api (GST_TYPE_ROBOCACHE_FUSE_POLICY, 0);
  gst_type_mark_as_plugin_api (stale_policy_get_type (), 0);
}

static void
gst_robocache_fuse_init (GstRobocacheFuse * self)
{
  gst_robocache_fields_init (self, fields);
  gst_robocache_gpu_init (&self->gpu);
}
