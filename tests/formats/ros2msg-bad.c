/* The ROS 2 decoders on bad messages: truncated at every byte, huge
 * counts and lengths, bounds exceeded, other encapsulations, and schemas
 * that do not fit the parse function.  Each must fail with an error and
 * leave its struct cleared, never crash or allocate for a count. */
#include <glib.h>
#include <string.h>

#include "formats/cdr.h"
#include "ros2msg-tests.h"

typedef gboolean (*ParseFunc) (const RcRos2Decoder * decoder,
    const guint8 * data, gsize size, gpointer msg, GError ** error);

/* Parses @msg with @parse into a zone of @msg_size bytes filled with
 * garbage; expects @code (0: success) and, on failure, a zeroed zone. */
static void
expect (ParseFunc parse, gsize msg_size, const RcRos2Decoder * decoder,
    const guint8 * msg, gsize size, gint code, const gchar * message)
{
  guint8 *out = g_malloc (msg_size);
  GError *error = NULL;
  gboolean ok;

  memset (out, 0x5c, msg_size);
  ok = parse (decoder, msg, size, out, &error);
  if (code < 0) {
    g_assert_no_error (error);
    g_assert_true (ok);
    g_free (out);
    return;
  }
  g_assert_false (ok);
  g_assert_error (error, RC_READER_ERROR, code);
  if (message && !strstr (error->message, message))
    g_error ("'%s' does not say '%s'", error->message, message);
  for (gsize i = 0; i < msg_size; i++)
    g_assert_cmpuint (out[i], ==, 0);
  g_error_free (error);
  g_free (out);
}

#define OK (-1)
#define CLOUD (ParseFunc) rc_ros2_parse_point_cloud2, sizeof (RcPointCloud2)
#define JOINTS (ParseFunc) rc_ros2_parse_joint_state, sizeof (RcJointState)
#define IMAGE (ParseFunc) rc_ros2_parse_image, sizeof (RcImage)
#define HEADER (ParseFunc) rc_ros2_parse_header, sizeof (RcRosHeader)

/* Every prefix of @msg, copied so that a read past its end is caught by
 * the sanitizers and valgrind, must fail. */
static void
truncate_all (ParseFunc parse, gsize msg_size, const RcRos2Decoder * decoder,
    const guint8 * msg, gsize size)
{
  for (gsize cut = 0; cut < size; cut++) {
    guint8 *prefix = g_memdup2 (msg, cut);
    gpointer out = g_malloc (msg_size);
    GError *error = NULL;

    g_assert_false (parse (decoder, prefix, cut, out, &error));
    g_assert_true (error->code == RC_READER_ERROR_FORMAT);
    g_error_free (error);
    g_free (out);
    g_free (prefix);
  }
}

static void
test_truncated (void)
{
  RcRos2Decoder *cloud_decoder = new_decoder (RC_ROS2_TYPE_POINT_CLOUD2, NULL);
  RcRos2Decoder *joint_decoder = new_decoder (RC_ROS2_TYPE_JOINT_STATE, NULL);
  RcRos2Decoder *image_decoder = new_decoder (RC_ROS2_TYPE_IMAGE, NULL);

  for (guint round = 0; round < 4; round++) {
    RcPointCloud2 cloud;
    RcJointState joints;
    RcImage image;
    gsize size;
    guint8 *msg;

    random_cloud (&cloud, round * 2);
    msg = encode_cloud (&cloud, round & 1, FALSE, &size);
    truncate_all (CLOUD, cloud_decoder, msg, size);
    /* the header ends with the frame id's NUL */
    truncate_all (HEADER, cloud_decoder, msg, 17 + round * 2);
    g_free (msg);
    free_cloud (&cloud);

    random_joints (&joints, round);
    msg = encode_joints (&joints, round & 1, FALSE, &size);
    truncate_all (JOINTS, joint_decoder, msg, size);
    g_free (msg);
    rc_ros_joint_state_clear (&joints);

    random_image (&image, round);
    msg = encode_image (&image, round & 1, &size);
    truncate_all (IMAGE, image_decoder, msg, size);
    g_free ((gpointer) image.data);
    rc_ros_image_clear (&image);
    g_free (msg);
  }
  rc_ros2_decoder_free (cloud_decoder);
  rc_ros2_decoder_free (joint_decoder);
  rc_ros2_decoder_free (image_decoder);
}

/* The extended schema: the walk fails at every cut; the typed parse,
 * which stops after its last field, never crashes. */
static void
test_truncated_extended (void)
{
  RcRos2Decoder *decoder = new_decoder (RC_ROS2_TYPE_POINT_CLOUD2,
      extended_cloud_schema);
  RcMsgSchema *schema = rc_msg_schema_parse (RC_ROS2_TYPE_POINT_CLOUD2,
      extended_cloud_schema, strlen (extended_cloud_schema), NULL);
  RcPointCloud2 cloud, got;
  gsize size;
  guint8 *msg;

  random_cloud (&cloud, 3);
  msg = encode_cloud (&cloud, TRUE, TRUE, &size);
  for (gsize cut = 0; cut < size; cut++) {
    guint8 *prefix = g_memdup2 (msg, cut);
    GError *error = NULL;

    g_assert_false (rc_cdr_walk (rc_msg_schema_root (schema), prefix, cut,
            NULL, &error));
    g_assert_error (error, RC_READER_ERROR, RC_READER_ERROR_FORMAT);
    g_clear_error (&error);
    if (rc_ros2_parse_point_cloud2 (decoder, prefix, cut, &got, NULL))
      rc_ros_point_cloud2_clear (&got);
    g_free (prefix);
  }
  g_free (msg);
  free_cloud (&cloud);
  rc_msg_schema_free (schema);
  rc_ros2_decoder_free (decoder);
}

