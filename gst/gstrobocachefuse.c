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
 * max-age; drop-outs, gaps of more than four typical intervals, aside)
 * plus the aggregator's #GstAggregator:latency property.  A pad
 * that stops delivering never blocks beyond that: the tick is produced
 * with that stream stale (or dropped, #GstRobocacheFuse:stale-policy), and
 * it recovers when data comes back.  Nor does it block the other sensors:
 * while a tick waits, their buffers are taken from their queues up to the
 * next tick's deadline.  No tick is made before its deadline, its time
 * plus the latency.  With a rate this holds from the
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
 *     videotestsrc is-live=true num-buffers=150 ! f.sink_0 \
 *     robocachejointsrc is-live=true num-buffers=500 ! f.sink_1 \
 *     robocachelidarsrc is-live=true num-buffers=50 ! robocachevoxelize ! \
 *     f.sink_2
 * ]|
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstrobocachefuseprivate.h"
#include "gstrobocachechildproxy.h"
#include "gstrobocacheelements.h"
#include "gstrobocachecaps.h"
#include "gstrobocachefusedmeta.h"
#include "gstrobocachegpu.h"
#include "gstrobocachefields.h"

#include <string.h>

GST_DEBUG_CATEGORY (gst_robocache_fuse_debug);
#define GST_CAT_DEFAULT gst_robocache_fuse_debug

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

