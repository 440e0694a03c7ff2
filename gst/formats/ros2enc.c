/* CDR encoders of ros2enc.h. */
#include "ros2enc.h"

#include <string.h>

#define CDR_HEADER_SIZE 4

/* Pads @out with zeros so that the next field, of @align bytes, starts at
 * a multiple of @align counted from after the encapsulation header. */
static void
align_to (GByteArray * out, guint align)
{
  static const guint8 zeros[8] = { 0, };
  guint rem = (out->len - CDR_HEADER_SIZE) % align;

  if (rem)
    g_byte_array_append (out, zeros, align - rem);
}

static void
put_u8 (GByteArray * out, guint8 v)
{
  g_byte_array_append (out, &v, 1);
}

static void
put_u32 (GByteArray * out, guint32 v)
{
  align_to (out, 4);
  v = GUINT32_TO_LE (v);
  g_byte_array_append (out, (const guint8 *) &v, 4);
}

static void
put_string (GByteArray * out, const gchar * s)
{
  gsize len = s ? strlen (s) : 0;

  put_u32 (out, len + 1);
  if (len)
    g_byte_array_append (out, (const guint8 *) s, len);
  put_u8 (out, 0);
}

static void
put_bytes (GByteArray * out, const guint8 * data, guint32 size)
{
  put_u32 (out, size);
  if (size)
    g_byte_array_append (out, data, size);
}

static void
put_f64_sequence (GByteArray * out, const gdouble * values, guint n)
{
  put_u32 (out, n);
  if (n == 0)
    return;
  align_to (out, 8);
  for (guint i = 0; i < n; i++) {
    guint64 bits;

    memcpy (&bits, &values[i], 8);
    bits = GUINT64_TO_LE (bits);
    g_byte_array_append (out, (const guint8 *) &bits, 8);
  }
}

/* The encapsulation header, then std_msgs/Header (builtin_interfaces/Time
 * as int32 sec and uint32 nanosec, then frame_id). */
static void
begin_message (GByteArray * out, const RcRosHeader * header)
{
  static const guint8 encapsulation[CDR_HEADER_SIZE] = { 0x00, 0x01, 0, 0 };

  g_byte_array_set_size (out, 0);
  g_byte_array_append (out, encapsulation, CDR_HEADER_SIZE);
  put_u32 (out, (guint32) (gint32) (header->stamp / 1000000000));
  put_u32 (out, header->stamp % 1000000000);
  put_string (out, header->frame_id);
}

void
rc_ros2_encode_point_cloud2 (GByteArray * out, const RcPointCloud2 * msg)
{
  begin_message (out, &msg->header);
  put_u32 (out, msg->height);
  put_u32 (out, msg->width);
  put_u32 (out, msg->n_fields);
  for (guint i = 0; i < msg->n_fields; i++) {
    const RcPointField *f = &msg->fields[i];

    put_string (out, f->name);
    put_u32 (out, f->offset);
    put_u8 (out, f->datatype);
    put_u32 (out, f->count);
  }
  put_u8 (out, msg->is_bigendian ? 1 : 0);
  put_u32 (out, msg->point_step);
  put_u32 (out, msg->row_step);
  put_bytes (out, msg->data, msg->data_size);
  put_u8 (out, msg->is_dense ? 1 : 0);
}

void
rc_ros2_encode_joint_state (GByteArray * out, const RcJointState * msg)
{
  begin_message (out, &msg->header);
  put_u32 (out, msg->n_names);
  for (guint i = 0; i < msg->n_names; i++)
    put_string (out, msg->names[i]);
  put_f64_sequence (out, msg->position, msg->n_position);
  put_f64_sequence (out, msg->velocity, msg->n_velocity);
  put_f64_sequence (out, msg->effort, msg->n_effort);
}

void
rc_ros2_encode_compressed_image (GByteArray * out,
    const RcCompressedImage * msg)
{
  begin_message (out, &msg->header);
  put_string (out, msg->format);
  put_bytes (out, msg->data, msg->data_size);
}

void
rc_ros2_encode_image (GByteArray * out, const RcImage * msg)
{
  begin_message (out, &msg->header);
  put_u32 (out, msg->height);
  put_u32 (out, msg->width);
  put_string (out, msg->encoding);
  put_u8 (out, msg->is_bigendian ? 1 : 0);
  put_u32 (out, msg->step);
  put_bytes (out, msg->data, msg->data_size);
}
