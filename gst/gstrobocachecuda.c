/* The GPU layer with CUDA: GStreamer's CUDA library shares the context,
 * robocache's kernel library (CUDA runtime) allocates, copies and launches
 * with that context current.
 *
 * Robocache CUDA memory is linear device memory (GStreamer 1.22's own CUDA
 * memory only holds video layouts).  A GST_ROBOCACHE_MAP_CUDA map gives the
 * device pointer; a plain map gives a page-locked host copy, downloaded
 * when the device side changed and uploaded back after a write, so that
 * system-memory consumers work unchanged. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#define GST_USE_UNSTABLE_API
#include <gst/cuda/gstcudabufferpool.h>
#include <gst/cuda/gstcudacontext.h>
#include <gst/cuda/gstcudaloader.h>
#include <gst/cuda/gstcudamemory.h>
#include <gst/cuda/gstcudautils.h>

#include <gst/video/video.h>

#include "gstrobocachegpu.h"
#include "gstrobocachepinned.h"
#include "robocache-kernels.h"

#define GST_CAT_DEFAULT gst_robocache_gpu_debug

G_STATIC_ASSERT (GST_ROBOCACHE_MAP_CUDA == GST_MAP_CUDA);

gboolean
gst_robocache_gpu_usable (const gchar ** why)
{
  const char *reason = NULL;

  if (!gst_cuda_load_library ()) {
    if (why)
      *why = "the CUDA driver library (libcuda.so.1) could not be loaded";
    return FALSE;
  }
  if (rc_device_count (&reason) <= 0) {
    if (why)
      *why = reason ? reason : "no CUDA device";
    return FALSE;
  }
  return TRUE;
}

void
gst_robocache_gpu_set_context (GstRobocacheGpu * gpu, GstElement * element,
    GstContext * context)
{
  gint device_id;

  GST_OBJECT_LOCK (element);
  device_id = gpu->device_id;
  GST_OBJECT_UNLOCK (element);
  gst_cuda_handle_set_context (element, context, device_id,
      (GstCudaContext **) & gpu->context);
}

gboolean
gst_robocache_gpu_query_context (GstRobocacheGpu * gpu, GstElement * element,
    GstQuery * query)
{
  if (GST_QUERY_TYPE (query) != GST_QUERY_CONTEXT || !gpu->context)
    return FALSE;
  return gst_cuda_handle_context_query (element, query,
      GST_CUDA_CONTEXT (gpu->context));
}

gboolean
gst_robocache_gpu_push (GstRobocacheGpu * gpu)
{
  return gpu->context && gst_cuda_context_push (GST_CUDA_CONTEXT
      (gpu->context));
}

void
gst_robocache_gpu_pop (GstRobocacheGpu * gpu)
{
  gst_cuda_context_pop (NULL);
}

/* ------------------------------------------------------------------ */
/* Memory                                                              */
/* ------------------------------------------------------------------ */

#define GST_TYPE_ROBOCACHE_CUDA_ALLOCATOR \
    (gst_robocache_cuda_allocator_get_type ())
G_DECLARE_FINAL_TYPE (GstRobocacheCudaAllocator, gst_robocache_cuda_allocator,
    GST, ROBOCACHE_CUDA_ALLOCATOR, GstAllocator);

struct _GstRobocacheCudaAllocator
{
  GstAllocator parent;
  GstCudaContext *context;
  /* Plain maps copy on this stream, apart from every element's. */
  gpointer copy_stream;
};

typedef enum
{
  /* The device holds newer data than the host copy. */
  MEMORY_HOST_STALE = 1 << 0,
  /* The host copy was written and must go to the device. */
  MEMORY_DEVICE_STALE = 1 << 1
} MemoryState;

/* A byte range [begin, end) of a memory's allocation; empty when equal. */
typedef struct
{
  gsize begin, end;
} Span;

typedef struct
{
  GstMemory mem;
  gpointer device_ptr;
  gpointer host_ptr;
  guint state;
  /* Every byte either side was ever mapped for writing, as one span:
   * outside it neither side holds data, so nothing there is copied (a
   * copy would read memory no one wrote). */
  Span written;
  /* Where the stale side was brought up to date for reading, without
   * clearing its stale flag: a read of a buffer cut smaller than its
   * allocation (a pooled output) copies only the buffer's bytes. */
  Span synced;
  GMutex lock;
} GstRobocacheCudaMemory;

