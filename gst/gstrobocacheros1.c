/* ROS 1 messages to robocache buffers and caps (gstrobocacheros1.h). */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstrobocacheros1.h"
#include "gstrobocachecaps.h"
#include "formats/ros1msg.h"

#include <gst/video/video.h>
#include <string.h>

typedef GstBuffer *(*ConvertFunc) (const guint8 * data, gsize size,
    guint64 * stamp, GstCaps ** caps, gchar ** skip_reason, GError ** error);

/* Names become part of a comma-separated caps string. */
static gboolean
name_is_plain (const gchar * name)
{
  return name[0] && !strpbrk (name, ",:\"");
}

/* Whether the rows of the cloud lie inside its data. */
static gboolean
points_fit (const RcPointCloud2 * msg, GError ** error)
{
  guint64 row_bytes = (guint64) msg->width * msg->point_step;

  /* Rows are row_step apart; the last one needs only row_bytes. */
  if ((guint64) msg->width * msg->height > 0 && ((msg->height > 1 &&
              msg->row_step < row_bytes) ||
          (guint64) msg->row_step * (msg->height - 1) + row_bytes >
          msg->data_size)) {
    g_set_error (error, RC_READER_ERROR, RC_READER_ERROR_FORMAT,
        "PointCloud2: %u x %u points of %u bytes (row_step %u) do not fit in "
        "its %u data bytes", msg->width, msg->height, msg->point_step,
        msg->row_step, msg->data_size);
    return FALSE;
  }
  return TRUE;
}

/* Points caps with the cloud's fields that lie inside a point and are of
 * a known datatype; a field with count > 1 becomes name_0, name_1, ... */
static GstCaps *
points_caps (const RcPointCloud2 * msg)
{
  GPtrArray *names = g_ptr_array_new_with_free_func (g_free);
  GArray *types = g_array_new (FALSE, FALSE, sizeof (rc_scalar_type));
  GArray *offsets = g_array_new (FALSE, FALSE, sizeof (guint));
  GstCaps *caps;
  gchar *fields;

  for (guint i = 0; i < msg->n_fields; i++) {
    const RcPointField *f = &msg->fields[i];
    rc_scalar_type t;
    gsize tsize;

    if (f->datatype < RC_POINT_FIELD_INT8 ||
        f->datatype > RC_POINT_FIELD_FLOAT64 || !name_is_plain (f->name))
      continue;
    /* PointField datatypes 1..8 are rc_scalar_type 0..7. */
    t = (rc_scalar_type) (f->datatype - 1);
    tsize = rc_scalar_type_size (t);
    for (guint32 c = 0; c < MAX (f->count, 1) && c < 65536; c++) {
      guint64 off = (guint64) f->offset + (guint64) c * tsize;

      if (off + tsize > msg->point_step)
        break;
      g_ptr_array_add (names, f->count > 1 ?
          g_strdup_printf ("%s_%u", f->name, c) : g_strdup (f->name));
      g_array_append_val (types, t);
      g_array_append_val (offsets, off);
    }
  }
  fields = gst_robocache_points_fields_to_string (names->len,
      (const gchar * const *) names->pdata, (rc_scalar_type *) types->data,
      (guint *) offsets->data);
  caps = gst_caps_new_simple (GST_ROBOCACHE_POINTS_MEDIA_TYPE,
      "point-step", G_TYPE_INT, (gint) msg->point_step,
      "fields", G_TYPE_STRING, fields, NULL);
  g_free (fields);
  g_ptr_array_unref (names);
  g_array_unref (types);
  g_array_unref (offsets);
  return caps;
}

/* The points, without the padding between rows. */
static GstBuffer *
points_copy (const RcPointCloud2 * msg)
{
  guint64 points = (guint64) msg->width * msg->height;
  guint64 row_bytes = (guint64) msg->width * msg->point_step;
  GstBuffer *buf;
  GstMapInfo map;

  if (points == 0)
    return gst_buffer_new ();
  if (msg->height <= 1 || msg->row_step == row_bytes)
    return gst_buffer_new_memdup (msg->data, points * msg->point_step);
  buf = gst_buffer_new_allocate (NULL, points * msg->point_step, NULL);
  gst_buffer_map (buf, &map, GST_MAP_WRITE);
  for (guint32 r = 0; r < msg->height; r++)
    memcpy (map.data + r * row_bytes, msg->data + (gsize) r * msg->row_step,
        row_bytes);
  gst_buffer_unmap (buf, &map);
  return buf;
}

