/* The part of the GPU layer that is the same with and without CUDA. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstrobocachegpu.h"
#include "gstrobocachecaps.h"
#include "gstrobocachefields.h"

#include <string.h>

GST_DEBUG_CATEGORY (gst_robocache_gpu_debug);

/* Whole GEnumValues, not G_DEFINE_ENUM_VALUE (), which would name each
 * value after its C identifier: the names are what gst-inspect shows. */
/* *INDENT-OFF* */
G_DEFINE_ENUM_TYPE (GstRobocacheBackend, gst_robocache_backend,
    {GST_ROBOCACHE_BACKEND_AUTO, "The GPU when there is one, else the CPU",
        "auto"},
    {GST_ROBOCACHE_BACKEND_CPU, "Always the CPU", "cpu"},
    {GST_ROBOCACHE_BACKEND_GPU, "Always the GPU (an error without one)",
        "gpu"});
/* *INDENT-ON* */

/* A scratch the element grew, and which memory it is. */
typedef struct
{
  GstRobocacheScratch *scratch;
  GstRobocacheMemoryKind kind;
} ScratchEntry;

static rc_status
system_alloc (void **ptr, size_t size)
{
  *ptr = g_try_malloc (size);
  return *ptr ? RC_OK : RC_ERROR_OUT_OF_MEMORY;
}

static rc_status
system_free (void *ptr)
{
  g_free (ptr);
  return RC_OK;
}

/* How each kind of scratch is allocated and freed, and its name in
 * errors, by GstRobocacheMemoryKind. */
static const struct
{
  rc_status (*alloc) (void **ptr, size_t size);
  rc_status (*release) (void *ptr);
  const gchar *name;
} memory_ops[] = {
  [GST_ROBOCACHE_MEMORY_HOST] = {system_alloc, system_free, "system memory"},
  [GST_ROBOCACHE_MEMORY_PINNED] = {rc_host_alloc, rc_host_free,
      "page-locked memory"},
  [GST_ROBOCACHE_MEMORY_DEVICE] = {rc_device_alloc, rc_device_free,
      "GPU memory"},
};

void
gst_robocache_gpu_init (GstRobocacheGpu * gpu)
{
  memset (gpu, 0, sizeof (*gpu));
  gpu->backend = GST_ROBOCACHE_DEFAULT_BACKEND;
  gpu->device_id = GST_ROBOCACHE_DEFAULT_DEVICE_ID;
  gpu->max_pinned = GST_ROBOCACHE_DEFAULT_MAX_PINNED_MEMORY;
  gpu->max_memory = GST_ROBOCACHE_DEFAULT_MAX_MEMORY;
  gpu->scratch = g_array_new (FALSE, FALSE, sizeof (ScratchEntry));
}

void
gst_robocache_gpu_finalize (GstRobocacheGpu * gpu)
{
  gst_robocache_gpu_close (gpu);
  g_clear_pointer (&gpu->scratch, g_array_unref);
}

/* The element's scratch of @kind once @scratch is @size bytes. */
static guint64
scratch_total (GstRobocacheGpu * gpu, GstRobocacheScratch * scratch,
    gsize size, GstRobocacheMemoryKind kind)
{
  guint64 total = size;

  for (guint i = 0; i < gpu->scratch->len; i++) {
    ScratchEntry *e = &g_array_index (gpu->scratch, ScratchEntry, i);

    if (e->kind == kind && e->scratch != scratch)
      total += e->scratch->size;
  }
  return total;
}

gboolean
gst_robocache_gpu_check_memory (GstRobocacheGpu * gpu, GstElement * element,
    GstRobocacheMemoryKind kind, guint64 bytes, const gchar * what,
    const gchar * sized_by)
{
  guint64 max_memory;

  GST_OBJECT_LOCK (element);
  max_memory = gpu->max_memory;
  GST_OBJECT_UNLOCK (element);
  return gst_robocache_memory_check (element, max_memory, kind, bytes, what,
      sized_by);
}

/* Grows @scratch to at least @size bytes of @kind memory, checked with
 * the element's other scratch of that kind and @beside (what else of it
 * the caller holds).  A scratch seen for the first time is remembered, so
 * that stop frees it. */
