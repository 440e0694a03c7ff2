/* ROS messages to robocache buffers and caps (gstrobocacherosmsg.h). */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstrobocacherosmsg.h"
#include "gstrobocachecaps.h"
#include "formats/ros1msg.h"
#include "formats/ros2msg.h"

#include <gst/video/video.h>
#include <string.h>

typedef enum
{
  KIND_POINTS,
  KIND_JOINTS,
  KIND_IMAGE,
  KIND_COMPRESSED_IMAGE
} MessageKind;

struct _GstRobocacheRosDecoder
{
  MessageKind kind;
  RcRos2Decoder *cdr;           /* NULL for ROS 1 messages */
  /* Downstream's, for the buffers (NULL: system memory). */
  GstAllocator *allocator;
  GstAllocationParams params;
  /* The whole file the messages are read from, or NULL, and its bytes. */
  GstMemory *file;
  const guint8 *file_data;
  gsize file_size;
  /* JointState: the topic's joint names in the order its vectors take
   * them (its first message's; a message naming other joints sets its
   * own). */
  GPtrArray *joint_order;
  GArray *joint_at;             /* guint: where each stands in a message */
};

/* A buffer of @size bytes from the allocator downstream proposed. */
static GstBuffer *
decoder_alloc (const GstRobocacheRosDecoder * decoder, gsize size)
{
  return gst_buffer_new_allocate (decoder->allocator, size,
      (GstAllocationParams *) & decoder->params);
}

/* The @size bytes at @data as a buffer that shares the file's memory, or
 * NULL when they are to be copied: they are not in the file (a compressed
 * chunk's), or downstream asked for an alignment they lack.  Page-locked
 * memory proposed by a GPU element is not worth the copy here: the
 * element stages what it gets into its own, in its own thread, and this
 * thread feeds every topic. */
static GstBuffer *
decoder_share (const GstRobocacheRosDecoder * decoder, const guint8 * data,
    gsize size)
{
  const GstAllocationParams *p = &decoder->params;
  GstBuffer *buf;

  if (!decoder->file || data < decoder->file_data || size == 0 ||
      size > decoder->file_size ||
      (gsize) (data - decoder->file_data) > decoder->file_size - size)
    return NULL;
  if (((guintptr) data & p->align) || p->prefix || p->padding)
    return NULL;
  buf = gst_buffer_new ();
  gst_buffer_append_memory (buf, gst_memory_share (decoder->file,
          data - decoder->file_data, size));
  return buf;
}

/* A buffer of @size bytes holding @rows rows of @row_bytes, @dst_stride
 * apart, copied from @src, where they are @src_stride apart; the bytes
 * between the rows, and after the last, zero (a frame's row padding), so
 * that a buffer holds nothing but the message. */
static GstBuffer *
decoder_copy_rows (const GstRobocacheRosDecoder * decoder, gsize size,
    gsize dst_stride, const guint8 * src, gsize src_stride, guint32 rows,
    gsize row_bytes)
{
  GstBuffer *buf = decoder_alloc (decoder, size);
  GstMapInfo map;

  gst_buffer_map (buf, &map, GST_MAP_WRITE);
  if (dst_stride == row_bytes && src_stride == row_bytes) {
    memcpy (map.data, src, rows * row_bytes);
  } else {
    for (guint32 r = 0; r < rows; r++) {
      memcpy (map.data + r * dst_stride, src + r * src_stride, row_bytes);
      memset (map.data + r * dst_stride + row_bytes, 0,
          MIN (dst_stride, size - r * dst_stride) - row_bytes);
    }
  }
  if (size > (gsize) rows * dst_stride)
    memset (map.data + rows * dst_stride, 0, size - rows * dst_stride);
  gst_buffer_unmap (buf, &map);
  return buf;
}

typedef GstBuffer *(*ConvertFunc) (const GstRobocacheRosDecoder * decoder,
    const guint8 * data, gsize size, guint64 * stamp, GstCaps ** caps,
    GstRobocacheRosSkip * skip, GError ** error);

