/* robocachefuse's timeline: where the ticks fall (a rate's grid or the
 * master pad's buffers), each pad's samples moved up to a tick, the live
 * wait, the output caps naming the streams, and each tick's frame made
 * and pushed.  The element (gstrobocachefuse.c) negotiates, starts and
 * stops; these are its aggregate, clip, update_src_caps and get_next_time
 * vfuncs. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstrobocachefuseprivate.h"
#include "gstrobocachefuseframe.h"

#include <string.h>

#define GST_CAT_DEFAULT gst_robocache_fuse_debug

static GstClockTime
tick_time (GstRobocacheFuse * self, guint64 k)
{
  return gst_util_uint64_scale (k, GST_SECOND * (guint64) self->state.rate_d,
      self->state.rate_n);
}

/* Whether @rt, a buffer's running time on @pad, is one; if not, an element
 * error: streams are aligned by their timestamps. */
static gboolean
is_timed (GstRobocacheFuse * self, GstAggregatorPad * pad, GstClockTime rt)
{
  if (GST_CLOCK_TIME_IS_VALID (rt))
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

/* Counts @gap between two of @pad's samples in the interval the ticks
 * wait for (the latency).  A drop-out, more than four typical gaps, is no
 * interval: counted, one sensor hiccup would raise the pipeline's latency
 * for good.  Eight in a row are a new rate, not drop-outs. */
static void
observe_interval (GstRobocacheFusePad * pad, GstClockTime gap)
{
  gboolean dropout = pad->typical_interval > 0 &&
      gap / 4 > pad->typical_interval;

  if (dropout && ++pad->dropouts_in_row < 8)
    return;
  if (dropout || pad->typical_interval == 0)
    pad->typical_interval = gap;
  else
    pad->typical_interval = pad->typical_interval - pad->typical_interval / 16
        + gap / 16;
  pad->dropouts_in_row = 0;
  pad->interval = MAX (pad->interval, gap);
}

/* Moves every queued buffer at or before @tick into pad->prev and leaves
 * the first later one queued; *has_next says whether there is one.  The
 * answer comes from the same look at the queue that stopped the loop: a
 * buffer arriving just after it may still be at or before the tick, and
 * must not pass for the one after it.  A gap is no sample: one that ends
 * by the tick is dropped, one that ends after it says the stream has
 * nothing more before the tick (a recording's topic at the end of a
 * segment seek's pass), which counts as the buffer after it.  Without
 * @pop_ended_gaps a gap that ends by the tick stays queued, *at_gap set:
 * advance_pads drops it only once the tick can be made.  FALSE (with an
 * element error) on a buffer without timestamp. */
static gboolean
advance_pad (GstRobocacheFuse * self, GstRobocacheFusePad * pad,
    GstClockTime tick, gboolean pop_ended_gaps, gboolean * has_next,
    gboolean * at_gap)
{
  GstBuffer *buf;
  GstClockTime rt;

  *has_next = FALSE;
  *at_gap = FALSE;
  while ((buf = gst_robocache_fuse_pad_peek (pad, &rt))) {
    if (!is_timed (self, GST_AGGREGATOR_PAD (pad), rt)) {
      gst_buffer_unref (buf);
      return FALSE;
    }
    if (gst_robocache_fuse_pad_is_gap (buf)) {
      gboolean ends_after = !GST_BUFFER_DURATION_IS_VALID (buf) ||
          rt + GST_BUFFER_DURATION (buf) > tick;

      gst_buffer_unref (buf);
      if (ends_after) {
        *has_next = TRUE;
        break;
      }
      if (!pop_ended_gaps) {
        *at_gap = TRUE;
        break;
      }
      gst_buffer_unref (gst_robocache_fuse_pad_pop (pad));
      continue;
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
      observe_interval (pad, rt - pad->prev_rt);
    gst_buffer_unref (buf);
    gst_clear_buffer (&pad->prev);
    pad->prev = gst_robocache_fuse_pad_pop (pad);
    pad->prev_rt = rt;
  }
  return TRUE;
}

/* Why the stream names @names (of @pads, in order) cannot name the
 * streams of one frame, or NULL: the caps list them between commas, and
 * the frame's meta finds a stream by its name. */
static gchar *
stream_names_problem (GList * pads, gchar ** names)
{
  for (guint i = 0; names[i]; i++) {
    if (strchr (names[i], ','))
      return g_strdup_printf ("the stream name \"%s\" of %s holds a comma, "
          "which the caps' streams list separates names with", names[i],
          GST_PAD_NAME (g_list_nth_data (pads, i)));
    for (guint j = 0; j < i; j++)
      if (!strcmp (names[i], names[j]))
        return g_strdup_printf ("%s and %s both name their stream \"%s\"; "
            "each stream of a frame needs a name of its own (stream-name)",
            GST_PAD_NAME (g_list_nth_data (pads, j)),
            GST_PAD_NAME (g_list_nth_data (pads, i)), names[i]);
  }
  return NULL;
}

/* Whether downstream takes @caps; if not, an element error that says
 * where its fields come from (a capsfilter's framerate that is not the
 * rate property's was a bare not-negotiated). */
static gboolean
caps_accepted_downstream (GstRobocacheFuse * self, GstCaps * caps)
{
  GstPad *src = GST_AGGREGATOR_SRC_PAD (self);
  GstCaps *allowed;
  gchar *ours, *theirs;

  if (gst_pad_peer_query_accept_caps (src, caps))
    return TRUE;
  allowed = gst_pad_peer_query_caps (src, NULL);
  ours = gst_caps_to_string (caps);
  theirs = gst_caps_to_string (allowed);
  GST_ELEMENT_ERROR (self, CORE, NEGOTIATION, ("downstream refuses the "
          "fused frames' caps %s (framerate: the rate property; streams: "
          "the pads' stream-name in pad order); it accepts %s", ours, theirs),
      (NULL));
  g_free (ours);
  g_free (theirs);
  gst_caps_unref (allowed);
  return FALSE;
}

/* Sets the src caps when the set of streams changed; FALSE, with an
 * element error, for names that cannot tell the streams apart or caps
 * downstream refuses. */
static gboolean
update_src_caps (GstRobocacheFuse * self, GList * pads, gint rate_n,
    gint rate_d)
{
  guint n = g_list_length (pads), i = 0;
  gchar **names = g_new0 (gchar *, n + 1), *joined, *problem;
  GstCaps *caps;

  for (GList * l = pads; l; l = l->next)
    names[i++] = gst_robocache_fuse_pad_stream_name (l->data);
  joined = g_strjoinv (",", names);
  if (g_strcmp0 (joined, self->state.stream_names) == 0) {
    g_strfreev (names);
    g_free (joined);
    return TRUE;
  }
  problem = stream_names_problem (pads, names);
  g_strfreev (names);
  if (problem) {
    GST_ELEMENT_ERROR (self, STREAM, FORMAT, ("%s", problem), (NULL));
    g_free (problem);
    g_free (joined);
    return FALSE;
  }
  caps = gst_caps_new_simple (GST_ROBOCACHE_FUSED_MEDIA_TYPE,
      "streams", G_TYPE_STRING, joined,
      "framerate", GST_TYPE_FRACTION, rate_n, rate_d, NULL);
  if (!caps_accepted_downstream (self, caps)) {
    gst_caps_unref (caps);
    g_free (joined);
    return FALSE;
  }
  gst_aggregator_set_src_caps (GST_AGGREGATOR (self), caps);
  gst_caps_unref (caps);
  g_free (self->state.stream_names);
  self->state.stream_names = joined;
  return TRUE;
}

/* GstAggregator's negotiation would fixate the src template before the
 * first tick (framerate 0/1, no streams) and send those caps first; the
 * caps name the streams, known at a tick, where update_src_caps sets
 * them.  Until then the base class waits. */
GstFlowReturn
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
 * until the tick is certain to be produced.  A buffer at or before the
 * last tick (a pad made master while playing, whose buffer came after the
 * old master's tick at its time) is passed over: ticks never repeat. */
static GstFlowReturn
master_tick (GstRobocacheFuse * self, GstRobocacheFusePad * master,
    GstClockTime * tick)
{
  gboolean has_next, at_gap;
  GstBuffer *m;

  /* As another pad at that tick: its data there, the buffers after. */
  if (GST_CLOCK_TIME_IS_VALID (self->state.last_tick) &&
      !advance_pad (self, master, self->state.last_tick, TRUE, &has_next,
          &at_gap))
    return GST_FLOW_ERROR;
  /* A gap on the master is no tick. */
  while ((m = gst_robocache_fuse_pad_peek (master, tick)) &&
      gst_robocache_fuse_pad_is_gap (m)) {
    gst_buffer_unref (m);
    gst_buffer_unref (gst_robocache_fuse_pad_pop (master));
  }
  if (!m)
    return gst_robocache_fuse_pad_ended (master) ? GST_FLOW_EOS :
        GST_AGGREGATOR_FLOW_NEED_DATA;
  if (!GST_BUFFER_PTS_IS_VALID (m)) {
    gst_buffer_unref (m);
    GST_ELEMENT_ERROR (self, STREAM, FORMAT,
        ("a buffer on %s has no timestamp; robocachefuse aligns streams "
            "by their PTS", GST_PAD_NAME (master)), (NULL));
    return GST_FLOW_ERROR;
  }
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

/* Whether @pad, of the list the timeline took, no longer holds the ticks
 * back: a live pad that never delivered (ignore-inactive-pads), or one
 * released since the list was taken, which the base class's check would
 * abort on (it asserts the pad's parent). */
static gboolean
pad_is_inactive (GstRobocacheFuse * self, GstAggregatorPad * pad)
{
  gboolean inactive = TRUE;

  g_mutex_lock (&self->release_lock);
  if (gst_object_has_as_parent (GST_OBJECT (pad), GST_OBJECT (self)))
    inactive = gst_aggregator_pad_is_inactive (pad);
  g_mutex_unlock (&self->release_lock);
  return inactive;
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
    GstClockTime rt;
    GstBuffer *b = gst_robocache_fuse_pad_peek (l->data, &rt);
    /* The aggregator also wakes up for a pad's events alone: the origin
     * waits for every pad's first buffer (unless the live timeout says to
     * go on), so that it never depends on which stream happened to arrive
     * first. */
    if (!b && !timeout && !gst_robocache_fuse_pad_ended (l->data) &&
        !pad_is_inactive (self, aggpad))
      return GST_AGGREGATOR_FLOW_NEED_DATA;
    if (!b)
      continue;
    gst_buffer_unref (b);
    if (!is_timed (self, aggpad, rt))
      return GST_FLOW_ERROR;
    first = MIN (first, rt);
  }
  if (!GST_CLOCK_TIME_IS_VALID (first)) {
    for (GList * l = pads; l; l = l->next)
      eos &= gst_robocache_fuse_pad_ended (l->data);
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

/* Whether @pad, advanced to a tick, holds that tick back: it can still
 * deliver but has no sample after it yet. */
static gboolean
pad_lacks_next (GstRobocacheFuse * self, GstRobocacheFusePad * pad,
    gboolean has_next)
{
  return !has_next && !gst_robocache_fuse_pad_ended (pad) &&
      !pad_is_inactive (self, GST_AGGREGATOR_PAD (pad));
}

/* Advances every pad but the master to @tick.  *all_ready: every pad that
 * can still deliver has its sample after the tick; *all_eos: every pad
 * has ended, with no sample after it.  A gap that ends by the tick is
 * dropped only when no other pad holds the tick back: queued, it keeps
 * its pad ready for the base class, which then calls again as the others'
 * buffers come (dropped, its pad would be empty until its source's next
 * pass, and a source blocked pushing into another pad would never send
 * its end of the pass: two recordings after a segment seek).  FALSE on a
 * buffer without timestamp. */
static gboolean
advance_pads (GstRobocacheFuse * self, GList * pads,
    GstRobocacheFusePad * master, GstClockTime tick, gboolean * all_ready,
    gboolean * all_eos)
{
  gboolean any_lacking = FALSE, any_at_gap = FALSE;

  for (gboolean pop_gaps = FALSE;; pop_gaps = TRUE) {
    *all_ready = TRUE;
    *all_eos = TRUE;
    for (GList * l = pads; l; l = l->next) {
      GstRobocacheFusePad *pad = l->data;
      gboolean has_next = TRUE, at_gap = FALSE;

      if (pad != master && !advance_pad (self, pad, tick, pop_gaps,
              &has_next, &at_gap))
        return FALSE;
      any_at_gap |= at_gap;
      /* Live, a timeout can find every queue empty while no pad has
       * ended (every sensor late at once): that is no end of stream. */
      if (has_next || !gst_robocache_fuse_pad_ended (pad))
        *all_eos = FALSE;
      if (at_gap || pad_lacks_next (self, pad, has_next)) {
        *all_ready = FALSE;
        any_lacking |= !at_gap;
      }
    }
    if (pop_gaps || !any_at_gap || any_lacking)
      return TRUE;
  }
}

/* Live, once there is a tick (@tick; with rate=0/1 the @master's): how
 * far ahead a pad's buffers are taken out of the aggregator's queue, the
 * next tick's deadline (rate=0/1: a master's interval after @tick).  A
 * pad that stalls holds every tick back to its deadline, and the queues
 * of the others hold only the aggregator's latency property plus
 * upstream's minimum latency: a 1 kHz sensor beside a stalled one would
 * be blocked most of each tick at 10 Hz, and fall ever further behind.
 * NONE: nothing is held (offline, the base class waits for every pad). */
static GstClockTime
hold_horizon (GstRobocacheFuse * self, GstClockTime tick,
    GstRobocacheFusePad * master)
{
  GstClockTime latency = self->state.live_latency;

  if (!GST_CLOCK_TIME_IS_VALID (latency))
    return GST_CLOCK_TIME_NONE;
  if (self->state.rate_n > 0)
    return self->state.have_tick ? tick_time (self,
        self->state.tick_index + 1) + latency : GST_CLOCK_TIME_NONE;
  return master && GST_CLOCK_TIME_IS_VALID (tick) ? tick + master->interval +
      latency : GST_CLOCK_TIME_NONE;
}

/* Whether a pad of @pads has a queued buffer to hold. */
static gboolean
any_to_hold (GList * pads, GstClockTime horizon)
{
  for (GList * l = pads; l; l = l->next)
    if (gst_robocache_fuse_pad_can_hold (l->data, horizon))
      return TRUE;
  return FALSE;
}

/* Whether the clock has passed @tick's deadline, its time plus the
 * latency (always, offline).  A timeout alone does not say so: the wait
 * also ends at once to hold new buffers (get_next_time), and the first
 * tick, found from the data, may lie later on the grid than the one the
 * wait was for. */
static gboolean
deadline_passed (GstRobocacheFuse * self, GstClockTime tick)
{
  GstClock *clock;
  GstClockTime now;

  if (!GST_CLOCK_TIME_IS_VALID (self->state.live_latency) ||
      !(clock = gst_element_get_clock (GST_ELEMENT (self))))
    return TRUE;
  now = gst_clock_get_time (clock);
  gst_object_unref (clock);
  return now >= gst_element_get_base_time (GST_ELEMENT (self)) + tick +
      self->state.live_latency;
}

/* The later segments of the stream whose segment the output took that
 * start at or before @tick become the output's: a looped recording's
 * frames are stamped in each pass's time, as its own buffers are (the
 * first pass's segment, with its stop, would stamp none after it). */
static void
follow_segments (GstRobocacheFuse * self, GstClockTime tick)
{
  GstSegment *next = NULL, *later;

  GST_OBJECT_LOCK (self);
  while ((later = g_queue_peek_head (&self->state.later_segments))
      && later->base <= tick) {
    if (next)
      gst_segment_free (next);
    next = g_queue_pop_head (&self->state.later_segments);
  }
  GST_OBJECT_UNLOCK (self);
  if (next) {
    GST_INFO_OBJECT (self, "output segment from %" GST_SEGMENT_FORMAT, next);
    gst_aggregator_update_segment (GST_AGGREGATOR (self), next);
    gst_segment_free (next);
  }
}

/* Stamps the fused buffer with its tick and pushes it. */
static GstFlowReturn
push_tick (GstRobocacheFuse * self, GstBuffer * out, GstClockTime tick,
    GstRobocacheFusePad * master, guint n_stale)
{
  GstAggregator *agg = GST_AGGREGATOR (self);
  GstSegment *segment = &GST_AGGREGATOR_PAD (agg->srcpad)->segment;
  GstClockTime pts;

  follow_segments (self, tick);
  pts = gst_segment_position_from_running_time (segment, GST_FORMAT_TIME, tick);
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
  gboolean master_has_next, master_at_gap;
  GstFlowReturn ret;
  GstBuffer *out;
  guint n_stale;

  /* The master's buffer is the tick's own: consumed only now. */
  if (master && !advance_pad (self, master, tick, TRUE, &master_has_next,
          &master_at_gap))
    return GST_FLOW_ERROR;
  if (!update_src_caps (self, pads, settings->rate_n, settings->rate_d))
    return GST_FLOW_ERROR;
  out = gst_robocache_fuse_frame_make (GST_ELEMENT (self), &self->gpu, pads,
      tick, settings->flat_output, settings->stale_policy == STALE_DROP,
      &n_stale, &ret);
  if (ret != GST_FLOW_OK)
    return ret;
  if (!master)
    self->state.tick_index++;
  self->state.last_tick = tick;

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

GstFlowReturn
gst_robocache_fuse_aggregate (GstAggregator * agg, gboolean timeout)
{
  GstRobocacheFuse *self = GST_ROBOCACHE_FUSE (agg);
  GList *pads = ref_sink_pads (self);
  GstRobocacheFusePad *master = NULL;
  GstFlowReturn ret = GST_FLOW_OK;
  gboolean all_ready, all_eos;
  Settings settings;
  GstClockTime tick, horizon;

  GST_OBJECT_LOCK (self);
  settings = self->settings;
  GST_OBJECT_UNLOCK (self);
  settings.rate_n = self->state.rate_n;
  settings.rate_d = self->state.rate_d;

  if (!pads) {
    ret = timeout ? GST_FLOW_OK : GST_AGGREGATOR_FLOW_NEED_DATA;
    goto done;
  }
  self->state.live_latency = gst_aggregator_get_latency (agg);
  if (!next_tick (self, pads, timeout, &settings, &master, &tick, &ret))
    goto done;
  if (GST_CLOCK_TIME_IS_VALID (horizon = hold_horizon (self, tick, master))) {
    for (GList * l = pads; l; l = l->next)
      gst_robocache_fuse_pad_hold (l->data, horizon);
  }
  if (!advance_pads (self, pads, master, tick, &all_ready, &all_eos)) {
    ret = GST_FLOW_ERROR;
    goto done;
  }
  update_latency (self, pads);

  if (!all_ready && !(timeout && deadline_passed (self, tick))) {
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
GstBuffer *
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
master_next_time (GList * pads, GstRobocacheFusePad ** master)
{
  GstClockTime next = GST_CLOCK_TIME_NONE;
  GstBuffer *buf;

  *master = master_pad (pads);
  if (*master && (buf = gst_robocache_fuse_pad_peek (*master, &next)))
    gst_buffer_unref (buf);
  return next;
}

GstClockTime
gst_robocache_fuse_get_next_time (GstAggregator * agg)
{
  GstRobocacheFuse *self = GST_ROBOCACHE_FUSE (agg);
  GstClockTime next = GST_CLOCK_TIME_NONE, horizon;
  GstRobocacheFusePad *master = NULL;
  gboolean playing;
  GList *pads;
  gint rate_n;

  GST_OBJECT_LOCK (self);
  rate_n = self->state.rate_n;
  /* No clock wait before the way to PLAYING: the base time may not be set
   * yet (GstBin queries the latency, which wakes the aggregator, once the
   * clock is set but before each element's base time is), and a wait
   * against base time 0 would time out at once and move the grid hours
   * ahead (skip_past_clock).  GstBin sets the base time before the state
   * change, whose start wakes the aggregator again. */
  playing = GST_STATE (self) == GST_STATE_PLAYING ||
      GST_STATE_NEXT (self) == GST_STATE_PLAYING;
  /* The tick grid is known from the start: before the first tick too the
   * live wait ends at a tick (the aggregator adds the latency), so that
   * a pad that never delivers cannot hold the others forever. */
  if (rate_n > 0 && playing)
    next = tick_time (self, self->state.tick_index);
  GST_OBJECT_UNLOCK (self);
  if (!playing)
    return next;
  pads = ref_sink_pads (self);
  if (rate_n == 0)
    next = master_next_time (pads, &master);
  /* A buffer to hold ends the wait at once (0: the deadline has passed);
   * aggregate holds it and waits again for the tick. */
  horizon = hold_horizon (self, next, master);
  if (GST_CLOCK_TIME_IS_VALID (horizon) && any_to_hold (pads, horizon))
    next = 0;
  g_list_free_full (pads, gst_object_unref);
  return next;
}
