/* Private to robocachefuse: the element's instance (settings, totals,
 * streaming state) shared by its negotiation and lifecycle
 * (gstrobocachefuse.c) and its timeline (gstrobocachefusetimeline.c). */
#ifndef __GST_ROBOCACHE_FUSE_PRIVATE_H__
#define __GST_ROBOCACHE_FUSE_PRIVATE_H__

#include "gstrobocachefuse.h"
#include "gstrobocachefusepad.h"
#include "gstrobocachegpu.h"

G_BEGIN_DECLS

typedef enum
{
  STALE_MARK,
  STALE_DROP
} StalePolicy;

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
  /* The rate the element started with, which the ticks, durations and
   * caps hang on (the property is refused until the element stops). */
  gint rate_n, rate_d;
  gboolean have_tick;
  /* Whether the output segment took a stream's, since start or flush;
   * the pad it came from (compared, not referenced), and that pad's later
   * segments (GstSegment, a recording's next pass in a loop, a
   * non-flushing seek), each the output's from the first tick at or after
   * its base.  Under the object lock. */
  gboolean segment_adopted;
  gpointer segment_pad;
  GQueue later_segments;
  guint32 segment_done_sent;    /* seqnum of the last SEGMENT_DONE pushed */
  /* Rate mode: the next tick is index k; before the first tick, the tick
   * the live wait times out at. */
  guint64 tick_index;
  GstClockTime last_rt;         /* latest buffer running time on any pad */
  /* rate=0/1: the last tick made, which a master's buffer must follow (a
   * pad made master while playing may hold one at or before it). */
  GstClockTime last_tick;
  gchar *stream_names;          /* of the caps last set on the src pad */
  GstClockTime latency;         /* the wait reported for the pads */
  /* The aggregator's whole latency at the last aggregate, NONE when not
   * live: a tick's deadline is its time plus it. */
  GstClockTime live_latency;
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
  /* Held while a request pad is released, and by the timeline while it
   * asks whether a pad of its list is inactive: the base class asserts
   * that such a pad still has its parent. */
  GMutex release_lock;
};

/* The timeline's vfuncs (gstrobocachefusetimeline.c). */
GstFlowReturn gst_robocache_fuse_aggregate (GstAggregator * agg,
    gboolean timeout);
GstBuffer *gst_robocache_fuse_clip (GstAggregator * agg,
    GstAggregatorPad * aggpad, GstBuffer * buf);
GstFlowReturn gst_robocache_fuse_update_src_caps (GstAggregator * agg,
    GstCaps * downstream, GstCaps ** caps);
GstClockTime gst_robocache_fuse_get_next_time (GstAggregator * agg);

G_END_DECLS
#endif /* __GST_ROBOCACHE_FUSE_PRIVATE_H__ */
