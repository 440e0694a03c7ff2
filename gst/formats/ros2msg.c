/* The ROS 2 decoders of ros2msg.h: each message type is a table of the
 * fields it needs (name, accepted types, how to read it, where it goes in
 * the struct); read_struct walks the schema's fields in order, reads those
 * of the table and skips the others with the generic walker. */
#include "ros2msg.h"
#include "cdr.h"
#include "reader-impl.h"

#include <string.h>

struct _RcRos2Decoder
{
  gchar *type;                  /* "pkg/msg/Name" */
  RcMsgSchema *schema;
};

/* Reads @field into @value (and an array's length into @count), both in
 * the struct being filled. */
typedef gboolean (*ReadFunc) (RcCdrReader * r, const RcMsgField * field,
    gpointer value, gpointer count, GError ** error);

typedef struct
{
  const gchar *name;
  /* The types accepted as rc_msg_field_type_string writes them without
   * bounds, '|' between them. */
  const gchar *types;
  ReadFunc read;
  gsize offset, count_offset;
} WantedField;

#define WANT(name, types, read, type, member) \
  {name, types, read, G_STRUCT_OFFSET (type, member), 0}
#define WANT_ARRAY(name, types, read, type, member, count) \
  {name, types, read, G_STRUCT_OFFSET (type, member), \
   G_STRUCT_OFFSET (type, count)}

G_STATIC_ASSERT (sizeof (guint) == sizeof (guint32));

static gboolean
accepts (const gchar * types, const RcMsgField * field)
{
  gchar *type = rc_msg_field_type_string (field, FALSE);
  gsize len = strlen (type);
  gboolean ok = FALSE;

  for (const gchar * t = types; t && !ok;) {
    ok = !strncmp (t, type, len) && (t[len] == '\0' || t[len] == '|');
    t = strchr (t, '|');
    t = t ? t + 1 : NULL;
  }
  g_free (type);
  return ok;
}

static gboolean
wrong_type (const RcMsgType * type, const RcMsgField * field,
    const WantedField * wanted, GError ** error)
{
  gchar *is = rc_msg_field_type_string (field, TRUE);
  gchar *expected = g_strdelimit (g_strdup (wanted->types), "|", '/');

  rc_reader_fail (error, RC_READER_ERROR_UNSUPPORTED, ": field '%s' of %s is "
      "%s, not %s", field->name, type->name, is, expected);
  g_free (is);
  g_free (expected);
  return FALSE;
}

/* Reads the fields of @type that @wanted lists into @out, skipping the
 * others; all must be found. */
static gboolean
read_struct (RcCdrReader * r, const RcMsgType * type,
    const WantedField * wanted, guint n_wanted, gpointer out, GError ** error)
{
  guint32 seen = 0, all = (1u << n_wanted) - 1;
  guint w;

  for (guint i = 0; i < type->n_fields && seen != all; i++) {
    const RcMsgField *field = &type->fields[i];

    for (w = 0; w < n_wanted && strcmp (wanted[w].name, field->name); w++);
    if (w == n_wanted || (seen & (1u << w))) {
      if (!rc_cdr_skip_field (r, field, error))
        return FALSE;
      continue;
    }
    if (!accepts (wanted[w].types, field))
      return wrong_type (type, field, &wanted[w], error);
    if (!wanted[w].read (r, field, (guint8 *) out + wanted[w].offset,
            (guint8 *) out + wanted[w].count_offset, error)) {
      rc_cdr_prefix_error (error, field->name, -1);
      return FALSE;
    }
    seen |= 1u << w;
  }
  for (w = 0; w < n_wanted; w++)
    if (!(seen & (1u << w)))
      return rc_reader_fail (error, RC_READER_ERROR_UNSUPPORTED, ": %s has "
          "no field '%s' (%s)", type->name, wanted[w].name, wanted[w].types);
  return TRUE;
}

/* The readers of primitives differ only in the C type they store the bits
 * read as. */
#define DEFINE_PRIMITIVE_READER(name, Type, bits_to_value) \
static gboolean \
name (RcCdrReader * r, const RcMsgField * field, gpointer value, \
    gpointer count, GError ** error) \
{ \
  guint64 bits; \
  \
  if (!rc_cdr_read_primitive (r, field->kind, &bits, error)) \
    return FALSE; \
  *(Type *) value = bits_to_value; \
  return TRUE; \
}

