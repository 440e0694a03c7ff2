/* The embedding API declared in robocache.h. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "robocache.h"

#include <string.h>

#define NS_PER_S G_GINT64_CONSTANT (1000000000)

/* *INDENT-OFF* */
G_DEFINE_QUARK (robocache-error-quark, robocache_error);
/* *INDENT-ON* */

/* ---- PointCloud2 ----------------------------------------------------- */

static gboolean
name_ok (const gchar * name)
{
  return name && *name && !strchr (name, ',') && !strchr (name, ':');
}

GstCaps *
robocache_points_caps_from_pointcloud2 (guint point_step, guint n_fields,
    const gchar * const *names, const guint * offsets,
    const guint8 * datatypes, const guint * counts, GError ** error)
{
  GString *fields;
  GstCaps *caps;
  rc_point_layout layout;
  GError *perr = NULL;

  g_return_val_if_fail (n_fields == 0 || (names && offsets && datatypes), NULL);

  if (point_step == 0 || point_step > 65535) {
    g_set_error (error, ROBOCACHE_ERROR, ROBOCACHE_ERROR_INVALID,
        "point_step %u is outside 1..65535", point_step);
    return NULL;
  }
  fields = g_string_new (NULL);
  for (guint f = 0; f < n_fields; f++) {
    guint count = counts && counts[f] > 1 ? counts[f] : 1;
    rc_scalar_type type;
    gsize size;

    if (datatypes[f] < ROBOCACHE_POINT_INT8 ||
        datatypes[f] > ROBOCACHE_POINT_FLOAT64) {
      g_set_error (error, ROBOCACHE_ERROR, ROBOCACHE_ERROR_INVALID,
          "field \"%s\" has unknown PointField datatype %u (1..8 accepted)",
          GST_STR_NULL (names[f]), datatypes[f]);
      goto fail;
    }
    if (!name_ok (names[f])) {
      g_set_error (error, ROBOCACHE_ERROR, ROBOCACHE_ERROR_INVALID,
          "field name \"%s\" is empty or holds ',' or ':'",
          GST_STR_NULL (names[f]));
      goto fail;
    }
    /* PointField datatypes 1..8 are rc_scalar_type INT8..FLOAT64. */
    type = (rc_scalar_type) (datatypes[f] - 1);
    size = rc_scalar_type_size (type);
    if ((guint64) offsets[f] + (guint64) size * count > point_step) {
      g_set_error (error, ROBOCACHE_ERROR, ROBOCACHE_ERROR_INVALID,
          "field \"%s\" (offset %u, %u x %" G_GSIZE_FORMAT " bytes) does "
          "not fit in point_step %u", names[f], offsets[f], count, size,
          point_step);
      goto fail;
    }
    for (guint c = 0; c < count; c++) {
      if (fields->len)
        g_string_append_c (fields, ',');
      if (count == 1)
        g_string_append (fields, names[f]);
      else
        g_string_append_printf (fields, "%s_%u", names[f], c);
      g_string_append_printf (fields, ":%s:%" G_GSIZE_FORMAT,
          rc_scalar_type_to_string (type), offsets[f] + c * size);
    }
  }

  caps = gst_caps_new_simple (GST_ROBOCACHE_POINTS_MEDIA_TYPE,
      "point-step", G_TYPE_INT, (gint) point_step,
      "fields", G_TYPE_STRING, fields->str, NULL);
  g_string_free (fields, TRUE);
  /* The elements' own parser: x, y, z present and floating point. */
  if (!gst_robocache_points_caps_parse (caps, NULL, &layout, &perr)) {
    g_set_error_literal (error, ROBOCACHE_ERROR, ROBOCACHE_ERROR_INVALID,
        perr->message);
    g_error_free (perr);
    gst_caps_unref (caps);
    return NULL;
  }
  return caps;

fail:
  g_string_free (fields, TRUE);
  return NULL;
}

GstBuffer *
robocache_points_buffer_new (const guint8 * data, gsize size, GstClockTime pts)
{
  GstBuffer *buf;

  g_return_val_if_fail (data != NULL || size == 0, NULL);

  buf = size ? gst_buffer_new_memdup (data, size) : gst_buffer_new ();
  GST_BUFFER_PTS (buf) = pts;
  return buf;
}

GstBuffer *
robocache_points_buffer_new_rows (const guint8 * data, guint width,
    guint height, guint point_step, guint row_step, GstClockTime pts)
{
  gsize row = (gsize) width * point_step;
  GstBuffer *buf;
  GstMapInfo map;

  g_return_val_if_fail (data != NULL || row == 0 || height == 0, NULL);
  g_return_val_if_fail (row_step >= row, NULL);
  /* Empty rows need no data, which may then be NULL. */
  if (row_step == row || row == 0 || height == 0)
    return robocache_points_buffer_new (data, row * height, pts);

  buf = gst_buffer_new_allocate (NULL, row * height, NULL);
  gst_buffer_map (buf, &map, GST_MAP_WRITE);
  for (guint r = 0; r < height; r++)
    memcpy (map.data + r * row, data + (gsize) r * row_step, row);
  gst_buffer_unmap (buf, &map);
  GST_BUFFER_PTS (buf) = pts;
  return buf;
}

