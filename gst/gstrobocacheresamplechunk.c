/* robocacheresample, layout chunk in: each buffer holds batch trajectories
 * of S samples and is resampled in one kernel call onto the grid times not
 * yet produced that every trajectory decides (up to the earliest last
 * sample; cubic, last but one), coming out as one chunk.  Each trajectory
 * keeps the samples the later grid times need for the next chunk, or for
 * EOS and the other ends, which produce them (resample_drain_chunk).
 *
 * A chunk in CUDA memory of the element's own context keeps its values on
 * the GPU: the GPU checks its times' order and only each trajectory's
 * first and last times come back to the host (all of them for short
 * trajectories, or when the host needs more), where they are turned into
 * running time; the previous chunk's last samples are put in front on
 * the device, and the kernel writes straight into the output buffer when
 * that is CUDA memory too.  A chunk from system memory is uploaded on the
 * element's stream and everything after it is queued behind without
 * waiting (the small copies from page-locked staging, the last values
 * kept on the device): the host checks the chunk's times during the
 * upload and waits once, for the finished output.  Those steps on the GPU
 * are gstrobocacheresamplechunkgpu.c. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstrobocacheresamplechunk.h"

#include <string.h>

#define GST_CAT_DEFAULT gst_robocache_resample_debug

/* Buffer times from 0 up to here can be placed on the grid: later ones
 * (INT64_MAX, a common "no time", among them) would ask for more grid
 * times than any output holds. */
#define MAX_PLACEABLE_TIME (G_GINT64_CONSTANT (1) << 62)

/* ------------------------------------------------------------------ */
/* The chunk                                                           */
/* ------------------------------------------------------------------ */

/* Samples per trajectory of a chunk of @size bytes into c->n_in; FALSE
 * when the size does not fit the caps (dropped and counted). */
static gboolean
chunk_samples (GstRobocacheResample * self, gsize size, Chunk * c)
{
  gsize row = sizeof (gint64) + self->state.sample_size;

  if (size == 0 || size % ((gsize) c->batch * row) != 0) {
    gchar *what = g_strdup_printf ("layout chunk needs a whole number of "
        "samples of %" G_GSIZE_FORMAT " bytes (an int64 timestamp and the "
        "values) for each of the %u trajectories of the batch", row,
        c->batch);
    resample_drop_bad_size (self, size, what);
    g_free (what);
    return FALSE;
  }
  c->n_in = size / ((gsize) c->batch * row);
  if (c->n_in >= G_MAXUINT32) {
    resample_drop_bad_size (self, size, "more than 2^32 samples per "
        "trajectory");
    return FALSE;
  }
  return TRUE;
}

/* backend=auto with a GPU in use: whether the chunk in @buf, in system
 * memory, is small enough that the CPU finishes it before the GPU would
 * with its copies (rc_resample_prefers_cpu on its size, its grid times
 * estimated from its span and the rate). */
static gboolean
chunk_for_cpu (GstRobocacheResample * self, GstBuffer * buf, const Chunk * c)
{
  State *st = &self->state;
  rc_resample_params p = st->params;
  GstMapInfo map;
  gint64 first = G_MAXINT64, last = G_MININT64;

  if (!st->backend_auto ||
      gst_robocache_is_cuda_memory (gst_buffer_peek_memory (buf, 0)) ||
      !gst_buffer_map (buf, &map, GST_MAP_READ))
    return FALSE;
  for (guint b = 0; b < c->batch; b++) {
    first = MIN (first, ((const gint64 *) map.data)[b * c->n_in]);
    last = MAX (last, ((const gint64 *) map.data)[b * c->n_in + c->n_in - 1]);
  }
  gst_buffer_unmap (buf, &map);
  /* Out of order or beyond any grid: the checks after mapping say so. */
  if (last < first || (guint64) last - (guint64) first > MAX_PLACEABLE_TIME)
    return FALSE;
  p.batch = c->batch;
  p.n_source = (guint32) MIN (c->n_in + st->n_prev, G_MAXUINT32);
  p.n_target = (guint32) MIN (gst_util_uint64_scale ((guint64) last -
          (guint64) first, st->rate_n, GST_SECOND * st->rate_d) + 1,
      G_MAXUINT32);
  return rc_resample_prefers_cpu (&p);
}