/* *INDENT-OFF* */
/* Any primitive of 4 bytes (uint32, int32) as its bits. */
DEFINE_PRIMITIVE_READER (read_word, guint32, bits)
DEFINE_PRIMITIVE_READER (read_byte, guint8, bits)
DEFINE_PRIMITIVE_READER (read_flag, gboolean, bits != 0)
/* *INDENT-ON* */

static gboolean
read_string (RcCdrReader * r, const RcMsgField * field, gpointer value,
    gpointer count, GError ** error)
{
  const gchar *chars;
  guint32 length;

  if (!rc_cdr_read_string (r, field->string_bound, &chars, &length, error))
    return FALSE;
  *(gchar **) value = g_strndup (chars, length);
  return TRUE;
}

/* uint8[]: a pointer into the message. */
static gboolean
read_bytes (RcCdrReader * r, const RcMsgField * field, gpointer value,
    gpointer count, GError ** error)
{
  guint32 n;

  if (!rc_cdr_read_length (r, field, &n, error) ||
      !rc_cdr_read_primitives (r, field->kind, n, (const guint8 **) value,
          error))
    return FALSE;
  *(guint32 *) count = n;
  return TRUE;
}

/* float64[]: copied in host order; NULL when empty. */
static gboolean
read_doubles (RcCdrReader * r, const RcMsgField * field, gpointer value,
    gpointer count, GError ** error)
{
  const guint8 *bytes;
  gdouble *doubles = NULL;
  guint32 n;

  if (!rc_cdr_read_length (r, field, &n, error) ||
      !rc_cdr_read_primitives (r, RC_MSG_FLOAT64, n, &bytes, error))
    return FALSE;
  if (n)
    doubles = g_new (gdouble, n);
  for (guint32 i = 0; i < n; i++) {
    guint64 bits;

    memcpy (&bits, bytes + (gsize) i * 8, 8);
    bits = r->big_endian ? GUINT64_FROM_BE (bits) : GUINT64_FROM_LE (bits);
    memcpy (&doubles[i], &bits, 8);
  }
  *(gdouble **) value = doubles;
  *(guint32 *) count = n;
  return TRUE;
}

/* string[]: a NULL-terminated array, freed with g_strfreev. */
static gboolean
read_strings (RcCdrReader * r, const RcMsgField * field, gpointer value,
    gpointer count, GError ** error)
{
  gchar **strings;
  guint32 n;

  if (!rc_cdr_read_length (r, field, &n, error))
    return FALSE;
  strings = g_new0 (gchar *, (gsize) n + 1);
  *(gchar ***) value = strings;
  for (guint32 i = 0; i < n; i++) {
    if (!read_string (r, field, &strings[i], NULL, error)) {
      rc_cdr_prefix_error (error, NULL, i);
      return FALSE;
    }
    *(guint32 *) count = i + 1;
  }
  return TRUE;
}

/* builtin_interfaces/Time, its sec signed. */
typedef struct
{
  guint32 sec, nanosec;
} Stamp;

/* *INDENT-OFF* */
static const WantedField stamp_fields[] = {
  WANT ("sec", "int32", read_word, Stamp, sec),
  WANT ("nanosec", "uint32", read_word, Stamp, nanosec),
};
/* *INDENT-ON* */

/* A stamp in ns, clamped to 0 before the epoch. */
static gboolean
read_stamp (RcCdrReader * r, const RcMsgField * field, gpointer value,
    gpointer count, GError ** error)
{
  Stamp stamp;
  gint64 ns;

  if (!read_struct (r, field->type, stamp_fields,
          G_N_ELEMENTS (stamp_fields), &stamp, error))
    return FALSE;
  ns = (gint64) (gint32) stamp.sec * G_GINT64_CONSTANT (1000000000) +
      stamp.nanosec;
  *(guint64 *) value = MAX (ns, 0);
  return TRUE;
}

/* *INDENT-OFF* */
static const WantedField header_fields[] = {
  WANT ("stamp", "builtin_interfaces/msg/Time", read_stamp, RcRosHeader,
      stamp),
  WANT ("frame_id", "string", read_string, RcRosHeader, frame_id),
};
/* *INDENT-ON* */

static gboolean
read_header (RcCdrReader * r, const RcMsgField * field, gpointer value,
    gpointer count, GError ** error)
{
  return read_struct (r, field->type, header_fields,
      G_N_ELEMENTS (header_fields), value, error);
}

