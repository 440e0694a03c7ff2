/* The fused-frame meta and its reading API (gstrobocachefusedmeta.h). */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstrobocachefusedmeta.h"

/* The value of GStreamer's GST_MAP_CUDA, without the CUDA headers. */
#define MAP_CUDA (GST_MAP_FLAG_LAST << 1)

static void
clear_streams (GstRobocacheFusedMeta * meta)
{
  for (guint i = 0; i < meta->n_streams; i++) {
    g_free (meta->streams[i].name);
    gst_clear_caps (&meta->streams[i].caps);
  }
  g_free (meta->streams);
  meta->streams = NULL;
  meta->n_streams = 0;
}

static gboolean
fused_meta_init (GstMeta * meta, gpointer params, GstBuffer * buffer)
{
  GstRobocacheFusedMeta *m = (GstRobocacheFusedMeta *) meta;

  m->n_streams = 0;
  m->streams = NULL;
  m->flat_memory_index = -1;
  m->flat_channels = 0;
  return TRUE;
}

static void
fused_meta_free (GstMeta * meta, GstBuffer * buffer)
{
  clear_streams ((GstRobocacheFusedMeta *) meta);
}

static gboolean
fused_meta_transform (GstBuffer * dest, GstMeta * meta, GstBuffer * src,
    GQuark type, gpointer data)
{
  GstRobocacheFusedMeta *from = (GstRobocacheFusedMeta *) meta, *to;

  /* Memory indices only hold for a whole copy of the buffer. */
  if (!GST_META_TRANSFORM_IS_COPY (type))
    return FALSE;
  if (((GstMetaTransformCopy *) data)->region)
    return FALSE;
  to = gst_buffer_add_robocache_fused_meta (dest, from->n_streams);
  for (guint i = 0; i < from->n_streams; i++) {
    to->streams[i] = from->streams[i];
    to->streams[i].name = g_strdup (from->streams[i].name);
    to->streams[i].caps = from->streams[i].caps ?
        gst_caps_ref (from->streams[i].caps) : NULL;
  }
  to->flat_memory_index = from->flat_memory_index;
  to->flat_channels = from->flat_channels;
  return TRUE;
}

GType
gst_robocache_fused_meta_api_get_type (void)
{
  static GType type = 0;
  static const gchar *tags[] = { NULL };

  if (g_once_init_enter (&type)) {
    GType t = gst_meta_api_type_register ("GstRobocacheFusedMetaAPI", tags);
    g_once_init_leave (&type, t);
  }
  return type;
}

const GstMetaInfo *
gst_robocache_fused_meta_get_info (void)
{
  static const GstMetaInfo *info = NULL;

  if (g_once_init_enter ((GstMetaInfo **) & info)) {
    const GstMetaInfo *i =
        gst_meta_register (GST_ROBOCACHE_FUSED_META_API_TYPE,
        "GstRobocacheFusedMeta", sizeof (GstRobocacheFusedMeta),
        fused_meta_init, fused_meta_free, fused_meta_transform);
    g_once_init_leave ((GstMetaInfo **) & info, (GstMetaInfo *) i);
  }
  return info;
}

GstRobocacheFusedMeta *
gst_buffer_get_robocache_fused_meta (GstBuffer * buffer)
{
  return (GstRobocacheFusedMeta *) gst_buffer_get_meta (buffer,
      GST_ROBOCACHE_FUSED_META_API_TYPE);
}

GstRobocacheFusedMeta *
gst_buffer_add_robocache_fused_meta (GstBuffer * buffer, guint n_streams)
{
  GstRobocacheFusedMeta *meta = (GstRobocacheFusedMeta *)
      gst_buffer_add_meta (buffer, gst_robocache_fused_meta_get_info (), NULL);

  meta->n_streams = n_streams;
  meta->streams = g_new0 (GstRobocacheFusedStream, n_streams);
  for (guint i = 0; i < n_streams; i++) {
    meta->streams[i].pts = GST_CLOCK_TIME_NONE;
    meta->streams[i].memory_index = -1;
  }
  return meta;
}

const GstRobocacheFusedStream *
gst_robocache_fused_meta_find (const GstRobocacheFusedMeta * meta,
    const gchar * name)
{
  for (guint i = 0; meta && i < meta->n_streams; i++) {
    if (g_strcmp0 (meta->streams[i].name, name) == 0)
      return &meta->streams[i];
  }
  return NULL;
}

static gboolean
map_memory (GstBuffer * buffer, gint index, GstMapInfo * info,
    GstMapFlags flags)
{
  GstMemory *mem;

  if (index < 0 || (guint) index >= gst_buffer_n_memory (buffer))
    return FALSE;
  mem = gst_buffer_peek_memory (buffer, index);
  return gst_memory_map (mem, info, flags);
}

gboolean
gst_robocache_fused_map_stream (GstBuffer * buffer, const gchar * name,
    GstMapInfo * info, gboolean device)
{
  const GstRobocacheFusedStream *stream =
      gst_robocache_fused_meta_find (gst_buffer_get_robocache_fused_meta
      (buffer), name);
  GstMapFlags flags = GST_MAP_READ;

  if (!stream)
    return FALSE;
  if (device) {
    GstMemory *mem = stream->memory_index >= 0 &&
        (guint) stream->memory_index < gst_buffer_n_memory (buffer) ?
        gst_buffer_peek_memory (buffer, stream->memory_index) : NULL;
    /* Only CUDA allocators understand the flag. */
    if (mem && mem->allocator && mem->allocator->mem_type &&
        (g_str_has_suffix (mem->allocator->mem_type, "cuda.memory")))
      flags |= MAP_CUDA;
  }
  return map_memory (buffer, stream->memory_index, info, flags);
}

gboolean
gst_robocache_fused_map_flat (GstBuffer * buffer, GstMapInfo * info)
{
  GstRobocacheFusedMeta *meta = gst_buffer_get_robocache_fused_meta (buffer);

  return meta && map_memory (buffer, meta->flat_memory_index, info,
      GST_MAP_READ);
}