static GstBuffer *
points_buffer (const guint8 * data, gsize size, guint64 * stamp,
    GstCaps ** caps, gchar ** skip_reason, GError ** error)
{
  RcPointCloud2 msg;
  GstBuffer *buf = NULL;

  if (!rc_ros1_parse_point_cloud2 (data, size, &msg, error))
    return NULL;
  *stamp = msg.header.stamp;
  if (msg.is_bigendian)
    *skip_reason = g_strdup ("big-endian point clouds are not supported");
  else if (msg.point_step == 0 || msg.point_step > 65535)
    *skip_reason = g_strdup ("point_step must be 1 to 65535");
  else if (points_fit (&msg, error)) {
    *caps = points_caps (&msg);
    buf = points_copy (&msg);
  }
  rc_ros1_point_cloud2_clear (&msg);
  return buf;
}

static void
append_names (GString * names, const RcJointState * msg, const gchar * suffix)
{
  for (guint i = 0; i < msg->n_names; i++) {
    gchar *n = g_strdup (msg->names[i]);
    g_strdelimit (n, ",:\"", '_');
    g_string_append_printf (names, "%s%s%s", names->len ? "," : "", n, suffix);
    g_free (n);
  }
}

static GstBuffer *
joints_buffer (const guint8 * data, gsize size, guint64 * stamp,
    GstCaps ** caps, gchar ** skip_reason, GError ** error)
{
  RcJointState msg;
  GstRobocacheVectorsInfo info = { 0, };
  gboolean vel, eff;
  GString *names;
  GstBuffer *buf = NULL;
  GstMapInfo map;
  gdouble *out;

  if (!rc_ros1_parse_joint_state (data, size, &msg, error))
    return NULL;
  *stamp = msg.header.stamp;
  if (msg.n_names == 0 || msg.n_position != msg.n_names) {
    *skip_reason = g_strdup ("a JointState needs one position per name");
    goto out;
  }
  vel = msg.n_velocity == msg.n_names;
  eff = msg.n_effort == msg.n_names;
  info.channels = msg.n_names * (1 + vel + eff);
  if (info.channels > 65535) {
    *skip_reason = g_strdup ("more than 65535 values");
    goto out;
  }
  info.type = RC_TYPE_FLOAT64;
  info.layout = GST_ROBOCACHE_VECTORS_LAYOUT_SAMPLE;
  names = g_string_new (NULL);
  append_names (names, &msg, "");
  if (vel)
    append_names (names, &msg, ".velocity");
  if (eff)
    append_names (names, &msg, ".effort");
  *caps = gst_robocache_vectors_caps_new (&info, names->str, FALSE);
  g_string_free (names, TRUE);

  buf = gst_buffer_new_allocate (NULL, info.channels * sizeof (gdouble), NULL);
  gst_buffer_map (buf, &map, GST_MAP_WRITE);
  out = (gdouble *) map.data;
  memcpy (out, msg.position, msg.n_names * sizeof (gdouble));
  out += msg.n_names;
  if (vel) {
    memcpy (out, msg.velocity, msg.n_names * sizeof (gdouble));
    out += msg.n_names;
  }
  if (eff)
    memcpy (out, msg.effort, msg.n_names * sizeof (gdouble));
  gst_buffer_unmap (buf, &map);
out:
  rc_ros1_joint_state_clear (&msg);
  return buf;
}

