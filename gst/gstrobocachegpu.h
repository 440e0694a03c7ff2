/* The GPU side shared by every robocache element: backend choice, the CUDA
 * context shared through GstContext (GStreamer's CUDA library), the
 * element's own stream, and robocache's linear CUDA memory.  Free of CUDA
 * types, so elements build the same with and without the CUDA path. */
#ifndef __GST_ROBOCACHE_GPU_H__
#define __GST_ROBOCACHE_GPU_H__

#include <gst/gst.h>

#include "robocache-kernels.h"
#include "gstrobocachememory.h"

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

/* A block of device or page-locked host memory an element grows to the
 * largest size it has needed, so that steady state allocates nothing. */
typedef struct
{
  gpointer ptr;
  gsize size;
} GstRobocacheScratch;

/* The most buffers a filter has on the GPU at once (pipeline-depth). */
#define GST_ROBOCACHE_MAX_DEPTH 8

/* What one buffer in flight uses on the GPU, by the filter's slot index:
 * its input copied to the device (through page-locked staging when it is
 * pageable), its output waiting to be downloaded, a small page-locked
 * result (statistics), and the fences ordering the upload, kernel and
 * download streams.  The scratch is grown with the ensure functions and
 * freed at stop like any other. */
typedef struct
{
  GstRobocacheScratch device_in;
  GstRobocacheScratch pinned_in;
  GstRobocacheScratch device_out;
  GstRobocacheScratch host_result;
  gpointer uploaded;
  gpointer computed;
  gpointer done;
} GstRobocacheGpuSlot;

/* The GPU side of one element, the helper object every robocache CUDA
 * element embeds (GstRobocacheBaseTransform for filters, directly in
 * robocachefuse): the backend and cuda-device-id properties, the CUDA
 * context shared through GstContext, the element's stream and allocator,
 * and its scratch (GPU, page-locked and system memory), all released at
 * stop.
 *
 * backend, device_id, started and use_gpu are under the element's object
 * lock; the rest belongs to the streaming thread between start and stop.
 * @context is a GstCudaContext (a GstObject here to keep CUDA types out),
 * NULL until shared or created. */
typedef struct
{
  GstRobocacheBackend backend;
  gint device_id;
  guint64 max_memory;           /* the max-memory property */

  guint64 max_pinned;

  gboolean started;
  gboolean use_gpu;
  GstObject *context;
  /* Kernels run on @stream; buffers in flight upload on @upload_stream
   * and download on @download_stream, so that the copies of one buffer
   * overlap the kernel of another. */
  gpointer stream;
  gpointer upload_stream;
  gpointer download_stream;
  GstAllocator *allocator;
  /* Page-locked system memory offered upstream and used for outputs in
   * system memory (gstrobocachepinned.c); NULL without the GPU. */
  GstAllocator *pinned;
  GstRobocacheGpuSlot slots[GST_ROBOCACHE_MAX_DEPTH];

  /* GstRobocacheScratch of the element, tagged with their
   * GstRobocacheMemoryKind, freed at stop. */
  GArray *scratch;
} GstRobocacheGpu;

/* TRUE when the CUDA path is built and a device is usable; otherwise *why
 * says why not (static string). */
gboolean gst_robocache_gpu_usable (const gchar ** why);

/* Defaults at instance init; released at finalize. */
void gst_robocache_gpu_init (GstRobocacheGpu * gpu);
void gst_robocache_gpu_finalize (GstRobocacheGpu * gpu);

/* Installs the properties every robocache GPU element has, with ids
 * @first_id ("backend", GstRobocacheBackend, default auto), @first_id + 1
 * ("cuda-device-id", int, -1 = any), @first_id + 2 ("max-pinned-memory",
 * bytes of page-locked system memory the element may hold) and
 * @first_id + 3 ("max-memory", gstrobocachememory.h), all changeable up to
 * READY. */
#define GST_ROBOCACHE_DEFAULT_BACKEND GST_ROBOCACHE_BACKEND_AUTO
#define GST_ROBOCACHE_DEFAULT_DEVICE_ID -1
#define GST_ROBOCACHE_DEFAULT_MAX_PINNED_MEMORY (256 * 1024 * 1024)
#define GST_ROBOCACHE_GPU_N_PROPERTIES 4
void gst_robocache_gpu_install_properties (GObjectClass * klass,
    guint first_id);

/* Sets or gets one of those properties, taking @element's object lock;
 * FALSE when @prop_id is not one of them. */
gboolean gst_robocache_gpu_set_property (GstRobocacheGpu * gpu,
    GstElement * element, guint first_id, guint prop_id, const GValue * value);
