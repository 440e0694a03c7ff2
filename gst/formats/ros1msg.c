/* ROS 1 message decoders (ros1msg.h).  Every length is checked against
 * the bytes left before anything is read or allocated. */
#include "ros1msg.h"
#include "reader-impl.h"

#include <string.h>

/* The bytes of one message left to read; @what names the message in
 * errors. */
typedef struct
{
  const guint8 *p;
  gsize left;
  const gchar *what;
  GError **error;
} FieldReader;

static gboolean
need (FieldReader * r, guint64 n, const gchar * field)
{
  if (n > r->left)
    return rc_reader_fail (r->error, RC_READER_ERROR_FORMAT, "%s: %s needs %"
        G_GUINT64_FORMAT " bytes, %" G_GSIZE_FORMAT " are left", r->what,
        field, n, r->left);
  return TRUE;
}

/* The next @n bytes, consumed; NULL (the error set) if fewer are left. */
static const guint8 *
take (FieldReader * r, guint64 n, const gchar * field)
{
  const guint8 *p = r->p;

  if (!need (r, n, field))
    return NULL;
  r->p += n;
  r->left -= n;
  return p;
}

static gboolean
read_u8 (FieldReader * r, guint8 * v, const gchar * field)
{
  const guint8 *p = take (r, 1, field);

  if (!p)
    return FALSE;
  *v = p[0];
  return TRUE;
}

static gboolean
read_u32 (FieldReader * r, guint32 * v, const gchar * field)
{
  const guint8 *p = take (r, 4, field);

  if (!p)
    return FALSE;
  *v = rc_get_u32 (p);
  return TRUE;
}

static gboolean
read_bytes (FieldReader * r, const guint8 ** v, guint32 * n,
    const gchar * field)
{
  return read_u32 (r, n, field) && (*v = take (r, *n, field));
}

static gboolean
read_string (FieldReader * r, gchar ** v, const gchar * field)
{
  const guint8 *p;
  guint32 n;

  if (!read_bytes (r, &p, &n, field))
    return FALSE;
  *v = g_strndup ((const gchar *) p, n);
  return TRUE;
}

/* float64[]: the count is checked against the bytes left before the
 * allocation. */
static gboolean
read_doubles (FieldReader * r, gdouble ** v, guint * n, const gchar * field)
{
  const guint8 *p;
  guint32 count;

  if (!read_u32 (r, &count, field) ||
      !(p = take (r, (guint64) count * 8, field)))
    return FALSE;
  *n = count;
  *v = count ? g_new (gdouble, count) : NULL;
  for (guint32 i = 0; i < count; i++) {
    guint64 bits = rc_get_u64 (p + i * 8);
    memcpy (&(*v)[i], &bits, 8);
  }
  return TRUE;
}

static gboolean
read_header (FieldReader * r, RcRosHeader * h)
{
  guint32 sec, nsec;

  if (!read_u32 (r, &h->seq, "header.seq") ||
      !read_u32 (r, &sec, "header.stamp") ||
      !read_u32 (r, &nsec, "header.stamp") ||
      !read_string (r, &h->frame_id, "header.frame_id"))
    return FALSE;
  h->stamp = rc_time_ns (sec, nsec);
  return TRUE;
}

/* Reads the message @data (named @what in errors) into the zeroed @msg of
 * @msg_size bytes with @read; on failure, frees what it read with @clear. */
static gboolean
parse_message (const guint8 * data, gsize size, const gchar * what,
    gpointer msg, gsize msg_size, gboolean (*read) (FieldReader *, gpointer),
    GDestroyNotify clear, GError ** error)
{
  FieldReader r = { data, size, what, error };

  memset (msg, 0, msg_size);
  if (read (&r, msg))
    return TRUE;
  clear (msg);
  return FALSE;
}

gboolean
rc_ros1_parse_header (const guint8 * data, gsize size, RcRosHeader * header,
    GError ** error)
{
  FieldReader r = { data, size, "message", error };

  memset (header, 0, sizeof (*header));
  return read_header (&r, header);
}

