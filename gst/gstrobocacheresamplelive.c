/* robocacheresample, layout sample in: one sample per buffer, the last few
 * kept as history; each new sample produces the grid times up to it, one
 * buffer each or gathered into chunks of samples-per-buffer. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstrobocacheresampleprivate.h"

#include <string.h>

#define GST_CAT_DEFAULT gst_robocache_resample_debug

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
  buf = resample_new_output (self, times + values);
  if (!buf || !resample_fill_output (self, buf, 0, st->chunk_t, times)
      || !resample_fill_output (self, buf, times, st->chunk_v, values)) {
    gst_clear_buffer (&buf);
    return GST_FLOW_ERROR;
  }
  return resample_push_output (self, buf, st->chunk_k, st->chunk_k + n, n);
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
      st->chunk_t[st->n_chunk] =
          (gint64) resample_to_pts (st, resample_grid_time (st, k0 + i));
      memcpy (st->chunk_v + (gsize) st->n_chunk * st->sample_size, v,
          st->sample_size);
      if (++st->n_chunk == st->samples_per_buffer)
        flow = finish_chunk (self);
    } else {
      GstBuffer *buf = resample_new_output (self, st->sample_size);

      if (!buf || !resample_fill_output (self, buf, 0, v, st->sample_size)) {
        gst_clear_buffer (&buf);
        return GST_FLOW_ERROR;
      }
      flow = resample_push_output (self, buf, k0 + i, k0 + i + 1, 1);
    }
  }
  return flow;
}

/* Produces grid times [k_next, k_end) from the history. */
static GstFlowReturn
emit_until (GstRobocacheResample * self, guint64 k_end)
{
  State *st = &self->state;
  gsize times = RESAMPLE_LIVE_MAX_TARGETS * sizeof (gint64);
  gsize values = (gsize) RESAMPLE_LIVE_MAX_TARGETS * st->sample_size;
  GstFlowReturn flow = GST_FLOW_OK;

  if (st->n_hist == 0 || st->k_next >= k_end)
    return GST_FLOW_OK;
  if (!resample_ensure_host (self, &st->scratch, &st->scratch_size,
          times + values))
    return GST_FLOW_ERROR;
  while (st->k_next < k_end && flow == GST_FLOW_OK) {
    guint n = (guint) MIN (k_end - st->k_next, RESAMPLE_LIVE_MAX_TARGETS);
    gint64 *tgt = (gint64 *) st->scratch;
    guint8 *out = st->scratch + times;
    guint64 k0 = st->k_next;

    resample_grid_times (st, k0, n, FALSE, tgt);
    flow = resample_compute (self, 1, st->n_hist, n, st->hist_t, st->hist_v,
        tgt, out);
    st->k_next = k0 + n;
    if (flow == GST_FLOW_OK)
      flow = push_vectors (self, k0, n, out);
  }
  return flow;
}

/* Produces what the history still owes (grid times up to its last sample)
 * and the chunk being filled. */
GstFlowReturn
resample_drain (GstRobocacheResample * self)
{
  State *st = &self->state;
  GstFlowReturn flow = GST_FLOW_OK;

  if (!st->configured)
    return GST_FLOW_OK;
  if (st->in_info.layout == GST_ROBOCACHE_VECTORS_LAYOUT_CHUNK)
    return resample_drain_chunk (self);
  if (st->n_hist > 0)
    flow = emit_until (self, resample_grid_index_gt (st,
            st->hist_t[st->n_hist - 1]));
  if (flow == GST_FLOW_OK)
    flow = finish_chunk (self);
  return flow;
}

/* The running time of the sample in @buf into @t; FALSE when the buffer
 * goes no further (dropped, or *flow set to the error posted). */
