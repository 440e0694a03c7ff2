/* robocacheresample: the time grid, and what goes out on it (outputs
 * stamped with their grid times, GAP events, the counters of what came
 * in and what was dropped). */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstrobocacheresampleprivate.h"

#define GST_CAT_DEFAULT gst_robocache_resample_debug

/* ------------------------------------------------------------------ */
/* The grid                                                            */
/* ------------------------------------------------------------------ */

GstClockTime
resample_grid_time (const State * st, guint64 k)
{
  return st->origin + gst_util_uint64_scale (k, GST_SECOND * st->rate_d,
      st->rate_n);
}

/* Grid times [@k0, @k0 + @n) into @out: buffer times with @to_pts, else
 * running times.  The same values as resample_grid_time and
 * resample_to_pts give a time at a time, without their divisions: the
 * scaled index steps by its quotient and remainder, and where a segment
 * of rate 1 maps both ends every time shifts by the same offset.  A run
 * that cannot be stepped exactly (an overflow) goes a time at a time. */
void
resample_grid_times (const State * st, guint64 k0, gsize n, gboolean to_pts,
    gint64 * out)
{
  const guint64 num = GST_SECOND * (guint64) st->rate_d;
  const guint64 den = (guint64) st->rate_n;
  const guint64 step = num / den, step_rem = num % den;
  guint64 q, r;
  GstClockTime rt_first, rt_end, pts_first, pts_end;

  if (n == 0)
    return;
  q = gst_util_uint64_scale (k0, num, den);
  /* Exact modulo 2^64: the true remainder is below den. */
  r = k0 * num - q * den;
  for (gsize i = 0; i < n; i++) {
    out[i] = (gint64) (st->origin + q);
    q += step;
    r += step_rem;
    if (r >= den) {
      r -= den;
      q++;
    }
  }
  rt_end = resample_grid_time (st, k0 + n - 1);
  if ((guint64) out[n - 1] != rt_end) {
    for (gsize i = 0; i < n; i++)
      out[i] = (gint64) resample_grid_time (st, k0 + i);
  }
  if (!to_pts)
    return;
  rt_first = (GstClockTime) out[0];
  pts_first = gst_segment_position_from_running_time (&st->segment,
      GST_FORMAT_TIME, rt_first);
  pts_end = gst_segment_position_from_running_time (&st->segment,
      GST_FORMAT_TIME, rt_end);
  if (st->segment.rate == 1.0 && GST_CLOCK_TIME_IS_VALID (pts_first)
      && GST_CLOCK_TIME_IS_VALID (pts_end)
      && pts_first - rt_first == pts_end - rt_end) {
    for (gsize i = 0; i < n; i++)
      out[i] = (gint64) ((guint64) out[i] + (pts_first - rt_first));
  } else {
    for (gsize i = 0; i < n; i++)
      out[i] = (gint64) resample_to_pts (st, (GstClockTime) out[i]);
  }
}

/* The first grid index whose time is >= @t. */
guint64
resample_grid_index_ge (const State * st, GstClockTime t)
{
  guint64 k;

  if (t <= st->origin)
    return 0;
  k = gst_util_uint64_scale_ceil (t - st->origin, st->rate_n,
      GST_SECOND * st->rate_d);
  /* grid_time() rounds down: settle the last nanosecond exactly. */
  while (k > 0 && resample_grid_time (st, k - 1) >= t)
    k--;
  while (resample_grid_time (st, k) < t)
    k++;
  return k;
}

/* The first grid index whose time is > @t. */
guint64
resample_grid_index_gt (const State * st, GstClockTime t)
{
  return resample_grid_index_ge (st, t + 1);
}

/* Buffer time of running time @rt in the current segment. */
GstClockTime
resample_to_pts (const State * st, GstClockTime rt)
{
  GstClockTime pts = gst_segment_position_from_running_time (&st->segment,
      GST_FORMAT_TIME, rt);

  return GST_CLOCK_TIME_IS_VALID (pts) ? pts : rt;
}

/* Places the grid for a run of samples that starts at running time @t. */
void
resample_align_grid (State * st, GstClockTime t)
{
  if (st->time_origin == GST_ROBOCACHE_RESAMPLE_ORIGIN_FIRST_SAMPLE) {
    st->origin = t;
    st->k_next = 0;
  } else {
    st->origin = 0;
    st->k_next = resample_grid_index_ge (st, t);
  }
  st->aligned = TRUE;
}

