/* robocachemcapsink: caps to message layouts, buffers to CDR messages
 * (gstrobocachemcapsinkprivate.h). */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstrobocachemcapsinkprivate.h"
#include "gstrobocacherosmsg.h"
#include "formats/ros2enc.h"
#include "formats/ros2types.h"
#include "formats/reader.h"

#include <string.h>

#define POINTS_ACCEPTED "accepted: " GST_ROBOCACHE_POINTS_MEDIA_TYPE \
    " with point-step 1 to 65535 and fields \"name:type:offset,...\" of " \
    "types int8 to float64, each inside point-step"
#define VECTORS_ACCEPTED "accepted: " GST_ROBOCACHE_VECTORS_MEDIA_TYPE \
    " float32 or float64 (bfloat16 with layout chunk), layout sample or " \
    "chunk with batch 1"
#define VIDEO_ACCEPTED "accepted: video/x-raw RGB, BGR, GRAY8, GRAY16_LE"

const gchar *
mcap_kind_type (McapKind kind)
{
  switch (kind) {
    case MCAP_KIND_POINTS:
    case MCAP_KIND_VOXELS:
    case MCAP_KIND_SPARSE:
      return RC_ROS2_TYPE_POINT_CLOUD2;
    case MCAP_KIND_VECTORS:
      return RC_ROS2_TYPE_JOINT_STATE;
    case MCAP_KIND_IMAGE:
      return RC_ROS2_TYPE_IMAGE;
    default:
      return NULL;
  }
}

const gchar *
mcap_kind_topic (McapKind kind)
{
  static const gchar *const topics[MCAP_N_KINDS] = {
    NULL, "/points", "/voxels", "/joints", "/image", "/pillars"
  };

  return topics[kind];
}

void
mcap_format_clear (McapFormat * f)
{
  for (guint i = 0; i < f->n_fields; i++)
    g_free (f->fields[i].name);
  g_free (f->fields);
  g_strfreev (f->feature_names);
  g_strfreev (f->names);
  g_free (f->frame_id);
  memset (f, 0, sizeof (*f));
}

/* ------------------------------------------------------------------ */
/* Caps                                                                */
/* ------------------------------------------------------------------ */

/* "name:type:offset,..." into PointCloud2 fields. */
static gboolean
parse_points (McapFormat * f, const GstStructure * s, GError ** error)
{
  const gchar *text = gst_structure_get_string (s, "fields");
  gint step = 0;
  gchar **items;
  gboolean ok = TRUE;

  if (!gst_structure_get_int (s, "point-step", &step) || step < 1 ||
      step > 65535 || !text || !*text)
    goto bad;
  f->point_step = step;
  items = g_strsplit (text, ",", -1);
  f->fields = g_new0 (RcPointField, g_strv_length (items));
  for (guint i = 0; items[i] && ok; i++) {
    gchar **parts = g_strsplit (items[i], ":", -1);
    rc_scalar_type t = g_strv_length (parts) == 3 ?
        rc_scalar_type_from_string (parts[1]) : RC_TYPE_INVALID;
    guint64 offset = 0;

    ok = t <= RC_TYPE_FLOAT64 && parts[0][0] &&
        g_ascii_string_to_unsigned (parts[2], 10, 0, 65535, &offset, NULL) &&
        offset + rc_scalar_type_size (t) <= (guint64) step;
    if (ok) {
      RcPointField *pf = &f->fields[f->n_fields++];

      pf->name = g_strdup (parts[0]);
      pf->offset = offset;
      pf->datatype = t + 1;     /* PointField datatypes 1..8 */
      pf->count = 1;
    }
    g_strfreev (parts);
  }
  g_strfreev (items);
  if (ok)
    return TRUE;
bad:
  g_set_error (error, GST_STREAM_ERROR, GST_STREAM_ERROR_FORMAT,
      "bad points caps (point-step %d, fields \"%s\"); " POINTS_ACCEPTED,
      step, text ? text : "");
  return FALSE;
}