/* Maps @buf with its timestamps on the host and, on the GPU, the chunk on
 * the device: in place in CUDA memory, else uploaded into device scratch
 * on the element's stream (at the bus's full speed from page-locked
 * memory, while the host checks the timestamps), unless backend=auto
 * leaves a small chunk to the CPU.  FALSE on error (posted, @buf
 * unmapped). */
static gboolean
map_chunk (GstRobocacheResample * self, GstBuffer * buf, Chunk * c)
{
  State *st = &self->state;
  gsize times = c->batch * c->n_in * sizeof (gint64);
  gconstpointer dev = NULL;
  gboolean ok;

  c->on_device = st->gpu->use_gpu && !chunk_for_cpu (self, buf, c);
  if (!c->on_device) {
    ok = gst_buffer_map (buf, &c->map, GST_MAP_READ);
    if (!ok)
      GST_ELEMENT_ERROR (self, RESOURCE, FAILED, ("cannot map a buffer"),
          (NULL));
  } else if ((ok = resample_push_context (self))) {
    ok = gst_robocache_gpu_map_input (st->gpu, GST_ELEMENT (self), buf,
        &c->map, &st->device_chunk, &dev, "a chunk");
    gst_robocache_gpu_pop (st->gpu);
  }
  if (!ok)
    return FALSE;
  c->dev = dev;
  c->in_v = (c->on_device ? c->dev : c->map.data) + times;
  /* From CUDA memory (used in place, or copied from another device's):
   * the times are read back from the device. */
  c->in_t = (const gint64 *) c->map.data;
  if (c->on_device && (dev == c->map.data ||
          gst_robocache_gpu_memory_is_peer (st->gpu,
              gst_buffer_peek_memory (buf, 0)))
      && !resample_chunk_read_back_times (self, c, FALSE)) {
    gst_buffer_unmap (buf, &c->map);
    return FALSE;
  }
  return TRUE;
}

/* FALSE when a trajectory is out of order (the chunk dropped, counted). */
static gboolean
check_order (GstRobocacheResample * self, const Chunk * c)
{
  if (c->order_checked)
    return TRUE;
  for (guint b = 0; b < c->batch; b++) {
    const gint64 *ts = c->in_t + b * c->n_in;

    for (gsize i = 1; i < c->n_in; i++) {
      if (ts[i] < ts[i - 1]) {
        resample_drop_out_of_order (self, (GstClockTime) ts[i]);
        return FALSE;
      }
    }
  }
  return TRUE;
}

/* Whether all of trajectory @b's samples can be placed on the grid: its
 * ends can (it is in time order). */
static gboolean
placeable_ends (const Chunk * c, guint b)
{
  const gint64 *ts = c->in_t + b * c->n_in;

  return ts[0] >= 0 && ts[c->n_in - 1] < MAX_PLACEABLE_TIME;
}

/* The run of trajectory @b's samples that can be placed on the grid (each
 * trajectory is in time order): [*lo, *hi). */
static void
placeable_run (const Chunk * c, guint b, gsize * lo, gsize * hi)
{
  const gint64 *ts = c->in_t + b * c->n_in;

  *lo = 0;
  *hi = c->n_in;
  if (placeable_ends (c, b))
    return;                     /* the usual case, without a scan */
  for (*lo = 0; *lo < c->n_in && ts[*lo] < 0; (*lo)++);
  for (*hi = *lo; *hi < c->n_in && ts[*hi] < MAX_PLACEABLE_TIME; (*hi)++);
}

/* The chunk's values on the host, for a repacking: the buffer's, or
 * downloaded into @host; NULL on error (posted). */
static const guint8 *
host_values (GstRobocacheResample * self, const Chunk * c, guint8 * host)
{
  if (!c->on_device)
    return c->in_v;
  if (!resample_push_context (self)
      || !resample_chunk_download (self, host, c->in_v,
          c->batch * c->n_in * self->state.sample_size))
    return NULL;
  return host;
}

/* Makes @c the chunk of each trajectory's placeable run, @n_keep samples
 * long, on the host: a shorter run is padded with copies of its last
 * sample, which change no grid time (the kernel holds the last value). */