/* A header of a 1-letter frame id; the next offset is 16 (aligned). */
static void
begin_with_header (CdrEncoder * c, gboolean big_endian)
{
  RcRosHeader h;

  random_header (&h, 1);
  cdr_begin (c, big_endian);
  encode_header (c, &h);
  rc_ros_header_clear (&h);
}

static guint8 *
end_with_padding (CdrEncoder * c, gsize * size)
{
  gpointer tail = random_bytes (64);

  g_byte_array_append (c->bytes, tail, 64);
  g_free (tail);
  return cdr_end (c, size);
}

/* Counts and lengths of 2^32 - 1 (and 2^29, whose 8-byte elements wrap a
 * 32-bit product) fail at once, naming the field. */
static void
test_huge_counts (void)
{
  RcRos2Decoder *cloud = new_decoder (RC_ROS2_TYPE_POINT_CLOUD2, NULL);
  RcRos2Decoder *joints = new_decoder (RC_ROS2_TYPE_JOINT_STATE, NULL);
  RcRos2Decoder *image = new_decoder (RC_ROS2_TYPE_IMAGE, NULL);
  const guint32 huge[] = { G_MAXUINT32, 1u << 29, 1u << 30 };
  const gchar *field[] = { "fields", "data", "name", "position", "encoding" };
  CdrEncoder c;
  gsize size;
  guint8 *msg;

  for (guint i = 0; i < G_N_ELEMENTS (huge); i++) {
    for (guint where = 0; where < 5; where++) {
      begin_with_header (&c, i & 1);
      if (where < 2) {
        cdr_u32 (&c, 2);        /* height, width */
        cdr_u32 (&c, 3);
        cdr_u32 (&c, where == 0 ? huge[i] : 0);
        if (where == 1) {
          cdr_u8 (&c, 0);
          cdr_u32 (&c, 16);
          cdr_u32 (&c, 48);
          cdr_u32 (&c, huge[i]);
        }
      } else if (where < 4) {
        cdr_u32 (&c, where == 2 ? huge[i] : 0);
        cdr_u32 (&c, huge[i]);
      } else {
        cdr_u32 (&c, 2);
        cdr_u32 (&c, 3);
        cdr_u32 (&c, huge[i]);
      }
      msg = end_with_padding (&c, &size);
      if (where < 2)
        expect (CLOUD, cloud, msg, size, RC_READER_ERROR_FORMAT, field[where]);
      else if (where < 4)
        expect (JOINTS, joints, msg, size, RC_READER_ERROR_FORMAT,
            field[where]);
      else
        expect (IMAGE, image, msg, size, RC_READER_ERROR_FORMAT, field[where]);
      g_free (msg);
    }
  }
  rc_ros2_decoder_free (cloud);
  rc_ros2_decoder_free (joints);
  rc_ros2_decoder_free (image);
}

/* A frame id of 2^32 - 1 bytes, and a nested field's error path. */
static void
test_huge_string (void)
{
  RcRos2Decoder *cloud = new_decoder (RC_ROS2_TYPE_POINT_CLOUD2, NULL);
  CdrEncoder c;
  gsize size;
  guint8 *msg;

  cdr_begin (&c, FALSE);
  cdr_u32 (&c, 1);
  cdr_u32 (&c, 2);
  cdr_u32 (&c, G_MAXUINT32);
  msg = end_with_padding (&c, &size);
  expect (HEADER, cloud, msg, size, RC_READER_ERROR_FORMAT,
      "sensor_msgs/msg/PointCloud2 message: header.frame_id: needs "
      "4294967295 bytes at offset 16, 64 are left");
  g_free (msg);

  begin_with_header (&c, TRUE);
  cdr_u32 (&c, 2);
  cdr_u32 (&c, 3);
  cdr_u32 (&c, 2);              /* two fields, the second's name too long */
  cdr_string (&c, "x");
  cdr_u32 (&c, 0);
  cdr_u8 (&c, 7);
  cdr_u32 (&c, 1);
  cdr_u32 (&c, 1000);
  msg = end_with_padding (&c, &size);
  expect (CLOUD, cloud, msg, size, RC_READER_ERROR_FORMAT,
      "sensor_msgs/msg/PointCloud2 message: fields[1].name: needs 1000 "
      "bytes");
  g_free (msg);
  rc_ros2_decoder_free (cloud);
}

void add_bad_schema_message_tests (void);

void
add_bad_message_tests (void)
{
  g_test_add_func ("/ros2msg/bad/truncated", test_truncated);
  g_test_add_func ("/ros2msg/bad/truncated-extended", test_truncated_extended);
  g_test_add_func ("/ros2msg/bad/huge-counts", test_huge_counts);
  g_test_add_func ("/ros2msg/bad/huge-string", test_huge_string);
  add_bad_schema_message_tests ();
}