/* Starts afresh: the next sample begins a new history (and, with
 * time-origin=first-sample, a new grid). */
void
resample_reset_history (State * st)
{
  st->n_hist = 0;
  st->have_prev = FALSE;
  st->aligned = FALSE;
  st->discont = TRUE;
}

/* Forgets everything about the stream's timing (flush, new segment). */
void
resample_reset_timing (State * st)
{
  resample_reset_history (st);
  st->n_chunk = 0;
  st->have_last = FALSE;
  st->k_next = 0;
}

/* ------------------------------------------------------------------ */
/* Output                                                              */
/* ------------------------------------------------------------------ */

/* A buffer of @size bytes from the pool of CUDA outputs, made anew
 * (an eighth larger, for the next outputs' jitter) when @size outgrows it;
 * the old pool's buffers are freed as they come back.  NULL on error
 * (posted). */
static GstBuffer *
new_pooled_output (GstRobocacheResample * self, gsize size)
{
  State *st = &self->state;
  GstBuffer *buf = NULL;

  if (!st->out_pool || size > st->out_pool_size) {
    gsize pool_size = MIN (size + size / 8, G_MAXUINT);

    if (st->out_pool)
      gst_buffer_pool_set_active (st->out_pool, FALSE);
    gst_clear_object (&st->out_pool);
    st->out_pool = gst_robocache_gpu_make_pool (st->gpu, GST_ELEMENT (self),
        NULL, pool_size, "resampled outputs");
    st->out_pool_size = st->out_pool ? pool_size : 0;
    if (!st->out_pool)
      return NULL;
  }
  if (gst_buffer_pool_acquire_buffer (st->out_pool, &buf,
          NULL) != GST_FLOW_OK) {
    GST_ELEMENT_ERROR (self, RESOURCE, NO_SPACE_LEFT, ("cannot allocate an "
            "output buffer of %" G_GSIZE_FORMAT " bytes of GPU memory: %s",
            size, rc_error_detail ()), (NULL));
    return NULL;
  }
  gst_buffer_set_size (buf, size);
  return buf;
}

/* A new output buffer of @size bytes: CUDA memory from the pool, or
 * system memory, page-locked on the GPU path (downloads at the bus's
 * speed; the allocator keeps freed blocks). */
GstBuffer *
resample_new_output (GstRobocacheResample * self, gsize size)
{
  State *st = &self->state;
  GstBuffer *buf;

  if (st->out_cuda && size <= G_MAXUINT)
    return new_pooled_output (self, size);
  buf = gst_buffer_new_allocate (st->out_cuda ? st->gpu->allocator :
      st->gpu->use_gpu ? st->gpu->pinned : NULL, size, NULL);
  if (!buf)
    GST_ELEMENT_ERROR (self, RESOURCE, NO_SPACE_LEFT,
        ("cannot allocate an output buffer of %" G_GSIZE_FORMAT " bytes%s%s",
            size, st->out_cuda ? " of GPU memory: " : "",
            st->out_cuda ? rc_error_detail () : ""), (NULL));
  return buf;
}

/* Copies @size bytes of @src into @buf at @offset; FALSE, with the error
 * posted, when @buf cannot be mapped (its CUDA context failed, say), which
 * gst_buffer_fill does not survive. */
gboolean
resample_fill_output (GstRobocacheResample * self, GstBuffer * buf,
    gsize offset, gconstpointer src, gsize size)
{
  GstMapInfo map;

  if (!gst_buffer_map (buf, &map, GST_MAP_WRITE)) {
    GST_ELEMENT_ERROR (self, RESOURCE, WRITE,
        ("cannot map an output buffer of %" G_GSIZE_FORMAT " bytes%s%s",
            gst_buffer_get_size (buf), self->state.out_cuda ?
            " of GPU memory: " : "", self->state.out_cuda ?
            rc_error_detail () : ""), (NULL));
    return FALSE;
  }
  memcpy (map.data + offset, src, size);
  gst_buffer_unmap (buf, &map);
  return TRUE;
}

/* Stamps @buf as grid times [k0, k_end) and pushes it: the element makes
 * any number of outputs per input, so it pushes them itself. */