/* ---- JointState ------------------------------------------------------ */

GstCaps *
robocache_joints_caps_new (guint n_joints, const gchar * const *names,
    gboolean float64, GError ** error)
{
  GstRobocacheVectorsInfo info = { 0, };
  GString *joined = NULL;
  GstCaps *caps;

  if (n_joints == 0 || n_joints > 65535) {
    g_set_error (error, ROBOCACHE_ERROR, ROBOCACHE_ERROR_INVALID,
        "%u joints: 1..65535 accepted", n_joints);
    return NULL;
  }
  if (names) {
    joined = g_string_new (NULL);
    for (guint j = 0; j < n_joints; j++) {
      if (!names[j] || !*names[j] || strchr (names[j], ',')) {
        g_set_error (error, ROBOCACHE_ERROR, ROBOCACHE_ERROR_INVALID,
            "joint name \"%s\" is empty or holds ','", GST_STR_NULL (names[j]));
        g_string_free (joined, TRUE);
        return NULL;
      }
      g_string_append_printf (joined, "%s%s", j ? "," : "", names[j]);
    }
  }
  info.channels = n_joints;
  info.type = float64 ? RC_TYPE_FLOAT64 : RC_TYPE_FLOAT32;
  info.layout = GST_ROBOCACHE_VECTORS_LAYOUT_SAMPLE;
  info.batch = 1;
  caps = gst_robocache_vectors_caps_new (&info, joined ? joined->str : NULL,
      FALSE);
  if (joined)
    g_string_free (joined, TRUE);
  return caps;
}

GstBuffer *
robocache_joints_buffer_new (const gdouble * positions, guint n_joints,
    gboolean float64, GstClockTime pts)
{
  GstBuffer *buf;

  g_return_val_if_fail (positions != NULL && n_joints > 0, NULL);

  if (float64) {
    buf = gst_buffer_new_memdup (positions, n_joints * sizeof (gdouble));
  } else {
    gfloat *v = g_new (gfloat, n_joints);

    for (guint j = 0; j < n_joints; j++)
      v[j] = (gfloat) positions[j];
    buf = gst_buffer_new_wrapped (v, n_joints * sizeof (gfloat));
  }
  GST_BUFFER_PTS (buf) = pts;
  return buf;
}

/* ---- Image ------------------------------------------------------------ */

static const struct
{
  const gchar *encoding;
  GstVideoFormat format;
} image_encodings[] = {
  {"rgb8", GST_VIDEO_FORMAT_RGB},
  {"bgr8", GST_VIDEO_FORMAT_BGR},
  {"rgba8", GST_VIDEO_FORMAT_RGBA},
  {"bgra8", GST_VIDEO_FORMAT_BGRA},
  {"mono8", GST_VIDEO_FORMAT_GRAY8},
  {"8UC1", GST_VIDEO_FORMAT_GRAY8},
  {"mono16", GST_VIDEO_FORMAT_GRAY16_LE},
  {"16UC1", GST_VIDEO_FORMAT_GRAY16_LE},
};