G_DEFINE_TYPE (GstRobocacheCudaAllocator, gst_robocache_cuda_allocator,
    GST_TYPE_ALLOCATOR);

static gboolean
copy_sync (GstRobocacheCudaAllocator * self, gpointer dst, gconstpointer src,
    gsize size, rc_copy_kind kind)
{
  rc_status ret;

  if (!gst_cuda_context_push (self->context))
    return FALSE;
  ret = rc_device_copy_async (dst, src, size, kind, self->copy_stream);
  if (ret == RC_OK)
    ret = rc_stream_synchronize (self->copy_stream);
  gst_cuda_context_pop (NULL);
  if (ret != RC_OK) {
    GST_ERROR_OBJECT (self, "copy of %" G_GSIZE_FORMAT " bytes failed: %s (%s)",
        size, rc_status_message (ret), rc_error_detail ());
  }
  return ret == RC_OK;
}

static GstRobocacheCudaMemory *
memory_new (GstRobocacheCudaAllocator * self, gsize size, GstMemory * parent)
{
  GstRobocacheCudaMemory *mem;
  gpointer ptr = NULL;
  rc_status ret;

  if (!gst_cuda_context_push (self->context))
    return NULL;
  ret = rc_device_alloc (&ptr, size);
  gst_cuda_context_pop (NULL);
  if (ret != RC_OK) {
    GST_ERROR_OBJECT (self, "cannot allocate %" G_GSIZE_FORMAT
        " bytes of device memory: %s (%s)", size, rc_status_message (ret),
        rc_error_detail ());
    return NULL;
  }
  mem = g_new0 (GstRobocacheCudaMemory, 1);
  /* Never shared: sub-buffers would alias device memory whose host copy is
   * per memory. */
  gst_memory_init (GST_MEMORY_CAST (mem), GST_MEMORY_FLAG_NO_SHARE,
      GST_ALLOCATOR_CAST (self), parent, size, 0, 0, size);
  mem->device_ptr = ptr;
  g_mutex_init (&mem->lock);
  return mem;
}

static GstMemory *
allocator_alloc (GstAllocator * allocator, gsize size,
    GstAllocationParams * params)
{
  return (GstMemory *) memory_new (GST_ROBOCACHE_CUDA_ALLOCATOR (allocator),
      size, NULL);
}

static void
allocator_free (GstAllocator * allocator, GstMemory * memory)
{
  GstRobocacheCudaAllocator *self = GST_ROBOCACHE_CUDA_ALLOCATOR (allocator);
  GstRobocacheCudaMemory *mem = (GstRobocacheCudaMemory *) memory;

  if (gst_cuda_context_push (self->context)) {
    rc_device_free (mem->device_ptr);
    if (mem->host_ptr)
      rc_host_free (mem->host_ptr);
    gst_cuda_context_pop (NULL);
  } else {
    GST_ERROR_OBJECT (self, "cannot free device memory: context lost");
  }
  g_mutex_clear (&mem->lock);
  g_free (mem);
}

static gboolean
span_empty (Span s)
{
  return s.begin >= s.end;
}

static Span
span_intersect (Span a, Span b)
{
  Span s = { MAX (a.begin, b.begin), MIN (a.end, b.end) };

  return span_empty (s) ? (Span) { 0, 0 } : s;
}

/* The smallest span holding @a and @b. */
static Span
span_hull (Span a, Span b)
{
  if (span_empty (a))
    return b;
  if (span_empty (b))
    return a;
  return (Span) { MIN (a.begin, b.begin), MAX (a.end, b.end) };
}

static gboolean
span_contains (Span outer, Span inner)
{
  return span_empty (inner) || (outer.begin <= inner.begin &&
      inner.end <= outer.end);
}

/* Copies @span of @mem to the @device side (or the host's) from the
 * other. */
static gboolean
sync_span (GstRobocacheCudaMemory * mem, gboolean device, Span span)
{
  GstRobocacheCudaAllocator *self =
      GST_ROBOCACHE_CUDA_ALLOCATOR (mem->mem.allocator);
  guint8 *dst = device ? mem->device_ptr : mem->host_ptr;
  guint8 *src = device ? mem->host_ptr : mem->device_ptr;

  if (span_empty (span))
    return TRUE;
  return copy_sync (self, dst + span.begin, src + span.begin,
      span.end - span.begin,
      device ? RC_COPY_HOST_TO_DEVICE : RC_COPY_DEVICE_TO_HOST);
}