static gboolean
read_point_cloud2 (FieldReader * r, gpointer out)
{
  RcPointCloud2 *msg = out;
  guint32 n_fields;
  guint8 b;
  const guint8 *bytes;

  if (!read_header (r, &msg->header) ||
      !read_u32 (r, &msg->height, "height") ||
      !read_u32 (r, &msg->width, "width") ||
      !read_u32 (r, &n_fields, "fields") ||
      /* each field takes at least 13 bytes */
      !need (r, (guint64) n_fields * 13, "fields"))
    return FALSE;
  msg->fields = g_new0 (RcPointField, MAX (n_fields, 1));
  for (guint32 i = 0; i < n_fields; i++) {
    RcPointField *f = &msg->fields[i];
    if (!read_string (r, &f->name, "fields.name"))
      return FALSE;
    msg->n_fields = i + 1;
    if (!read_u32 (r, &f->offset, "fields.offset") ||
        !read_u8 (r, &f->datatype, "fields.datatype") ||
        !read_u32 (r, &f->count, "fields.count"))
      return FALSE;
  }
  if (!read_u8 (r, &b, "is_bigendian"))
    return FALSE;
  msg->is_bigendian = b != 0;
  if (!read_u32 (r, &msg->point_step, "point_step") ||
      !read_u32 (r, &msg->row_step, "row_step") ||
      !read_bytes (r, &bytes, &msg->data_size, "data") ||
      !read_u8 (r, &b, "is_dense"))
    return FALSE;
  msg->data = bytes;
  msg->is_dense = b != 0;
  return TRUE;
}

gboolean
rc_ros1_parse_point_cloud2 (const guint8 * data, gsize size,
    RcPointCloud2 * msg, GError ** error)
{
  return parse_message (data, size, "PointCloud2", msg, sizeof (*msg),
      read_point_cloud2, (GDestroyNotify) rc_ros_point_cloud2_clear, error);
}

static gboolean
read_joint_state (FieldReader * r, gpointer out)
{
  RcJointState *msg = out;
  guint32 n_names;

  if (!read_header (r, &msg->header) ||
      !read_u32 (r, &n_names, "name") ||
      !need (r, (guint64) n_names * 4, "name"))
    return FALSE;
  msg->names = g_new0 (gchar *, n_names + 1);
  for (guint32 i = 0; i < n_names; i++) {
    if (!read_string (r, &msg->names[i], "name"))
      return FALSE;
    msg->n_names = i + 1;
  }
  if (!read_doubles (r, &msg->position, &msg->n_position, "position") ||
      !read_doubles (r, &msg->velocity, &msg->n_velocity, "velocity") ||
      !read_doubles (r, &msg->effort, &msg->n_effort, "effort"))
    return FALSE;
  return TRUE;
}

gboolean
rc_ros1_parse_joint_state (const guint8 * data, gsize size, RcJointState * msg,
    GError ** error)
{
  return parse_message (data, size, "JointState", msg, sizeof (*msg),
      read_joint_state, (GDestroyNotify) rc_ros_joint_state_clear, error);
}

static gboolean
read_image (FieldReader * r, gpointer out)
{
  RcImage *msg = out;
  guint8 b;
  const guint8 *bytes;

  if (!read_header (r, &msg->header) ||
      !read_u32 (r, &msg->height, "height") ||
      !read_u32 (r, &msg->width, "width") ||
      !read_string (r, &msg->encoding, "encoding") ||
      !read_u8 (r, &b, "is_bigendian") ||
      !read_u32 (r, &msg->step, "step") ||
      !read_bytes (r, &bytes, &msg->data_size, "data"))
    return FALSE;
  msg->is_bigendian = b != 0;
  msg->data = bytes;
  return TRUE;
}

gboolean
rc_ros1_parse_image (const guint8 * data, gsize size, RcImage * msg,
    GError ** error)
{
  return parse_message (data, size, "Image", msg, sizeof (*msg), read_image,
      (GDestroyNotify) rc_ros_image_clear, error);
}

static gboolean
read_compressed_image (FieldReader * r, gpointer out)
{
  RcCompressedImage *msg = out;

  return read_header (r, &msg->header) &&
      read_string (r, &msg->format, "format") &&
      read_bytes (r, &msg->data, &msg->data_size, "data");
}

gboolean
rc_ros1_parse_compressed_image (const guint8 * data, gsize size,
    RcCompressedImage * msg, GError ** error)
{
  return parse_message (data, size, "CompressedImage", msg, sizeof (*msg),
      read_compressed_image, (GDestroyNotify) rc_ros_compressed_image_clear,
      error);
}