static gboolean
repack_placeable (GstRobocacheResample * self, Chunk * c, gsize n_keep)
{
  State *st = &self->state;
  gsize ss = st->sample_size, n = c->batch * n_keep;
  gsize download = c->on_device ? c->batch * c->n_in * ss : 0;
  const guint8 *in_v;
  gint64 *t;
  guint8 *v;

  if (!resample_ensure_host (self, &st->trim_scratch,
          &st->trim_scratch_size, n * (sizeof (gint64) + ss) + download))
    return FALSE;
  t = (gint64 *) st->trim_scratch;
  v = st->trim_scratch + n * sizeof (gint64);
  in_v = host_values (self, c, v + n * ss);
  if (!in_v)
    return FALSE;
  for (guint b = 0; b < c->batch; b++) {
    gsize lo, hi;

    placeable_run (c, b, &lo, &hi);
    for (gsize i = 0; i < n_keep; i++) {
      gsize from = b * c->n_in + MIN (lo + i, hi - 1);

      t[b * n_keep + i] = c->in_t[from];
      memcpy (v + (b * n_keep + i) * ss, in_v + from * ss, ss);
    }
  }
  c->in_t = t;
  c->in_v = v;
  c->n_in = n_keep;
  c->on_device = FALSE;
  return TRUE;
}

/* Drops the samples whose times cannot be placed on the grid (counted and
 * warned about once), repacking the chunk without them; FALSE when the
 * chunk goes no further: a trajectory left empty (dropped whole), or
 * *flow set to the error posted. */
static gboolean
trim_off_grid (GstRobocacheResample * self, Chunk * c, GstFlowReturn * flow)
{
  gsize n_keep = 0, kept = 0;
  gboolean empty = FALSE, ends_placeable = TRUE;

  *flow = GST_FLOW_OK;
  for (guint b = 0; b < c->batch; b++)
    ends_placeable &= placeable_ends (c, b);
  if (ends_placeable)
    return TRUE;                /* the usual case, without a scan */
  if (!resample_chunk_ensure_all_times (self, c)) {
    *flow = GST_FLOW_ERROR;
    return FALSE;
  }
  for (guint b = 0; b < c->batch; b++) {
    gsize lo, hi;

    placeable_run (c, b, &lo, &hi);
    n_keep = MAX (n_keep, hi - lo);
    kept += hi - lo;
    empty |= hi == lo;
  }
  if (kept == c->n_accepted)
    return TRUE;
  resample_drop_off_grid (self, empty ? c->n_accepted : c->n_accepted - kept);
  if (empty)
    return FALSE;
  c->n_accepted = kept;
  if (!repack_placeable (self, c, n_keep)) {
    *flow = GST_FLOW_ERROR;
    return FALSE;
  }
  return TRUE;
}

/* The chunk's first and last times and their running times; FALSE when
 * it is outside the segment (dropped). */
static gboolean
chunk_times (GstRobocacheResample * self, Chunk * c)
{
  State *st = &self->state;

  c->first = G_MAXINT64;
  c->last = G_MININT64;
  for (guint b = 0; b < c->batch; b++) {
    c->first = MIN (c->first, c->in_t[b * c->n_in]);
    c->last = MAX (c->last, c->in_t[b * c->n_in + c->n_in - 1]);
  }
  c->rt_first =
      gst_segment_to_running_time (&st->segment, GST_FORMAT_TIME, c->first);
  c->rt_last =
      gst_segment_to_running_time (&st->segment, GST_FORMAT_TIME, c->last);
  if (!GST_CLOCK_TIME_IS_VALID (c->rt_first) ||
      !GST_CLOCK_TIME_IS_VALID (c->rt_last)) {
    GST_DEBUG_OBJECT (self, "chunk from %" G_GINT64_FORMAT " to %"
        G_GINT64_FORMAT " ns is outside the segment", c->first, c->last);
    return FALSE;
  }
  return TRUE;
}

/* The last sample kept of trajectory @b. */
static gint64
kept_last (const State * st, guint b)
{
  return st->prev_t[b * st->n_prev + st->n_prev - 1];
}

/* Whether the samples kept from the previous chunks extend this chunk:
 * each trajectory's last must come strictly before its first new sample,
 * at most max-gap before it (else a GAP event for the grid times after
 * the chunks' last kept sample; trajectories of a batch interleave, so
 * the gap is each trajectory's own).  When they do not, the grid times
 * they still decide are produced first, into *@flow. */
