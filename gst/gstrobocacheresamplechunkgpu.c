/* robocacheresample, a chunk's steps on the GPU: its times read back
 * (only each trajectory's ends when the GPU finds them in order), its
 * sources staged on the device with the samples kept in front, and its
 * kernel call.  The chunk's way through is gstrobocacheresamplechunk.c. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstrobocacheresamplechunk.h"

#include <string.h>

#define GST_CAT_DEFAULT gst_robocache_resample_debug

/* Copies @size bytes at @device to @host and waits for them, with the
 * context pushed by the caller, which this pops; FALSE on error
 * (posted). */
gboolean
resample_chunk_download (GstRobocacheResample * self, gpointer host,
    gconstpointer device, gsize size)
{
  State *st = &self->state;
  rc_status ret = rc_device_copy_async (host, device, size,
      RC_COPY_DEVICE_TO_HOST, st->gpu->stream);

  if (ret == RC_OK)
    ret = rc_stream_synchronize (st->gpu->stream);
  gst_robocache_gpu_pop (st->gpu);
  if (ret != RC_OK) {
    resample_gpu_failed (self, ret);
    return FALSE;
  }
  return TRUE;
}

/* Queues on @stream the copy of the chunk's times at c->dev into
 * st->host_times, at their places: with @ends each trajectory's first and
 * last TAIL_TIMES, in the launch of the GPU's check of their order into
 * st->host_disorder (cleared here: only disorder is written), where a
 * clear, the check and a copy of the three took three calls. */
static rc_status
queue_times_read_back (GstRobocacheResample * self, const Chunk * c,
    gboolean ends, gpointer stream)
{
  State *st = &self->state;

  if (!ends)
    return rc_device_copy_async (st->host_times.ptr, c->dev,
        c->batch * c->n_in * sizeof (gint64), RC_COPY_DEVICE_TO_HOST, stream);
  memset (st->host_disorder.ptr, 0, c->batch);
  return rc_times_disordered_cuda ((const int64_t *) c->dev, c->batch,
      c->n_in, st->host_disorder.ptr, TAIL_TIMES, st->host_times.ptr, stream);
}

/* Reads the times of a chunk in CUDA memory back into c->in_t: all of
 * them with @all or short trajectories, else each trajectory's ends while
 * the GPU checks their order (a 64 x 4,096 chunk's 2 MB read back and
 * scanned on the host took 150 to 250 µs; run 209, call 285).  When the
 * GPU finds a trajectory out of order, all come back, so that the host
 * finds where and drops the chunk as for any other. */
gboolean
resample_chunk_read_back_times (GstRobocacheResample * self, Chunk * c,
    gboolean all)
{
  State *st = &self->state;
  GstElement *element = GST_ELEMENT (self);
  gboolean ends = !all && c->n_in > 2 * TAIL_TIMES;
  /* A chunk in this context's memory is whole when it arrives (its
   * producer waited for it before pushing): its times come back on the
   * download stream, beside the previous chunk's kernel, not behind it.
   * A copy from another device's memory is queued on the kernel stream. */
  gpointer stream = c->dev == c->map.data ? st->gpu->download_stream :
      st->gpu->stream;
  gboolean ok;
  rc_status ret;

  if (!resample_push_context (self))
    return FALSE;
  ok = gst_robocache_gpu_ensure_pinned (st->gpu, element, &st->host_times,
      c->batch * c->n_in * sizeof (gint64), "chunk times")
      && (!ends || gst_robocache_gpu_ensure_pinned (st->gpu, element,
          &st->host_disorder, c->batch, "the times' order"));
  ret = ok ? queue_times_read_back (self, c, ends, stream) : RC_OK;
  if (ok && ret == RC_OK)
    ret = rc_stream_synchronize (stream);
  gst_robocache_gpu_pop (st->gpu);
  if (ok && ret != RC_OK)
    resample_gpu_failed (self, ret);
  if (!ok || ret != RC_OK)
    return FALSE;
  c->in_t = st->host_times.ptr;
  c->times_from = ends ? c->n_in - TAIL_TIMES : 0;
  if (!ends)
    return TRUE;
  c->order_checked = !memchr (st->host_disorder.ptr, 1, c->batch);
  return c->order_checked || resample_chunk_read_back_times (self, c, TRUE);
}

