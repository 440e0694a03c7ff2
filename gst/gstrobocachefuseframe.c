/* robocachefuse's frame of a tick: each stream's sample referenced (or
 * copied onto the element's device when it is another device's CUDA
 * memory) and the optional flat float32 vector of every vector stream. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstrobocachefuseframe.h"

#include <math.h>

#define GST_CAT_DEFAULT gst_robocache_fuse_debug

/* Appends @pad's vector (@mem, or NaN without one) to the flat output as
 * float32. */
static void
append_flat (GstRobocacheFusePad * pad, GstMemory * mem, float *flat)
{
  guint d = pad->vectors.channels;
  gsize need = (gsize) d * rc_scalar_type_size (pad->vectors.type);
  GstMapInfo map;

  if (mem && mem->size < need) {
    /* Not the caps' vector (the pad's set_caps drops what it held). */
    GST_WARNING_OBJECT (pad, "a memory of %" G_GSIZE_FORMAT " bytes for "
        "a vector of %" G_GSIZE_FORMAT, mem->size, need);
    mem = NULL;
  }
  if (!mem || !gst_memory_map (mem, &map, GST_MAP_READ)) {
    for (guint c = 0; c < d; c++)
      flat[c] = NAN;
    return;
  }
  for (guint c = 0; c < d; c++) {
    if (pad->vectors.type == RC_TYPE_FLOAT64)
      flat[c] = (float) ((const double *) map.data)[c];
    else
      flat[c] = ((const float *) map.data)[c];
  }
  gst_memory_unmap (mem, &map);
}

/* The flat float32 memory of a tick, filled one vector stream after
 * another. */
typedef struct
{
  GstMemory *mem;
  GstMapInfo map;
  float *next;                  /* where the next stream's channels go */
  guint channels;
} FlatOutput;

static void
flat_output_begin (FlatOutput * flat, GList * pads)
{
  flat->channels = 0;
  for (GList * l = pads; l; l = l->next) {
    if (gst_robocache_fuse_pad_is_flat_vector (l->data))
      flat->channels += GST_ROBOCACHE_FUSE_PAD (l->data)->vectors.channels;
  }
  flat->mem = gst_allocator_alloc (NULL, MAX (flat->channels, 1) *
      sizeof (float), NULL);
  gst_memory_map (flat->mem, &flat->map, GST_MAP_WRITE);
  flat->next = (float *) flat->map.data;
}

static void
flat_output_finish (FlatOutput * flat, GstBuffer * out,
    GstRobocacheFusedMeta * meta)
{
  gst_memory_unmap (flat->mem, &flat->map);
  /* Without vector channels (none has its caps yet, or none is fused) the
   * flat vector is empty, not the float allocated to have a memory. */
  gst_memory_resize (flat->mem, 0, flat->channels * sizeof (float));
  meta->flat_memory_index = gst_buffer_n_memory (out);
  meta->flat_channels = flat->channels;
  gst_buffer_append_memory (out, flat->mem);
}

/* Copies @src, robocache CUDA memory of another device, into device
 * memory of the element's own (the pad's kept copies) on the element's
 * stream, and puts the copy in @out at @index instead.  The context is
 * current; the caller keeps @src alive and waits for the stream. */
static GstFlowReturn
copy_memory (GstElement * element, GstRobocacheGpu * gpu,
    GstRobocacheFusePad * pad, GstBuffer * out, guint index, GstMemory * src)
{
  GstMemory *dst = gst_robocache_fuse_pad_copy_target (pad, gpu,
      element, src->size);
  GstMapInfo from, to;
  rc_status status;
  gchar *what;

  if (!dst)
    return GST_FLOW_ERROR;
  if (!gst_memory_map (src, &from, GST_MAP_READ | GST_ROBOCACHE_MAP_CUDA)) {
    gst_memory_unref (dst);
    GST_ELEMENT_ERROR (element, RESOURCE, READ, ("cannot map the device memory "
            "of %s's buffer", GST_PAD_NAME (pad)), (NULL));
    return GST_FLOW_ERROR;
  }
  if (!gst_memory_map (dst, &to, GST_MAP_WRITE | GST_ROBOCACHE_MAP_CUDA)) {
    gst_memory_unmap (src, &from);
    gst_memory_unref (dst);
    GST_ELEMENT_ERROR (element, RESOURCE, WRITE,
        ("cannot map the device memory for the copy of %s's buffer",
            GST_PAD_NAME (pad)), (NULL));
    return GST_FLOW_ERROR;
  }
  GST_LOG_OBJECT (pad, "copying %" G_GSIZE_FORMAT " bytes from %p on another "
      "device to %p", from.size, from.data, to.data);
  status = rc_device_copy_async (to.data, from.data, from.size,
      RC_COPY_BETWEEN_DEVICES, gpu->stream);
  gst_memory_unmap (dst, &to);
  gst_memory_unmap (src, &from);
  if (status != RC_OK) {
    gst_memory_unref (dst);
    what = g_strdup_printf ("copying %s's buffer onto the element's device",
        GST_PAD_NAME (pad));
    gst_robocache_gpu_failed (element, what, status);
    g_free (what);
    return GST_FLOW_ERROR;
  }
  gst_buffer_replace_memory (out, index, dst);
  return GST_FLOW_OK;
}

