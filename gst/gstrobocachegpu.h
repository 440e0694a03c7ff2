/* The GPU side shared by every robocache element: backend choice, the CUDA
 * context shared through GstContext (GStreamer's CUDA library), the
 * element's own stream, and robocache's linear CUDA memory.  Free of CUDA
 * types, so elements build the same with and without the CUDA path. */
#ifndef __GST_ROBOCACHE_GPU_H__
#define __GST_ROBOCACHE_GPU_H__

#include <gst/gst.h>

G_BEGIN_DECLS

/* Same value as GStreamer's GST_MAP_CUDA: mapping with it gives the device
 * pointer of CUDA memory. */
/* Debug category "robocachegpu": context, stream and memory. */
GST_DEBUG_CATEGORY_EXTERN (gst_robocache_gpu_debug);

#define GST_ROBOCACHE_MAP_CUDA (GST_MAP_FLAG_LAST << 1)

typedef enum
{
  GST_ROBOCACHE_BACKEND_AUTO,
  GST_ROBOCACHE_BACKEND_CPU,
  GST_ROBOCACHE_BACKEND_GPU
} GstRobocacheBackend;

#define GST_TYPE_ROBOCACHE_BACKEND (gst_robocache_backend_get_type ())
GType gst_robocache_backend_get_type (void);

/* What an element holds of the GPU.  @context is a GstCudaContext (a
 * GstObject here to keep CUDA types out), NULL until shared or created. */
typedef struct
{
  GstObject *context;
  gpointer stream;
  GstAllocator *allocator;
} GstRobocacheGpu;

/* TRUE when the CUDA path is built and a device is usable; otherwise *why
 * says why not (static string). */
gboolean gst_robocache_gpu_usable (const gchar ** why);

/* GstElement::set_context and CONTEXT queries, as GStreamer's CUDA elements
 * answer them, so that the whole pipeline shares one context per device. */
void gst_robocache_gpu_set_context (GstRobocacheGpu * gpu,
    GstElement * element, GstContext * context, gint device_id);
gboolean gst_robocache_gpu_query_context (GstRobocacheGpu * gpu,
    GstElement * element, GstQuery * query);

/* Resolves @backend: returns TRUE when the element may go on, with
 * *use_gpu telling whether it computes on the GPU (the context found or
 * created, a stream and an allocator ready).  AUTO falls back to the CPU
 * (logged); GPU posts an error on @element saying why the GPU cannot be
 * used, and returns FALSE. */
gboolean gst_robocache_gpu_open (GstRobocacheGpu * gpu, GstElement * element,
    GstRobocacheBackend backend, gint device_id, gboolean * use_gpu);
void gst_robocache_gpu_close (GstRobocacheGpu * gpu);

/* Whether an element may offer CUDA memory in its caps: once started, when
 * it computes on the GPU; before, whenever @backend allows and a GPU is
 * usable. */
gboolean gst_robocache_gpu_may_offer_cuda (GstRobocacheBackend backend,
    gboolean started, gboolean use_gpu);

/* Installs the two properties every robocache GPU element has, with these
 * ids: "backend" (GstRobocacheBackend, default auto) and "cuda-device-id"
 * (int, -1 = any), both changeable up to READY. */
#define GST_ROBOCACHE_DEFAULT_BACKEND GST_ROBOCACHE_BACKEND_AUTO
#define GST_ROBOCACHE_DEFAULT_DEVICE_ID -1
void gst_robocache_gpu_install_properties (GObjectClass * klass,
    guint prop_backend, guint prop_device_id);

/* Makes the context current on this thread for CUDA runtime calls. */
gboolean gst_robocache_gpu_push (GstRobocacheGpu * gpu);
void gst_robocache_gpu_pop (GstRobocacheGpu * gpu);

/* A pool of robocache CUDA memory buffers of @size bytes on @gpu's
 * context. */
GstBufferPool *gst_robocache_gpu_pool_new (GstRobocacheGpu * gpu,
    GstCaps * caps, gsize size);

/* TRUE if @mem is robocache CUDA memory on @gpu's context, whose device
 * pointer a kernel on that context may use directly. */
gboolean gst_robocache_gpu_memory_is_native (GstRobocacheGpu * gpu,
    GstMemory * mem);

/* TRUE if @mem is any CUDA memory (robocache's or GStreamer's). */
gboolean gst_robocache_is_cuda_memory (GstMemory * mem);

/* Grows an element's device scratch @ptr (@have bytes) to at least @size
 * bytes, freeing and allocating only when it must, so that steady state
 * allocates nothing.  The context must be current.  On failure posts an
 * error on @element naming @what and returns FALSE. */
gboolean gst_robocache_gpu_ensure_scratch (GstElement * element,
    gpointer * ptr, gsize * have, gsize size, const gchar * what);

/* The same for page-locked host memory (rc_host_alloc), which the GPU
 * copies to and from at full speed. */
gboolean gst_robocache_gpu_ensure_pinned (GstElement * element,
    gpointer * ptr, gsize * have, gsize size, const gchar * what);

/* The allocator type name of robocache CUDA memory. */
#define GST_ROBOCACHE_CUDA_MEMORY_TYPE "robocache.cuda.memory"

G_END_DECLS
#endif