static gboolean
parse_voxels (McapFormat * f, const GstCaps * caps, GError ** error)
{
  const gchar *names;

  if (!gst_robocache_voxels_caps_parse (caps, &f->grid, &f->n_features, error))
    return FALSE;
  if (f->grid.mode != RC_VOXEL_MEAN)
    return TRUE;
  names = gst_structure_get_string (gst_caps_get_structure (caps, 0),
      "feature-names");
  f->feature_names = g_strsplit (names ? names : "x,y,z", ",", -1);
  if (g_strv_length (f->feature_names) != f->n_features) {
    g_set_error (error, GST_STREAM_ERROR, GST_STREAM_ERROR_FORMAT,
        "voxels caps with %u features name %u (feature-names \"%s\")",
        f->n_features, g_strv_length (f->feature_names), names);
    return FALSE;
  }
  return TRUE;
}

/* Whether names [k, 2k) are names [0, k) with @suffix. */
static gboolean
names_with_suffix (gchar ** names, guint k, guint group, const gchar * suffix)
{
  for (guint i = 0; i < k; i++) {
    if (!g_str_has_suffix (names[group * k + i], suffix) ||
        strlen (names[group * k + i]) != strlen (names[i]) + strlen (suffix)
        || strncmp (names[group * k + i], names[i], strlen (names[i])))
      return FALSE;
  }
  return TRUE;
}

/* robocachebagsrc names a JointState's velocities "name.velocity" and
 * efforts "name.effort" after the positions: the groups are split back. */
static void
split_joint_groups (McapFormat * f)
{
  guint n = f->vectors.channels;

  f->n_joints = n;
  if (n % 3 == 0 && names_with_suffix (f->names, n / 3, 1, ".velocity") &&
      names_with_suffix (f->names, n / 3, 2, ".effort")) {
    f->n_joints = n / 3;
    f->has_velocity = f->has_effort = TRUE;
  } else if (n % 2 == 0
      && names_with_suffix (f->names, n / 2, 1, ".velocity")) {
    f->n_joints = n / 2;
    f->has_velocity = TRUE;
  } else if (n % 2 == 0 && names_with_suffix (f->names, n / 2, 1, ".effort")) {
    f->n_joints = n / 2;
    f->has_effort = TRUE;
  }
}

static gboolean
parse_vectors (McapFormat * f, const GstCaps * caps, GError ** error)
{
  const gchar *names = gst_structure_get_string (gst_caps_get_structure
      (caps, 0), "names");

  if (!gst_robocache_vectors_caps_parse (caps, &f->vectors, error))
    return FALSE;
  if (f->vectors.layout == GST_ROBOCACHE_VECTORS_LAYOUT_CHUNK &&
      f->vectors.batch != 1) {
    g_set_error (error, GST_STREAM_ERROR, GST_STREAM_ERROR_FORMAT,
        "vectors chunks of batch %u: a topic holds one trajectory; "
        VECTORS_ACCEPTED, f->vectors.batch);
    return FALSE;
  }
  if (names)
    f->names = g_strsplit (names, ",", -1);
  if (!names || g_strv_length (f->names) != f->vectors.channels) {
    g_strfreev (f->names);
    f->names = g_new0 (gchar *, f->vectors.channels + 1);
    for (guint i = 0; i < f->vectors.channels; i++)
      f->names[i] = g_strdup_printf ("joint%u", i);
  }
  split_joint_groups (f);
  return TRUE;
}

static gboolean
parse_video (McapFormat * f, const GstCaps * caps, GError ** error)
{
  if (!gst_video_info_from_caps (&f->video, caps))
    goto bad;
  /* The sink template takes only formats with an encoding (RGB, BGR,
   * GRAY8, GRAY16_LE): the same table the sources read them with. */
  f->encoding = gst_robocache_ros_image_encoding (GST_VIDEO_INFO_FORMAT
      (&f->video), &f->bytes_per_pixel);
  if (f->encoding)
    return TRUE;
bad:
  {
    gchar *str = gst_caps_to_string (caps);

    g_set_error (error, GST_STREAM_ERROR, GST_STREAM_ERROR_FORMAT,
        "video caps %s cannot be a sensor_msgs/Image; " VIDEO_ACCEPTED, str);
    g_free (str);
  }
  return FALSE;
}

