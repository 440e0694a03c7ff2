/* robocachemcapsink as a GStreamer sink: what it holds back while PAUSED,
 * the upstream events it passes on (a pipeline's seek), and the queries
 * it answers (position) or asks upstream.  The element
 * (gstrobocachemcapsink.c) writes; this decides when and says where. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstrobocachemcapsinkprivate.h"

#define GST_CAT_DEFAULT gst_robocache_mcap_sink_debug

void
mcap_gate_init (McapGate * gate)
{
  g_mutex_init (&gate->lock);
  g_cond_init (&gate->cond);
  gate->playing = FALSE;
  gate->closed = FALSE;
}

void
mcap_gate_clear (McapGate * gate)
{
  g_cond_clear (&gate->cond);
  g_mutex_clear (&gate->lock);
}

/* Opens the gate (PLAYING) or shuts it (PAUSED); with @closed, every wait
 * ends at once (on the way down to READY, so that the pads' streaming
 * threads let go before the pads are deactivated). */
void
mcap_gate_set (McapGate * gate, gboolean playing, gboolean closed)
{
  g_mutex_lock (&gate->lock);
  gate->playing = playing;
  gate->closed = closed;
  g_cond_broadcast (&gate->cond);
  g_mutex_unlock (&gate->lock);
}

/* A flush on @pad ends its wait (FLUSH_START) or is over (FLUSH_STOP). */
void
mcap_gate_flush (McapGate * gate, GstRobocacheMcapSinkPad * pad,
    gboolean flushing)
{
  g_mutex_lock (&gate->lock);
  pad->flushing = flushing;
  g_cond_broadcast (&gate->cond);
  g_mutex_unlock (&gate->lock);
}

/* As GstBaseSink after its preroll: a buffer or EOS reaching @pad while
 * the element is PAUSED waits for PLAYING, so that a pipeline paused,
 * seeked and played records from the seek on, not all that came before.
 * GST_FLOW_FLUSHING when a flush or the way down to READY ends the wait
 * (the data is then dropped). */
GstFlowReturn
mcap_gate_wait (McapGate * gate, GstRobocacheMcapSinkPad * pad)
{
  GstFlowReturn ret;

  g_mutex_lock (&gate->lock);
  if (!gate->playing && !gate->closed && !pad->flushing)
    GST_DEBUG_OBJECT (pad, "waiting for PLAYING");
  while (!gate->playing && !gate->closed && !pad->flushing)
    g_cond_wait (&gate->cond, &gate->lock);
  ret = gate->closed || pad->flushing ? GST_FLOW_FLUSHING : GST_FLOW_OK;
  g_mutex_unlock (&gate->lock);
  return ret;
}

/* An upstream event and whether any pad's peer took it. */
typedef struct
{
  GstEvent *event;
  gboolean taken;
} Upstream;

static gboolean
push_upstream (GstElement * element, GstPad * pad, gpointer user_data)
{
  Upstream *up = user_data;

  up->taken |= gst_pad_push_event (pad, gst_event_ref (up->event));
  return TRUE;
}

/* Events sent to the element: LATENCY is taken (the sink does not wait
 * for the clock), an upstream event (a pipeline's seek) goes out of every
 * sink pad, as a sink's does out of its one; TRUE if any upstream took
 * it (recording sources handle a seek once, whichever pad it comes by). */
gboolean
mcap_sink_send_event (GstElement * element, GstEvent * event)
{
  Upstream up = { event, FALSE };

  if (GST_EVENT_TYPE (event) == GST_EVENT_LATENCY) {
    gst_event_unref (event);
    return TRUE;
  }
  if (GST_EVENT_IS_UPSTREAM (event))
    gst_element_foreach_sink_pad (element, push_upstream, &up);
  else
    GST_DEBUG_OBJECT (element, "%s refused", GST_EVENT_TYPE_NAME (event));
  gst_event_unref (event);
  return up.taken;
}

/* A query and whether it has its answer. */
typedef struct
{
  GstQuery *query;
  gboolean answered;
  GstClockTime position;
} Question;

static gboolean
latest_position (GstElement * element, GstPad * gpad, gpointer user_data)
{
  GstRobocacheMcapSinkPad *pad = GST_ROBOCACHE_MCAP_SINK_PAD (gpad);
  Question *q = user_data;

  GST_OBJECT_LOCK (pad);
  if (GST_CLOCK_TIME_IS_VALID (pad->position) &&
      (!GST_CLOCK_TIME_IS_VALID (q->position) || pad->position > q->position))
    q->position = pad->position;
  GST_OBJECT_UNLOCK (pad);
  return TRUE;
}

static gboolean
ask_upstream (GstElement * element, GstPad * pad, gpointer user_data)
{
  Question *q = user_data;

  q->answered = gst_pad_peer_query (pad, q->query);
  return !q->answered;
}

/* Upstream's latency over every pad: the largest minimum, the smallest
 * maximum. */
typedef struct
{
  GstClockTime min, max;
} Latency;

static gboolean
add_latency (GstElement * element, GstPad * pad, gpointer user_data)
{
  Latency *l = user_data;
  GstQuery *query = gst_query_new_latency ();
  GstClockTime min, max;

  if (gst_pad_peer_query (pad, query)) {
    gst_query_parse_latency (query, NULL, &min, &max);
    l->min = MAX (l->min, min);
    if (GST_CLOCK_TIME_IS_VALID (max))
      l->max = GST_CLOCK_TIME_IS_VALID (l->max) ? MIN (l->max, max) : max;
  }
  gst_query_unref (query);
  return TRUE;
}

/* The latest stream time written on any pad (POSITION in TIME); LATENCY
 * over every pad, not live, as GstBaseSink with sync=false answers it (a
 * bin's latency is its syncing sinks');
 * the other queries (DURATION, SEEKING, ...) asked of the pads' peers,
 * the first answer taken. */
gboolean
mcap_sink_query (GstElement * element, GstQuery * query)
{
  Question q = { query, FALSE, GST_CLOCK_TIME_NONE };
  GstFormat format;

  if (GST_QUERY_TYPE (query) == GST_QUERY_LATENCY) {
    Latency l = { 0, GST_CLOCK_TIME_NONE };

    gst_element_foreach_sink_pad (element, add_latency, &l);
    gst_query_set_latency (query, FALSE, l.min, l.max);
    return TRUE;
  }
  if (GST_QUERY_TYPE (query) != GST_QUERY_POSITION) {
    gst_element_foreach_sink_pad (element, ask_upstream, &q);
    return q.answered;
  }
  gst_query_parse_position (query, &format, NULL);
  if (format != GST_FORMAT_TIME)
    return FALSE;
  gst_element_foreach_sink_pad (element, latest_position, &q);
  if (!GST_CLOCK_TIME_IS_VALID (q.position))
    return FALSE;
  gst_query_set_position (query, GST_FORMAT_TIME, q.position);
  return TRUE;
}