gboolean
robocache_image_info_from_ros (const gchar * encoding, guint width,
    guint height, guint step, GstVideoInfo * info, GError ** error)
{
  GstVideoFormat format = GST_VIDEO_FORMAT_UNKNOWN;
  guint64 row64;
  guint sample;

  g_return_val_if_fail (info != NULL, FALSE);

  for (guint i = 0; i < G_N_ELEMENTS (image_encodings); i++) {
    if (g_strcmp0 (encoding, image_encodings[i].encoding) == 0)
      format = image_encodings[i].format;
  }
  if (format == GST_VIDEO_FORMAT_UNKNOWN) {
    /* Listed from the table, so that the message names every one. */
    GString *accepted = g_string_new (NULL);

    for (guint i = 0; i < G_N_ELEMENTS (image_encodings); i++)
      g_string_append_printf (accepted, "%s%s", i ? ", " : "",
          image_encodings[i].encoding);
    g_set_error (error, ROBOCACHE_ERROR, ROBOCACHE_ERROR_UNSUPPORTED,
        "image encoding \"%s\" is not supported; accepted: %s",
        GST_STR_NULL (encoding), accepted->str);
    g_string_free (accepted, TRUE);
    return FALSE;
  }
  if (width == 0 || height == 0 || width > G_MAXINT || height > G_MAXINT ||
      !gst_video_info_set_format (info, format, width, height)) {
    g_set_error (error, ROBOCACHE_ERROR, ROBOCACHE_ERROR_INVALID,
        "bad image size %ux%u", width, height);
    return FALSE;
  }
  /* The row in 64 bits: width x bytes per pixel may pass G_MAXUINT. */
  row64 = (guint64) width * GST_VIDEO_FORMAT_INFO_PSTRIDE (info->finfo, 0);
  sample = (GST_VIDEO_FORMAT_INFO_BITS (info->finfo) + 7) / 8;
  if (step < row64) {
    g_set_error (error, ROBOCACHE_ERROR, ROBOCACHE_ERROR_INVALID,
        "image step %u is below width x bytes per pixel (%" G_GUINT64_FORMAT
        ")", step, row64);
    return FALSE;
  }
  /* GStreamer's strides are gint. */
  if (step > G_MAXINT) {
    g_set_error (error, ROBOCACHE_ERROR, ROBOCACHE_ERROR_INVALID,
        "image step %u is above %d bytes, the largest row stride accepted",
        step, G_MAXINT);
    return FALSE;
  }
  /* A row of 16-bit samples starts on a sample: an array over the buffer
   * has its row stride in samples. */
  if (step % sample != 0) {
    g_set_error (error, ROBOCACHE_ERROR, ROBOCACHE_ERROR_INVALID,
        "image step %u of %s is not a multiple of its %u-byte samples",
        step, encoding, sample);
    return FALSE;
  }
  return TRUE;
}

GstCaps *
robocache_image_caps_from_ros (const gchar * encoding, guint width,
    guint height, guint step, GError ** error)
{
  GstVideoInfo info;

  if (!robocache_image_info_from_ros (encoding, width, height, step, &info,
          error))
    return NULL;
  return gst_video_info_to_caps (&info);
}

GstBuffer *
robocache_image_buffer_new (const GstVideoInfo * info, guint step,
    const guint8 * data, GstClockTime pts)
{
  GstBuffer *buf;

  g_return_val_if_fail (info != NULL && data != NULL, NULL);
  /* Steps robocache_image_info_from_ros refuses: a row longer than the
   * step, or a stride GStreamer's gint cannot hold. */
  g_return_val_if_fail (step >= (guint64) GST_VIDEO_INFO_WIDTH (info) *
      GST_VIDEO_INFO_COMP_PSTRIDE (info, 0) && step <= G_MAXINT, NULL);

  buf = gst_buffer_new_memdup (data, (gsize) step * GST_VIDEO_INFO_HEIGHT
      (info));
  if ((gint) step != GST_VIDEO_INFO_PLANE_STRIDE (info, 0)) {
    gsize offset[GST_VIDEO_MAX_PLANES] = { 0, };
    gint stride[GST_VIDEO_MAX_PLANES] = { (gint) step, };

    gst_buffer_add_video_meta_full (buf, GST_VIDEO_FRAME_FLAG_NONE,
        GST_VIDEO_INFO_FORMAT (info), GST_VIDEO_INFO_WIDTH (info),
        GST_VIDEO_INFO_HEIGHT (info), 1, offset, stride);
  }
  GST_BUFFER_PTS (buf) = pts;
  return buf;
}

/* ---- Voxel grids ------------------------------------------------------ */

gboolean
robocache_voxels_info_from_caps (const GstCaps * caps,
    RobocacheVoxelsInfo * info, GError ** error)
{
  rc_voxel_grid grid;
  guint n_features = 0;
  GError *perr = NULL;

  g_return_val_if_fail (info != NULL, FALSE);
  memset (info, 0, sizeof (*info));
  if (!gst_robocache_voxels_caps_parse (caps, &grid, &n_features, &perr)) {
    g_set_error_literal (error, ROBOCACHE_ERROR, ROBOCACHE_ERROR_INVALID,
        perr->message);
    g_error_free (perr);
    return FALSE;
  }
  for (gint a = 0; a < 3; a++) {
    info->dims[a] = grid.dims[a];
    info->origin[a] = grid.origin[a];
    info->voxel_size[a] = grid.voxel_size[a];
  }
  info->mode = grid.mode;
  info->n_features = n_features;
  info->n_voxels = rc_voxel_grid_n_voxels (&grid);
  return TRUE;
}

gsize
robocache_voxels_size (const RobocacheVoxelsInfo * info)
{
  g_return_val_if_fail (info != NULL, 0);
  switch (info->mode) {
    case RC_VOXEL_OCCUPANCY:
      return (info->n_voxels + 3) & ~(guint64) 3;
    case RC_VOXEL_COUNT:
      return info->n_voxels * 4;
    case RC_VOXEL_MEAN:
    default:
      return info->n_voxels * 4 * info->n_features;
  }
}

