/* Page-locked system memory that robocache's GPU elements hand out: to
 * upstream in the ALLOCATION query (sources then write sweeps and chunks
 * straight into memory the GPU copies at full bus speed) and to themselves
 * for outputs in system memory (downloads at full speed, asynchronously).
 *
 * Page-locking is slow (cudaHostAlloc takes milliseconds for megabytes) and
 * scarce, so freed blocks are kept for the next allocation of a similar
 * size, and the bytes held are bounded: past the limit, allocations come
 * from plain system memory, counted, so that a pipeline never fails or
 * blocks for want of page-locked memory.  Closing (the element's stop)
 * frees the kept blocks; blocks still in buffers are freed when those
 * buffers are. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#define GST_USE_UNSTABLE_API
#include <gst/cuda/gstcudacontext.h>

#include "gstrobocachepinned.h"
#include "robocache-kernels.h"

#define GST_CAT_DEFAULT gst_robocache_gpu_debug

/* Blocks are made in multiples of this, so that sweeps of slightly
 * different sizes reuse each other's blocks. */
#define BLOCK_GRANULE (64 * 1024)
/* A kept block serves a request of at least half its size. */
#define MAX_WASTE_FACTOR 2

struct _GstRobocachePinnedAllocator
{
  GstAllocator parent;
  GstCudaContext *context;

  GMutex lock;
  guint64 limit;
  /* Page-locked bytes allocated from CUDA: in buffers and kept. */
  guint64 held;
  /* Blocks freed by their buffers, kept for reuse (Block *). */
  GQueue kept;
  gboolean closed;
  guint64 fallbacks;
  gboolean warned;
};

typedef struct
{
  gpointer data;
  gsize capacity;
} Block;

typedef struct
{
  GstMemory mem;
  /* NULL in a memory shared from another one, which owns the block. */
  Block *block;
  guint8 *data;
} PinnedMemory;

G_DEFINE_TYPE (GstRobocachePinnedAllocator, gst_robocache_pinned_allocator,
    GST_TYPE_ALLOCATOR);

static void
block_free (GstRobocachePinnedAllocator * self, Block * block)
{
  rc_status ret = RC_ERROR_CUDA;

  if (gst_cuda_context_push (self->context)) {
    ret = rc_host_free (block->data);
    gst_cuda_context_pop (NULL);
  }
  if (ret != RC_OK)
    GST_ERROR_OBJECT (self, "cannot free %" G_GSIZE_FORMAT " bytes of "
        "page-locked memory: %s", block->capacity, rc_error_detail ());
  self->held -= block->capacity;
  g_free (block);
}

/* A kept block of @capacity bytes or a little more, taken out of the kept
 * list; NULL when there is none. */
static Block *
take_kept (GstRobocachePinnedAllocator * self, gsize capacity)
{
  for (GList * l = self->kept.head; l; l = l->next) {
    Block *block = l->data;

    if (block->capacity >= capacity
        && block->capacity / MAX_WASTE_FACTOR <= capacity) {
      g_queue_delete_link (&self->kept, l);
      return block;
    }
  }
  return NULL;
}

/* A new block, after freeing kept ones (oldest first) until it fits the
 * limit; NULL when it cannot fit or CUDA refuses. */
static Block *
make_block (GstRobocachePinnedAllocator * self, gsize capacity)
{
  Block *block;
  gpointer data = NULL;
  rc_status ret = RC_ERROR_CUDA;

  while (self->held + capacity > self->limit && !g_queue_is_empty (&self->kept))
    block_free (self, g_queue_pop_head (&self->kept));
  if (self->held + capacity > self->limit)
    return NULL;
  if (gst_cuda_context_push (self->context)) {
    ret = rc_host_alloc (&data, capacity);
    gst_cuda_context_pop (NULL);
  }
  if (ret != RC_OK) {
    GST_WARNING_OBJECT (self, "cannot page-lock %" G_GSIZE_FORMAT " bytes: "
        "%s", capacity, rc_error_detail ());
    return NULL;
  }
  block = g_new (Block, 1);
  block->data = data;
  block->capacity = capacity;
  self->held += capacity;
  return block;
}

static PinnedMemory *
memory_wrap (GstRobocachePinnedAllocator * self, GstMemory * parent,
    Block * block, guint8 * data, gsize maxsize, gsize offset, gsize size)
{
  PinnedMemory *mem = g_new (PinnedMemory, 1);

  /* A share is read-only, as system memory's shares are. */
  gst_memory_init (GST_MEMORY_CAST (mem), parent ?
      GST_MINI_OBJECT_FLAG_LOCK_READONLY : 0, GST_ALLOCATOR_CAST (self),
      parent, maxsize, 0, offset, size);
  mem->block = block;
  mem->data = data;
  return mem;
}