GstFlowReturn
resample_push_output (GstRobocacheResample * self, GstBuffer * buf,
    guint64 k0, guint64 k_end, guint64 n_outputs)
{
  State *st = &self->state;
  GstClockTime start = resample_to_pts (st, resample_grid_time (st, k0));

  GST_BUFFER_PTS (buf) = start;
  GST_BUFFER_DTS (buf) = GST_CLOCK_TIME_NONE;
  GST_BUFFER_DURATION (buf) =
      resample_to_pts (st, resample_grid_time (st, k_end)) - start;
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
  return gst_pad_push (GST_BASE_TRANSFORM_SRC_PAD (self), buf);
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
  start = resample_to_pts (st, resample_grid_time (st, k_a));
  end = resample_to_pts (st, resample_grid_time (st, k_b));
  GST_DEBUG_OBJECT (self, "gap: no outputs from %" GST_TIME_FORMAT " to %"
      GST_TIME_FORMAT, GST_TIME_ARGS (start), GST_TIME_ARGS (end));
  gst_pad_push_event (GST_BASE_TRANSFORM_SRC_PAD (self),
      gst_event_new_gap (start, end - start));
}

/* The samples before running time @t are more than max-gap before it: the
 * grid times up to @t are not produced, a GAP event says so. */
void
resample_skip_gap (GstRobocacheResample * self, GstClockTime t)
{
  State *st = &self->state;
  guint64 k_b = resample_grid_index_ge (st, t);

  push_gap (self, st->k_next, k_b);
  st->k_next = MAX (st->k_next, k_b);
}

/* ------------------------------------------------------------------ */
/* Counters                                                            */
/* ------------------------------------------------------------------ */

void
resample_count_inputs (GstRobocacheResample * self, guint64 n)
{
  GST_OBJECT_LOCK (self);
  self->totals.inputs += n;
  GST_OBJECT_UNLOCK (self);
}

/* Adds @n to the drop counter @counter; TRUE the first time for its
 * @warned flag, when the caller warns (later drops are only counted). */
static gboolean
count_drop (GstRobocacheResample * self, guint64 * counter, guint64 n,
    gboolean * warned)
{
  GST_OBJECT_LOCK (self);
  *counter += n;
  GST_OBJECT_UNLOCK (self);
  if (*warned)
    return FALSE;
  *warned = TRUE;
  return TRUE;
}

void
resample_drop_bad_size (GstRobocacheResample * self, gsize size,
    const gchar * what)
{
  if (count_drop (self, &self->totals.dropped_bad_size, 1,
          &self->state.warned_size))
    GST_ELEMENT_WARNING (self, STREAM, FORMAT,
        ("dropping a buffer of %" G_GSIZE_FORMAT " bytes: %s", size, what),
        ("further such buffers are dropped and counted in the stats "
            "property (dropped-bad-size) without a warning"));
}

void
resample_drop_out_of_order (GstRobocacheResample * self, GstClockTime t)
{
  State *st = &self->state;

  GST_DEBUG_OBJECT (self, "dropping a sample at running time %"
      GST_TIME_FORMAT ", not after %" GST_TIME_FORMAT, GST_TIME_ARGS (t),
      GST_TIME_ARGS (st->last_t));
  if (count_drop (self, &self->totals.dropped_out_of_order, 1,
          &st->warned_order))
    GST_ELEMENT_WARNING (self, STREAM, FORMAT,
        ("dropping a sample at %" GST_TIME_FORMAT " (running time): its "
            "time is not after the last accepted sample's (%" GST_TIME_FORMAT
            "); samples must come in strictly increasing time order",
            GST_TIME_ARGS (t), GST_TIME_ARGS (st->last_t)),
        ("further such samples are dropped and counted in the stats property "
            "(dropped-out-of-order) without a warning"));
}

/* @n chunk samples whose times cannot be placed on the grid. */
void
resample_drop_off_grid (GstRobocacheResample * self, guint64 n)
{
  if (count_drop (self, &self->totals.dropped_off_grid, n,
          &self->state.warned_off_grid))
    GST_ELEMENT_WARNING (self, STREAM, FORMAT,
        ("dropping %" G_GUINT64_FORMAT " chunk samples whose times cannot "
            "be placed on the grid: accepted are buffer times from 0 to "
            "2^62 ns (excluded)", n),
        ("further such samples are dropped and counted in the stats "
            "property (dropped-off-grid) without a warning"));
}
