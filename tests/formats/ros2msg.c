/* The ROS 2 CDR decoders (gst/formats/ros2msg.h) on messages written by the
 * test encoder (cdrencoder.h) from random values, in both byte orders,
 * with the definitions of ros2types.h and with schemas that add, reorder
 * and nest fields.  The walker's cursor and the bad inputs are in
 * ros2msg-walker.c and ros2msg-bad.c.  GLib only. */
#include <glib.h>
#include <string.h>

#include "formats/cdr.h"
#include "formats/ros2msg.h"
#include "cdrencoder.h"
#include "ros2msg-tests.h"

#define SEC G_GUINT64_CONSTANT (1000000000)

/* *INDENT-OFF* */
/* PointCloud2 with fields before, between and after the real ones: a
 * uint8 before a float64, a bounded string before a bool, a nested type
 * holding a fixed array of another and an empty one, fixed and bounded
 * arrays, constants, defaults, comments, both MSG name forms. */
const gchar extended_cloud_schema[] =
    "# A PointCloud2 with extra fields\n"
    "std_msgs/Header header\n"
    "uint8 flag_before\n"
    "float64 gain 1.5   # a default value\n"
    "uint32 height\n"
    "uint32 width\n"
    "sensor_msgs/msg/PointField[] fields\n"
    "string<=16 label \"none\"\n"
    "bool is_bigendian\n"
    "uint32 point_step\n"
    "uint32 row_step\n"
    "Extra extra\n"
    "uint8[] data\n"
    "int16[3] triple\n"
    "float64[<=4] bounded\n"
    "bool is_dense\n"
    "string[] notes\n"
    "uint8 CONSTANT=3\n"
    "string NAME = \"x # y\"\n"
    "================================================================\n"
    "MSG: std_msgs/msg/Header\n"
    "builtin_interfaces/msg/Time stamp\n"
    "string frame_id\n"
    "================================================================\n"
    "MSG: builtin_interfaces/Time\n"
    "int32 sec\n"
    "uint32 nanosec\n"
    "================================================================\n"
    "MSG: sensor_msgs/PointField\n"
    "uint8 INT8 = 1\n"
    "string name\n"
    "uint32 offset\n"
    "uint8 datatype\n"
    "uint32 count\n"
    "===\n"
    "MSG: sensor_msgs/Extra\n"
    "int8 a\n"
    "Inner[2] inners\n"
    "std_msgs/Empty e\n"
    "===\n"
    "MSG: sensor_msgs/msg/Inner\n"
    "char c\n"
    "float64 d\n"
    "string s\n"
    "uint64 big\n"
    "===\n"
    "MSG: std_msgs/Empty\n";

/* JointState reordered, a bare Header, a bounded name sequence, a uint8
 * between the float64 arrays, CRLF line ends. */
static const gchar reordered_joint_schema[] =
    "Header header\r\n"
    "string<=32[<=10] name\r\n"
    "float64[] effort\r\n"
    "float64[] position\r\n"
    "uint8 mode\r\n"
    "float64[] velocity\r\n"
    "===\r\n"
    "MSG: std_msgs/Header\r\n"
    "builtin_interfaces/Time stamp\r\n"
    "string frame_id\r\n"
    "===\r\n"
    "MSG: builtin_interfaces/Time\r\n"
    "int32 sec\r\n"
    "uint32 nanosec\r\n";
/* *INDENT-ON* */

gpointer
random_bytes (gsize n)
{
  guint8 *bytes = g_malloc (MAX (n, 1));

  for (gsize i = 0; i < n; i++)
    bytes[i] = g_test_rand_int ();
  return bytes;
}

void
random_header (RcRosHeader * h, guint frame_len)
{
  h->seq = 0;
  h->stamp = g_test_rand_int_range (0, G_MAXINT32) * SEC +
      g_test_rand_int_range (0, SEC);
  h->frame_id = random_string (frame_len);
}