/* On the GPU, every stream's memory in @out that is robocache CUDA memory
 * of another device is replaced by a copy on the element's own, so that
 * a consumer finds the whole frame on one device.  The copies run on the
 * element's stream, waited for once, before the frame leaves. */
static GstFlowReturn
copy_to_own_device (GstElement * element, GstRobocacheGpu * gpu, GList * pads,
    GstBuffer * out, GstRobocacheFusedMeta * meta)
{
  GstFlowReturn ret = GST_FLOW_OK;
  GPtrArray *sources = NULL;
  rc_status status;
  guint i = 0;

  /* use_gpu is fixed from start to stop; with the CPU backend a context
   * given by the pipeline may be set, but no stream or allocator. */
  if (!gpu->use_gpu)
    return GST_FLOW_OK;
  for (GList * l = pads; l && ret == GST_FLOW_OK; l = l->next, i++) {
    gint index = meta->streams[i].memory_index;
    GstMemory *src;

    if (index < 0)
      continue;
    src = gst_buffer_peek_memory (out, index);
    if (!gst_robocache_gpu_memory_is_peer (gpu, src))
      continue;
    if (!sources) {
      if (!gst_robocache_gpu_push (gpu)) {
        GST_ELEMENT_ERROR (element, RESOURCE, FAILED,
            ("cannot make the CUDA context current"), (NULL));
        return GST_FLOW_ERROR;
      }
      sources = g_ptr_array_new_with_free_func ((GDestroyNotify)
          gst_memory_unref);
    }
    /* Read until the stream is waited for, whatever holds it meanwhile. */
    g_ptr_array_add (sources, gst_memory_ref (src));
    ret = copy_memory (element, gpu, l->data, out, index, src);
  }
  if (!sources)
    return GST_FLOW_OK;
  /* Waited for after a failure too: nothing is left copying into memory
   * about to be reused or freed. */
  status = rc_stream_synchronize (gpu->stream);
  if (ret == GST_FLOW_OK && status != RC_OK)
    ret = gst_robocache_gpu_failed (element, "waiting for the "
        "copies onto the element's device", status);
  gst_robocache_gpu_pop (gpu);
  g_ptr_array_unref (sources);
  return ret;
}

GstBuffer *
gst_robocache_fuse_frame_make (GstElement * element, GstRobocacheGpu * gpu,
    GList * pads, GstClockTime tick, gboolean flat_output,
    gboolean drop_stale, guint * n_stale, GstFlowReturn * ret)
{
  GstBuffer *out = gst_buffer_new ();
  GstRobocacheFusedMeta *meta;
  FlatOutput flat = { NULL };
  guint i = 0;

  *n_stale = 0;
  *ret = GST_FLOW_OK;
  meta = gst_buffer_add_robocache_fused_meta (out, g_list_length (pads));
  if (flat_output)
    flat_output_begin (&flat, pads);

  for (GList * l = pads; l; l = l->next, i++) {
    GstRobocacheFusePad *pad = l->data;
    GstRobocacheFusedStream *stream = &meta->streams[i];
    GstMemory *mem = gst_robocache_fuse_pad_sample (pad, element, tick,
        stream);

    if (stream->stale)
      (*n_stale)++;
    if (flat.mem && gst_robocache_fuse_pad_is_flat_vector (pad)) {
      append_flat (pad, stream->stale ? NULL : mem, flat.next);
      flat.next += pad->vectors.channels;
    }
    if (mem) {
      stream->memory_index = gst_buffer_n_memory (out);
      gst_buffer_append_memory (out, mem);
    }
  }

  if (flat.mem)
    flat_output_finish (&flat, out, meta);
  if (*n_stale > 0 && drop_stale) {
    gst_buffer_unref (out);
    return NULL;
  }
  /* Only a tick that leaves is copied. */
  *ret = copy_to_own_device (element, gpu, pads, out, meta);
  if (*ret != GST_FLOW_OK) {
    gst_buffer_unref (out);
    return NULL;
  }
  return out;
}
