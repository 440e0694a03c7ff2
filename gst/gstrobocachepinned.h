/* Page-locked system memory for robocache's GPU elements, bounded and
 * reused (gstrobocachepinned.c); built with the CUDA path only. */
#ifndef __GST_ROBOCACHE_PINNED_H__
#define __GST_ROBOCACHE_PINNED_H__

#include "gstrobocachegpu.h"

G_BEGIN_DECLS
#define GST_TYPE_ROBOCACHE_PINNED_ALLOCATOR \
    (gst_robocache_pinned_allocator_get_type ())
G_DECLARE_FINAL_TYPE (GstRobocachePinnedAllocator,
    gst_robocache_pinned_allocator, GST, ROBOCACHE_PINNED_ALLOCATOR,
    GstAllocator);

/* An allocator of page-locked memory on @context (a GstCudaContext)
 * holding at most @limit bytes at once; beyond that it gives plain system
 * memory. */
GstAllocator *gst_robocache_pinned_allocator_new (GstObject * context,
    guint64 limit);

/* Frees the kept blocks; blocks still in buffers are freed with them. */
void gst_robocache_pinned_allocator_close (GstAllocator * allocator);

/* The page-locked bytes held (in buffers and kept), and how many
 * allocations were served from plain system memory instead. */
void gst_robocache_pinned_allocator_get_usage (GstAllocator * allocator,
    guint64 * held, guint64 * fallbacks);

G_END_DECLS
#endif