/* *INDENT-OFF* */
static const WantedField point_field_fields[] = {
  WANT ("name", "string", read_string, RcPointField, name),
  WANT ("offset", "uint32", read_word, RcPointField, offset),
  WANT ("datatype", "uint8", read_byte, RcPointField, datatype),
  WANT ("count", "uint32", read_word, RcPointField, count),
};
/* *INDENT-ON* */

/* sensor_msgs/PointField[]: counted as they are read, so that
 * rc_ros_point_cloud2_clear frees what a failure leaves. */
static gboolean
read_point_fields (RcCdrReader * r, const RcMsgField * field, gpointer value,
    gpointer count, GError ** error)
{
  RcPointField *fields;
  guint32 n;

  if (!rc_cdr_read_length (r, field, &n, error))
    return FALSE;
  fields = g_new0 (RcPointField, MAX (n, 1));
  *(RcPointField **) value = fields;
  for (guint32 i = 0; i < n; i++) {
    *(guint32 *) count = i + 1;
    if (!read_struct (r, field->type, point_field_fields,
            G_N_ELEMENTS (point_field_fields), &fields[i], error)) {
      rc_cdr_prefix_error (error, NULL, i);
      return FALSE;
    }
  }
  return TRUE;
}

/* *INDENT-OFF* */
#define HEADER_FIELD(type) \
  WANT ("header", "std_msgs/msg/Header", read_header, type, header)

static const WantedField header_only[] = {
  {"header", "std_msgs/msg/Header", read_header, 0, 0},
};

static const WantedField point_cloud2_fields[] = {
  HEADER_FIELD (RcPointCloud2),
  WANT ("height", "uint32", read_word, RcPointCloud2, height),
  WANT ("width", "uint32", read_word, RcPointCloud2, width),
  WANT_ARRAY ("fields", "sensor_msgs/msg/PointField[]", read_point_fields,
      RcPointCloud2, fields, n_fields),
  WANT ("is_bigendian", "bool|uint8", read_flag, RcPointCloud2,
      is_bigendian),
  WANT ("point_step", "uint32", read_word, RcPointCloud2, point_step),
  WANT ("row_step", "uint32", read_word, RcPointCloud2, row_step),
  WANT_ARRAY ("data", "uint8[]|byte[]", read_bytes, RcPointCloud2, data,
      data_size),
  WANT ("is_dense", "bool|uint8", read_flag, RcPointCloud2, is_dense),
};

static const WantedField joint_state_fields[] = {
  HEADER_FIELD (RcJointState),
  WANT_ARRAY ("name", "string[]", read_strings, RcJointState, names,
      n_names),
  WANT_ARRAY ("position", "float64[]", read_doubles, RcJointState, position,
      n_position),
  WANT_ARRAY ("velocity", "float64[]", read_doubles, RcJointState, velocity,
      n_velocity),
  WANT_ARRAY ("effort", "float64[]", read_doubles, RcJointState, effort,
      n_effort),
};

static const WantedField image_fields[] = {
  HEADER_FIELD (RcImage),
  WANT ("height", "uint32", read_word, RcImage, height),
  WANT ("width", "uint32", read_word, RcImage, width),
  WANT ("encoding", "string", read_string, RcImage, encoding),
  WANT ("is_bigendian", "uint8|bool", read_flag, RcImage, is_bigendian),
  WANT ("step", "uint32", read_word, RcImage, step),
  WANT_ARRAY ("data", "uint8[]|byte[]", read_bytes, RcImage, data,
      data_size),
};

static const WantedField compressed_image_fields[] = {
  HEADER_FIELD (RcCompressedImage),
  WANT ("format", "string", read_string, RcCompressedImage, format),
  WANT_ARRAY ("data", "uint8[]|byte[]", read_bytes, RcCompressedImage, data,
      data_size),
};
/* *INDENT-ON* */