static gboolean
ensure_memory (GstRobocacheGpu * gpu, GstElement * element,
    GstRobocacheScratch * scratch, gsize size, GstRobocacheMemoryKind kind,
    guint64 beside, const gchar * what, const gchar * sized_by)
{
  guint64 total;
  rc_status ret;
  guint i;

  if (scratch->ptr && scratch->size >= size)
    return TRUE;
  /* @beside may be G_MAXUINT64 already (gst_robocache_memory_mul). */
  if (!g_uint64_checked_add (&total, scratch_total (gpu, scratch, size, kind),
          beside))
    total = G_MAXUINT64;
  if (!gst_robocache_gpu_check_memory (gpu, element, kind, total, what,
          sized_by))
    return FALSE;
  for (i = 0; i < gpu->scratch->len; i++)
    if (g_array_index (gpu->scratch, ScratchEntry, i).scratch == scratch)
      break;
  if (i == gpu->scratch->len) {
    ScratchEntry entry = { scratch, kind };
    g_array_append_val (gpu->scratch, entry);
  }
  memory_ops[kind].release (scratch->ptr);
  scratch->ptr = NULL;
  scratch->size = 0;
  size = MAX (size, 1);
  ret = memory_ops[kind].alloc (&scratch->ptr, size);
  if (ret != RC_OK) {
    scratch->ptr = NULL;
    GST_ELEMENT_ERROR (element, RESOURCE, NO_SPACE_LEFT,
        ("cannot allocate %" G_GSIZE_FORMAT " bytes of %s for the %s: %s",
            size, memory_ops[kind].name, what,
            kind == GST_ROBOCACHE_MEMORY_HOST ? rc_status_message (ret) :
            gst_robocache_gpu_status_text (ret)), ("%s",
            rc_status_message (ret)));
    return FALSE;
  }
  scratch->size = size;
  return TRUE;
}

#define SIZED_BY_CAPS "the sizes its caps and properties give"

gboolean
gst_robocache_gpu_ensure_device (GstRobocacheGpu * gpu, GstElement * element,
    GstRobocacheScratch * scratch, gsize size, const gchar * what)
{
  return ensure_memory (gpu, element, scratch, size,
      GST_ROBOCACHE_MEMORY_DEVICE, 0, what, SIZED_BY_CAPS);
}

gboolean
gst_robocache_gpu_ensure_pinned (GstRobocacheGpu * gpu, GstElement * element,
    GstRobocacheScratch * scratch, gsize size, const gchar * what)
{
  return ensure_memory (gpu, element, scratch, size,
      GST_ROBOCACHE_MEMORY_PINNED, 0, what, SIZED_BY_CAPS);
}

gboolean
gst_robocache_gpu_ensure_host (GstRobocacheGpu * gpu, GstElement * element,
    GstRobocacheScratch * scratch, gsize size, guint64 beside,
    const gchar * what, const gchar * sized_by)
{
  return ensure_memory (gpu, element, scratch, size,
      GST_ROBOCACHE_MEMORY_HOST, beside, what, sized_by);
}

/* Frees every scratch the element grew: system memory always, GPU and
 * page-locked memory with @gpu_memory (the context current), else only
 * forgotten (the context is gone, and with it that memory).  Either way
 * each scratch is left empty, so that a later start allocates afresh. */
static void
free_scratch (GstRobocacheGpu * gpu, gboolean gpu_memory)
{
  for (guint i = 0; i < gpu->scratch->len; i++) {
    ScratchEntry *e = &g_array_index (gpu->scratch, ScratchEntry, i);

    if (gpu_memory || e->kind == GST_ROBOCACHE_MEMORY_HOST)
      memory_ops[e->kind].release (e->scratch->ptr);
    e->scratch->ptr = NULL;
    e->scratch->size = 0;
  }
  g_array_set_size (gpu->scratch, 0);
}

/* Whether any scratch is GPU or page-locked memory, which needs the
 * context to be freed. */
static gboolean
holds_gpu_scratch (GstRobocacheGpu * gpu)
{
  for (guint i = 0; i < gpu->scratch->len; i++)
    if (g_array_index (gpu->scratch, ScratchEntry, i).kind !=
        GST_ROBOCACHE_MEMORY_HOST)
      return TRUE;
  return FALSE;
}

const gchar *
gst_robocache_gpu_status_text (rc_status status)
{
  gboolean cuda = status == RC_ERROR_CUDA || status == RC_ERROR_OUT_OF_MEMORY
      || status == RC_ERROR_NO_DEVICE || status == RC_ERROR_UNSUPPORTED_DEVICE;

  return cuda && *rc_error_detail ()? rc_error_detail () :
      rc_status_message (status);
}

