/* robocacheresample's chunk path, shared by its two files: the chunk's
 * way through (gstrobocacheresamplechunk.c) and its steps on the GPU
 * (gstrobocacheresamplechunkgpu.c). */
#ifndef __GST_ROBOCACHE_RESAMPLE_CHUNK_H__
#define __GST_ROBOCACHE_RESAMPLE_CHUNK_H__

#include "gstrobocacheresampleprivate.h"

G_BEGIN_DECLS

/* A chunk from CUDA memory brings back each trajectory's first time and
 * its last TAIL_TIMES (what the cut and the samples kept read, unless the
 * trajectories end far apart), when its trajectories are more than twice
 * as long; otherwise all its times. */
#define TAIL_TIMES 256

/* One input chunk on its way through. */
typedef struct
{
  GstMapInfo map;
  gboolean discont;
  gboolean on_device;           /* its values stay in CUDA memory */
  guint batch;
  gsize n_in;                   /* samples per trajectory */
  guint64 n_accepted;           /* samples kept, counted as inputs */
  const gint64 *in_t;           /* on the host: the buffer's or read back */
  /* Read back from the device, at their places in in_t: all the times
   * (times_from 0), or each trajectory's first and those from times_from
   * on, the GPU having found them in order (order_checked). */
  gsize times_from;
  gboolean order_checked;
  const guint8 *in_v;           /* a device pointer when on_device */
  const guint8 *dev;            /* on_device: the chunk on the device */
  gint64 first, last;           /* buffer times, over every trajectory */
  GstClockTime rt_first, rt_last;
  /* The kernel's sources: the chunk, or with the samples kept from the
   * previous chunks in front (n_prev of them, n_source = n_prev + n_in),
   * on the device when on_device; span_first is then their earliest
   * time. */
  gsize n_prev;
  gsize n_source;
  gconstpointer src_t, src_v;
  gint64 span_first;
  /* Grid times before @cut are produced; the last n_keep sources of each
   * trajectory are kept for the later ones. */
  gint64 cut;
  gsize n_keep;
  guint64 k_a, k_b;             /* the grid times produced */
  gsize n_target;
} Chunk;

/* A chunk's steps on the GPU (gstrobocacheresamplechunkgpu.c). */
gboolean resample_chunk_download (GstRobocacheResample * self, gpointer host,
    gconstpointer device, gsize size);
gboolean resample_chunk_read_back_times (GstRobocacheResample * self,
    Chunk * c, gboolean all);
gboolean resample_chunk_ensure_all_times (GstRobocacheResample * self,
    Chunk * c);
gboolean resample_chunk_stage_on_device (GstRobocacheResample * self,
    Chunk * c, gboolean extend);
gboolean resample_chunk_previous_on_host (GstRobocacheResample * self,
    guint batch);
GstFlowReturn resample_chunk_compute_on_device (GstRobocacheResample * self,
    const Chunk * c, const gint64 * row, GstBuffer * out);

G_END_DECLS
#endif
