/* robocacheresample: the kernel call on host memory, on the CPU or through
 * the element's device scratch on the GPU, and the scratch it needs. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstrobocacheresampleprivate.h"

#define GST_CAT_DEFAULT gst_robocache_resample_debug

gboolean
resample_ensure_host (GstRobocacheResample * self, guint8 ** ptr,
    gsize * have, gsize size)
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

/* Device scratch for a call: the sources, and the grid times with the
 * output values, where the call has no device memory of its own for them
 * (a chunk from CUDA memory has its sources there; into CUDA memory, its
 * grid times and values go straight into the output). */
gboolean
resample_ensure_device (GstRobocacheResample * self, guint batch,
    gsize n_source, gsize n_target, gboolean sources, gboolean outputs)
{
  State *st = &self->state;
  GstElement *element = GST_ELEMENT (self);
  gsize src = (gsize) batch * n_source, tgt = (gsize) batch *n_target;

  return (!sources
      || (gst_robocache_gpu_ensure_device (st->gpu, element,
              &st->device_src_t, src * sizeof (gint64), "source times")
          && gst_robocache_gpu_ensure_device (st->gpu, element,
              &st->device_src_v, src * st->sample_size, "source values")))
      && (!outputs
      || (gst_robocache_gpu_ensure_device (st->gpu, element,
              &st->device_tgt, tgt * sizeof (gint64), "grid times")
          && gst_robocache_gpu_ensure_device (st->gpu, element,
              &st->device_out, tgt * st->sample_size,
              "resampled values")));
}

gboolean
resample_push_context (GstRobocacheResample * self)
{
  if (gst_robocache_gpu_push (self->state.gpu))
    return TRUE;
  GST_ELEMENT_ERROR (self, RESOURCE, FAILED,
      ("cannot make the CUDA context current"), (NULL));
  return FALSE;
}

/* Posts the error of a failed GPU step and returns GST_FLOW_ERROR. */
GstFlowReturn
resample_gpu_failed (GstRobocacheResample * self, rc_status ret)
{
  return gst_robocache_gpu_failed (GST_ELEMENT (self), "GPU resampling", ret);
}

static GstFlowReturn
compute_on_cpu (GstRobocacheResample * self, const rc_resample_params * p,
    const gint64 * src_t, const guint8 * src_v, const gint64 * tgt,
    guint8 * out)
{
  rc_status ret = rc_resample_cpu (p, src_t, src_v, tgt, out);

  if (ret != RC_OK)
    return gst_robocache_base_transform_cpu_failed
        (GST_ROBOCACHE_BASE_TRANSFORM (self), "resampling", ret);
  return GST_FLOW_OK;
}

/* The host data through the device scratch (made ready by the caller),
 * waiting for the element's own stream only. */
static rc_status
compute_through_device (State * st, const rc_resample_params * p,
    const gint64 * src_t, const guint8 * src_v, const gint64 * tgt,
    guint8 * out)
{
  gsize n_src = (gsize) p->batch * p->n_source;
  gsize n_tgt = (gsize) p->batch * p->n_target;
  gpointer stream = st->gpu->stream;
  rc_status ret;

  ret = rc_device_copy_async (st->device_src_t.ptr, src_t,
      n_src * sizeof (gint64), RC_COPY_HOST_TO_DEVICE, stream);
  if (ret == RC_OK)
    ret = rc_device_copy_async (st->device_src_v.ptr, src_v,
        n_src * st->sample_size, RC_COPY_HOST_TO_DEVICE, stream);
  if (ret == RC_OK)
    ret = rc_device_copy_async (st->device_tgt.ptr, tgt,
        n_tgt * sizeof (gint64), RC_COPY_HOST_TO_DEVICE, stream);
  if (ret == RC_OK)
    ret = rc_resample_cuda (p, st->device_src_t.ptr, st->device_src_v.ptr,
        st->device_tgt.ptr, st->device_out.ptr, stream);
  if (ret == RC_OK)
    ret = rc_device_copy_async (out, st->device_out.ptr,
        n_tgt * st->sample_size, RC_COPY_DEVICE_TO_HOST, stream);
  if (ret == RC_OK)
    ret = rc_stream_synchronize (stream);
  return ret;
}

/* Resamples @batch trajectories of @n_source samples onto @n_target times
 * each; every pointer is host memory. */
GstFlowReturn
resample_compute (GstRobocacheResample * self, guint batch, guint n_source,
    guint n_target, const gint64 * src_t, const guint8 * src_v,
    const gint64 * tgt, guint8 * out)
{
  State *st = &self->state;
  rc_resample_params p = st->params;
  rc_status ret;

  p.batch = batch;
  p.n_source = n_source;
  p.n_target = n_target;
  if (!st->gpu->use_gpu)
    return compute_on_cpu (self, &p, src_t, src_v, tgt, out);
  /* Four copies, a launch and a wait cost more than the CPU's whole work
   * below the crossover; forced backend=gpu still goes there. */
  if (st->backend_auto && rc_resample_prefers_cpu (&p)) {
    GST_OBJECT_LOCK (self);
    self->totals.small_on_cpu++;
    GST_OBJECT_UNLOCK (self);
    return compute_on_cpu (self, &p, src_t, src_v, tgt, out);
  }

  if (!resample_push_context (self))
    return GST_FLOW_ERROR;
  if (!resample_ensure_device (self, batch, n_source, n_target, TRUE, TRUE)) {
    gst_robocache_gpu_pop (st->gpu);
    return GST_FLOW_ERROR;
  }
  ret = compute_through_device (st, &p, src_t, src_v, tgt, out);
  gst_robocache_gpu_pop (st->gpu);
  return ret == RC_OK ? GST_FLOW_OK : resample_gpu_failed (self, ret);
}