gboolean
mcap_format_from_caps (McapFormat * f, const GstCaps * caps, GError ** error)
{
  const GstStructure *s;
  gboolean ok = FALSE;

  memset (f, 0, sizeof (*f));
  if (!caps || !gst_caps_is_fixed (caps) || gst_robocache_caps_is_cuda (caps))
    goto bad;
  s = gst_caps_get_structure (caps, 0);
  if (gst_structure_has_name (s, GST_ROBOCACHE_POINTS_MEDIA_TYPE)) {
    f->kind = MCAP_KIND_POINTS;
    ok = parse_points (f, s, error);
  } else if (gst_structure_has_name (s, GST_ROBOCACHE_VOXELS_MEDIA_TYPE)) {
    f->kind = MCAP_KIND_VOXELS;
    ok = parse_voxels (f, caps, error);
  } else if (gst_structure_has_name (s, GST_ROBOCACHE_SPARSE_MEDIA_TYPE)) {
    f->kind = MCAP_KIND_SPARSE;
    ok = gst_robocache_sparse_caps_parse (caps, &f->sparse, error);
  } else if (gst_structure_has_name (s, GST_ROBOCACHE_VECTORS_MEDIA_TYPE)) {
    f->kind = MCAP_KIND_VECTORS;
    ok = parse_vectors (f, caps, error);
  } else if (gst_structure_has_name (s, "video/x-raw")) {
    f->kind = MCAP_KIND_IMAGE;
    ok = parse_video (f, caps, error);
  } else {
    goto bad;
  }
  if (ok)
    f->frame_id = g_strdup (gst_structure_get_string (s, "frame-id"));
  else
    mcap_format_clear (f);
  return ok;
bad:
  {
    gchar *str = caps ? gst_caps_to_string (caps) : g_strdup ("(none)");

    g_set_error (error, GST_STREAM_ERROR, GST_STREAM_ERROR_FORMAT,
        "caps %s are not accepted: accepted are fixed caps in system memory "
        "of " GST_ROBOCACHE_POINTS_MEDIA_TYPE ", "
        GST_ROBOCACHE_VOXELS_MEDIA_TYPE ", " GST_ROBOCACHE_SPARSE_MEDIA_TYPE
        ", " GST_ROBOCACHE_VECTORS_MEDIA_TYPE
        " or video/x-raw (RGB, BGR, GRAY8, GRAY16_LE)", str);
    g_free (str);
  }
  return FALSE;
}

/* ------------------------------------------------------------------ */
/* Buffers                                                             */
/* ------------------------------------------------------------------ */

/* The stamp of a buffer time @t (the fallback's without one): the base
 * plus its running time, times before the segment counting as 0. */
static guint64
stamp_of (const McapStamp * st, GstClockTime t)
{
  guint64 rt = st->fallback;

  if (GST_CLOCK_TIME_IS_VALID (t) &&
      gst_segment_to_running_time_full (st->segment, GST_FORMAT_TIME, t,
          &rt) < 0)
    rt = 0;
  return st->base + rt;
}

static gboolean
bad_size (GError ** error, const gchar * what, gsize size, gsize unit)
{
  g_set_error (error, GST_STREAM_ERROR, GST_STREAM_ERROR_FORMAT,
      "a %s buffer of %" G_GSIZE_FORMAT " bytes is not a whole number of "
      "%" G_GSIZE_FORMAT "-byte units as its caps say", what, size, unit);
  return FALSE;
}