/* Makes the device side of @mem (@device) or its host copy current,
 * copying from the other side what it holds newer, and returns it; NULL
 * when the copy fails.  A read brings only the memory's current bytes up
 * to date; a write, the whole written span first, and leaves the other
 * side stale.  So at most one side is stale, and the other holds every
 * written byte. */
static gpointer
map_side (GstRobocacheCudaMemory * mem, gboolean device, GstMapFlags flags)
{
  GstMemory *memory = &mem->mem;
  gpointer mapped = device ? mem->device_ptr : mem->host_ptr;
  guint mapped_stale = device ? MEMORY_DEVICE_STALE : MEMORY_HOST_STALE;
  guint other_stale = device ? MEMORY_HOST_STALE : MEMORY_DEVICE_STALE;
  Span view = { memory->offset, memory->offset + memory->size };

  if ((mem->state & mapped_stale) && !(flags & GST_MAP_WRITE)) {
    Span need = span_intersect (view, mem->written);

    if (!span_contains (mem->synced, need)) {
      if (!sync_span (mem, device, need))
        return NULL;
      /* Two overlapping spans are one; else keep the newer. */
      mem->synced = span_empty (span_intersect (mem->synced, need)) ?
          need : span_hull (mem->synced, need);
    }
    return mapped;
  }
  if (mem->state & mapped_stale) {
    /* The written span but what a read already synced (none: {0, 0}). */
    Span below = { mem->written.begin, MIN (mem->synced.begin,
          mem->written.end) };
    Span above = { MAX (mem->synced.end, mem->written.begin),
      mem->written.end
    };

    if (!sync_span (mem, device, below) || !sync_span (mem, device, above))
      return NULL;
    mem->state &= ~mapped_stale;
  }
  if (flags & GST_MAP_WRITE) {
    mem->written = span_hull (mem->written, view);
    mem->state |= other_stale;
    mem->synced = (Span) { 0, 0 };
  }
  return mapped;
}

/* Allocates @mem's host copy, page-locked, on its first host map. */
static gboolean
ensure_host_copy (GstRobocacheCudaMemory * mem)
{
  GstMemory *memory = &mem->mem;
  GstRobocacheCudaAllocator *self =
      GST_ROBOCACHE_CUDA_ALLOCATOR (memory->allocator);
  gpointer host = NULL;

  if (mem->host_ptr)
    return TRUE;
  if (!gst_cuda_context_push (self->context))
    return FALSE;
  if (rc_host_alloc (&host, memory->maxsize) != RC_OK)
    host = NULL;
  gst_cuda_context_pop (NULL);
  if (!host) {
    GST_ERROR_OBJECT (self, "cannot allocate a host copy of %"
        G_GSIZE_FORMAT " bytes", memory->maxsize);
    return FALSE;
  }
  mem->host_ptr = host;
  if (!span_empty (mem->written)) {
    mem->state |= MEMORY_HOST_STALE;
    mem->synced = (Span) { 0, 0 };
  }
  return TRUE;
}

static gpointer
memory_map (GstMemory * memory, GstMapInfo * info, gsize maxsize)
{
  GstRobocacheCudaMemory *mem = (GstRobocacheCudaMemory *) memory;
  gpointer ret = NULL;

  g_mutex_lock (&mem->lock);
  if (info->flags & GST_MAP_CUDA)
    ret = map_side (mem, TRUE, info->flags);
  else if (ensure_host_copy (mem))
    ret = map_side (mem, FALSE, info->flags);
  g_mutex_unlock (&mem->lock);
  return ret;
}

static void
memory_unmap (GstMemory * memory, GstMapInfo * info)
{
}

static GstMemory *
memory_copy (GstMemory * memory, gssize offset, gssize size)
{
  GstRobocacheCudaAllocator *self =
      GST_ROBOCACHE_CUDA_ALLOCATOR (memory->allocator);
  GstRobocacheCudaMemory *copy;
  GstMapInfo info;

  if (size == -1)
    size = memory->size > (gsize) offset ? memory->size - offset : 0;
  copy = memory_new (self, size, NULL);
  if (!copy)
    return NULL;
  if (!gst_memory_map (memory, &info, GST_MAP_READ | GST_MAP_CUDA)) {
    gst_memory_unref (GST_MEMORY_CAST (copy));
    return NULL;
  }
  if (!copy_sync (self, copy->device_ptr,
          (guint8 *) info.data + offset, size,
          RC_COPY_DEVICE_TO_DEVICE)) {
    gst_memory_unmap (memory, &info);
    gst_memory_unref (GST_MEMORY_CAST (copy));
    return NULL;
  }
  gst_memory_unmap (memory, &info);
  /* Its device side now holds the data. */
  copy->written = (Span) { 0, size };
  return GST_MEMORY_CAST (copy);
}