gboolean gst_robocache_gpu_get_property (GstRobocacheGpu * gpu,
    GstElement * element, guint first_id, guint prop_id, GValue * value);

/* GstElement::set_context and CONTEXT queries, as GStreamer's CUDA elements
 * answer them, so that the whole pipeline shares one context per device.
 * The query helper returns FALSE for any other query. */
void gst_robocache_gpu_set_context (GstRobocacheGpu * gpu,
    GstElement * element, GstContext * context);
gboolean gst_robocache_gpu_query_context (GstRobocacheGpu * gpu,
    GstElement * element, GstQuery * query);

/* Resolves the backend at start: returns TRUE when the element may go on,
 * with use_gpu telling whether it computes on the GPU (the context found
 * or created, a stream and an allocator ready).  AUTO falls back to the CPU
 * (logged); GPU posts an error on @element saying why the GPU cannot be
 * used, and returns FALSE.  Stop frees the scratch and closes. */
gboolean gst_robocache_gpu_start (GstRobocacheGpu * gpu, GstElement * element);
void gst_robocache_gpu_stop (GstRobocacheGpu * gpu, GstElement * element);

/* Whether @element has started (its backend resolved). */
gboolean gst_robocache_gpu_started (GstRobocacheGpu * gpu,
    GstElement * element);

/* Whether the element may offer CUDA memory in its caps: once started,
 * when it computes on the GPU; before, whenever its backend allows and a
 * GPU is usable. */
gboolean gst_robocache_gpu_may_offer_cuda (GstRobocacheGpu * gpu,
    GstElement * element);

/* The opening and closing that start and stop do, by the build's GPU layer
 * (gstrobocachecuda.c, or gstrobocachenocuda.c without CUDA). */
gboolean gst_robocache_gpu_open (GstRobocacheGpu * gpu, GstElement * element,
    GstRobocacheBackend backend, gint device_id, gboolean * use_gpu);
void gst_robocache_gpu_close (GstRobocacheGpu * gpu);

/* Answers an ALLOCATION query on the GPU: for CUDA caps upstream gets the
 * element's allocator and allocates device memory of the sizes it needs;
 * for system memory, the element's page-locked allocator, so that the
 * upload runs at the bus's full speed. */
void gst_robocache_gpu_propose_allocator (GstRobocacheGpu * gpu,
    GstQuery * query);

/* For outputs in system memory on the GPU: makes the page-locked allocator
 * the one a decide_allocation query settles on (downstream's pools hold
 * pageable memory), so that downloads run at full speed and overlap. */
void gst_robocache_gpu_decide_host_allocator (GstRobocacheGpu * gpu,
    GstQuery * query);

/* TRUE if @mem is robocache's page-locked system memory. */
gboolean gst_robocache_is_pinned_memory (GstMemory * mem);

/* The page-locked bytes the element holds and how many buffers came from
 * plain system memory because max-pinned-memory was reached. */
void gst_robocache_gpu_pinned_usage (GstRobocacheGpu * gpu, guint64 * held,
    guint64 * fallbacks);

/* Makes a pool of @size-byte robocache CUDA buffers the only one in an
 * ALLOCATION query, active (buffers of 4 GiB or more: no pool, the CUDA
 * allocator); on failure posts an error on @element naming @what and
 * returns FALSE. */
gboolean gst_robocache_gpu_decide_pool (GstRobocacheGpu * gpu,
    GstElement * element, GstQuery * query, gsize size, const gchar * what);

/* An active pool of @size-byte robocache CUDA buffers (below 4 GiB),
 * checked against max-memory for the buffers in flight; NULL with an
 * error naming @what posted on @element. */
GstBufferPool *gst_robocache_gpu_make_pool (GstRobocacheGpu * gpu,
    GstElement * element, GstCaps * caps, gsize size, const gchar * what);

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

/* TRUE if @mem is robocache CUDA memory of another context (another
 * device's element): @gpu copies it device to device, never handing its
 * pointer to a kernel of its own. */
gboolean gst_robocache_gpu_memory_is_peer (GstRobocacheGpu * gpu,
    GstMemory * mem);

/* TRUE if @mem is any CUDA memory (robocache's or GStreamer's). */
gboolean gst_robocache_is_cuda_memory (GstMemory * mem);

/* Grows @scratch to at least @size bytes of device memory (or of
 * page-locked host memory, which the GPU copies to and from at full speed),
 * freeing and allocating only when it must; the context must be current.
 * Freed at stop.  On failure posts an error on @element naming @what and
 * returns FALSE. */
gboolean gst_robocache_gpu_ensure_device (GstRobocacheGpu * gpu,
    GstElement * element, GstRobocacheScratch * scratch, gsize size,
    const gchar * what);