/* All of the chunk's times on the host, when only its ends came back;
 * FALSE on error (posted). */
gboolean
resample_chunk_ensure_all_times (GstRobocacheResample * self, Chunk * c)
{
  return c->times_from == 0 || resample_chunk_read_back_times (self, c, TRUE);
}

/* @n items at @ptr, and each next row's @row items further on. */
typedef struct
{
  gconstpointer ptr;
  gsize row, n;
} RowPart;

/* The two row copies that put @front's items and then @back's side by
 * side into @dst's rows, @batch of them, items of @size bytes; either part
 * may be empty. */
static guint
join_rows (rc_row_copy * copies, guint8 * dst, RowPart front, RowPart back,
    gsize size, guint batch)
{
  gsize row = (front.n + back.n) * size;
  rc_row_copy f = { dst, front.ptr, row, front.row * size, front.n * size,
    batch
  };
  rc_row_copy b = { dst + front.n * size, back.ptr, row, back.row * size,
    back.n * size, batch
  };

  copies[0] = f;
  copies[1] = b;
  return 2;
}

/* The device scratch a chunk's sources and the samples it keeps need,
 * with the context pushed: with @extend room for the chunk with the
 * samples kept in front. */
static gboolean
ensure_source_scratch (GstRobocacheResample * self, const Chunk * c,
    gboolean extend)
{
  State *st = &self->state;
  GstElement *element = GST_ELEMENT (self);
  GstRobocacheGpu *gpu = st->gpu;
  gsize ss = st->sample_size, ts = sizeof (gint64), n = c->n_source;
  guint next = st->prev_turn ^ 1;

  return gst_robocache_gpu_ensure_device (gpu, element,
      &st->device_prev_t[next], (gsize) c->batch * c->n_keep * ts,
      "kept times")
      && gst_robocache_gpu_ensure_device (gpu, element,
      &st->device_prev_v[next], (gsize) c->batch * c->n_keep * ss,
      "kept values")
      && (!extend || (gst_robocache_gpu_ensure_device (gpu, element,
              &st->device_src_t, (gsize) c->batch * n * ts, "source times")
          && gst_robocache_gpu_ensure_device (gpu, element,
              &st->device_src_v, (gsize) c->batch * n * ss,
              "source values")));
}

/* The samples kept from the previous chunk onto the device, at
 * prev_turn, where a chunk on the host left them in st->prev_t and
 * st->prev_v (rare; pageable memory, so these copies wait).  FALSE on
 * error (posted). */
static gboolean
upload_previous (GstRobocacheResample * self, const Chunk * c)
{
  State *st = &self->state;
  GstElement *element = GST_ELEMENT (self);
  gsize t_size = (gsize) c->batch * c->n_prev * sizeof (gint64);
  gsize v_size = (gsize) c->batch * c->n_prev * st->sample_size;
  GstRobocacheScratch *t = &st->device_prev_t[st->prev_turn];
  GstRobocacheScratch *v = &st->device_prev_v[st->prev_turn];
  rc_status ret;

  if (!gst_robocache_gpu_ensure_device (st->gpu, element, t, t_size,
          "kept times")
      || !gst_robocache_gpu_ensure_device (st->gpu, element, v, v_size,
          "kept values"))
    return FALSE;
  ret = rc_device_copy_async (t->ptr, st->prev_t, t_size,
      RC_COPY_HOST_TO_DEVICE, st->gpu->stream);
  if (ret == RC_OK)
    ret = rc_device_copy_async (v->ptr, st->prev_v, v_size,
        RC_COPY_HOST_TO_DEVICE, st->gpu->stream);
  if (ret != RC_OK)
    resample_gpu_failed (self, ret);
  return ret == RC_OK;
}