static void
gst_robocache_cuda_allocator_finalize (GObject * object)
{
  GstRobocacheCudaAllocator *self = GST_ROBOCACHE_CUDA_ALLOCATOR (object);

  if (self->copy_stream && gst_cuda_context_push (self->context)) {
    rc_stream_destroy (self->copy_stream);
    gst_cuda_context_pop (NULL);
  }
  gst_clear_object (&self->context);
  G_OBJECT_CLASS (gst_robocache_cuda_allocator_parent_class)->finalize (object);
}

static void
gst_robocache_cuda_allocator_class_init (GstRobocacheCudaAllocatorClass * klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  GstAllocatorClass *allocator_class = GST_ALLOCATOR_CLASS (klass);

  gobject_class->finalize = gst_robocache_cuda_allocator_finalize;
  allocator_class->alloc = allocator_alloc;
  allocator_class->free = allocator_free;
}

static void
gst_robocache_cuda_allocator_init (GstRobocacheCudaAllocator * self)
{
  GstAllocator *allocator = GST_ALLOCATOR_CAST (self);

  allocator->mem_type = GST_ROBOCACHE_CUDA_MEMORY_TYPE;
  allocator->mem_map_full = memory_map;
  allocator->mem_unmap_full = memory_unmap;
  allocator->mem_copy = memory_copy;
  GST_OBJECT_FLAG_SET (self, GST_ALLOCATOR_FLAG_CUSTOM_ALLOC);
}

static GstAllocator *
allocator_new (GstCudaContext * context)
{
  GstRobocacheCudaAllocator *self;
  gpointer stream = NULL;
  rc_status ret;

  if (!gst_cuda_context_push (context))
    return NULL;
  ret = rc_stream_create (&stream);
  gst_cuda_context_pop (NULL);
  if (ret != RC_OK) {
    GST_ERROR ("cannot create a copy stream: %s (%s)",
        rc_status_message (ret), rc_error_detail ());
    return NULL;
  }
  self = g_object_new (GST_TYPE_ROBOCACHE_CUDA_ALLOCATOR, NULL);
  gst_object_ref_sink (self);
  self->context = gst_object_ref (context);
  self->copy_stream = stream;
  return GST_ALLOCATOR_CAST (self);
}

gboolean
gst_robocache_gpu_memory_is_native (GstRobocacheGpu * gpu, GstMemory * mem)
{
  return gpu->context && GST_IS_ROBOCACHE_CUDA_ALLOCATOR (mem->allocator) &&
      GST_ROBOCACHE_CUDA_ALLOCATOR (mem->allocator)->context ==
      GST_CUDA_CONTEXT (gpu->context);
}

gboolean
gst_robocache_gpu_memory_is_peer (GstRobocacheGpu * gpu, GstMemory * mem)
{
  return gpu->context && GST_IS_ROBOCACHE_CUDA_ALLOCATOR (mem->allocator) &&
      GST_ROBOCACHE_CUDA_ALLOCATOR (mem->allocator)->context !=
      GST_CUDA_CONTEXT (gpu->context);
}

gboolean
gst_robocache_is_cuda_memory (GstMemory * mem)
{
  return mem && (GST_IS_ROBOCACHE_CUDA_ALLOCATOR (mem->allocator) ||
      gst_is_cuda_memory (mem));
}

GstBufferPool *
gst_robocache_gpu_pool_new (GstRobocacheGpu * gpu, GstCaps * caps, gsize size)
{
  GstBufferPool *pool = gst_buffer_pool_new ();
  GstStructure *config = gst_buffer_pool_get_config (pool);

  gst_buffer_pool_config_set_params (config, caps, size, 0, 0);
  gst_buffer_pool_config_set_allocator (config, gpu->allocator, NULL);
  if (!gst_buffer_pool_set_config (pool, config)) {
    gst_object_unref (pool);
    return NULL;
  }
  return pool;
}

