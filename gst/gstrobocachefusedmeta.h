/* The fused frame: what robocachefuse outputs, and the C API consumers
 * (appsink users, the ROS bridge) use to read it.
 *
 * One buffer per output tick holds one GstMemory per input stream that had
 * data (the input's own memory, referenced, not copied: system or CUDA) and,
 * with flat output, one float32 memory with every vector stream
 * concatenated.  A GstRobocacheFusedMeta on the buffer names each stream
 * and says where its memory is and how old its data is. */
#ifndef __GST_ROBOCACHE_FUSED_META_H__
#define __GST_ROBOCACHE_FUSED_META_H__

#include <gst/gst.h>

G_BEGIN_DECLS

#define GST_ROBOCACHE_FUSED_MEDIA_TYPE "other/x-robocache-fused"
/* The template caps of robocachefuse's src pad.  Negotiated caps add
 * streams (string): the stream names in pad order (docs/media-types.md). */
#define GST_ROBOCACHE_FUSED_CAPS \
    GST_ROBOCACHE_FUSED_MEDIA_TYPE ", framerate = (fraction) [ 0/1, MAX ]"

typedef struct
{
  gchar *name;                  /* stream name (the pad's stream-name) */
  GstCaps *caps;                /* the stream's caps */
  /* PTS of the source buffer (interpolated: the nearer of the two), NONE
   * if none, and its running time - the tick's. */
  GstClockTime pts;
  GstClockTimeDiff offset;
  /* No data within the pad's max-age (interpolated: the farther of the
   * two samples blended beyond it). */
  gboolean stale;
  gboolean interpolated;        /* values computed at the tick */
  gint memory_index;            /* its memory in the buffer, -1 if none */
} GstRobocacheFusedStream;

typedef struct
{
  GstMeta meta;

  guint n_streams;
  GstRobocacheFusedStream *streams;
  /* Index of the flat float32 vector memory, -1 without flat output. */
  gint flat_memory_index;
  guint flat_channels;
} GstRobocacheFusedMeta;

GType gst_robocache_fused_meta_api_get_type (void);
#define GST_ROBOCACHE_FUSED_META_API_TYPE \
    (gst_robocache_fused_meta_api_get_type ())
const GstMetaInfo *gst_robocache_fused_meta_get_info (void);

/* The fused meta of @buffer, or NULL. */
GstRobocacheFusedMeta *gst_buffer_get_robocache_fused_meta (GstBuffer *
    buffer);

/* Adds an empty meta for @n_streams streams (filled by the caller). */
GstRobocacheFusedMeta *gst_buffer_add_robocache_fused_meta (GstBuffer *
    buffer, guint n_streams);

/* The stream called @name, or NULL. */
const GstRobocacheFusedStream *gst_robocache_fused_meta_find (const
    GstRobocacheFusedMeta * meta, const gchar * name);

/* Maps the memory of stream @name of @buffer.  With @device TRUE and the
 * memory in CUDA memory, info->data is the device pointer (GST_MAP_CUDA);
 * otherwise a host pointer (CUDA memory is downloaded).  FALSE when the
 * stream is unknown, stale with no memory, or cannot be mapped.  Unmap with
 * gst_memory_unmap (info->memory, info). */
gboolean gst_robocache_fused_map_stream (GstBuffer * buffer,
    const gchar * name, GstMapInfo * info, gboolean device);

/* Maps the flat float32 vector (read-only, host). */
gboolean gst_robocache_fused_map_flat (GstBuffer * buffer, GstMapInfo * info);

G_END_DECLS
#endif