GstFlowReturn
gst_robocache_gpu_failed (GstElement * element, const gchar * what,
    rc_status status)
{
  GST_ELEMENT_ERROR (element, STREAM, FAILED, ("%s failed: %s", what,
          gst_robocache_gpu_status_text (status)), ("%s",
          rc_status_message (status)));
  return GST_FLOW_ERROR;
}

void
gst_robocache_gpu_install_properties (GObjectClass * klass, guint first_id)
{
  /* backend: auto computes on the GPU when there is one and on the CPU
   * otherwise, with the same results; cpu never touches CUDA; gpu is an
   * error without a usable GPU. */
  g_object_class_install_property (klass, first_id,
      g_param_spec_enum ("backend", "Backend",
          "Where to compute: auto (the GPU when there is one), cpu or gpu",
          GST_TYPE_ROBOCACHE_BACKEND, GST_ROBOCACHE_DEFAULT_BACKEND,
          G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
          GST_PARAM_MUTABLE_READY));
  /* cuda-device-id: the CUDA device, -1 for any (the pipeline's shared
   * context decides); an id the machine does not have is an error at start
   * (unless backend=cpu), never a silent move to another device. */
  g_object_class_install_property (klass, first_id + 1,
      g_param_spec_int ("cuda-device-id", "CUDA device id",
          "CUDA device to use (-1 = any)", -1, G_MAXINT,
          GST_ROBOCACHE_DEFAULT_DEVICE_ID, G_PARAM_READWRITE |
          G_PARAM_STATIC_STRINGS | GST_PARAM_MUTABLE_READY));
  /* max-pinned-memory: page-locked system memory the element may hold at
   * once, for the buffers it offers upstream, its outputs in system memory
   * and its staging.  Page-locked memory cannot be swapped out, so it is
   * bounded; past the limit buffers come from plain system memory (a
   * warning, copied at the slower pageable rate).  Freed at stop. */
  g_object_class_install_property (klass, first_id + 2,
      g_param_spec_uint64 ("max-pinned-memory", "Max pinned memory",
          "Bytes of page-locked system memory the element may hold (buffers "
          "offered upstream, outputs in system memory, staging)", 0,
          G_MAXUINT64, GST_ROBOCACHE_DEFAULT_MAX_PINNED_MEMORY,
          G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
          GST_PARAM_MUTABLE_READY));
  gst_robocache_memory_install_property (klass, first_id + 3);
}

gboolean
gst_robocache_gpu_set_property (GstRobocacheGpu * gpu, GstElement * element,
    guint first_id, guint prop_id, const GValue * value)
{
  if (prop_id < first_id
      || prop_id >= first_id + GST_ROBOCACHE_GPU_N_PROPERTIES)
    return FALSE;
  GST_OBJECT_LOCK (element);
  if (prop_id == first_id)
    gpu->backend = (GstRobocacheBackend) g_value_get_enum (value);
  else if (prop_id == first_id + 1)
    gpu->device_id = g_value_get_int (value);
  else if (prop_id == first_id + 2)
    gpu->max_pinned = g_value_get_uint64 (value);
  else
    gpu->max_memory = g_value_get_uint64 (value);
  GST_OBJECT_UNLOCK (element);
  return TRUE;
}

gboolean
gst_robocache_gpu_get_property (GstRobocacheGpu * gpu, GstElement * element,
    guint first_id, guint prop_id, GValue * value)
{
  if (prop_id < first_id
      || prop_id >= first_id + GST_ROBOCACHE_GPU_N_PROPERTIES)
    return FALSE;
  GST_OBJECT_LOCK (element);
  if (prop_id == first_id)
    g_value_set_enum (value, gpu->backend);
  else if (prop_id == first_id + 1)
    g_value_set_int (value, gpu->device_id);
  else if (prop_id == first_id + 2)
    g_value_set_uint64 (value, gpu->max_pinned);
  else
    g_value_set_uint64 (value, gpu->max_memory);
  GST_OBJECT_UNLOCK (element);
  return TRUE;
}