gboolean gst_robocache_gpu_ensure_pinned (GstRobocacheGpu * gpu,
    GstElement * element, GstRobocacheScratch * scratch, gsize size,
    const gchar * what);

/* Grows @scratch to at least @size bytes of system memory for the CPU's
 * kernels, as the two above grow theirs (never shrunk, freed at stop),
 * with or without a GPU.  Checked against max-memory together with the
 * element's other such scratch and @beside, the system memory the caller
 * holds besides (outputs in flight); a refusal names @what, which should
 * say what those bytes are, and @sized_by. */
gboolean gst_robocache_gpu_ensure_host (GstRobocacheGpu * gpu,
    GstElement * element, GstRobocacheScratch * scratch, gsize size,
    guint64 beside, const gchar * what, const gchar * sized_by);

/* gst_robocache_memory_check with the element's max-memory: whether
 * @bytes of @kind memory for @what may be allocated (for GPU memory, the
 * context current).  Every allocation sized from caps or properties goes
 * through it, pools and pinned staging included; the scratch above is
 * checked in the ensure functions (the element's scratch of that kind
 * counted together). */
gboolean gst_robocache_gpu_check_memory (GstRobocacheGpu * gpu,
    GstElement * element, GstRobocacheMemoryKind kind, guint64 bytes,
    const gchar * what, const gchar * sized_by);

/* What went wrong in a failed GPU call of @status: the CUDA error's name
 * and text ("cudaErrorMemoryAllocation: out of memory") where the status
 * came from CUDA, else the status's text.  Valid until the thread's next
 * CUDA call. */
const gchar *gst_robocache_gpu_status_text (rc_status status);

/* Posts the error of a failed GPU step @what on @element naming the CUDA
 * error, and returns GST_FLOW_ERROR. */
GstFlowReturn gst_robocache_gpu_failed (GstElement * element,
    const gchar * what, rc_status status);

/* The allocator type name of robocache CUDA memory. */
#define GST_ROBOCACHE_CUDA_MEMORY_TYPE "robocache.cuda.memory"
/* ... and of robocache's page-locked system memory. */
#define GST_ROBOCACHE_PINNED_MEMORY_TYPE "robocache.pinned.memory"

/* Maps @buf for a kernel on the GPU (the context current): in place when
 * it is one robocache CUDA memory of this context, else copied into
 * @scratch (grown as needed) on the element's stream: device to device
 * from robocache CUDA memory of another context, else from its system
 * memory.  *device is then the device pointer; unmap @map when the kernel
 * is queued and the stream synchronised.  FALSE, with an error naming
 * @what posted, when it can be neither. */
gboolean gst_robocache_gpu_map_input (GstRobocacheGpu * gpu,
    GstElement * element, GstBuffer * buf, GstMapInfo * map,
    GstRobocacheScratch * scratch, gconstpointer * device, const gchar * what);

/* Buffers in flight (the context current).  stage_input maps @buf and
 * gives its device pointer: in place when it is robocache CUDA memory of
 * this context, else copied on the upload stream into slot @slot's device
 * input (another context's robocache CUDA memory and page-locked memory
 * directly, pageable memory through the slot's page-locked staging), the
 * kernel stream made to wait for it.  Unmap
 * @map when the slot is done.  stage_output queues the download of @size
 * bytes from @device to @host after the kernels queued so far, and marks
 * the slot's end; slot_fence marks it after the kernels only (outputs on
 * the device).  slot_wait waits for that mark: the one buffer's work, not
 * the device's.  Each posts an error naming @what on failure. */
gboolean gst_robocache_gpu_stage_input (GstRobocacheGpu * gpu,
    GstElement * element, guint slot, GstBuffer * buf, GstMapInfo * map,
    gconstpointer * device, const gchar * what);
gboolean gst_robocache_gpu_stage_output (GstRobocacheGpu * gpu,
    GstElement * element, guint slot, gpointer host, gconstpointer device,
    gsize size, const gchar * what);
gboolean gst_robocache_gpu_slot_fence (GstRobocacheGpu * gpu,
    GstElement * element, guint slot);
gboolean gst_robocache_gpu_slot_wait (GstRobocacheGpu * gpu,
    GstElement * element, guint slot);

/* Makes a pool of GStreamer's own CUDA memory for the video caps of an
 * ALLOCATION query (pitched frames with a GstVideoMeta, as nvcodec's
 * cudadownload, encoders and converters take them) the only one in it,
 * active; on failure posts an error on @element and returns FALSE. */
gboolean gst_robocache_gpu_decide_video_pool (GstRobocacheGpu * gpu,
    GstElement * element, GstQuery * query);

G_END_DECLS
#endif