gboolean
gst_robocache_gpu_decide_video_pool (GstRobocacheGpu * gpu,
    GstElement * element, GstQuery * query)
{
  GstBufferPool *pool = NULL;
  GstStructure *config;
  GstCaps *caps;
  GstVideoInfo info;
  guint size;

  gst_query_parse_allocation (query, &caps, NULL);
  if (!caps || !gst_video_info_from_caps (&info, caps) || !gpu->context)
    goto failed;
  pool = gst_cuda_buffer_pool_new (GST_CUDA_CONTEXT (gpu->context));
  config = gst_buffer_pool_get_config (pool);
  gst_buffer_pool_config_add_option (config, GST_BUFFER_POOL_OPTION_VIDEO_META);
  gst_buffer_pool_config_set_params (config, caps, info.size, 0, 0);
  if (!gst_buffer_pool_set_config (pool, config)
      || !gst_buffer_pool_set_active (pool, TRUE))
    goto failed;
  /* The pool may have padded the rows: the size it settled on. */
  config = gst_buffer_pool_get_config (pool);
  size = (guint) info.size;
  gst_buffer_pool_config_get_params (config, NULL, &size, NULL, NULL);
  gst_structure_free (config);
  while (gst_query_get_n_allocation_pools (query) > 0)
    gst_query_remove_nth_allocation_pool (query, 0);
  gst_query_add_allocation_pool (query, pool, size, 0, 0);
  gst_object_unref (pool);
  return TRUE;

failed:
  GST_ELEMENT_ERROR (element, RESOURCE, NO_SPACE_LEFT,
      ("cannot make a pool of CUDA video frames for %" GST_PTR_FORMAT, caps),
      (NULL));
  if (pool)
    gst_object_unref (pool);
  return FALSE;
}

void
gst_robocache_gpu_pinned_usage (GstRobocacheGpu * gpu, guint64 * held,
    guint64 * fallbacks)
{
  *held = *fallbacks = 0;
  if (gpu->pinned)
    gst_robocache_pinned_allocator_get_usage (gpu->pinned, held, fallbacks);
}

/* ------------------------------------------------------------------ */
/* Opening                                                             */
/* ------------------------------------------------------------------ */

/* The copy streams and the slots' fences, the context current. */
static rc_status
open_slots (GstRobocacheGpu * gpu)
{
  rc_status ret = rc_stream_create (&gpu->upload_stream);

  if (ret == RC_OK)
    ret = rc_stream_create (&gpu->download_stream);
  for (guint i = 0; ret == RC_OK && i < GST_ROBOCACHE_MAX_DEPTH; i++) {
    GstRobocacheGpuSlot *s = &gpu->slots[i];

    ret = rc_fence_create (&s->uploaded);
    if (ret == RC_OK)
      ret = rc_fence_create (&s->computed);
    if (ret == RC_OK)
      ret = rc_fence_create (&s->done);
  }
  return ret;
}

static void
close_slots (GstRobocacheGpu * gpu)
{
  gpointer *streams[] = { &gpu->stream, &gpu->upload_stream,
    &gpu->download_stream
  };

  for (guint i = 0; i < G_N_ELEMENTS (streams); i++) {
    if (*streams[i])
      rc_stream_synchronize (*streams[i]);
  }
  for (guint i = 0; i < G_N_ELEMENTS (streams); i++) {
    rc_stream_destroy (*streams[i]);
    *streams[i] = NULL;
  }
  for (guint i = 0; i < GST_ROBOCACHE_MAX_DEPTH; i++) {
    GstRobocacheGpuSlot *s = &gpu->slots[i];

    rc_event_destroy (s->uploaded);
    rc_event_destroy (s->computed);
    rc_event_destroy (s->done);
    s->uploaded = s->computed = s->done = NULL;
  }
}

/* The GPU cannot be used, for @why: an error under backend=gpu, else the
 * CPU computes.  A GPU whose architecture the kernels were not built for
 * (@misbuilt) is a build to fix, so the CPU's taking over is a warning
 * there; no GPU at all is what backend=auto is for. */