gboolean
gst_robocache_gpu_start (GstRobocacheGpu * gpu, GstElement * element)
{
  GstRobocacheBackend backend;
  gint device_id;
  gboolean use_gpu;

  GST_OBJECT_LOCK (element);
  backend = gpu->backend;
  device_id = gpu->device_id;
  GST_OBJECT_UNLOCK (element);

  if (!gst_robocache_gpu_open (gpu, element, backend, device_id, &use_gpu))
    return FALSE;
  GST_OBJECT_LOCK (element);
  gpu->use_gpu = use_gpu;
  gpu->started = TRUE;
  GST_OBJECT_UNLOCK (element);
  return TRUE;
}

void
gst_robocache_gpu_stop (GstRobocacheGpu * gpu, GstElement * element)
{
  gboolean pushed = FALSE;

  if (holds_gpu_scratch (gpu)) {
    pushed = gst_robocache_gpu_push (gpu);
    if (!pushed)
      GST_CAT_ERROR_OBJECT (gst_robocache_gpu_debug, element,
          "cannot free GPU scratch: the CUDA context cannot be made current");
  }
  free_scratch (gpu, pushed);
  if (pushed)
    gst_robocache_gpu_pop (gpu);
  gst_robocache_gpu_close (gpu);
  GST_OBJECT_LOCK (element);
  gpu->use_gpu = FALSE;
  gpu->started = FALSE;
  GST_OBJECT_UNLOCK (element);
}

gboolean
gst_robocache_gpu_started (GstRobocacheGpu * gpu, GstElement * element)
{
  gboolean started;

  gst_robocache_fields_read_locked (element, &gpu->started, &started,
      sizeof (started));
  return started;
}

gboolean
gst_robocache_gpu_may_offer_cuda (GstRobocacheGpu * gpu, GstElement * element)
{
  GstRobocacheBackend backend;
  gboolean started, use_gpu;

  GST_OBJECT_LOCK (element);
  backend = gpu->backend;
  started = gpu->started;
  use_gpu = gpu->use_gpu;
  GST_OBJECT_UNLOCK (element);
  if (started)
    return use_gpu;
  return backend != GST_ROBOCACHE_BACKEND_CPU &&
      gst_robocache_gpu_usable (NULL);
}

void
gst_robocache_gpu_propose_allocator (GstRobocacheGpu * gpu, GstQuery * query)
{
  GstCaps *caps;

  gst_query_parse_allocation (query, &caps, NULL);
  if (!caps || !gpu->use_gpu)
    return;
  if (gst_robocache_caps_is_cuda (caps))
    gst_query_add_allocation_param (query, gpu->allocator, NULL);
  else if (gpu->pinned)
    gst_query_add_allocation_param (query, gpu->pinned, NULL);
}

/* Leaves no pool in an ALLOCATION query and @allocator first: the output
 * buffers are allocated from it one by one. */
static void
allocate_one_by_one (GstQuery * query, GstAllocator * allocator)
{
  while (gst_query_get_n_allocation_pools (query) > 0)
    gst_query_remove_nth_allocation_pool (query, 0);
  if (gst_query_get_n_allocation_params (query) > 0)
    gst_query_set_nth_allocation_param (query, 0, allocator, NULL);
  else
    gst_query_add_allocation_param (query, allocator, NULL);
}

void
gst_robocache_gpu_decide_host_allocator (GstRobocacheGpu * gpu,
    GstQuery * query)
{
  if (gpu->use_gpu && gpu->pinned)
    allocate_one_by_one (query, gpu->pinned);
}

/* A pool's buffers in flight, in GPU memory (the context current for the
 * check; if it cannot be made current, making the pool fails and says
 * so). */
static gboolean
check_pool_memory (GstRobocacheGpu * gpu, GstElement * element, gsize size,
    const gchar * what)
{
  gchar *in_flight;
  gboolean ok;

  if (!gst_robocache_gpu_push (gpu))
    return TRUE;
  in_flight = g_strdup_printf ("%d buffers of %s in flight",
      GST_ROBOCACHE_BUFFERS_IN_FLIGHT, what);
  ok = gst_robocache_gpu_check_memory (gpu, element,
      GST_ROBOCACHE_MEMORY_DEVICE, (guint64) size *
      GST_ROBOCACHE_BUFFERS_IN_FLIGHT, in_flight, "the buffers (the caps)");
  gst_robocache_gpu_pop (gpu);
  g_free (in_flight);
  return ok;
}