RcRos2Decoder *
rc_ros2_decoder_new (const gchar * type, const gchar * schema_encoding,
    const gchar * schema, gsize schema_size, GError ** error)
{
  RcRos2Decoder *decoder;
  RcMsgSchema *parsed;
  gboolean stored = schema && schema_size > 0;

  g_return_val_if_fail (type != NULL, NULL);
  /* The CDR bytes of a type are the same whatever language its schema
   * was stored in, so the type's own definition reads them. */
  if (!stored || g_strcmp0 (schema_encoding, "ros2msg")) {
    schema = rc_ros2_type_definition (type);
    if (!schema && stored) {
      rc_reader_fail (error, RC_READER_ERROR_UNSUPPORTED, "%s: the file "
          "stores its schema in encoding \"%s\", which robocache does not "
          "read (only \"ros2msg\"), and robocache knows no definition of "
          "the type", type, schema_encoding ? schema_encoding : "(none)");
      return NULL;
    }
    if (!schema) {
      rc_reader_fail (error, RC_READER_ERROR_UNSUPPORTED, "%s: the file "
          "stores no schema and robocache knows no definition of it", type);
      return NULL;
    }
    schema_size = strlen (schema);
  }
  parsed = rc_msg_schema_parse (type, schema, schema_size, error);
  if (!parsed)
    return NULL;
  decoder = g_new0 (RcRos2Decoder, 1);
  decoder->type = rc_ros2_type_canonical (type);
  decoder->schema = parsed;
  return decoder;
}

void
rc_ros2_decoder_free (RcRos2Decoder * decoder)
{
  if (!decoder)
    return;
  rc_msg_schema_free (decoder->schema);
  g_free (decoder->type);
  g_free (decoder);
}

/* Reads the message @data into the zeroed @msg of @msg_size bytes by
 * @wanted; @type, when not NULL, is the type the decoder must have.  On
 * failure, @clear frees what was read and @msg is zeroed again. */
static gboolean
parse_message (const RcRos2Decoder * decoder, const gchar * type,
    const guint8 * data, gsize size, const WantedField * wanted,
    guint n_wanted, gpointer msg, gsize msg_size, GDestroyNotify clear,
    GError ** error)
{
  RcCdrReader reader;
  gchar *what;

  memset (msg, 0, msg_size);
  if (type && strcmp (decoder->type, type))
    return rc_reader_fail (error, RC_READER_ERROR_UNSUPPORTED, "a decoder of "
        "%s cannot read %s messages", decoder->type, type);
  if (rc_cdr_reader_init (&reader, data, size, error) &&
      read_struct (&reader, rc_msg_schema_root (decoder->schema), wanted,
          n_wanted, msg, error))
    return TRUE;
  what = g_strdup_printf ("%s message", decoder->type);
  rc_cdr_finish_error (error, what);
  g_free (what);
  clear (msg);
  memset (msg, 0, msg_size);
  return FALSE;
}

gboolean
rc_ros2_parse_header (const RcRos2Decoder * decoder, const guint8 * data,
    gsize size, RcRosHeader * header, GError ** error)
{
  return parse_message (decoder, NULL, data, size, header_only,
      G_N_ELEMENTS (header_only), header, sizeof (*header),
      (GDestroyNotify) rc_ros_header_clear, error);
}

gboolean
rc_ros2_parse_point_cloud2 (const RcRos2Decoder * decoder,
    const guint8 * data, gsize size, RcPointCloud2 * msg, GError ** error)
{
  return parse_message (decoder, RC_ROS2_TYPE_POINT_CLOUD2, data, size,
      point_cloud2_fields, G_N_ELEMENTS (point_cloud2_fields), msg,
      sizeof (*msg), (GDestroyNotify) rc_ros_point_cloud2_clear, error);
}

gboolean
rc_ros2_parse_joint_state (const RcRos2Decoder * decoder,
    const guint8 * data, gsize size, RcJointState * msg, GError ** error)
{
  return parse_message (decoder, RC_ROS2_TYPE_JOINT_STATE, data, size,
      joint_state_fields, G_N_ELEMENTS (joint_state_fields), msg,
      sizeof (*msg), (GDestroyNotify) rc_ros_joint_state_clear, error);
}

gboolean
rc_ros2_parse_image (const RcRos2Decoder * decoder, const guint8 * data,
    gsize size, RcImage * msg, GError ** error)
{
  return parse_message (decoder, RC_ROS2_TYPE_IMAGE, data, size,
      image_fields, G_N_ELEMENTS (image_fields), msg, sizeof (*msg),
      (GDestroyNotify) rc_ros_image_clear, error);
}

gboolean
rc_ros2_parse_compressed_image (const RcRos2Decoder * decoder,
    const guint8 * data, gsize size, RcCompressedImage * msg, GError ** error)
{
  return parse_message (decoder, RC_ROS2_TYPE_COMPRESSED_IMAGE, data, size,
      compressed_image_fields, G_N_ELEMENTS (compressed_image_fields), msg,
      sizeof (*msg), (GDestroyNotify) rc_ros_compressed_image_clear, error);
}