static gboolean
sample_running_time (GstRobocacheResample * self, GstBuffer * buf,
    GstClockTime * t, GstFlowReturn * flow)
{
  State *st = &self->state;
  gsize size = gst_buffer_get_size (buf);
  GstClockTime pts = GST_BUFFER_PTS (buf);

  *flow = GST_FLOW_OK;
  if (size != st->sample_size) {
    gchar *what = g_strdup_printf ("layout sample needs exactly one vector "
        "of %" G_GSIZE_FORMAT " bytes (channels x value size)",
        st->sample_size);
    resample_drop_bad_size (self, size, what);
    g_free (what);
    return FALSE;
  }
  if (!GST_CLOCK_TIME_IS_VALID (pts)) {
    GST_ELEMENT_ERROR (self, STREAM, FORMAT,
        ("a sample without a PTS: with layout sample, every buffer's PTS "
            "must be its sample time"), (NULL));
    *flow = GST_FLOW_ERROR;
    return FALSE;
  }
  *t = gst_segment_to_running_time (&st->segment, GST_FORMAT_TIME, pts);
  if (!GST_CLOCK_TIME_IS_VALID (*t)) {
    GST_DEBUG_OBJECT (self, "sample at %" GST_TIME_FORMAT " is outside the "
        "segment", GST_TIME_ARGS (pts));
    return FALSE;
  }
  return TRUE;
}

/* Appends the sample at running time @t to the history, forgetting the
 * oldest when it is full; FALSE, with the error posted, when @buf cannot
 * be read (gst_buffer_extract does not survive that). */
static gboolean
append_to_history (GstRobocacheResample * self, GstBuffer * buf,
    GstClockTime t)
{
  State *st = &self->state;
  GstMapInfo map;

  if (!gst_buffer_map (buf, &map, GST_MAP_READ)) {
    GST_ELEMENT_ERROR (self, RESOURCE, READ, ("cannot map an input sample"),
        (NULL));
    return FALSE;
  }
  if (st->n_hist == st->history_len) {
    memmove (st->hist_t, st->hist_t + 1, (st->n_hist - 1) * sizeof (gint64));
    memmove (st->hist_v, st->hist_v + st->sample_size,
        (st->n_hist - 1) * st->sample_size);
    st->n_hist--;
  }
  st->hist_t[st->n_hist] = (gint64) t;
  memcpy (st->hist_v + st->n_hist * st->sample_size, map.data,
      MIN (map.size, st->sample_size));
  gst_buffer_unmap (buf, &map);
  st->n_hist++;
  st->last_t = t;
  st->have_last = TRUE;
  return TRUE;
}

GstFlowReturn
resample_process_sample (GstRobocacheResample * self, GstBuffer * buf)
{
  State *st = &self->state;
  GstFlowReturn flow;
  GstClockTime t;
  guint64 k_end;

  if (!sample_running_time (self, buf, &t, &flow))
    return flow;
  if (GST_BUFFER_FLAG_IS_SET (buf, GST_BUFFER_FLAG_DISCONT) && st->n_hist) {
    flow = resample_drain (self);
    resample_reset_history (st);
    if (flow != GST_FLOW_OK)
      return flow;
  }
  if (st->have_last && t <= st->last_t) {
    resample_drop_out_of_order (self, t);
    return GST_FLOW_OK;
  }
  resample_count_inputs (self, 1);

  if (st->n_hist > 0 && t - (GstClockTime) st->hist_t[st->n_hist - 1] >
      st->max_gap) {
    flow = resample_drain (self);
    if (flow != GST_FLOW_OK)
      return flow;
    resample_skip_gap (self, t);
    st->n_hist = 0;
  }
  if (!st->aligned)
    resample_align_grid (st, t);
  if (!append_to_history (self, buf, t))
    return GST_FLOW_ERROR;

  /* Cubic produces up to the previous sample: it needs a neighbour after
   * the interval. */
  if (st->params.method == RC_INTERP_CUBIC)
    k_end = st->n_hist >= 2 ?
        resample_grid_index_gt (st, st->hist_t[st->n_hist - 2]) : st->k_next;
  else
    k_end = resample_grid_index_gt (st, t);
  return emit_until (self, k_end);
}