static gboolean
fall_back (GstElement * element, GstRobocacheBackend backend,
    const gchar * why, const gchar * cuda_error, gboolean misbuilt)
{
  if (backend == GST_ROBOCACHE_BACKEND_GPU) {
    GST_ELEMENT_ERROR (element, RESOURCE, NOT_FOUND,
        ("backend=gpu was asked for, but the GPU cannot be used: %s%s%s", why,
            cuda_error ? ": " : "", cuda_error ? cuda_error : ""),
        ("backend=auto falls back to the CPU instead"));
    return FALSE;
  }
  if (misbuilt)
    GST_ELEMENT_WARNING (element, RESOURCE, NOT_FOUND,
        ("computing on the CPU: %s", why), ("%s", cuda_error));
  else
    GST_INFO_OBJECT (element, "computing on the CPU: %s%s%s", why,
        cuda_error ? ": " : "", cuda_error ? cuda_error : "");
  return TRUE;
}

gboolean
gst_robocache_gpu_open (GstRobocacheGpu * gpu, GstElement * element,
    GstRobocacheBackend backend, gint device_id, gboolean * use_gpu)
{
  const gchar *why = NULL, *cuda_error = NULL;
  gint n_devices;
  rc_status ret = RC_OK;

  *use_gpu = FALSE;
  if (backend == GST_ROBOCACHE_BACKEND_CPU) {
    GST_INFO_OBJECT (element, "computing on the CPU: backend=cpu");
    return TRUE;
  }
  if (!gst_robocache_gpu_usable (&why))
    goto unavailable;
  /* GStreamer's CUDA allocator, which its video pool (robocachebev's
   * frames) takes by default, exists only once this ran; nvcodec's plugin
   * runs it too, but a pipeline need not hold any of nvcodec's elements. */
  gst_cuda_memory_init_once ();
  /* A device asked for by its id that is not there is a mistake in the
   * pipeline, not a reason to compute elsewhere. */
  n_devices = rc_device_count (NULL);
  if (device_id >= n_devices) {
    GST_ELEMENT_ERROR (element, RESOURCE, NOT_FOUND,
        ("cuda-device-id is %d, but this machine has %d CUDA device%s: "
            "accepted are 0 to %d, or -1 for any", device_id, n_devices,
            n_devices == 1 ? "" : "s", n_devices - 1), (NULL));
    return FALSE;
  }
  if (!gst_cuda_ensure_element_context (element, device_id,
          (GstCudaContext **) & gpu->context)) {
    why = "no CUDA context could be shared or created for the device";
    goto unavailable;
  }
  if (!gst_robocache_gpu_push (gpu)) {
    why = "the CUDA context could not be made current";
    goto unavailable;
  }
  ret = rc_device_check_kernels ();
  if (ret == RC_OK)
    ret = rc_stream_create (&gpu->stream);
  if (ret == RC_OK)
    ret = open_slots (gpu);
  gst_robocache_gpu_pop (gpu);
  if (ret != RC_OK) {
    why = ret == RC_ERROR_UNSUPPORTED_DEVICE ? "the GPU cannot run "
        "robocache's kernels" : "no CUDA streams and events could be created";
    cuda_error = gst_robocache_gpu_status_text (ret);
    goto unavailable;
  }
  gpu->allocator = allocator_new (GST_CUDA_CONTEXT (gpu->context));
  if (!gpu->allocator) {
    why = "no CUDA allocator could be created";
    cuda_error = rc_error_detail ();
    goto unavailable;
  }
  GST_OBJECT_LOCK (element);
  gpu->pinned = gst_robocache_pinned_allocator_new (gpu->context,
      gpu->max_pinned);
  GST_OBJECT_UNLOCK (element);
  GST_INFO_OBJECT (element, "computing on the GPU (context %" GST_PTR_FORMAT
      ")", gpu->context);
  *use_gpu = TRUE;
  return TRUE;

unavailable:
  gst_robocache_gpu_close (gpu);
  return fall_back (element, backend, why, cuda_error,
      ret == RC_ERROR_UNSUPPORTED_DEVICE);
}

void
gst_robocache_gpu_close (GstRobocacheGpu * gpu)
{
  if (gpu->context && gst_robocache_gpu_push (gpu)) {
    close_slots (gpu);
    gst_robocache_gpu_pop (gpu);
  }
  gpu->stream = NULL;
  gst_clear_object (&gpu->allocator);
  /* Kept page-locked blocks go now; those in buffers when the buffers go. */
  if (gpu->pinned)
    gst_robocache_pinned_allocator_close (gpu->pinned);
  gst_clear_object (&gpu->pinned);
  /* A later start finds the same context again through the pipeline's
   * GstContext. */
  gst_clear_object (&gpu->context);
}