void
encode_header (CdrEncoder * c, const RcRosHeader * h)
{
  cdr_u32 (c, h->stamp / SEC);
  cdr_u32 (c, h->stamp % SEC);
  cdr_string (c, h->frame_id);
}

static void
check_header (const RcRosHeader * got, const RcRosHeader * want)
{
  g_assert_cmpuint (got->seq, ==, 0);
  g_assert_cmpuint (got->stamp, ==, want->stamp);
  g_assert_cmpstr (got->frame_id, ==, want->frame_id);
}

/* Points into @msg, with @want's bytes. */
static void
check_data (const guint8 * got, guint32 got_size, const guint8 * want,
    guint32 want_size, const guint8 * msg, gsize msg_size)
{
  g_assert_cmpuint (got_size, ==, want_size);
  g_assert_true (got >= msg && got + got_size <= msg + msg_size);
  g_assert_cmpmem (got, got_size, want, want_size);
}

/* A cloud of random values; its data is allocated (free it with
 * free_cloud). */
void
random_cloud (RcPointCloud2 * m, guint frame_len)
{
  memset (m, 0, sizeof (*m));
  random_header (&m->header, frame_len);
  m->height = g_test_rand_int_range (1, 5);
  m->width = g_test_rand_int_range (0, 100);
  m->n_fields = g_test_rand_int_range (0, 5);
  m->fields = g_new0 (RcPointField, MAX (m->n_fields, 1));
  for (guint i = 0; i < m->n_fields; i++) {
    m->fields[i].name = random_string (g_test_rand_int_range (0, 9));
    m->fields[i].offset = g_test_rand_int ();
    m->fields[i].datatype = g_test_rand_int_range (1, 9);
    m->fields[i].count = g_test_rand_int_range (1, 5);
  }
  m->is_bigendian = g_test_rand_bit ();
  m->point_step = g_test_rand_int ();
  m->row_step = g_test_rand_int ();
  m->data_size = g_test_rand_int_range (0, 300);
  m->data = random_bytes (m->data_size);
  m->is_dense = g_test_rand_bit ();
}

void
free_cloud (RcPointCloud2 * m)
{
  g_free ((gpointer) m->data);
  rc_ros_point_cloud2_clear (m);
}

/* The extra fields of extended_cloud_schema, random. */
static void
encode_extra (CdrEncoder * c, guint part)
{
  gchar *s;

  if (part == 0) {              /* flag_before, gain */
    cdr_u8 (c, g_test_rand_int ());
    cdr_f64 (c, g_test_rand_double ());
  } else if (part == 1) {       /* label */
    s = random_string (g_test_rand_int_range (0, 17));
    cdr_string (c, s);
    g_free (s);
  } else if (part == 2) {       /* extra: a, inners[2], e */
    cdr_u8 (c, g_test_rand_int ());
    for (guint i = 0; i < 2; i++) {
      cdr_u8 (c, g_test_rand_int ());
      cdr_f64 (c, g_test_rand_double ());
      s = random_string (g_test_rand_int_range (0, 8));
      cdr_string (c, s);
      g_free (s);
      cdr_put (c, ((guint64) g_test_rand_int () << 32) | g_test_rand_int (), 8);
    }
    cdr_u8 (c, 0);              /* the empty type's dummy member */
  } else if (part == 3) {       /* triple, bounded */
    guint32 n = g_test_rand_int_range (0, 5);

    for (guint i = 0; i < 3; i++)
      cdr_put (c, g_test_rand_int (), 2);
    cdr_u32 (c, n);
    for (guint i = 0; i < n; i++)
      cdr_f64 (c, g_test_rand_double ());
  } else {                      /* notes */
    guint32 n = g_test_rand_int_range (0, 4);

    cdr_u32 (c, n);
    for (guint i = 0; i < n; i++) {
      s = random_string (g_test_rand_int_range (0, 8));
      cdr_string (c, s);
      g_free (s);
    }
  }
}