static gboolean
continue_chunk (GstRobocacheResample * self, const Chunk * c,
    GstFlowReturn * flow)
{
  State *st = &self->state;
  guint64 gap = 0;
  gboolean overlap = FALSE;

  *flow = GST_FLOW_OK;
  if (!st->have_prev)
    return FALSE;
  for (guint b = 0; b < c->batch; b++) {
    /* Overlapping chunks: this one alone, and no grid time twice. */
    overlap |= kept_last (st, b) >= c->in_t[b * c->n_in];
    gap = MAX (gap, (guint64) (c->in_t[b * c->n_in] - kept_last (st, b)));
  }
  if (!overlap && gap <= st->max_gap)
    return TRUE;
  *flow = resample_drain_chunk (self);
  if (!overlap && *flow == GST_FLOW_OK)
    resample_skip_gap (self, c->rt_first);
  return FALSE;
}

/* The time of source @i of trajectory @b: the samples kept in front, then
 * the chunk's. */
static gint64
source_time (const State * st, const Chunk * c, guint b, gsize i)
{
  if (i < c->n_prev)
    return st->prev_t[b * c->n_prev + i];
  return c->in_t[b * c->n_in + i - c->n_prev];
}

/* How many sources trajectory @b must keep for the grid times after @cut:
 * from the one at or before @cut (the left end of the interval
 * holding it; all of them when none is), with cubic also its left
 * neighbour, which the interval's tangent reads. */
static gsize
sources_needed (const State * st, const Chunk * c, guint b, gint64 cut)
{
  gsize i = c->n_source - 1;

  while (i > 0 && source_time (st, c, b, i) > cut)
    i--;
  if (st->params.method == RC_INTERP_CUBIC && i > 0)
    i--;
  return c->n_source - i;
}

/* Whether the times read back from each trajectory's tail hold every
 * source sources_needed() reads and keep_sources() keeps for @c's cut:
 * the walk back from the last stops at the first time at or before the
 * cut, with cubic one further. */
static gboolean
tails_hold_cut (const State * st, const Chunk * c)
{
  gsize first = c->n_prev + c->times_from +
      (st->params.method == RC_INTERP_CUBIC ? 1 : 0);

  if (c->times_from == 0)
    return TRUE;
  for (guint b = 0; b < c->batch; b++) {
    if (source_time (st, c, b, first) > c->cut)
      return FALSE;
  }
  return TRUE;
}

/* Where the chunk's grid times stop (c->cut) and how many sources each
 * trajectory keeps for the later ones (c->n_keep).  A grid time is
 * produced once every trajectory has the samples that decide it: up to
 * the earliest of the trajectories' last samples, with cubic their last
 * but one (the last interval's tangent needs the sample after it).  The
 * rest waits for the next chunk, or EOS.
 *
 * A trajectory far ahead of another would keep ever more samples: at most
 * a chunk's worth plus the interval's ends are kept, the cut moved on to
 * where that suffices; the trajectories behind then hold their last
 * value up to it, as at EOS.  FALSE on error (posted). */
static gboolean
plan_cut (GstRobocacheResample * self, Chunk * c)
{
  State *st = &self->state;
  gsize back = st->params.method == RC_INTERP_CUBIC ? 2 : 1;
  gsize cap = c->n_in + back;

  c->cut = G_MAXINT64;
  for (guint b = 0; b < c->batch; b++)
    c->cut = c->n_source < back ? G_MININT64 :
        MIN (c->cut, source_time (st, c, b, c->n_source - back));
  if (!tails_hold_cut (st, c) && !resample_chunk_ensure_all_times (self, c))
    return FALSE;
  c->n_keep = 0;
  for (guint b = 0; b < c->batch; b++)
    c->n_keep = MAX (c->n_keep, sources_needed (st, c, b, c->cut));
  if (c->n_keep <= cap)
    return TRUE;
  GST_DEBUG_OBJECT (self, "trajectories too far apart: %" G_GSIZE_FORMAT
      " samples would be kept, %" G_GSIZE_FORMAT " are", c->n_keep, cap);
  c->n_keep = cap;
  for (guint b = 0; b < c->batch; b++)
    c->cut = MAX (c->cut, source_time (st, c, b, c->n_source - cap + back -
            1));
  return TRUE;
}

/* On the host: each trajectory with the samples kept in front, in host
 * scratch. */