#define gst_robocache_fuse_parent_class parent_class
/* The pads as children: gst-launch sets sink_1::max-age=... */
G_DEFINE_TYPE_WITH_CODE (GstRobocacheFuse, gst_robocache_fuse,
    GST_TYPE_AGGREGATOR, G_IMPLEMENT_INTERFACE (GST_TYPE_CHILD_PROXY,
        gst_robocache_sink_pads_child_proxy_init));
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

  if (!gst_robocache_property_settable (object, pspec)
      || gst_robocache_gpu_set_property (&self->gpu, GST_ELEMENT (self),
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

/* The timeline from scratch (at start, after a flushing seek, at stop):
 * no tick, no stream's segment adopted; under the object lock. */
static void
restart_timeline (GstRobocacheFuse * self)
{
  self->state.have_tick = FALSE;
  self->state.tick_index = 0;
  self->state.last_tick = GST_CLOCK_TIME_NONE;
  self->state.last_rt = GST_CLOCK_TIME_NONE;
  self->state.live_latency = GST_CLOCK_TIME_NONE;
  self->state.segment_adopted = FALSE;
  self->state.segment_pad = NULL;
  g_queue_clear_full (&self->state.later_segments,
      (GDestroyNotify) gst_segment_free);
}

/* The first stream segment before the first tick becomes the output's,
 * as a seek would set it: a recording source's rate or start-time then
 * stamps the frames in the recording's time, as the same seek does
 * (GstAggregator alone would keep rate 1 from 0).  A stream of another
 * rate is warned about: the ticks follow the first. */
static void
adopt_segment (GstRobocacheFuse * self, GstAggregatorPad * aggpad,
    GstEvent * event)
{
  GstAggregator *agg = GST_AGGREGATOR (self);
  const GstSegment *in;
  gdouble out_rate;

  gst_event_parse_segment (event, &in);
  if (in->format != GST_FORMAT_TIME)
    return;
  if (!self->state.have_tick && !self->state.segment_adopted) {
    GST_INFO_OBJECT (aggpad, "output segment from %" GST_SEGMENT_FORMAT, in);
    gst_aggregator_update_segment (agg, in);
    GST_OBJECT_LOCK (self);
    self->state.segment_adopted = TRUE;
    self->state.segment_pad = aggpad;
    GST_OBJECT_UNLOCK (self);
    return;
  }
  GST_OBJECT_LOCK (self);
  if (self->state.segment_adopted && self->state.segment_pad == aggpad)
    g_queue_push_tail (&self->state.later_segments, gst_segment_copy (in));
  out_rate = GST_AGGREGATOR_PAD (agg->srcpad)->segment.rate;
  GST_OBJECT_UNLOCK (self);
  if (in->rate != out_rate)
    GST_ELEMENT_WARNING (self, STREAM, FORMAT, ("%s plays at rate %g, the "
            "output at %g: its buffers are placed by running time",
            GST_PAD_NAME (aggpad), in->rate, out_rate), (NULL));
}

/* Whether @pad's SEGMENT_DONE, of the seek @seqnum, is the one to push:
 * each recording topic ends a segment seek's pass with one, and the
 * output's pass ends once, when every sink pad's last is of that seek.
 * By seqnum, not by a flag a new segment clears: the pads' queues drain
 * apart, and one pad's next segment could come before another's end of
 * the pass (a pass then ended twice, or not at all). */
static gboolean
segment_done_to_push (GstRobocacheFuse * self, GstRobocacheFusePad * pad,
    guint32 seqnum)
{
  gboolean all = TRUE;

  GST_OBJECT_LOCK (self);
  pad->segment_done_seqnum = seqnum;
  for (GList * l = GST_ELEMENT (self)->sinkpads; l && all; l = l->next)
    all = GST_ROBOCACHE_FUSE_PAD (l->data)->segment_done_seqnum == seqnum;
  all = all && self->state.segment_done_sent != seqnum;
  if (all)
    self->state.segment_done_sent = seqnum;
  GST_OBJECT_UNLOCK (self);
  return all;
}

static gboolean
gst_robocache_fuse_sink_event (GstAggregator * agg, GstAggregatorPad * aggpad,
    GstEvent * event)
{
  GstRobocacheFuse *self = GST_ROBOCACHE_FUSE (agg);
  GstRobocacheFusePad *pad = GST_ROBOCACHE_FUSE_PAD (aggpad);

  if (GST_EVENT_TYPE (event) == GST_EVENT_SEGMENT)
    adopt_segment (self, aggpad, event);
  if (GST_EVENT_TYPE (event) == GST_EVENT_SEGMENT_DONE &&
      !segment_done_to_push (self, pad, gst_event_get_seqnum (event))) {
    gst_event_unref (event);
    return TRUE;
  }
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

/* Whether a stream upstream is seekable in @format, and from @start to
 * @end, the widest range of those that are; a seek goes to them all. */
static gboolean
upstream_seeking (GstRobocacheFuse * self, GstFormat format, gint64 * start,
    gint64 * end)
{
  GstIterator *pads = gst_element_iterate_sink_pads (GST_ELEMENT (self));
  GValue item = G_VALUE_INIT;
  gboolean any = FALSE;

  *start = -1;
  *end = -1;
  while (gst_iterator_next (pads, &item) == GST_ITERATOR_OK) {
    GstQuery *query = gst_query_new_seeking (format);
    gboolean seekable = FALSE;
    gint64 from, to;

    if (gst_pad_peer_query (g_value_get_object (&item), query))
      gst_query_parse_seeking (query, NULL, &seekable, &from, &to);
    if (seekable) {
      *start = any ? MIN (*start, from) : from;
      *end = !any || (*end != -1 && (to == -1 || to > *end)) ? to : *end;
      any = TRUE;
    }
    gst_query_unref (query);
    g_value_reset (&item);
  }
  g_value_unset (&item);
  gst_iterator_free (pads);
  return any;
}

/* SEEKING is answered from upstream, as the seeks are taken (GstAggregator
 * answers not seekable, for muxers). */
static gboolean
gst_robocache_fuse_src_query (GstAggregator * agg, GstQuery * query)
{
  GstRobocacheFuse *self = GST_ROBOCACHE_FUSE (agg);

  if (gst_robocache_gpu_query_context (&self->gpu, GST_ELEMENT (self), query))
    return TRUE;
  if (GST_QUERY_TYPE (query) == GST_QUERY_SEEKING) {
    GstFormat format;
    gint64 start, end;
    gboolean seekable;

    gst_query_parse_seeking (query, &format, NULL, NULL, NULL);
    seekable = upstream_seeking (self, format, &start, &end);
    gst_query_set_seeking (query, format, seekable, seekable ? start : 0,
        seekable ? end : -1);
    return TRUE;
  }
  return GST_AGGREGATOR_CLASS (parent_class)->src_query (agg, query);
}

/* Whether a stream upstream can take @seek.  GstAggregator stops its task
 * for a flushing seek and does not start it again when upstream refuses
 * the seek, so the output would stop for good: seeks no stream can take
 * are refused here, before it. */
static gboolean
seek_possible (GstRobocacheFuse * self, GstEvent * seek)
{
  GstFormat format;
  gdouble rate;
  gint64 start, end;

  gst_event_parse_seek (seek, &rate, &format, NULL, NULL, NULL, NULL, NULL);
  if (rate <= 0.0) {
    GST_WARNING_OBJECT (self, "refusing a seek at rate %g: the ticks only "
        "go forward", rate);
    return FALSE;
  }
  if (!upstream_seeking (self, format, &start, &end)) {
    GST_WARNING_OBJECT (self, "refusing a seek: no stream upstream is "
        "seekable in %s", gst_format_get_name (format));
    return FALSE;
  }
  return TRUE;
}

/* A non-flushing seek goes upstream without touching the output segment.
 * GstAggregator takes the seek's segment at once, and the ticks still
 * owed from data queued before it were stamped in it, under the old
 * segment event: running time jumped ahead, then back.  The streams' new
 * segments become the output's from their first tick (follow_segments),
 * as a loop's passes do. */
static gboolean
forward_seek (GstRobocacheFuse * self, GstEvent * seek)
{
  GstIterator *pads = gst_element_iterate_sink_pads (GST_ELEMENT (self));
  GValue item = G_VALUE_INIT;
  gboolean taken = FALSE;

  while (gst_iterator_next (pads, &item) == GST_ITERATOR_OK) {
    taken |= gst_pad_push_event (g_value_get_object (&item),
        gst_event_ref (seek));
    g_value_reset (&item);
  }
  g_value_unset (&item);
  gst_iterator_free (pads);
  gst_event_unref (seek);
  return taken;
}

static gboolean
gst_robocache_fuse_src_event (GstAggregator * agg, GstEvent * event)
{
  GstRobocacheFuse *self = GST_ROBOCACHE_FUSE (agg);
  GstSeekFlags flags;

  if (GST_EVENT_TYPE (event) != GST_EVENT_SEEK)
    return GST_AGGREGATOR_CLASS (parent_class)->src_event (agg, event);
  if (!seek_possible (self, event)) {
    gst_event_unref (event);
    return FALSE;
  }
  gst_event_parse_seek (event, NULL, NULL, &flags, NULL, NULL, NULL, NULL);
  if (!(flags & GST_SEEK_FLAG_FLUSH))
    return forward_seek (self, event);
  return GST_AGGREGATOR_CLASS (parent_class)->src_event (agg, event);
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
  gchar *problem;

  GST_OBJECT_LOCK (self);
  memset (&self->totals, 0, sizeof (self->totals));
  for (GList * l = GST_ELEMENT (self)->sinkpads; l; l = l->next)
    gst_robocache_fuse_pad_reset_stats (l->data);
  GST_OBJECT_UNLOCK (self);

  GST_OBJECT_LOCK (self);
  self->state.rate_n = self->settings.rate_n;
  self->state.rate_d = self->settings.rate_d;
  restart_timeline (self);
  self->state.latency = 0;
  GST_OBJECT_UNLOCK (self);
  /* 0/1 ticks once per master buffer. */
  if (self->state.rate_n != 0 && (problem =
          gst_robocache_rate_problem (self->state.rate_n,
              self->state.rate_d))) {
    GST_ELEMENT_ERROR (self, LIBRARY, SETTINGS, ("%s; or 0/1, a tick per "
            "buffer of the master pad", problem), (NULL));
    g_free (problem);
    return FALSE;
  }
  return gst_robocache_gpu_start (&self->gpu, GST_ELEMENT (self));
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
  GST_OBJECT_LOCK (self);
  restart_timeline (self);
  GST_OBJECT_UNLOCK (self);
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
  restart_timeline (self);
  GST_OBJECT_UNLOCK (self);
  return GST_FLOW_OK;
}

static GstAggregatorPad *
gst_robocache_fuse_create_new_pad (GstAggregator * agg,
    GstPadTemplate * templ, const gchar * req_name, const GstCaps * caps)
{
  return GST_AGGREGATOR_CLASS (parent_class)->create_new_pad (agg, templ,
      req_name, caps);
}

static GstPad *
gst_robocache_fuse_request_new_pad (GstElement * element,
    GstPadTemplate * templ, const gchar * name, const GstCaps * caps)
{
  GstPad *pad = GST_ELEMENT_CLASS (parent_class)->request_new_pad (element,
      templ, name, caps);

  if (pad)
    gst_child_proxy_child_added (GST_CHILD_PROXY (element), G_OBJECT (pad),
        GST_OBJECT_NAME (pad));
  return pad;
}

/* Releasing a pad while playing: the timeline may be looking at it
 * (gstrobocachefusetimeline.c, pad_is_inactive). */
static void
gst_robocache_fuse_release_pad (GstElement * element, GstPad * pad)
{
  GstRobocacheFuse *self = GST_ROBOCACHE_FUSE (element);

  gst_child_proxy_child_removed (GST_CHILD_PROXY (element), G_OBJECT (pad),
      GST_OBJECT_NAME (pad));
  GST_OBJECT_LOCK (self);
  if (self->state.segment_pad == pad)
    self->state.segment_pad = NULL;
  GST_OBJECT_UNLOCK (self);
  g_mutex_lock (&self->release_lock);
  GST_ELEMENT_CLASS (parent_class)->release_pad (element, pad);
  g_mutex_unlock (&self->release_lock);
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
  restart_timeline (self);
  g_mutex_clear (&self->release_lock);
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
   * of the master pad.  Read at start (READY to PAUSED), so that the
   * ticks, their durations and the caps' framerate never change
   * mid-stream: set while paused or playing it is refused with a warning.
   * At most 1000000000/1 (an error at start above: ticks 1 ns apart are
   * the finest a GstClockTime holds).
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
   * Live: do not wait for pads that never delivered anything.  The
   * aggregator reads it at every wait, so a change while playing counts
   * from the next tick.
   */
  g_object_class_install_property (gobject_class, PROP_IGNORE_INACTIVE_PADS,
      g_param_spec_boolean ("ignore-inactive-pads", "Ignore inactive pads",
          "Live: do not wait for pads that never delivered data",
          DEFAULT_IGNORE_INACTIVE, G_PARAM_READWRITE |
          G_PARAM_STATIC_STRINGS | GST_PARAM_MUTABLE_PLAYING));
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
  element_class->request_new_pad =
      GST_DEBUG_FUNCPTR (gst_robocache_fuse_request_new_pad);
  element_class->release_pad =
      GST_DEBUG_FUNCPTR (gst_robocache_fuse_release_pad);
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
  agg_class->src_event = GST_DEBUG_FUNCPTR (gst_robocache_fuse_src_event);
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
  g_queue_init (&self->state.later_segments);
  self->state.segment_done_sent = GST_SEQNUM_INVALID;
  g_mutex_init (&self->release_lock);
}