/* The last @n of @part's items (of @size bytes) in each row. */
static RowPart
tail_of (RowPart part, gsize n, gsize size)
{
  RowPart tail = { (const guint8 *) part.ptr + (part.n - n) * size,
    part.row, n
  };

  return tail;
}

/* The row copies of a chunk's staging into @copies: with @extend the
 * chunk's times and values behind the ones kept (at prev_turn) in the
 * source scratch; and the last c->n_keep of each trajectory's sources, the
 * kept ones and the chunk's, into the other turn's, for the next chunk.
 * Each copy reads what none of them writes, so they run as one. */
static guint
plan_staging (GstRobocacheResample * self, const Chunk * c, gboolean extend,
    rc_row_copy * copies)
{
  State *st = &self->state;
  gsize ss = st->sample_size, ts = sizeof (gint64);
  guint next = st->prev_turn ^ 1, n = 0;
  RowPart kept_t = { st->device_prev_t[st->prev_turn].ptr, c->n_prev,
    c->n_prev
  };
  RowPart kept_v = { st->device_prev_v[st->prev_turn].ptr, c->n_prev,
    c->n_prev
  };
  RowPart in_t = { c->dev, c->n_in, c->n_in };
  RowPart in_v = { c->in_v, c->n_in, c->n_in };
  /* The samples to keep come from the chunk, and from those kept before
   * where the chunk has fewer. */
  gsize from_in = MIN (c->n_keep, c->n_in), from_kept = c->n_keep - from_in;

  if (extend) {
    n += join_rows (copies + n, st->device_src_t.ptr, kept_t, in_t, ts,
        c->batch);
    n += join_rows (copies + n, st->device_src_v.ptr, kept_v, in_v, ss,
        c->batch);
  }
  n += join_rows (copies + n, st->device_prev_t[next].ptr,
      tail_of (kept_t, from_kept, ts), tail_of (in_t, from_in, ts), ts,
      c->batch);
  n += join_rows (copies + n, st->device_prev_v[next].ptr,
      tail_of (kept_v, from_kept, ss), tail_of (in_v, from_in, ss), ss,
      c->batch);
  return n;
}

/* The chunk's sources on the device: the chunk itself, or with @extend a
 * copy in device scratch with the samples kept from the previous chunks in
 * front of each trajectory; and the samples the next chunk needs kept on
 * the device, times and values (the host keeps the times too).  One
 * launch of row copies, queued without waiting for the chunk's upload,
 * where five cudaMemcpy2DAsync calls took 19 to 22 us of the host's time
 * a chunk (docs/bench/run210, call 296).  FALSE on error (posted). */
gboolean
resample_chunk_stage_on_device (GstRobocacheResample * self, Chunk * c,
    gboolean extend)
{
  State *st = &self->state;
  rc_row_copy copies[RC_ROW_COPIES_MAX];
  rc_status ret;
  guint n;

  c->src_t = c->dev;
  c->src_v = c->in_v;
  if (!resample_push_context (self))
    return FALSE;
  if (!ensure_source_scratch (self, c, extend)
      || (c->n_prev > 0 && !st->prev_on_device
          && !upload_previous (self, c))) {
    gst_robocache_gpu_pop (st->gpu);
    return FALSE;
  }
  n = plan_staging (self, c, extend, copies);
  ret = rc_copy_rows_cuda (copies, n, st->gpu->stream);
  gst_robocache_gpu_pop (st->gpu);
  if (ret != RC_OK) {
    resample_gpu_failed (self, ret);
    return FALSE;
  }
  if (extend) {
    c->src_t = st->device_src_t.ptr;
    c->src_v = st->device_src_v.ptr;
  }
  st->prev_turn ^= 1;
  st->prev_on_device = TRUE;
  return TRUE;
}