static gboolean
encode_points (const McapFormat * f, const GstMapInfo * map, guint64 stamp,
    const gchar * frame_id, GByteArray * out, GError ** error)
{
  RcPointCloud2 msg = { {0, stamp, (gchar *) frame_id}, };
  gsize n = map->size / f->point_step;

  if (map->size % f->point_step || n > G_MAXUINT32 / f->point_step)
    return bad_size (error, "points", map->size, f->point_step);
  msg.height = 1;
  msg.width = n;
  msg.n_fields = f->n_fields;
  msg.fields = f->fields;
  msg.point_step = f->point_step;
  msg.row_step = n * f->point_step;
  msg.data = map->data;
  msg.data_size = map->size;
  rc_ros2_encode_point_cloud2 (out, &msg);
  return TRUE;
}

/* Whether voxel @v holds something, and its value fields in @point. */
static gboolean
voxel_fields (const McapFormat * f, const guint8 * data, guint64 v,
    guint64 n_voxels, guint8 * point)
{
  gboolean occupied = FALSE;

  if (f->grid.mode == RC_VOXEL_OCCUPANCY) {
    point[0] = data[v];
    return data[v] != 0;
  }
  if (f->grid.mode == RC_VOXEL_COUNT) {
    guint32 count;

    memcpy (&count, data + v * 4, 4);
    memcpy (point, &count, 4);
    return count != 0;
  }
  /* Mean: empty voxels hold 0 in every plane. */
  for (guint i = 0; i < f->n_features; i++) {
    gfloat m;

    memcpy (&m, data + (i * n_voxels + v) * 4, 4);
    memcpy (point + i * 4, &m, 4);
    occupied |= m != 0.0f;
  }
  return occupied;
}

/* The fields of the occupied-voxel cloud: the centre x, y, z, then count,
 * occupancy or mean_<feature>. */
static RcPointField *
voxel_cloud_fields (const McapFormat * f, guint * n_fields,
    guint32 * point_step)
{
  guint n = f->grid.mode == RC_VOXEL_MEAN ? 3 + f->n_features : 4;
  RcPointField *fields = g_new0 (RcPointField, n);
  const gchar *xyz[] = { "x", "y", "z" };

  for (guint i = 0; i < n; i++) {
    fields[i].offset = 4 * i;
    fields[i].count = 1;
    fields[i].datatype = RC_POINT_FIELD_FLOAT32;
    fields[i].name = i < 3 ? g_strdup (xyz[i]) :
        f->grid.mode == RC_VOXEL_MEAN ?
        g_strdup_printf ("mean_%s", f->feature_names[i - 3]) :
        g_strdup (f->grid.mode == RC_VOXEL_COUNT ? "count" : "occupancy");
  }
  if (f->grid.mode == RC_VOXEL_COUNT)
    fields[3].datatype = RC_POINT_FIELD_UINT32;
  else if (f->grid.mode == RC_VOXEL_OCCUPANCY)
    fields[3].datatype = RC_POINT_FIELD_UINT8;
  *n_fields = n;
  /* The uint8 occupancy padded to keep points 4-byte aligned. */
  *point_step = 4 * n;
  return fields;
}

/* Expected bytes of one grid buffer. */
static guint64
grid_bytes (const McapFormat * f, guint64 n_voxels)
{
  if (f->grid.mode == RC_VOXEL_OCCUPANCY)
    return (n_voxels + 3) / 4 * 4;
  if (f->grid.mode == RC_VOXEL_COUNT)
    return n_voxels * 4;
  return n_voxels * 4 * f->n_features;
}

/* Encodes @msg (its header and fields set; the fields are freed) with
 * @points (taken) as one row of points into @out. */
static void
encode_cloud (RcPointCloud2 * msg, GByteArray * points, GByteArray * out)
{
  msg->height = 1;
  msg->width = points->len / msg->point_step;
  msg->row_step = points->len;
  msg->data = points->data;
  msg->data_size = points->len;
  rc_ros2_encode_point_cloud2 (out, msg);
  g_byte_array_unref (points);
  msg->data = NULL;
  msg->header.frame_id = NULL;  /* not ours */
  rc_ros_point_cloud2_clear (msg);
}