guint8 *
encode_cloud (const RcPointCloud2 * m, gboolean big_endian, gboolean extended,
    gsize * size)
{
  CdrEncoder c;

  cdr_begin (&c, big_endian);
  encode_header (&c, &m->header);
  if (extended)
    encode_extra (&c, 0);
  cdr_u32 (&c, m->height);
  cdr_u32 (&c, m->width);
  cdr_u32 (&c, m->n_fields);
  for (guint i = 0; i < m->n_fields; i++) {
    cdr_string (&c, m->fields[i].name);
    cdr_u32 (&c, m->fields[i].offset);
    cdr_u8 (&c, m->fields[i].datatype);
    cdr_u32 (&c, m->fields[i].count);
  }
  if (extended)
    encode_extra (&c, 1);
  cdr_u8 (&c, m->is_bigendian);
  cdr_u32 (&c, m->point_step);
  cdr_u32 (&c, m->row_step);
  if (extended)
    encode_extra (&c, 2);
  cdr_seq (&c, m->data, m->data_size, 1);
  if (extended)
    encode_extra (&c, 3);
  cdr_u8 (&c, m->is_dense);
  if (extended)
    encode_extra (&c, 4);
  return cdr_end (&c, size);
}

static void
check_cloud (const RcPointCloud2 * got, const RcPointCloud2 * want,
    const guint8 * msg, gsize size)
{
  check_header (&got->header, &want->header);
  g_assert_cmpuint (got->height, ==, want->height);
  g_assert_cmpuint (got->width, ==, want->width);
  g_assert_cmpuint (got->n_fields, ==, want->n_fields);
  for (guint i = 0; i < want->n_fields; i++) {
    g_assert_cmpstr (got->fields[i].name, ==, want->fields[i].name);
    g_assert_cmpuint (got->fields[i].offset, ==, want->fields[i].offset);
    g_assert_cmpuint (got->fields[i].datatype, ==, want->fields[i].datatype);
    g_assert_cmpuint (got->fields[i].count, ==, want->fields[i].count);
  }
  g_assert_cmpint (got->is_bigendian, ==, want->is_bigendian);
  g_assert_cmpuint (got->point_step, ==, want->point_step);
  g_assert_cmpuint (got->row_step, ==, want->row_step);
  check_data (got->data, got->data_size, want->data, want->data_size, msg,
      size);
  g_assert_cmpint (got->is_dense, ==, want->is_dense);
}

RcRos2Decoder *
new_decoder (const gchar * type, const gchar * schema)
{
  GError *error = NULL;
  RcRos2Decoder *decoder = rc_ros2_decoder_new (type, "ros2msg", schema,
      schema ? strlen (schema) : 0, &error);

  g_assert_no_error (error);
  g_assert_nonnull (decoder);
  return decoder;
}

/* Frame ids of 0 to 7 bytes put height at every alignment; the whole
 * message is walked to its last byte. */
static void
test_point_cloud2 (gconstpointer extended)
{
  RcRos2Decoder *decoder = new_decoder ("sensor_msgs/PointCloud2", extended ?
      extended_cloud_schema : NULL);
  const gchar *text = extended ? extended_cloud_schema :
      rc_ros2_type_definition (RC_ROS2_TYPE_POINT_CLOUD2);
  RcMsgSchema *schema = rc_msg_schema_parse (RC_ROS2_TYPE_POINT_CLOUD2, text,
      strlen (text), NULL);
  const RcMsgType *root;

  root = rc_msg_schema_root (schema);
  for (guint round = 0; round < 64; round++) {
    RcPointCloud2 want, got;
    GError *error = NULL;
    gsize size, used;
    guint8 *msg;

    random_cloud (&want, round % 8);
    msg = encode_cloud (&want, round & 8, extended != NULL, &size);
    g_assert_true (rc_ros2_parse_point_cloud2 (decoder, msg, size, &got,
            &error));
    g_assert_no_error (error);
    check_cloud (&got, &want, msg, size);
    g_assert_true (rc_cdr_walk (root, msg, size, &used, &error));
    g_assert_cmpuint (used, ==, size);
    rc_ros_point_cloud2_clear (&got);
    free_cloud (&want);
    g_free (msg);
  }
  rc_msg_schema_free (schema);
  rc_ros2_decoder_free (decoder);
}