/* The values kept from the previous chunks in st->prev_v, downloaded when
 * a chunk on the device left them there; FALSE on error (posted). */
gboolean
resample_chunk_previous_on_host (GstRobocacheResample * self, guint batch)
{
  State *st = &self->state;
  gsize size = (gsize) batch * st->n_prev * st->sample_size;

  if (!st->prev_on_device)
    return TRUE;
  if (!resample_ensure_host (self, &st->prev_v, &st->prev_v_size, size) ||
      !resample_push_context (self)
      || !resample_chunk_download (self, st->prev_v,
          st->device_prev_v[st->prev_turn].ptr, size))
    return FALSE;
  st->prev_on_device = FALSE;
  return TRUE;
}

/* Resamples a chunk staged by resample_chunk_stage_on_device() into
 * @out, its times block and then its values.  @row, the chunk's grid
 * times (page-locked), goes up once and the device repeats it for every
 * trajectory: 64 rows of 1,024 times computed and copied on the host,
 * then uploaded, took 36 to 38 us a chunk (docs/bench/run209, call 287). */
GstFlowReturn
resample_chunk_compute_on_device (GstRobocacheResample * self, const Chunk * c,
    const gint64 * row, GstBuffer * out)
{
  State *st = &self->state;
  rc_resample_params p = st->params;
  gsize row_size = c->n_target * sizeof (gint64);
  gsize times = (gsize) c->batch * row_size;
  gsize values = (gsize) c->batch * c->n_target * st->sample_size;
  GstMapInfo map;
  gpointer tgt, dst;
  rc_status ret;

  p.batch = c->batch;
  p.n_source = (uint32_t) c->n_source;
  p.n_target = (uint32_t) c->n_target;
  if (!resample_push_context (self))
    return GST_FLOW_ERROR;
  if (!resample_ensure_device (self, c->batch, c->n_source, c->n_target,
          FALSE, !st->out_cuda)) {
    gst_robocache_gpu_pop (st->gpu);
    return GST_FLOW_ERROR;
  }
  if (!gst_buffer_map (out, &map, GST_MAP_WRITE |
          (st->out_cuda ? GST_ROBOCACHE_MAP_CUDA : 0))) {
    gst_robocache_gpu_pop (st->gpu);
    GST_ELEMENT_ERROR (self, RESOURCE, FAILED, ("cannot map a buffer"), (NULL));
    return GST_FLOW_ERROR;
  }
  tgt = st->out_cuda ? map.data : st->device_tgt.ptr;
  dst = st->out_cuda ? map.data + times : st->device_out.ptr;
  ret = rc_device_copy_async (tgt, row, row_size, RC_COPY_HOST_TO_DEVICE,
      st->gpu->stream);
  if (ret == RC_OK)
    ret = rc_repeat_rows_cuda (tgt, row_size, c->batch, st->gpu->stream);
  if (ret == RC_OK)
    ret = rc_resample_cuda (&p, c->src_t, c->src_v, tgt, dst,
        st->gpu->stream);
  if (ret == RC_OK && !st->out_cuda)
    ret = rc_device_copy_async (map.data + times, st->device_out.ptr, values,
        RC_COPY_DEVICE_TO_HOST, st->gpu->stream);
  /* Downstream may read the output at once: waited for now, or marked and
   * waited for once the next chunk's upload is queued. */
  if (ret == RC_OK && st->defer)
    ret = rc_event_record (st->gpu->slots[0].done, st->gpu->stream);
  else if (ret == RC_OK)
    ret = rc_stream_synchronize (st->gpu->stream);
  gst_robocache_gpu_pop (st->gpu);
  if (ret == RC_OK && !st->out_cuda) {
    memcpy (map.data, row, row_size);
    ret = rc_repeat_rows_cpu (map.data, row_size, c->batch);
  }
  gst_buffer_unmap (out, &map);
  return ret == RC_OK ? GST_FLOW_OK : resample_gpu_failed (self, ret);
}