static gboolean
encode_voxels (const McapFormat * f, const GstMapInfo * map, guint64 stamp,
    const gchar * frame_id, GByteArray * out, GError ** error)
{
  RcPointCloud2 msg = { {0, stamp, (gchar *) frame_id}, };
  const rc_voxel_grid *g = &f->grid;
  guint64 n_voxels = rc_voxel_grid_n_voxels (g), v = 0;
  GByteArray *points = g_byte_array_new ();
  guint8 point[4 * (3 + RC_VOXELIZE_MAX_FEATURES)] = { 0, };

  if (map->size != grid_bytes (f, n_voxels)) {
    g_byte_array_unref (points);
    g_set_error (error, GST_STREAM_ERROR, GST_STREAM_ERROR_FORMAT,
        "a voxel grid buffer of %" G_GSIZE_FORMAT " bytes where its caps "
        "say %" G_GUINT64_FORMAT, map->size, grid_bytes (f, n_voxels));
    return FALSE;
  }
  msg.fields = voxel_cloud_fields (f, &msg.n_fields, &msg.point_step);
  for (guint32 k = 0; k < g->dims[2]; k++)
    for (guint32 j = 0; j < g->dims[1]; j++)
      for (guint32 i = 0; i < g->dims[0]; i++, v++) {
        gfloat c[3] = { g->origin[0] + (i + 0.5) * g->voxel_size[0],
          g->origin[1] + (j + 0.5) * g->voxel_size[1],
          g->origin[2] + (k + 0.5) * g->voxel_size[2]
        };

        if (!voxel_fields (f, map->data, v, n_voxels, point + 12))
          continue;
        memcpy (point, c, 12);
        g_byte_array_append (points, point, msg.point_step);
      }
  encode_cloud (&msg, points, out);
  return TRUE;
}

/* The fields of the used-voxel cloud of sparse voxels: the centre x, y, z
 * (float32) and count (uint32, the voxel's stored points), as a count
 * grid's cloud has them. */
static RcPointField *
sparse_cloud_fields (guint * n_fields, guint32 * point_step)
{
  const gchar *names[] = { "x", "y", "z", "count" };
  RcPointField *fields = g_new0 (RcPointField, 4);

  for (guint i = 0; i < 4; i++) {
    fields[i].name = g_strdup (names[i]);
    fields[i].offset = 4 * i;
    fields[i].count = 1;
    fields[i].datatype = i < 3 ? RC_POINT_FIELD_FLOAT32 : RC_POINT_FIELD_UINT32;
  }
  *n_fields = 4;
  *point_step = 16;
  return fields;
}

/* The used voxels of a sparse voxels buffer as 16-byte points (centre,
 * count) in @points; FALSE with @error when the buffer contradicts its
 * caps (its size, the count of used voxels, a coordinate outside the
 * grid). */
static gboolean
sparse_points (const GstRobocacheSparseInfo * info, const GstMapInfo * map,
    GByteArray * points, GError ** error)
{
  const rc_voxel_grid *g = &info->params.grid;
  gint32 n_used, coords[3], count;

  if (map->size != info->size) {
    g_set_error (error, GST_STREAM_ERROR, GST_STREAM_ERROR_FORMAT,
        "a sparse voxels buffer of %" G_GSIZE_FORMAT " bytes where its caps "
        "say %" G_GSIZE_FORMAT, map->size, info->size);
    return FALSE;
  }
  memcpy (&n_used, map->data + info->n_voxels_offset, 4);
  if (n_used < 0 || (guint32) n_used > info->params.max_voxels) {
    g_set_error (error, GST_STREAM_ERROR, GST_STREAM_ERROR_FORMAT,
        "a sparse voxels buffer using %d voxels; accepted: 0 to max-voxels "
        "(%u)", n_used, info->params.max_voxels);
    return FALSE;
  }
  for (gint32 s = 0; s < n_used; s++) {
    guint8 point[16];
    gfloat c[3];

    memcpy (coords, map->data + info->coords_offset + 12 * s, 12);
    memcpy (&count, map->data + info->num_points_offset + 4 * s, 4);
    /* coords are (z, y, x); the centre is (x, y, z). */
    for (guint a = 0; a < 3; a++) {
      gint32 i = coords[2 - a];

      if (i < 0 || (guint32) i >= g->dims[a]) {
        g_set_error (error, GST_STREAM_ERROR, GST_STREAM_ERROR_FORMAT,
            "sparse voxel %d has coordinate %d along %c; accepted: 0 to "
            "%u (grid-%c - 1)", s, i, "xyz"[a], g->dims[a] - 1, "xyz"[a]);
        return FALSE;
      }
      c[a] = g->origin[a] + (i + 0.5) * g->voxel_size[a];
    }
    memcpy (point, c, 12);
    memcpy (point + 12, &count, 4);
    g_byte_array_append (points, point, sizeof (point));
  }
  return TRUE;
}