static GstMemory *
allocator_alloc (GstAllocator * allocator, gsize size,
    GstAllocationParams * params)
{
  GstRobocachePinnedAllocator *self = GST_ROBOCACHE_PINNED_ALLOCATOR
      (allocator);
  gsize maxsize = size + params->prefix + params->padding;
  gsize capacity = (MAX (maxsize, 1) + BLOCK_GRANULE - 1) / BLOCK_GRANULE *
      BLOCK_GRANULE;
  Block *block = NULL;
  gboolean warn = FALSE;

  /* Blocks are page-aligned, which covers any alignment asked for. */
  g_mutex_lock (&self->lock);
  if (!self->closed && capacity >= maxsize) {
    block = take_kept (self, capacity);
    if (!block)
      block = make_block (self, capacity);
  }
  if (!block) {
    self->fallbacks++;
    warn = !self->warned;
    self->warned = TRUE;
  }
  g_mutex_unlock (&self->lock);

  if (!block) {
    if (warn)
      GST_WARNING_OBJECT (self, "page-locked memory limit of %"
          G_GUINT64_FORMAT " bytes reached (or page-locking failed): "
          "%" G_GSIZE_FORMAT "-byte buffers come from plain system memory, "
          "copied more slowly; raise max-pinned-memory to avoid it",
          self->limit, size);
    return gst_allocator_alloc (NULL, size, params);
  }
  return GST_MEMORY_CAST (memory_wrap (self, NULL, block, block->data,
          maxsize, params->prefix, size));
}

static void
allocator_free (GstAllocator * allocator, GstMemory * memory)
{
  GstRobocachePinnedAllocator *self = GST_ROBOCACHE_PINNED_ALLOCATOR
      (allocator);
  PinnedMemory *mem = (PinnedMemory *) memory;

  if (mem->block) {
    g_mutex_lock (&self->lock);
    if (self->closed)
      block_free (self, mem->block);
    else
      g_queue_push_tail (&self->kept, mem->block);
    g_mutex_unlock (&self->lock);
  }
  g_free (mem);
}

static gpointer
memory_map (GstMemory * memory, gsize maxsize, GstMapFlags flags)
{
  return ((PinnedMemory *) memory)->data;
}

static void
memory_unmap (GstMemory * memory)
{
}

static GstMemory *
memory_share (GstMemory * memory, gssize offset, gssize size)
{
  PinnedMemory *mem = (PinnedMemory *) memory;
  GstMemory *parent = memory->parent ? memory->parent : memory;

  if (size == -1)
    size = memory->size - offset;
  return GST_MEMORY_CAST (memory_wrap (GST_ROBOCACHE_PINNED_ALLOCATOR
          (memory->allocator), parent, NULL, mem->data, memory->maxsize,
          memory->offset + offset, size));
}

static void
gst_robocache_pinned_allocator_finalize (GObject * object)
{
  GstRobocachePinnedAllocator *self = GST_ROBOCACHE_PINNED_ALLOCATOR (object);

  gst_robocache_pinned_allocator_close (GST_ALLOCATOR_CAST (self));
  gst_clear_object (&self->context);
  g_mutex_clear (&self->lock);
  G_OBJECT_CLASS (gst_robocache_pinned_allocator_parent_class)->finalize
      (object);
}

static void
gst_robocache_pinned_allocator_class_init (GstRobocachePinnedAllocatorClass *
    klass)
{
  G_OBJECT_CLASS (klass)->finalize = gst_robocache_pinned_allocator_finalize;
  GST_ALLOCATOR_CLASS (klass)->alloc = allocator_alloc;
  GST_ALLOCATOR_CLASS (klass)->free = allocator_free;
}

static void
gst_robocache_pinned_allocator_init (GstRobocachePinnedAllocator * self)
{
  GstAllocator *allocator = GST_ALLOCATOR_CAST (self);

  allocator->mem_type = GST_ROBOCACHE_PINNED_MEMORY_TYPE;
  allocator->mem_map = memory_map;
  allocator->mem_unmap = memory_unmap;
  allocator->mem_share = memory_share;
  g_mutex_init (&self->lock);
  g_queue_init (&self->kept);
}

GstAllocator *
gst_robocache_pinned_allocator_new (GstObject * context, guint64 limit)
{
  GstRobocachePinnedAllocator *self =
      g_object_new (GST_TYPE_ROBOCACHE_PINNED_ALLOCATOR, NULL);

  gst_object_ref_sink (self);
  self->context = GST_CUDA_CONTEXT (gst_object_ref (context));
  self->limit = limit;
  return GST_ALLOCATOR_CAST (self);
}

void
gst_robocache_pinned_allocator_close (GstAllocator * allocator)
{
  GstRobocachePinnedAllocator *self = GST_ROBOCACHE_PINNED_ALLOCATOR
      (allocator);

  g_mutex_lock (&self->lock);
  self->closed = TRUE;
  while (!g_queue_is_empty (&self->kept))
    block_free (self, g_queue_pop_head (&self->kept));
  g_mutex_unlock (&self->lock);
}

void
gst_robocache_pinned_allocator_get_usage (GstAllocator * allocator,
    guint64 * held, guint64 * fallbacks)
{
  GstRobocachePinnedAllocator *self = GST_ROBOCACHE_PINNED_ALLOCATOR
      (allocator);

  g_mutex_lock (&self->lock);
  *held = self->held;
  *fallbacks = self->fallbacks;
  g_mutex_unlock (&self->lock);
}

gboolean
gst_robocache_is_pinned_memory (GstMemory * mem)
{
  return mem && GST_IS_ROBOCACHE_PINNED_ALLOCATOR (mem->allocator);
}