static gboolean
stage_host_sources (GstRobocacheResample * self, Chunk * c)
{
  State *st = &self->state;
  gsize ss = st->sample_size, n_in = c->n_in, n_source = c->n_source;
  gsize n_prev = c->n_prev, times = c->batch * n_source * sizeof (gint64);

  if (!resample_chunk_previous_on_host (self, c->batch)
      || !resample_ensure_host (self, &st->src_scratch, &st->src_scratch_size,
          times + c->batch * n_source * ss))
    return FALSE;
  for (guint b = 0; b < c->batch; b++) {
    gint64 *t = (gint64 *) st->src_scratch + b * n_source;
    guint8 *v = st->src_scratch + times + b * n_source * ss;

    memcpy (t, st->prev_t + b * n_prev, n_prev * sizeof (gint64));
    memcpy (t + n_prev, c->in_t + b * n_in, n_in * sizeof (gint64));
    memcpy (v, st->prev_v + b * n_prev * ss, n_prev * ss);
    memcpy (v + n_prev * ss, c->in_v + b * n_in * ss, n_in * ss);
  }
  c->src_t = st->src_scratch;
  c->src_v = st->src_scratch + times;
  return TRUE;
}

static void
swap_scratch (guint8 ** a, gsize * a_size, guint8 ** b, gsize * b_size)
{
  guint8 *p = *a;
  gsize size = *a_size;

  *a = *b;
  *a_size = *b_size;
  *b = p;
  *b_size = size;
}

/* Keeps the last c->n_keep sources of each trajectory for the next chunk:
 * the times always on the host, the values too unless staged on the
 * device (which kept them there).  Written aside, then swapped in: the
 * sources may be the samples kept before. */
static gboolean
keep_sources (GstRobocacheResample * self, const Chunk * c)
{
  State *st = &self->state;
  gsize ss = st->sample_size, n = c->n_keep, from = c->n_source - n;

  if (!resample_ensure_host (self, (guint8 **) & st->keep_t,
          &st->keep_t_size, c->batch * n * sizeof (gint64)) ||
      (!c->on_device && !resample_ensure_host (self, &st->keep_v,
              &st->keep_v_size, c->batch * n * ss)))
    return FALSE;
  for (guint b = 0; b < c->batch; b++) {
    for (gsize i = 0; i < n; i++)
      st->keep_t[b * n + i] = source_time (st, c, b, from + i);
    if (!c->on_device)
      memcpy (st->keep_v + b * n * ss, (const guint8 *) c->src_v +
          (b * c->n_source + from) * ss, n * ss);
  }
  swap_scratch ((guint8 **) & st->prev_t, &st->prev_t_size,
      (guint8 **) & st->keep_t, &st->keep_t_size);
  if (!c->on_device)
    swap_scratch (&st->prev_v, &st->prev_v_size, &st->keep_v,
        &st->keep_v_size);
  st->prev_on_device = c->on_device;
  st->n_prev = n;
  st->have_prev = TRUE;
  return TRUE;
}

/* The kernel's sources, where the grid times stop, and the samples kept
 * for the next chunk. */
static GstFlowReturn
stage_sources (GstRobocacheResample * self, Chunk * c)
{
  State *st = &self->state;
  GstFlowReturn flow;
  gboolean extend = continue_chunk (self, c, &flow);

  if (flow != GST_FLOW_OK)
    return flow;
  c->n_prev = extend ? st->n_prev : 0;
  c->n_source = c->n_prev + c->n_in;
  c->src_t = c->in_t;
  c->src_v = c->in_v;
  c->span_first = c->first;
  for (guint b = 0; extend && b < c->batch; b++)
    c->span_first = MIN (c->span_first, st->prev_t[b * c->n_prev]);
  if (!plan_cut (self, c))
    return GST_FLOW_ERROR;
  if (c->on_device) {
    if (!resample_chunk_stage_on_device (self, c, extend))
      return GST_FLOW_ERROR;
  } else if (extend && !stage_host_sources (self, c)) {
    return GST_FLOW_ERROR;
  }
  return keep_sources (self, c) ? GST_FLOW_OK : GST_FLOW_ERROR;
}

/* The grid times the chunk produces, [k_a, k_b): those not produced yet
 * from its sources' first sample up to its cut (one at the cut is a
 * sample's own time, which the kernel picks exactly, whatever follows);
 * FALSE when there are none. */
