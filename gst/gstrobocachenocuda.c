/* The GPU layer of a build without CUDA: the CPU is always used, and asking
 * for the GPU is an error that says why. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstrobocachegpu.h"

#define GST_CAT_DEFAULT gst_robocache_gpu_debug

#define NOT_BUILT "robocache was built without CUDA"

gboolean
gst_robocache_gpu_usable (const gchar ** why)
{
  if (why)
    *why = NOT_BUILT;
  return FALSE;
}

void
gst_robocache_gpu_set_context (GstRobocacheGpu * gpu, GstElement * element,
    GstContext * context)
{
}

gboolean
gst_robocache_gpu_query_context (GstRobocacheGpu * gpu, GstElement * element,
    GstQuery * query)
{
  return FALSE;
}

gboolean
gst_robocache_gpu_open (GstRobocacheGpu * gpu, GstElement * element,
    GstRobocacheBackend backend, gint device_id, gboolean * use_gpu)
{
  *use_gpu = FALSE;
  if (backend == GST_ROBOCACHE_BACKEND_GPU) {
    GST_ELEMENT_ERROR (element, RESOURCE, NOT_FOUND,
        ("backend=gpu was asked for, but " NOT_BUILT),
        ("backend=auto falls back to the CPU instead"));
    return FALSE;
  }
  GST_CAT_INFO_OBJECT (GST_CAT_DEFAULT, element, "computing on the CPU: %s",
      NOT_BUILT);
  return TRUE;
}

void
gst_robocache_gpu_close (GstRobocacheGpu * gpu)
{
}

gboolean
gst_robocache_gpu_push (GstRobocacheGpu * gpu)
{
  return FALSE;
}

void
gst_robocache_gpu_pop (GstRobocacheGpu * gpu)
{
}

gboolean
gst_robocache_gpu_decide_video_pool (GstRobocacheGpu * gpu,
    GstElement * element, GstQuery * query)
{
  GST_ELEMENT_ERROR (element, CORE, NEGOTIATION, ("CUDA video: " NOT_BUILT),
      (NULL));
  return FALSE;
}

GstBufferPool *
gst_robocache_gpu_pool_new (GstRobocacheGpu * gpu, GstCaps * caps, gsize size)
{
  return NULL;
}

gboolean
gst_robocache_gpu_memory_is_native (GstRobocacheGpu * gpu, GstMemory * mem)
{
  return FALSE;
}

gboolean
gst_robocache_gpu_memory_is_peer (GstRobocacheGpu * gpu, GstMemory * mem)
{
  return FALSE;
}

gboolean
gst_robocache_is_cuda_memory (GstMemory * mem)
{
  return FALSE;
}

gboolean
gst_robocache_is_pinned_memory (GstMemory * mem)
{
  return FALSE;
}

void
gst_robocache_gpu_pinned_usage (GstRobocacheGpu * gpu, guint64 * held,
    guint64 * fallbacks)
{
  *held = *fallbacks = 0;
}
