/* Memory bounded and explicit: every allocation an element sizes from its
 * caps or properties (grids and their scratch, resample chunks, fused
 * frames, pools, page-locked staging, device scratch) is checked here
 * before it is made, against the element's max-memory property and the
 * memory the process can actually have (host: its address-space and data
 * limits, its cgroup's memory.max and the system's MemAvailable; GPU: the
 * device's free memory).  A request above either is refused with
 * GST_ELEMENT_ERROR (RESOURCE, NO_SPACE_LEFT) saying how much was asked,
 * how much is allowed and which property to change, at negotiation rather
 * than as an out-of-memory kill of the whole process. */
#ifndef __GST_ROBOCACHE_MEMORY_H__
#define __GST_ROBOCACHE_MEMORY_H__

#include <gst/gst.h>

G_BEGIN_DECLS
/* The default of every element's max-memory: 1 GiB of each kind of
 * memory (host and GPU), far above what the demo's grids (8 MiB), fused
 * frames (2 MiB) or resample chunks need. */
#define GST_ROBOCACHE_DEFAULT_MAX_MEMORY (G_GUINT64_CONSTANT (1) << 30)
/* Buffers of one size an element may have alive at once, counted in its
 * memory: the one being written and a few held downstream (a queue, a
 * sink, a reader). */
#define GST_ROBOCACHE_BUFFERS_IN_FLIGHT 4
    typedef enum
{
  GST_ROBOCACHE_MEMORY_HOST,    /* system memory */
  GST_ROBOCACHE_MEMORY_PINNED,  /* page-locked host memory (CUDA) */
  GST_ROBOCACHE_MEMORY_DEVICE   /* GPU memory */
} GstRobocacheMemoryKind;

/* Installs "max-memory" (guint64 bytes, default
 * GST_ROBOCACHE_DEFAULT_MAX_MEMORY, 0 for no limit but what is available)
 * as @prop_id, changeable up to READY. */
void gst_robocache_memory_install_property (GObjectClass * klass,
    guint prop_id);

/* Checks that @bytes of @kind memory, for @what (e.g. "4 voxel grids in
 * flight and the counts"), fit under @max_memory (0: no limit of its own)
 * and in the memory available; for GPU memory the context must be current
 * on this thread.  Otherwise posts the error on @element, naming
 * @sized_by (what makes it smaller, e.g. "the grid (dims, mode,
 * features)"), and returns FALSE. */
gboolean gst_robocache_memory_check (GstElement * element,
    guint64 max_memory, GstRobocacheMemoryKind kind, guint64 bytes,
    const gchar * what, const gchar * sized_by);

/* @a x @b, G_MAXUINT64 when that overflows: sizes from caps multiplied
 * without wrapping round to something small. */
static inline guint64
gst_robocache_memory_mul (guint64 a, guint64 b)
{
  return b && a > G_MAXUINT64 / b ? G_MAXUINT64 : a * b;
}

/* The host memory the process can still have, and (static string) what
 * limits it: "MemAvailable in /proc/meminfo", "the cgroup's memory.max",
 * "RLIMIT_AS" or "RLIMIT_DATA".  G_MAXUINT64 and "nothing" when none can
 * be read. */
guint64 gst_robocache_memory_host_available (const gchar ** what_limits);

G_END_DECLS
#endif