static gboolean
locate_grid_range (GstRobocacheResample * self, Chunk * c)
{
  State *st = &self->state;
  GstClockTime rt_span = gst_segment_to_running_time (&st->segment,
      GST_FORMAT_TIME, c->span_first);
  GstClockTime rt_cut = c->cut < 0 ? GST_CLOCK_TIME_NONE :
      gst_segment_to_running_time (&st->segment, GST_FORMAT_TIME, c->cut);

  if (!GST_CLOCK_TIME_IS_VALID (rt_cut))
    return FALSE;
  if (!GST_CLOCK_TIME_IS_VALID (rt_span))
    rt_span = c->rt_first;
  c->k_a = MAX (st->k_next, resample_grid_index_ge (st, rt_span));
  c->k_b = resample_grid_index_gt (st, rt_cut);
  if (c->k_b <= c->k_a || c->k_b - c->k_a > G_MAXUINT32)
    return FALSE;
  c->n_target = c->k_b - c->k_a;
  return TRUE;
}

/* Resamples the staged chunk into a new output *@out: its times block is
 * the kernel's target times, the same grid for every trajectory, one row
 * computed and the others copied from it (written a time at a time down
 * the rows instead, each store was a row from the last and missed the
 * cache: 250 us for 64 x 1,024 times on an H200's host, docs/bench/run209,
 * call 285). */
static GstFlowReturn
compute_chunk (GstRobocacheResample * self, const Chunk * c, GstBuffer ** out)
{
  State *st = &self->state;
  gsize row_size = c->n_target * sizeof (gint64);
  gsize out_times = c->batch * row_size;
  gsize out_size = out_times + c->batch * c->n_target * st->sample_size;
  GstFlowReturn flow;

  if (c->on_device) {
    /* Page-locked: its copy up must not wait for the chunk's. */
    gboolean ok;

    if (!resample_push_context (self))
      return GST_FLOW_ERROR;
    ok = gst_robocache_gpu_ensure_pinned (st->gpu, GST_ELEMENT (self),
        &st->host_tgt, row_size, "grid times");
    gst_robocache_gpu_pop (st->gpu);
    if (!ok)
      return GST_FLOW_ERROR;
    resample_grid_times (st, c->k_a, c->n_target, TRUE, st->host_tgt.ptr);
    *out = resample_new_output (self, out_size);
    return *out ? resample_chunk_compute_on_device (self, c, st->host_tgt.ptr,
        *out) : GST_FLOW_ERROR;
  }
  if (!resample_ensure_host (self, &st->scratch, &st->scratch_size, out_size))
    return GST_FLOW_ERROR;
  resample_grid_times (st, c->k_a, c->n_target, TRUE, (gint64 *) st->scratch);
  rc_repeat_rows_cpu (st->scratch, row_size, c->batch);
  flow = resample_compute (self, c->batch, (guint) c->n_source,
      (guint) c->n_target, c->src_t, c->src_v, (const gint64 *) st->scratch,
      st->scratch + out_times);
  *out = flow == GST_FLOW_OK ? resample_new_output (self, out_size) : NULL;
  if (*out && !resample_fill_output (self, *out, 0, st->scratch, out_size))
    gst_clear_buffer (out);
  return *out ? flow : GST_FLOW_ERROR;
}

/* Produces the grid times still owed from the samples kept up to the
 * latest of them (EOS, DISCONT, a new segment, a GAP, or a chunk that
 * does not continue them): nothing follows, so a trajectory that ended
 * earlier holds its last value (the kernel's edge), on the host.  The
 * samples kept are spent. */
GstFlowReturn
resample_drain_chunk (GstRobocacheResample * self)
{
  State *st = &self->state;
  Chunk c = { 0, };
  GstClockTime rt_last;
  GstBuffer *out = NULL;
  GstFlowReturn flow;

  if (!st->have_prev)
    return GST_FLOW_OK;
  st->have_prev = FALSE;
  c.batch = st->in_info.batch;
  c.n_source = st->n_prev;
  c.last = G_MININT64;
  for (guint b = 0; b < c.batch; b++)
    c.last = MAX (c.last, kept_last (st, b));
  rt_last = gst_segment_to_running_time (&st->segment, GST_FORMAT_TIME,
      c.last);
  if (!GST_CLOCK_TIME_IS_VALID (rt_last))
    return GST_FLOW_OK;
  c.k_a = st->k_next;
  c.k_b = resample_grid_index_gt (st, rt_last);
  if (c.k_b <= c.k_a || c.k_b - c.k_a > G_MAXUINT32)
    return GST_FLOW_OK;
  c.n_target = c.k_b - c.k_a;
  if (!resample_chunk_previous_on_host (self, c.batch))
    return GST_FLOW_ERROR;
  c.src_t = st->prev_t;
  c.src_v = st->prev_v;
  flow = compute_chunk (self, &c, &out);
  st->k_next = c.k_b;
  if (flow != GST_FLOW_OK || !out)
    return flow;
  return resample_push_output (self, out, c.k_a, c.k_b,
      (guint64) c.batch * c.n_target);
}