static GstVideoFormat
image_format (const RcImage * msg, guint * bpp)
{
  static const struct
  {
    const gchar *encoding;
    GstVideoFormat format, format_be;
    guint bpp;
  } map[] = {
    {"rgb8", GST_VIDEO_FORMAT_RGB, GST_VIDEO_FORMAT_RGB, 3},
    {"bgr8", GST_VIDEO_FORMAT_BGR, GST_VIDEO_FORMAT_BGR, 3},
    {"rgba8", GST_VIDEO_FORMAT_RGBA, GST_VIDEO_FORMAT_RGBA, 4},
    {"bgra8", GST_VIDEO_FORMAT_BGRA, GST_VIDEO_FORMAT_BGRA, 4},
    {"mono8", GST_VIDEO_FORMAT_GRAY8, GST_VIDEO_FORMAT_GRAY8, 1},
    {"8UC1", GST_VIDEO_FORMAT_GRAY8, GST_VIDEO_FORMAT_GRAY8, 1},
    {"mono16", GST_VIDEO_FORMAT_GRAY16_LE, GST_VIDEO_FORMAT_GRAY16_BE, 2},
    {"16UC1", GST_VIDEO_FORMAT_GRAY16_LE, GST_VIDEO_FORMAT_GRAY16_BE, 2},
  };

  for (guint i = 0; i < G_N_ELEMENTS (map); i++) {
    if (!strcmp (msg->encoding, map[i].encoding)) {
      *bpp = map[i].bpp;
      return msg->is_bigendian ? map[i].format_be : map[i].format;
    }
  }
  return GST_VIDEO_FORMAT_UNKNOWN;
}

static GstBuffer *
image_buffer (const guint8 * data, gsize size, guint64 * stamp,
    GstCaps ** caps, gchar ** skip_reason, GError ** error)
{
  RcImage msg;
  GstVideoFormat format;
  GstVideoInfo vinfo;
  GstBuffer *buf = NULL;
  GstMapInfo map;
  guint bpp = 0;
  guint64 row_bytes;

  if (!rc_ros1_parse_image (data, size, &msg, error))
    return NULL;
  *stamp = msg.header.stamp;
  format = image_format (&msg, &bpp);
  if (format == GST_VIDEO_FORMAT_UNKNOWN) {
    *skip_reason = g_strdup_printf ("image encoding \"%s\" is not "
        "supported (rgb8, bgr8, rgba8, bgra8, mono8, mono16, 8UC1, 16UC1 are)",
        msg.encoding);
    goto out;
  }
  row_bytes = (guint64) msg.width * bpp;
  if (msg.width == 0 || msg.height == 0 || msg.width > 65535 ||
      msg.height > 65535 || msg.step < row_bytes ||
      (guint64) msg.step * (msg.height - 1) + row_bytes > msg.data_size) {
    g_set_error (error, RC_READER_ERROR, RC_READER_ERROR_FORMAT, "Image: "
        "%u x %u %s with step %u does not fit in its %u data bytes",
        msg.width, msg.height, msg.encoding, msg.step, msg.data_size);
    goto out;
  }
  gst_video_info_set_format (&vinfo, format, msg.width, msg.height);
  *caps = gst_video_info_to_caps (&vinfo);
  buf = gst_buffer_new_allocate (NULL, GST_VIDEO_INFO_SIZE (&vinfo), NULL);
  gst_buffer_map (buf, &map, GST_MAP_WRITE);
  for (guint32 r = 0; r < msg.height; r++) {
    memcpy (map.data + (gsize) r * GST_VIDEO_INFO_PLANE_STRIDE (&vinfo, 0),
        msg.data + (gsize) r * msg.step, row_bytes);
  }
  gst_buffer_unmap (buf, &map);
out:
  rc_ros1_image_clear (&msg);
  return buf;
}

static ConvertFunc
converter_of_type (const gchar * type)
{
  static const struct
  {
    const gchar *type;
    ConvertFunc convert;
  } converters[] = {
    {RC_ROS1_TYPE_POINT_CLOUD2, points_buffer},
    {RC_ROS1_TYPE_JOINT_STATE, joints_buffer},
    {RC_ROS1_TYPE_IMAGE, image_buffer},
  };

  for (guint i = 0; i < G_N_ELEMENTS (converters); i++) {
    if (!strcmp (type, converters[i].type))
      return converters[i].convert;
  }
  return NULL;
}

gboolean
gst_robocache_ros1_type_is_supported (const gchar * type)
{
  return converter_of_type (type) != NULL;
}

GstBuffer *
gst_robocache_ros1_buffer_new (const gchar * type, const guint8 * data,
    gsize size, guint64 * stamp, GstCaps ** caps, gchar ** skip_reason,
    GError ** error)
{
  ConvertFunc convert = converter_of_type (type);

  g_return_val_if_fail (convert != NULL, NULL);
  return convert (data, size, stamp, caps, skip_reason, error);
}