void
random_joints (RcJointState * m, guint frame_len)
{
  gdouble **arrays[] = { &m->position, &m->velocity, &m->effort };
  guint *counts[] = { &m->n_position, &m->n_velocity, &m->n_effort };

  memset (m, 0, sizeof (*m));
  random_header (&m->header, frame_len);
  m->n_names = g_test_rand_int_range (0, 8);
  m->names = g_new0 (gchar *, m->n_names + 1);
  for (guint i = 0; i < m->n_names; i++)
    m->names[i] = random_string (g_test_rand_int_range (0, 12));
  for (guint a = 0; a < 3; a++) {
    *counts[a] = g_test_rand_int_range (0, 8);
    *arrays[a] = *counts[a] ? g_new (gdouble, *counts[a]) : NULL;
    for (guint i = 0; i < *counts[a]; i++)
      (*arrays[a])[i] = g_test_rand_double_range (-1e6, 1e6);
  }
}

guint8 *
encode_joints (const RcJointState * m, gboolean big_endian,
    gboolean reordered, gsize * size)
{
  CdrEncoder c;

  cdr_begin (&c, big_endian);
  encode_header (&c, &m->header);
  cdr_u32 (&c, m->n_names);
  for (guint i = 0; i < m->n_names; i++)
    cdr_string (&c, m->names[i]);
  if (reordered) {
    cdr_seq (&c, m->effort, m->n_effort, 8);
    cdr_seq (&c, m->position, m->n_position, 8);
    cdr_u8 (&c, g_test_rand_int ());
    cdr_seq (&c, m->velocity, m->n_velocity, 8);
  } else {
    cdr_seq (&c, m->position, m->n_position, 8);
    cdr_seq (&c, m->velocity, m->n_velocity, 8);
    cdr_seq (&c, m->effort, m->n_effort, 8);
  }
  return cdr_end (&c, size);
}

static void
check_doubles (const gdouble * got, guint n_got, const gdouble * want,
    guint n_want)
{
  g_assert_cmpuint (n_got, ==, n_want);
  g_assert_true ((got == NULL) == (n_want == 0));
  for (guint i = 0; i < n_want; i++)
    g_assert_cmpfloat (got[i], ==, want[i]);
}

static void
test_joint_state (gconstpointer reordered)
{
  RcRos2Decoder *decoder = new_decoder (RC_ROS2_TYPE_JOINT_STATE, reordered ?
      reordered_joint_schema : NULL);

  for (guint round = 0; round < 64; round++) {
    RcJointState want, got;
    GError *error = NULL;
    gsize size;
    guint8 *msg;

    random_joints (&want, round % 8);
    msg = encode_joints (&want, round & 8, reordered != NULL, &size);
    g_assert_true (rc_ros2_parse_joint_state (decoder, msg, size, &got,
            &error));
    g_assert_no_error (error);
    check_header (&got.header, &want.header);
    g_assert_cmpuint (got.n_names, ==, want.n_names);
    g_assert_cmpuint (g_strv_length (got.names), ==, want.n_names);
    for (guint i = 0; i < want.n_names; i++)
      g_assert_cmpstr (got.names[i], ==, want.names[i]);
    check_doubles (got.position, got.n_position, want.position,
        want.n_position);
    check_doubles (got.velocity, got.n_velocity, want.velocity,
        want.n_velocity);
    check_doubles (got.effort, got.n_effort, want.effort, want.n_effort);
    rc_ros_joint_state_clear (&got);
    rc_ros_joint_state_clear (&want);
    g_free (msg);
  }
  rc_ros2_decoder_free (decoder);
}