static gboolean
voxel_occupied (const RobocacheVoxelsInfo * info, const guint8 * data,
    guint64 v)
{
  switch (info->mode) {
    case RC_VOXEL_OCCUPANCY:
      return data[v] != 0;
    case RC_VOXEL_COUNT:{
      guint32 c;
      memcpy (&c, data + v * 4, 4);
      return c != 0;
    }
    case RC_VOXEL_MEAN:
    default:
      for (guint f = 0; f < info->n_features; f++) {
        gfloat m;
        memcpy (&m, data + (f * info->n_voxels + v) * 4, 4);
        if (m != 0.0f)
          return TRUE;
      }
      return FALSE;
  }
}

guint64
robocache_voxels_list_centres (const RobocacheVoxelsInfo * info,
    const guint8 * data, gsize size, gfloat * xyz, guint64 max)
{
  guint64 n = 0, v = 0;

  g_return_val_if_fail (info != NULL, 0);
  if (!data || size < robocache_voxels_size (info))
    return 0;

  for (guint k = 0; k < info->dims[2]; k++) {
    for (guint j = 0; j < info->dims[1]; j++) {
      for (guint i = 0; i < info->dims[0]; i++, v++) {
        if (!voxel_occupied (info, data, v))
          continue;
        if (xyz && n < max) {
          xyz[3 * n] = (gfloat) (info->origin[0] +
              (i + 0.5) * info->voxel_size[0]);
          xyz[3 * n + 1] = (gfloat) (info->origin[1] +
              (j + 0.5) * info->voxel_size[1]);
          xyz[3 * n + 2] = (gfloat) (info->origin[2] +
              (k + 0.5) * info->voxel_size[2]);
        }
        n++;
      }
    }
  }
  return n;
}

/* ---- Fused frames ----------------------------------------------------- */

guint
robocache_fused_copy_flat (GstBuffer * buffer, gfloat * out, guint max)
{
  GstMapInfo map;
  guint n;

  if (!gst_robocache_fused_map_flat (buffer, &map))
    return 0;
  n = map.size / sizeof (gfloat);
  if (out)
    memcpy (out, map.data, MIN (n, max) * sizeof (gfloat));
  gst_memory_unmap (map.memory, &map);
  return n;
}

GstClockTime
robocache_fused_stream_pts (GstBuffer * buffer, const gchar * name)
{
  GstRobocacheFusedMeta *meta = gst_buffer_get_robocache_fused_meta (buffer);
  const GstRobocacheFusedStream *s;

  if (!meta || !(s = gst_robocache_fused_meta_find (meta, name)))
    return GST_CLOCK_TIME_NONE;
  return s->pts;
}

/* ---- Time mapping ----------------------------------------------------- */

gint64
robocache_ros_to_ns (guint32 sec, guint32 nsec)
{
  /* At most (2^32 - 1) * 1e9 + 2^32 - 1 < 2^63: no overflow. */
  return NS_PER_S * sec + nsec;
}

void
robocache_time_map_init (RobocacheTimeMap * map, guint32 sec, guint32 nsec,
    GstClockTime running_base)
{
  g_return_if_fail (map != NULL && GST_CLOCK_TIME_IS_VALID (running_base)
      && running_base <= G_MAXINT64);

  map->ros_base = robocache_ros_to_ns (sec, nsec);
  map->running_base = running_base;
  map->valid = TRUE;
}

GstClockTime
robocache_time_map_to_running (const RobocacheTimeMap * map, guint32 sec,
    guint32 nsec)
{
  gint64 delta, running;

  if (!map || !map->valid)
    return GST_CLOCK_TIME_NONE;
  /* Both stamps below 2^32 s: their difference fits; the sum may not. */
  delta = robocache_ros_to_ns (sec, nsec) - map->ros_base;
  if (delta > G_MAXINT64 - (gint64) map->running_base)
    return GST_CLOCK_TIME_NONE;
  running = (gint64) map->running_base + delta;
  return running < 0 ? GST_CLOCK_TIME_NONE : (GstClockTime) running;
}

gboolean
robocache_time_map_to_ros (const RobocacheTimeMap * map, GstClockTime running,
    guint32 * sec, guint32 * nsec)
{
  gint64 ns;

  g_return_val_if_fail (sec != NULL && nsec != NULL, FALSE);
  if (!map || !map->valid || !GST_CLOCK_TIME_IS_VALID (running) ||
      running > G_MAXINT64)
    return FALSE;
  ns = map->ros_base + ((gint64) running - (gint64) map->running_base);
  if (ns < 0 || ns / NS_PER_S > G_MAXUINT32)
    return FALSE;
  *sec = (guint32) (ns / NS_PER_S);
  *nsec = (guint32) (ns % NS_PER_S);
  return TRUE;
}