/* Sparse voxels or pillars as a PointCloud2 of the used voxels' centres
 * with their point counts. */
static gboolean
encode_sparse (const McapFormat * f, const GstMapInfo * map, guint64 stamp,
    const gchar * frame_id, GByteArray * out, GError ** error)
{
  RcPointCloud2 msg = { {0, stamp, (gchar *) frame_id}, };
  GByteArray *points = g_byte_array_new ();

  if (!sparse_points (&f->sparse, map, points, error)) {
    g_byte_array_unref (points);
    return FALSE;
  }
  msg.fields = sparse_cloud_fields (&msg.n_fields, &msg.point_step);
  encode_cloud (&msg, points, out);
  return TRUE;
}

/* Channel @c of a vector of format @type as a double. */
static gdouble
vector_value (const guint8 * vec, rc_scalar_type type, guint c)
{
  if (type == RC_TYPE_FLOAT64) {
    gdouble d;
    memcpy (&d, vec + 8 * c, 8);
    return d;
  } else if (type == RC_TYPE_FLOAT32) {
    gfloat x;
    memcpy (&x, vec + 4 * c, 4);
    return x;
  } else {
    /* bfloat16: the high half of a float32. */
    guint32 bits = (guint32) GUINT16_FROM_LE (*(const guint16 *) (vec + 2 *
            c)) << 16;
    gfloat x;
    memcpy (&x, &bits, 4);
    return x;
  }
}

/* One JointState of the vector @vec. */
static void
encode_joints (const McapFormat * f, const guint8 * vec, guint64 stamp,
    const gchar * frame_id, GByteArray * out)
{
  RcJointState msg = { {0, stamp, (gchar *) frame_id}, };
  guint n = f->n_joints;
  gdouble *values = g_new (gdouble, f->vectors.channels);

  for (guint c = 0; c < f->vectors.channels; c++)
    values[c] = vector_value (vec, f->vectors.type, c);
  msg.n_names = n;
  msg.names = f->names;
  msg.n_position = n;
  msg.position = values;
  msg.n_velocity = f->has_velocity ? n : 0;
  msg.velocity = f->has_velocity ? values + n : NULL;
  msg.n_effort = f->has_effort ? n : 0;
  msg.effort = f->has_effort ? values + (f->has_velocity ? 2 : 1) * n : NULL;
  rc_ros2_encode_joint_state (out, &msg);
  g_free (values);
}

static gboolean
encode_vectors (const McapFormat * f, const GstMapInfo * map,
    GstBuffer * buf, const McapStamp * st, GByteArray * out,
    McapEmitFunc emit, gpointer user_data, GError ** error)
{
  gsize vec_size = gst_robocache_vectors_sample_size (&f->vectors);
  gsize unit = vec_size + 8, n;
  guint64 stamp;

  if (f->vectors.layout == GST_ROBOCACHE_VECTORS_LAYOUT_SAMPLE) {
    if (map->size != vec_size)
      return bad_size (error, "vectors", map->size, vec_size);
    stamp = stamp_of (st, GST_BUFFER_PTS (buf));
    encode_joints (f, map->data, stamp, st->frame_id, out);
    return emit (user_data, stamp, out, error);
  }
  /* A chunk: int64 times[S], then values[S][channels]. */
  if (map->size % unit)
    return bad_size (error, "vectors chunk", map->size, unit);
  n = map->size / unit;
  for (gsize s = 0; s < n; s++) {
    gint64 t;

    memcpy (&t, map->data + 8 * s, 8);
    stamp = stamp_of (st, t < 0 ? 0 : (GstClockTime) t);
    encode_joints (f, map->data + 8 * n + s * vec_size, stamp, st->frame_id,
        out);
    if (!emit (user_data, stamp, out, error))
      return FALSE;
  }
  return TRUE;
}