void
random_image (RcImage * m, guint frame_len)
{
  memset (m, 0, sizeof (*m));
  random_header (&m->header, frame_len);
  m->height = g_test_rand_int_range (0, 20);
  m->width = g_test_rand_int_range (0, 20);
  m->encoding = random_string (g_test_rand_int_range (0, 10));
  m->is_bigendian = g_test_rand_bit ();
  m->step = g_test_rand_int ();
  m->data_size = g_test_rand_int_range (0, 400);
  m->data = random_bytes (m->data_size);
}

guint8 *
encode_image (const RcImage * m, gboolean big_endian, gsize * size)
{
  CdrEncoder c;

  cdr_begin (&c, big_endian);
  encode_header (&c, &m->header);
  cdr_u32 (&c, m->height);
  cdr_u32 (&c, m->width);
  cdr_string (&c, m->encoding);
  cdr_u8 (&c, m->is_bigendian);
  cdr_u32 (&c, m->step);
  cdr_seq (&c, m->data, m->data_size, 1);
  return cdr_end (&c, size);
}

static void
test_image (void)
{
  RcRos2Decoder *decoder = new_decoder ("sensor_msgs/Image", NULL);

  for (guint round = 0; round < 64; round++) {
    RcImage want, got;
    GError *error = NULL;
    gsize size;
    guint8 *msg;

    random_image (&want, round % 8);
    msg = encode_image (&want, round & 8, &size);
    g_assert_true (rc_ros2_parse_image (decoder, msg, size, &got, &error));
    g_assert_no_error (error);
    check_header (&got.header, &want.header);
    g_assert_cmpuint (got.height, ==, want.height);
    g_assert_cmpuint (got.width, ==, want.width);
    g_assert_cmpstr (got.encoding, ==, want.encoding);
    g_assert_cmpint (got.is_bigendian, ==, want.is_bigendian);
    g_assert_cmpuint (got.step, ==, want.step);
    check_data (got.data, got.data_size, want.data, want.data_size, msg, size);
    rc_ros_image_clear (&got);
    g_free ((gpointer) want.data);
    rc_ros_image_clear (&want);
    g_free (msg);
  }
  rc_ros2_decoder_free (decoder);
}

/* rc_ros2_parse_header on each type, and a stamp before the epoch
 * clamped to 0. */
static void
test_header (void)
{
  RcRos2Decoder *decoder = new_decoder (RC_ROS2_TYPE_IMAGE, NULL);
  RcImage image;
  RcRosHeader got;
  CdrEncoder c;
  gsize size;
  guint8 *msg;

  random_image (&image, 5);
  msg = encode_image (&image, TRUE, &size);
  g_assert_true (rc_ros2_parse_header (decoder, msg, size, &got, NULL));
  check_header (&got, &image.header);
  rc_ros_header_clear (&got);
  g_free (msg);

  cdr_begin (&c, FALSE);
  cdr_u32 (&c, (guint32) - 3);  /* sec = -3 */
  cdr_u32 (&c, 500);
  cdr_string (&c, image.header.frame_id);
  msg = cdr_end (&c, &size);
  g_assert_true (rc_ros2_parse_header (decoder, msg, size, &got, NULL));
  g_assert_cmpuint (got.stamp, ==, 0);
  g_assert_cmpstr (got.frame_id, ==, image.header.frame_id);
  rc_ros_header_clear (&got);
  g_free (msg);
  g_free ((gpointer) image.data);
  rc_ros_image_clear (&image);
  rc_ros2_decoder_free (decoder);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_data_func ("/ros2msg/point-cloud2", NULL, test_point_cloud2);
  g_test_add_data_func ("/ros2msg/point-cloud2-extended", "",
      test_point_cloud2);
  g_test_add_data_func ("/ros2msg/joint-state", NULL, test_joint_state);
  g_test_add_data_func ("/ros2msg/joint-state-reordered", "", test_joint_state);
  g_test_add_func ("/ros2msg/image", test_image);
  g_test_add_func ("/ros2msg/header", test_header);
  add_walker_tests ();
  add_schema_tests ();
  add_bad_message_tests ();
  return g_test_run ();
}