static void
G_GNUC_PRINTF (3, 4)
set_skip (GstRobocacheRosSkip * skip, GstRobocacheRosSkipKind kind,
    const gchar * format, ...)
{
  va_list args;

  va_start (args, format);
  skip->kind = kind;
  skip->reason = g_strdup_vprintf (format, args);
  va_end (args);
}

/* Names become part of a comma-separated caps string, which must be
 * UTF-8 (GStreamer drops a field that is not): bytes that are not UTF-8
 * become U+FFFD. */
static gchar *
plain_name (const gchar * name)
{
  return g_strdelimit (g_utf8_make_valid (name, -1), ",:\"", '_');
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

#define FIELDS_ACCEPTED "accepted are fields of datatype 1 to 8 and count " \
    ">= 1, each inside point_step and none overlapping another or named as " \
    "another, with x, y and z of count 1 (fields named _ are padding)"

/* PCL names the padding it writes out "_" (a PointNormal, read from a PCD
 * file and published as it is): bytes to pass over, not a field. */
static gboolean
is_padding (const RcPointField * f)
{
  return !strcmp (f->name, "_");
}

/* PointField datatypes 1..8 are rc_scalar_type 0..7. */
static guint64
field_bytes (const RcPointField * f)
{
  return (guint64) f->count * rc_scalar_type_size (f->datatype - 1);
}

static gint
compare_field_offsets (gconstpointer a, gconstpointer b)
{
  const RcPointField *x = *(const RcPointField * const *) a;
  const RcPointField *y = *(const RcPointField * const *) b;

  return x->offset < y->offset ? -1 : x->offset > y->offset;
}

/* The first field that is not a whole known value inside the point. */
static gchar *
field_problem (const RcPointCloud2 * msg, const RcPointField * f)
{
  if (!f->name[0])
    return g_strdup ("a field has no name; " FIELDS_ACCEPTED);
  if (f->datatype < RC_POINT_FIELD_INT8 || f->datatype > RC_POINT_FIELD_FLOAT64)
    return g_strdup_printf ("field \"%s\" has unknown datatype %u; "
        FIELDS_ACCEPTED, f->name, f->datatype);
  if (f->count == 0)
    return g_strdup_printf ("field \"%s\" has count 0; " FIELDS_ACCEPTED,
        f->name);
  /* At most 2^32 x 8 bytes: no overflow in 64 bits. */
  if (f->offset + field_bytes (f) > msg->point_step)
    return g_strdup_printf ("field \"%s\" (offset %u, count %u) ends "
        "beyond point_step %u; " FIELDS_ACCEPTED, f->name, f->offset,
        f->count, msg->point_step);
  return NULL;
}

/* The points caps names of @msg's fields: a field of count > 1 becomes
 * name_0, name_1, ... */
static GPtrArray *
caps_field_names (const RcPointCloud2 * msg)
{
  GPtrArray *names = g_ptr_array_new_with_free_func (g_free);

  for (guint i = 0; i < msg->n_fields; i++) {
    const RcPointField *f = &msg->fields[i];
    gchar *name;

    if (is_padding (f))
      continue;
    name = plain_name (f->name);
    for (guint32 c = 0; c < f->count; c++)
      g_ptr_array_add (names, f->count > 1 ?
          g_strdup_printf ("%s_%u", name, c) : g_strdup (name));
    g_free (name);
  }
  return names;
}

/* A name that two of @names take, or NULL. */
static const gchar *
repeated_name (GPtrArray * names)
{
  GHashTable *seen = g_hash_table_new (g_str_hash, g_str_equal);
  const gchar *repeated = NULL;

  for (guint i = 0; i < names->len && !repeated; i++) {
    if (!g_hash_table_add (seen, g_ptr_array_index (names, i)))
      repeated = g_ptr_array_index (names, i);
  }
  g_hash_table_unref (seen);
  return repeated;
}

/* Why the fields of @msg cannot be points caps fields, or NULL with their
 * caps names in @names (to unref): a field left out would make caps
 * without x or a reader of the wrong bytes downstream, so the message is
 * skipped instead. */
static gchar *
points_layout_problem (const RcPointCloud2 * msg, GPtrArray ** names)
{
  GPtrArray *sorted = g_ptr_array_sized_new (msg->n_fields);
  const gchar *xyz[] = { "x", "y", "z" };
  gchar *problem = NULL;

  for (guint i = 0; i < msg->n_fields && !problem; i++) {
    if (is_padding (&msg->fields[i]))
      continue;
    problem = field_problem (msg, &msg->fields[i]);
    g_ptr_array_add (sorted, &msg->fields[i]);
  }
  g_ptr_array_sort (sorted, compare_field_offsets);
  for (guint i = 1; i < sorted->len && !problem; i++) {
    const RcPointField *a = g_ptr_array_index (sorted, i - 1);
    const RcPointField *b = g_ptr_array_index (sorted, i);

    if (a->offset + field_bytes (a) > b->offset)
      problem = g_strdup_printf ("fields \"%s\" and \"%s\" overlap; "
          FIELDS_ACCEPTED, a->name, b->name);
  }
  for (guint c = 0; c < G_N_ELEMENTS (xyz) && !problem; c++) {
    const RcPointField *f = NULL;

    for (guint i = 0; i < msg->n_fields && !f; i++)
      f = !strcmp (msg->fields[i].name, xyz[c]) ? &msg->fields[i] : NULL;
    if (!f)
      problem = g_strdup_printf ("no field %s; " FIELDS_ACCEPTED, xyz[c]);
    else if (f->count != 1)
      problem = g_strdup_printf ("field \"%s\" has count %u; "
          FIELDS_ACCEPTED, xyz[c], f->count);
  }
  /* Only now: the fields fit in the point, so their values are few. */
  if (!problem) {
    const gchar *repeated;

    *names = caps_field_names (msg);
    if ((repeated = repeated_name (*names))) {
      problem = g_strdup_printf ("two fields are named \"%s\" (in caps); "
          FIELDS_ACCEPTED, repeated);
      g_clear_pointer (names, g_ptr_array_unref);
    }
  }
  g_ptr_array_unref (sorted);
  return problem;
}

/* The header's frame_id in @caps ("frame-id", which robocachemcapsink
 * writes back), so that a recording played into a recorder keeps its
 * frames. */
static void
add_frame_id (GstCaps * caps, const RcRosHeader * header)
{
  gchar *frame_id;

  if (!header->frame_id || !header->frame_id[0])
    return;
  frame_id = g_utf8_make_valid (header->frame_id, -1);
  gst_caps_set_simple (caps, "frame-id", G_TYPE_STRING, frame_id, NULL);
  g_free (frame_id);
}

/* Points caps with the cloud's fields (points_layout_problem found none
 * wrong), named @names. */
static GstCaps *
points_caps (const RcPointCloud2 * msg, GPtrArray * names)
{
  GArray *types = g_array_new (FALSE, FALSE, sizeof (rc_scalar_type));
  GArray *offsets = g_array_new (FALSE, FALSE, sizeof (guint));
  GstCaps *caps;
  gchar *fields;

  for (guint i = 0; i < msg->n_fields; i++) {
    const RcPointField *f = &msg->fields[i];
    rc_scalar_type t = (rc_scalar_type) (f->datatype - 1);

    if (is_padding (f))
      continue;
    /* The fields do not overlap: at most point_step values in all. */
    for (guint32 c = 0; c < f->count; c++) {
      guint off = f->offset + c * rc_scalar_type_size (t);

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
  g_array_unref (types);
  g_array_unref (offsets);
  return caps;
}

/* The points, without the padding between rows. */
static GstBuffer *
points_copy (const GstRobocacheRosDecoder * decoder, const RcPointCloud2 * msg)
{
  guint64 points = (guint64) msg->width * msg->height;
  guint64 row_bytes = (guint64) msg->width * msg->point_step;
  GstBuffer *buf;

  if (points == 0)
    return gst_buffer_new ();
  if ((msg->height <= 1 || msg->row_step == row_bytes) &&
      (buf = decoder_share (decoder, msg->data, points * msg->point_step)))
    return buf;
  return decoder_copy_rows (decoder, points * msg->point_step, row_bytes,
      msg->data, msg->row_step, msg->height, row_bytes);
}

static GstBuffer *
points_buffer (const GstRobocacheRosDecoder * decoder, const guint8 * data,
    gsize size, guint64 * stamp, GstCaps ** caps, GstRobocacheRosSkip * skip,
    GError ** error)
{
  RcPointCloud2 msg;
  GstBuffer *buf = NULL;
  GPtrArray *names = NULL;
  gchar *problem = NULL;

  if (decoder->cdr ? !rc_ros2_parse_point_cloud2 (decoder->cdr, data, size,
          &msg, error) : !rc_ros1_parse_point_cloud2 (data, size, &msg, error))
    return NULL;
  *stamp = msg.header.stamp;
  if (msg.is_bigendian)
    set_skip (skip, GST_ROBOCACHE_ROS_SKIP_UNSUPPORTED,
        "big-endian point clouds are not supported");
  else if (msg.point_step == 0 || msg.point_step > 65535)
    set_skip (skip, GST_ROBOCACHE_ROS_SKIP_POINT_LAYOUT, "point_step %u; "
        "accepted is 1 to 65535", msg.point_step);
  else if ((problem = points_layout_problem (&msg, &names)))
    set_skip (skip, GST_ROBOCACHE_ROS_SKIP_POINT_LAYOUT, "%s", problem);
  else if (points_fit (&msg, error)) {
    *caps = points_caps (&msg, names);
    add_frame_id (*caps, &msg.header);
    buf = points_copy (decoder, &msg);
  }
  if (names)
    g_ptr_array_unref (names);
  g_free (problem);
  rc_ros_point_cloud2_clear (&msg);
  return buf;
}

/* Whether @msg names the joints of @order, each once, in any order; if
 * so, where each stands in @msg, into @at. */
static gboolean
find_joints (GPtrArray * order, const RcJointState * msg, guint * at)
{
  gboolean *taken;
  gboolean same = TRUE;

  for (guint i = 0; i < order->len; i++)
    same &= strcmp (msg->names[at[i] = i], g_ptr_array_index (order, i)) == 0;
  if (same)
    return TRUE;
  taken = g_new0 (gboolean, msg->n_names);
  same = TRUE;
  for (guint i = 0; same && i < order->len; i++) {
    const gchar *name = g_ptr_array_index (order, i);
    guint j = 0;

    while (j < msg->n_names && strcmp (msg->names[j], name) != 0)
      j++;
    same = j < msg->n_names && !taken[j];
    if (same)
      taken[at[i] = j] = TRUE;
  }
  g_free (taken);
  return same;
}

/* Where each joint of the topic's order stands in @msg, in
 * decoder->joint_at (n_names of them).  When @msg names other joints than
 * the order's, they become the order, each staying where it is.  A
 * publisher that lists its joints in another order (merged states, a
 * reconnect) thus keeps the topic's caps: its values are put in place,
 * as a consumer taking joints by name would, rather than starting the
 * stream afresh downstream at every such message. */
static const guint *
place_joints (const GstRobocacheRosDecoder * decoder, const RcJointState * msg)
{
  GPtrArray *order = decoder->joint_order;
  guint *at;

  g_array_set_size (decoder->joint_at, msg->n_names);
  at = (guint *) decoder->joint_at->data;
  if (order->len == msg->n_names && find_joints (order, msg, at))
    return at;
  g_ptr_array_set_size (order, 0);
  for (guint i = 0; i < msg->n_names; i++) {
    g_ptr_array_add (order, g_strdup (msg->names[i]));
    at[i] = i;
  }
  return at;
}

/* The values of @from (n of them, or none) in the order @at gives. */
static gdouble *
put_in_order (gdouble * out, const gdouble * from, const guint * at, guint n)
{
  for (guint i = 0; from && i < n; i++)
    *out++ = from[at[i]];
  return out;
}

static void
append_names (GString * names, GPtrArray * order, const gchar * suffix)
{
  for (guint i = 0; i < order->len; i++) {
    gchar *n = plain_name (g_ptr_array_index (order, i));

    g_string_append_printf (names, "%s%s%s", names->len ? "," : "", n, suffix);
    g_free (n);
  }
}

static GstBuffer *
joints_buffer (const GstRobocacheRosDecoder * decoder, const guint8 * data,
    gsize size, guint64 * stamp, GstCaps ** caps, GstRobocacheRosSkip * skip,
    GError ** error)
{
  RcJointState msg;
  GstRobocacheVectorsInfo info = { 0, };
  gboolean vel, eff;
  GString *names;
  GstBuffer *buf = NULL;
  GstMapInfo map;
  gdouble *out;
  const guint *at;

  if (decoder->cdr ? !rc_ros2_parse_joint_state (decoder->cdr, data, size,
          &msg, error) : !rc_ros1_parse_joint_state (data, size, &msg, error))
    return NULL;
  *stamp = msg.header.stamp;
  if (msg.n_names == 0 || msg.n_position != msg.n_names) {
    set_skip (skip, GST_ROBOCACHE_ROS_SKIP_UNSUPPORTED,
        "a JointState of %u names and %u positions; accepted is one "
        "position per name, one name at least", msg.n_names, msg.n_position);
    goto out;
  }
  vel = msg.n_velocity == msg.n_names;
  eff = msg.n_effort == msg.n_names;
  info.channels = msg.n_names * (1 + vel + eff);
  if (info.channels > 65535) {
    set_skip (skip, GST_ROBOCACHE_ROS_SKIP_UNSUPPORTED,
        "%u joints make %u values (positions, velocities, efforts); "
        "accepted are up to 65535 a message", msg.n_names, info.channels);
    goto out;
  }
  info.type = RC_TYPE_FLOAT64;
  info.layout = GST_ROBOCACHE_VECTORS_LAYOUT_SAMPLE;
  at = place_joints (decoder, &msg);
  names = g_string_new (NULL);
  append_names (names, decoder->joint_order, "");
  if (vel)
    append_names (names, decoder->joint_order, ".velocity");
  if (eff)
    append_names (names, decoder->joint_order, ".effort");
  *caps = gst_robocache_vectors_caps_new (&info, names->str, FALSE);
  add_frame_id (*caps, &msg.header);
  g_string_free (names, TRUE);

  buf = decoder_alloc (decoder, info.channels * sizeof (gdouble));
  gst_buffer_map (buf, &map, GST_MAP_WRITE);
  out = put_in_order ((gdouble *) map.data, msg.position, at, msg.n_names);
  out = put_in_order (out, vel ? msg.velocity : NULL, at, msg.n_names);
  put_in_order (out, eff ? msg.effort : NULL, at, msg.n_names);
  gst_buffer_unmap (buf, &map);
out:
  rc_ros_joint_state_clear (&msg);
  return buf;
}

/* ROS image encodings and the video formats they are, both ways. */
/* *INDENT-OFF* */
static const struct
{
  const gchar *encoding;
  GstVideoFormat format, format_be;
  guint bpp;
} image_encodings[] = {
  {"rgb8", GST_VIDEO_FORMAT_RGB, GST_VIDEO_FORMAT_RGB, 3},
  {"bgr8", GST_VIDEO_FORMAT_BGR, GST_VIDEO_FORMAT_BGR, 3},
  {"rgba8", GST_VIDEO_FORMAT_RGBA, GST_VIDEO_FORMAT_RGBA, 4},
  {"bgra8", GST_VIDEO_FORMAT_BGRA, GST_VIDEO_FORMAT_BGRA, 4},
  {"mono8", GST_VIDEO_FORMAT_GRAY8, GST_VIDEO_FORMAT_GRAY8, 1},
  {"8UC1", GST_VIDEO_FORMAT_GRAY8, GST_VIDEO_FORMAT_GRAY8, 1},
  {"mono16", GST_VIDEO_FORMAT_GRAY16_LE, GST_VIDEO_FORMAT_GRAY16_BE, 2},
  {"16UC1", GST_VIDEO_FORMAT_GRAY16_LE, GST_VIDEO_FORMAT_GRAY16_BE, 2},
};
/* *INDENT-ON* */

static GstVideoFormat
image_format (const RcImage * msg, guint * bpp)
{
  for (guint i = 0; i < G_N_ELEMENTS (image_encodings); i++) {
    if (!strcmp (msg->encoding, image_encodings[i].encoding)) {
      *bpp = image_encodings[i].bpp;
      return msg->is_bigendian ? image_encodings[i].format_be :
          image_encodings[i].format;
    }
  }
  return GST_VIDEO_FORMAT_UNKNOWN;
}

const gchar *
gst_robocache_ros_image_encoding (GstVideoFormat format, guint * bpp)
{
  /* The first name of a format is the usual one (mono8 before 8UC1). */
  for (guint i = 0; i < G_N_ELEMENTS (image_encodings); i++) {
    if (image_encodings[i].format == format) {
      *bpp = image_encodings[i].bpp;
      return image_encodings[i].encoding;
    }
  }
  return NULL;
}

static GstBuffer *
image_buffer (const GstRobocacheRosDecoder * decoder, const guint8 * data,
    gsize size, guint64 * stamp, GstCaps ** caps, GstRobocacheRosSkip * skip,
    GError ** error)
{
  RcImage msg;
  GstVideoFormat format;
  GstVideoInfo vinfo;
  GstBuffer *buf = NULL;
  guint bpp = 0;
  guint64 row_bytes;

  if (decoder->cdr ? !rc_ros2_parse_image (decoder->cdr, data, size, &msg,
          error) : !rc_ros1_parse_image (data, size, &msg, error))
    return NULL;
  *stamp = msg.header.stamp;
  format = image_format (&msg, &bpp);
  if (format == GST_VIDEO_FORMAT_UNKNOWN) {
    set_skip (skip, GST_ROBOCACHE_ROS_SKIP_UNSUPPORTED,
        "image encoding \"%s\" is not "
        "supported (rgb8, bgr8, rgba8, bgra8, mono8, mono16, 8UC1, 16UC1 are)",
        msg.encoding);
    goto out;
  }
  if (msg.width == 0 || msg.height == 0) {
    /* What a driver may publish for a frame it lost: no frame to play. */
    set_skip (skip, GST_ROBOCACHE_ROS_SKIP_UNSUPPORTED, "an empty image "
        "(%u x %u pixels) has no frame to play (1 x 1 or more is)",
        msg.width, msg.height);
    goto out;
  }
  row_bytes = (guint64) msg.width * bpp;
  if (msg.width > 65535 || msg.height > 65535 || msg.step < row_bytes ||
      (guint64) msg.step * (msg.height - 1) + row_bytes > msg.data_size) {
    g_set_error (error, RC_READER_ERROR, RC_READER_ERROR_FORMAT, "Image: "
        "%u x %u %s with step %u does not fit in its %u data bytes",
        msg.width, msg.height, msg.encoding, msg.step, msg.data_size);
    goto out;
  }
  gst_video_info_set_format (&vinfo, format, msg.width, msg.height);
  *caps = gst_video_info_to_caps (&vinfo);
  add_frame_id (*caps, &msg.header);
  /* Rows as the caps lay them out: the message's data is the frame. */
  if ((gint64) msg.step == GST_VIDEO_INFO_PLANE_STRIDE (&vinfo, 0) &&
      GST_VIDEO_INFO_SIZE (&vinfo) <= msg.data_size &&
      (buf = decoder_share (decoder, msg.data, GST_VIDEO_INFO_SIZE (&vinfo))))
    goto out;
  buf = decoder_copy_rows (decoder, GST_VIDEO_INFO_SIZE (&vinfo),
      GST_VIDEO_INFO_PLANE_STRIDE (&vinfo, 0), msg.data, msg.step, msg.height,
      row_bytes);
out:
  rc_ros_image_clear (&msg);
  return buf;
}

/* Whether @msg's bytes start with @magic. */
static gboolean
starts_with (const RcCompressedImage * msg, const guint8 * magic, gsize size)
{
  return msg->data_size >= size && memcmp (msg->data, magic, size) == 0;
}

/* The media type of a CompressedImage: image_transport's compressed JPEG
 * or PNG, by its format ("jpeg", "png", "bgr8; jpeg compressed bgr8")
 * where that names one, by its bytes where the format is empty or names
 * neither (CompressedImage.msg takes such an image for a JPEG); the bytes
 * must agree.  NULL with @why set otherwise (compressedDepth, whose PNG
 * follows a header of its own; another codec; no data). */
static const gchar *
compressed_media_type (const RcCompressedImage * msg, const gchar ** why)
{
  static const guint8 jpeg[] = { 0xff, 0xd8, 0xff };
  static const guint8 png[] = { 0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n' };
  gchar *format = g_ascii_strdown (msg->format, -1);
  gboolean says_jpeg = strstr (format, "jpeg") || strstr (format, "jpg");
  gboolean says_png = !says_jpeg && strstr (format, "png");
  gboolean depth = strstr (format, "compresseddepth") != NULL;
  gboolean is_jpeg = starts_with (msg, jpeg, sizeof (jpeg));
  gboolean is_png = starts_with (msg, png, sizeof (png));

  g_free (format);
  *why = NULL;
  if (depth)
    *why = "compressedDepth is not supported";
  else if (msg->data_size == 0)
    *why = "it has no data";
  else if ((says_jpeg && !is_jpeg) || (says_png && !is_png))
    *why = "its bytes do not start as its format says";
  else if (!is_jpeg && !is_png)
    *why = "its format and bytes are neither JPEG nor PNG";
  if (*why)
    return NULL;
  return is_jpeg ? "image/jpeg" : "image/png";
}

/* sensor_msgs/CompressedImage as image/jpeg or image/png, the encoded
 * bytes as they are (from the file's memory where they lie there whole),
 * for jpegdec or pngdec downstream. */
static GstBuffer *
compressed_image_buffer (const GstRobocacheRosDecoder * decoder,
    const guint8 * data, gsize size, guint64 * stamp, GstCaps ** caps,
    GstRobocacheRosSkip * skip, GError ** error)
{
  RcCompressedImage msg;
  GstBuffer *buf = NULL;
  const gchar *media, *why;

  if (decoder->cdr ? !rc_ros2_parse_compressed_image (decoder->cdr, data,
          size, &msg, error) : !rc_ros1_parse_compressed_image (data, size,
          &msg, error))
    return NULL;
  *stamp = msg.header.stamp;
  if (!(media = compressed_media_type (&msg, &why))) {
    set_skip (skip, GST_ROBOCACHE_ROS_SKIP_UNSUPPORTED, "a compressed image "
        "of format \"%s\" (%u bytes): %s; accepted are JPEG and PNG "
        "(image_transport's compressed)", msg.format, msg.data_size, why);
    goto out;
  }
  *caps = gst_caps_new_empty_simple (media);
  add_frame_id (*caps, &msg.header);
  if (!(buf = decoder_share (decoder, msg.data, msg.data_size))) {
    buf = decoder_alloc (decoder, msg.data_size);
    gst_buffer_fill (buf, 0, msg.data, msg.data_size);
  }
out:
  rc_ros_compressed_image_clear (&msg);
  return buf;
}

/* The kind of messages of @topic; FALSE if they are not played. */
static gboolean
kind_of_topic (const RcTopic * topic, MessageKind * kind)
{
  static const struct
  {
    const gchar *type;
    MessageKind kind;
  } kinds[] = {
    {RC_ROS2_TYPE_POINT_CLOUD2, KIND_POINTS},
    {RC_ROS2_TYPE_JOINT_STATE, KIND_JOINTS},
    {RC_ROS2_TYPE_IMAGE, KIND_IMAGE},
    {RC_ROS2_TYPE_COMPRESSED_IMAGE, KIND_COMPRESSED_IMAGE},
  };
  /* ROS 1 names types "pkg/Name", ROS 2 "pkg/msg/Name". */
  gchar *type = rc_ros2_type_canonical (topic->type);
  gboolean found = FALSE;

  if (!strcmp (topic->encoding, "ros1") || !strcmp (topic->encoding, "cdr")) {
    for (guint i = 0; i < G_N_ELEMENTS (kinds) && !found; i++) {
      found = !strcmp (type, kinds[i].type);
      *kind = kinds[i].kind;
    }
  }
  g_free (type);
  return found;
}

gboolean
gst_robocache_ros_topic_is_playable (const RcTopic * topic)
{
  MessageKind kind;

  /* The topic's type and schema are one publisher's of several. */
  if (topic->n_definitions > 1)
    return FALSE;
  return kind_of_topic (topic, &kind);
}

GstRobocacheRosDecoder *
gst_robocache_ros_decoder_new (const RcTopic * topic, GError ** error)
{
  GstRobocacheRosDecoder *decoder = g_new0 (GstRobocacheRosDecoder, 1);

  gst_allocation_params_init (&decoder->params);
  decoder->joint_order = g_ptr_array_new_with_free_func (g_free);
  decoder->joint_at = g_array_new (FALSE, FALSE, sizeof (guint));

  g_return_val_if_fail (kind_of_topic (topic, &decoder->kind), NULL);
  if (!strcmp (topic->encoding, "cdr")) {
    /* Without a stored ros2msg schema, the standard definition is used. */
    decoder->cdr = rc_ros2_decoder_new (topic->type, topic->schema_encoding,
        topic->schema, topic->schema_size, error);
    if (!decoder->cdr)
      g_clear_pointer (&decoder, g_free);
  }
  return decoder;
}

void
gst_robocache_ros_decoder_free (GstRobocacheRosDecoder * decoder)
{
  if (!decoder)
    return;
  g_clear_pointer (&decoder->cdr, rc_ros2_decoder_free);
  g_ptr_array_unref (decoder->joint_order);
  g_array_unref (decoder->joint_at);
  gst_clear_object (&decoder->allocator);
  if (decoder->file)
    gst_memory_unref (decoder->file);
  g_free (decoder);
}

void
gst_robocache_ros_decoder_set_file (GstRobocacheRosDecoder * decoder,
    GstMemory * file)
{
  GstMapInfo map;

  if (decoder->file)
    gst_memory_unref (decoder->file);
  decoder->file = NULL;
  if (!file || !gst_memory_map (file, &map, GST_MAP_READ))
    return;
  decoder->file = gst_memory_ref (file);
  decoder->file_data = map.data;
  decoder->file_size = map.size;
  gst_memory_unmap (file, &map);
}

void
gst_robocache_ros_decoder_set_allocator (GstRobocacheRosDecoder * decoder,
    GstAllocator * allocator, const GstAllocationParams * params)
{
  gst_object_replace ((GstObject **) & decoder->allocator,
      (GstObject *) allocator);
  if (params)
    decoder->params = *params;
  else
    gst_allocation_params_init (&decoder->params);
}

gboolean
gst_robocache_ros_decoder_stamp (const GstRobocacheRosDecoder * decoder,
    const guint8 * data, gsize size, guint64 * stamp, GError ** error)
{
  RcRosHeader header;

  if (decoder->cdr ? !rc_ros2_parse_header (decoder->cdr, data, size,
          &header, error) : !rc_ros1_parse_header (data, size, &header, error))
    return FALSE;
  *stamp = header.stamp;
  rc_ros_header_clear (&header);
  return TRUE;
}

GstBuffer *
gst_robocache_ros_decoder_buffer_new (const GstRobocacheRosDecoder * decoder,
    const guint8 * data, gsize size, guint64 * stamp, GstCaps ** caps,
    GstRobocacheRosSkip * skip, GError ** error)
{
  static const ConvertFunc convert[] = {
    [KIND_POINTS] = points_buffer,
    [KIND_JOINTS] = joints_buffer,
    [KIND_IMAGE] = image_buffer,
    [KIND_COMPRESSED_IMAGE] = compressed_image_buffer,
  };

  skip->kind = GST_ROBOCACHE_ROS_SKIP_NONE;
  skip->reason = NULL;
  return convert[decoder->kind] (decoder, data, size, stamp, caps, skip, error);
}