GstBufferPool *
gst_robocache_gpu_make_pool (GstRobocacheGpu * gpu, GstElement * element,
    GstCaps * caps, gsize size, const gchar * what)
{
  GstBufferPool *pool;

  if (!check_pool_memory (gpu, element, size, what))
    return NULL;
  pool = gst_robocache_gpu_pool_new (gpu, caps, size);
  if (!pool || !gst_buffer_pool_set_active (pool, TRUE)) {
    GST_ELEMENT_ERROR (element, RESOURCE, NO_SPACE_LEFT,
        ("cannot allocate %s of %" G_GSIZE_FORMAT " bytes in GPU memory",
            what, size), (NULL));
    if (pool)
      gst_object_unref (pool);
    return NULL;
  }
  return pool;
}

gboolean
gst_robocache_gpu_decide_pool (GstRobocacheGpu * gpu, GstElement * element,
    GstQuery * query, gsize size, const gchar * what)
{
  GstBufferPool *pool;
  GstCaps *caps;

  /* GstBufferPool counts a buffer's size in 32 bits (a pool of 8 GiB grids
   * would hand out empty buffers): larger outputs come straight from the
   * allocator, an allocation each. */
  if (size > G_MAXUINT) {
    if (!check_pool_memory (gpu, element, size, what))
      return FALSE;
    GST_INFO_OBJECT (element, "%s of %" G_GSIZE_FORMAT " bytes: too large "
        "for a buffer pool, allocated one by one", what, size);
    allocate_one_by_one (query, gpu->allocator);
    return TRUE;
  }
  gst_query_parse_allocation (query, &caps, NULL);
  pool = gst_robocache_gpu_make_pool (gpu, element, caps, size, what);
  if (!pool)
    return FALSE;
  while (gst_query_get_n_allocation_pools (query) > 0)
    gst_query_remove_nth_allocation_pool (query, 0);
  gst_query_add_allocation_pool (query, pool, size, 0, 0);
  gst_object_unref (pool);
  return TRUE;
}

/* Where a mapped input is. */
typedef enum
{
  INPUT_ON_HOST,                /* system memory (or CUDA memory read back) */
  INPUT_NATIVE,                 /* CUDA memory of this context: used in place */
  INPUT_ON_PEER                 /* robocache CUDA memory of another context */
} InputPlace;

/* Maps @buf for reading: its device pointer when it is robocache CUDA
 * memory (of this context or another), else its bytes in system memory;
 * *place says which. */
static gboolean
map_for_gpu (GstRobocacheGpu * gpu, GstElement * element, GstBuffer * buf,
    GstMapInfo * map, InputPlace * place, const gchar * what)
{
  GstMemory *mem = gst_buffer_n_memory (buf) == 1 ?
      gst_buffer_peek_memory (buf, 0) : NULL;

  *place = !mem ? INPUT_ON_HOST :
      gst_robocache_gpu_memory_is_native (gpu, mem) ? INPUT_NATIVE :
      gst_robocache_gpu_memory_is_peer (gpu, mem) ? INPUT_ON_PEER :
      INPUT_ON_HOST;
  if (!gst_buffer_map (buf, map, GST_MAP_READ |
          (*place != INPUT_ON_HOST ? GST_ROBOCACHE_MAP_CUDA : 0))) {
    GST_ELEMENT_ERROR (element, RESOURCE, FAILED, ("cannot map %s", what),
        (NULL));
    return FALSE;
  }
  return TRUE;
}

/* Posts the failure of the GPU step "@verb @what @where" and returns FALSE
 * when @ret is an error. */
static gboolean
step_ok (GstElement * element, rc_status ret, const gchar * verb,
    const gchar * what, const gchar * where)
{
  gchar *step;

  if (ret == RC_OK)
    return TRUE;
  step = g_strdup_printf ("%s %s%s%s", verb, what, *where ? " " : "", where);
  gst_robocache_gpu_failed (element, step, ret);
  g_free (step);
  return FALSE;
}