/* Everything between mapping the chunk and pushing its output *@out
 * (NULL when there is nothing to push). */
static GstFlowReturn
resample_mapped_chunk (GstRobocacheResample * self, Chunk * c, GstBuffer ** out)
{
  State *st = &self->state;
  GstFlowReturn flow = GST_FLOW_OK;

  if (!check_order (self, c) || !trim_off_grid (self, c, &flow) ||
      !chunk_times (self, c))
    return flow;
  resample_count_inputs (self, c->n_accepted);
  if (c->discont) {
    /* What the samples kept still decide comes first. */
    flow = resample_drain_chunk (self);
    resample_reset_history (st);
    if (flow != GST_FLOW_OK)
      return flow;
  }
  if (!st->aligned)
    resample_align_grid (st, c->rt_first);
  flow = stage_sources (self, c);
  if (flow != GST_FLOW_OK || !locate_grid_range (self, c))
    return flow;
  flow = compute_chunk (self, c, out);
  st->k_next = c->k_b;
  if (flow != GST_FLOW_OK)
    gst_clear_buffer (out);
  return flow;
}

/* Whether chunks wait for the next one to be pushed: on the GPU, behind
 * an upstream that is not live (live, each would arrive a chunk late). */
static gboolean
decide_defer (GstRobocacheResample * self)
{
  gboolean live =
      gst_robocache_base_transform_upstream_live (GST_BASE_TRANSFORM (self));

  GST_DEBUG_OBJECT (self, "upstream %slive: chunks %s", live ? "" : "not ",
      live ? "pushed as they finish" : "pushed behind the next's upload");
  return self->state.gpu->use_gpu && !live;
}

GstFlowReturn
resample_finish_chunk (GstRobocacheResample * self, gboolean push)
{
  State *st = &self->state;
  GstBuffer *out = st->pending_out;
  gboolean done;

  if (!out)
    return GST_FLOW_OK;
  st->pending_out = NULL;
  /* Waited for even when dropped: the GPU may still read the input. */
  done = gst_robocache_gpu_slot_wait (st->gpu, GST_ELEMENT (self), 0);
  gst_buffer_unmap (st->pending_in, &st->pending_map);
  gst_clear_buffer (&st->pending_in);
  if (!done || !push) {
    gst_buffer_unref (out);
    return done ? GST_FLOW_OK : GST_FLOW_ERROR;
  }
  return resample_push_output (self, out, st->pending_k_a, st->pending_k_b,
      st->pending_n);
}

GstFlowReturn
resample_process_chunk (GstRobocacheResample * self, GstBuffer * buf)
{
  State *st = &self->state;
  Chunk c = { 0, };
  GstBuffer *out = NULL;
  GstFlowReturn flow;

  c.batch = st->in_info.batch;
  c.discont = GST_BUFFER_FLAG_IS_SET (buf, GST_BUFFER_FLAG_DISCONT);
  if (!chunk_samples (self, gst_buffer_get_size (buf), &c))
    return GST_FLOW_OK;
  c.n_accepted = (guint64) c.batch * c.n_in;
  if (!st->defer_known) {
    st->defer = decide_defer (self);
    st->defer_known = TRUE;
  }
  if (!map_chunk (self, buf, &c))
    return GST_FLOW_ERROR;
  /* This chunk's upload is queued: the previous one's output goes out
   * while it runs. */
  flow = resample_finish_chunk (self, TRUE);
  if (flow == GST_FLOW_OK)
    flow = resample_mapped_chunk (self, &c, &out);
  if (out && flow == GST_FLOW_OK && c.on_device && st->defer) {
    st->pending_in = gst_buffer_ref (buf);
    st->pending_map = c.map;
    st->pending_out = out;
    st->pending_k_a = c.k_a;
    st->pending_k_b = c.k_b;
    st->pending_n = (guint64) c.batch * c.n_target;
    return GST_FLOW_OK;
  }
  gst_buffer_unmap (buf, &c.map);
  if (!out)
    return flow;
  return resample_push_output (self, out, c.k_a, c.k_b,
      (guint64) c.batch * c.n_target);
}