static gboolean
encode_image (const McapFormat * f, GstBuffer * buf, guint64 stamp,
    const gchar * frame_id, GByteArray * out, GError ** error)
{
  RcImage msg = { {0, stamp, (gchar *) frame_id}, };
  GstVideoFrame frame;
  guint32 row = GST_VIDEO_INFO_WIDTH (&f->video) * f->bytes_per_pixel;
  guint32 height = GST_VIDEO_INFO_HEIGHT (&f->video);
  guint8 *pixels;

  if (!gst_video_frame_map (&frame, (GstVideoInfo *) & f->video, buf,
          GST_MAP_READ)) {
    g_set_error (error, GST_STREAM_ERROR, GST_STREAM_ERROR_FORMAT,
        "a video buffer of %" G_GSIZE_FORMAT " bytes does not hold a %ux%u "
        "frame", gst_buffer_get_size (buf), GST_VIDEO_INFO_WIDTH (&f->video),
        height);
    return FALSE;
  }
  /* Rows packed: ROS images have no padding GStreamer's strides may add. */
  pixels = g_malloc ((gsize) row * height);
  for (guint32 r = 0; r < height; r++)
    memcpy (pixels + (gsize) r * row, (guint8 *)
        GST_VIDEO_FRAME_PLANE_DATA (&frame, 0) +
        (gsize) r * GST_VIDEO_FRAME_PLANE_STRIDE (&frame, 0), row);
  gst_video_frame_unmap (&frame);
  msg.height = height;
  msg.width = GST_VIDEO_INFO_WIDTH (&f->video);
  msg.encoding = (gchar *) f->encoding;
  msg.step = row;
  msg.data = pixels;
  msg.data_size = row * height;
  rc_ros2_encode_image (out, &msg);
  g_free (pixels);
  return TRUE;
}

gboolean
mcap_format_encode (const McapFormat * f, GstBuffer * buf,
    const McapStamp * st, GByteArray * out, McapEmitFunc emit,
    gpointer user_data, GError ** error)
{
  guint64 stamp = stamp_of (st, GST_BUFFER_PTS (buf));
  GstMapInfo map;
  gboolean ok;

  if (f->kind == MCAP_KIND_IMAGE)
    return encode_image (f, buf, stamp, st->frame_id, out, error) &&
        emit (user_data, stamp, out, error);
  if (!gst_buffer_map (buf, &map, GST_MAP_READ)) {
    g_set_error (error, GST_STREAM_ERROR, GST_STREAM_ERROR_FAILED,
        "cannot map a buffer for reading");
    return FALSE;
  }
  switch (f->kind) {
    case MCAP_KIND_POINTS:
      ok = encode_points (f, &map, stamp, st->frame_id, out, error) &&
          emit (user_data, stamp, out, error);
      break;
    case MCAP_KIND_VOXELS:
      ok = encode_voxels (f, &map, stamp, st->frame_id, out, error) &&
          emit (user_data, stamp, out, error);
      break;
    case MCAP_KIND_SPARSE:
      ok = encode_sparse (f, &map, stamp, st->frame_id, out, error) &&
          emit (user_data, stamp, out, error);
      break;
    default:
      ok = encode_vectors (f, &map, buf, st, out, emit, user_data, error);
      break;
  }
  gst_buffer_unmap (buf, &map);
  return ok;
}