gboolean
gst_robocache_gpu_map_input (GstRobocacheGpu * gpu, GstElement * element,
    GstBuffer * buf, GstMapInfo * map, GstRobocacheScratch * scratch,
    gconstpointer * device, const gchar * what)
{
  InputPlace place;

  if (!map_for_gpu (gpu, element, buf, map, &place, what))
    return FALSE;
  *device = map->data;
  if (place == INPUT_NATIVE)
    return TRUE;
  if (!gst_robocache_gpu_ensure_device (gpu, element, scratch, map->size, what)
      || !step_ok (element, rc_device_copy_async (scratch->ptr, map->data,
              map->size, place == INPUT_ON_PEER ? RC_COPY_BETWEEN_DEVICES :
              RC_COPY_HOST_TO_DEVICE, gpu->stream), "copying", what,
          "to the GPU")) {
    gst_buffer_unmap (buf, map);
    return FALSE;
  }
  *device = scratch->ptr;
  return TRUE;
}

gboolean
gst_robocache_gpu_stage_input (GstRobocacheGpu * gpu, GstElement * element,
    guint slot, GstBuffer * buf, GstMapInfo * map, gconstpointer * device,
    const gchar * what)
{
  GstRobocacheGpuSlot *s = &gpu->slots[slot];
  InputPlace place;
  gboolean direct;
  gconstpointer src;

  if (!map_for_gpu (gpu, element, buf, map, &place, what))
    return FALSE;
  *device = map->data;
  if (place == INPUT_NATIVE)
    return TRUE;
  /* Pageable memory is copied by the driver through its own staging,
   * synchronously: through the slot's page-locked staging instead, the
   * upload itself is asynchronous and overlaps the kernels.  Page-locked
   * memory and another device's memory are copied directly. */
  direct = place == INPUT_ON_PEER || (gst_buffer_n_memory (buf) == 1 &&
      gst_robocache_is_pinned_memory (gst_buffer_peek_memory (buf, 0)));
  src = map->data;
  if (!gst_robocache_gpu_ensure_device (gpu, element, &s->device_in,
          map->size, what))
    goto failed;
  if (!direct) {
    if (!gst_robocache_gpu_ensure_pinned (gpu, element, &s->pinned_in,
            map->size, what))
      goto failed;
    memcpy (s->pinned_in.ptr, map->data, map->size);
    src = s->pinned_in.ptr;
  }
  if (!step_ok (element, rc_device_copy_async (s->device_in.ptr, src,
              map->size, place == INPUT_ON_PEER ? RC_COPY_BETWEEN_DEVICES :
              RC_COPY_HOST_TO_DEVICE, gpu->upload_stream),
          "copying", what, "to the GPU")
      || !step_ok (element, rc_event_record (s->uploaded, gpu->upload_stream),
          "ordering", what, "after its upload")
      || !step_ok (element, rc_stream_wait_event (gpu->stream, s->uploaded),
          "ordering", what, "after its upload"))
    goto failed;
  *device = s->device_in.ptr;
  return TRUE;

failed:
  gst_buffer_unmap (buf, map);
  return FALSE;
}

gboolean
gst_robocache_gpu_stage_output (GstRobocacheGpu * gpu, GstElement * element,
    guint slot, gpointer host, gconstpointer device, gsize size,
    const gchar * what)
{
  GstRobocacheGpuSlot *s = &gpu->slots[slot];

  return step_ok (element, rc_event_record (s->computed, gpu->stream),
      "ordering the download of", what, "")
      && step_ok (element, rc_stream_wait_event (gpu->download_stream,
          s->computed), "ordering the download of", what, "")
      && step_ok (element, rc_device_copy_async (host, device, size,
          RC_COPY_DEVICE_TO_HOST, gpu->download_stream), "copying", what,
      "from the GPU")
      && step_ok (element, rc_event_record (s->done, gpu->download_stream),
      "marking the end of", what, "");
}

gboolean
gst_robocache_gpu_slot_fence (GstRobocacheGpu * gpu, GstElement * element,
    guint slot)
{
  return step_ok (element, rc_event_record (gpu->slots[slot].done,
          gpu->stream), "marking the end of", "a buffer's kernels", "");
}

gboolean
gst_robocache_gpu_slot_wait (GstRobocacheGpu * gpu, GstElement * element,
    guint slot)
{
  rc_status ret;

  if (!gst_robocache_gpu_push (gpu)) {
    GST_ELEMENT_ERROR (element, RESOURCE, FAILED,
        ("cannot make the CUDA context current"), (NULL));
    return FALSE;
  }
  ret = rc_event_synchronize (gpu->slots[slot].done);
  gst_robocache_gpu_pop (gpu);
  return step_ok (element, ret, "waiting for", "a buffer's GPU work", "");
}
