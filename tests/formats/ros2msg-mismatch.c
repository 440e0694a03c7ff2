/* The ROS 2 decoders on messages they cannot read as asked: other
 * encapsulations, a decoder of another type, schemas that lack a needed
 * field or give it another type, and bounds exceeded. */
#include <glib.h>
#include <string.h>

#include "formats/cdr.h"
#include "ros2msg-tests.h"

/* @text with its one @old replaced by @new (newly allocated). */
static gchar *
replace (const gchar * text, const gchar * old, const gchar * new)
{
  const gchar *at = strstr (text, old);

  g_assert_nonnull (at);
  return g_strdup_printf ("%.*s%s%s", (gint) (at - text), text, new,
      at + strlen (old));
}

static void
expect_error (gboolean ok, GError ** error, gint code, const gchar * message)
{
  g_assert_false (ok);
  g_assert_error (*error, RC_READER_ERROR, code);
  if (!strstr ((*error)->message, message))
    g_error ("'%s' does not say '%s'", (*error)->message, message);
  g_clear_error (error);
}

/* @call fails with @code and a message that says @message. */
#define EXPECT_ERROR(call, code, message) G_STMT_START { \
    gboolean ok_ = (call); \
    expect_error (ok_, &error, code, message); \
  } G_STMT_END

static void
test_encapsulation (void)
{
  RcRos2Decoder *decoder = new_decoder (RC_ROS2_TYPE_IMAGE, NULL);
  /* PL_CDR BE and LE, CDR2 BE and LE, PL_CDR2 BE, garbage */
  /* *INDENT-OFF* */
  const guint8 kinds[][2] = {
    {0, 2}, {0, 3}, {0, 6}, {0, 7}, {0, 10}, {1, 1}, {0xff, 0xff},
  };
  /* *INDENT-ON* */
  RcImage image, got;
  GError *error = NULL;
  gsize size;
  guint8 *msg;

  random_image (&image, 4);
  msg = encode_image (&image, FALSE, &size);
  for (guint i = 0; i < G_N_ELEMENTS (kinds); i++) {
    memcpy (msg, kinds[i], 2);
    EXPECT_ERROR (rc_ros2_parse_image (decoder, msg, size, &got, &error),
        RC_READER_ERROR_UNSUPPORTED, "is not plain CDR");
    g_assert_null (got.encoding);
  }
  msg[0] = 0;
  msg[1] = 1;
  EXPECT_ERROR (rc_ros2_parse_image (decoder, msg, 3, &got, &error),
      RC_READER_ERROR_FORMAT, "3 bytes, shorter than the 4-byte "
      "encapsulation header");
  g_assert_true (rc_ros2_parse_image (decoder, msg, size, &got, &error));
  rc_ros_image_clear (&got);
  g_free (msg);
  g_free ((gpointer) image.data);
  rc_ros_image_clear (&image);
  rc_ros2_decoder_free (decoder);
}

/* A JointState decoder asked for a cloud or an image; a type without a
 * header. */
static void
test_wrong_type (void)
{
  RcRos2Decoder *decoder = new_decoder ("sensor_msgs/JointState", NULL);
  RcRos2Decoder *point = new_decoder ("geometry_msgs/Point",
      "float64 x\nfloat64 y\nfloat64 z\n");
  RcJointState joints, got_joints;
  RcPointCloud2 cloud;
  RcImage image;
  RcRosHeader header;
  GError *error = NULL;
  gsize size;
  guint8 *msg;

  random_joints (&joints, 2);
  msg = encode_joints (&joints, FALSE, FALSE, &size);
  EXPECT_ERROR (rc_ros2_parse_point_cloud2 (decoder, msg, size, &cloud,
          &error), RC_READER_ERROR_UNSUPPORTED, "a decoder of "
      "sensor_msgs/msg/JointState cannot read sensor_msgs/msg/PointCloud2");
  EXPECT_ERROR (rc_ros2_parse_image (decoder, msg, size, &image, &error),
      RC_READER_ERROR_UNSUPPORTED, "cannot read");
  EXPECT_ERROR (rc_ros2_parse_header (point, msg, size, &header, &error),
      RC_READER_ERROR_UNSUPPORTED, "geometry_msgs/msg/Point has no "
      "field 'header' (std_msgs/msg/Header)");
  EXPECT_ERROR (rc_ros2_parse_joint_state (point, msg, size, &got_joints,
          &error), RC_READER_ERROR_UNSUPPORTED, "cannot read");
  g_free (msg);
  rc_ros_joint_state_clear (&joints);
  rc_ros2_decoder_free (decoder);
  rc_ros2_decoder_free (point);
}

/* *INDENT-OFF* */
static const struct
{
  const gchar *old, *new;
  const gchar *message;
} cloud_schema_changes[] = {
  {"bool is_dense\n", "",
   "sensor_msgs/msg/PointCloud2 has no field 'is_dense' (bool|uint8)"},
  {"uint32 height\n", "float32 height\n",
   "field 'height' of sensor_msgs/msg/PointCloud2 is float32, not uint32"},
  {"uint8[] data\n", "uint8[16] data\n", "is uint8[16], not uint8[]/byte[]"},
  {"uint8[] data\n", "uint16[] data\n", "is uint16[], not"},
  {"std_msgs/Header header\n", "string header\n",
   "field 'header' of sensor_msgs/msg/PointCloud2 is string"},
  {"int32 sec\n", "uint32 sec\n", "header.stamp: field 'sec' of "
   "builtin_interfaces/msg/Time is uint32, not int32"},
  {"uint8 datatype\n", "uint32 datatype\n", "fields[0]: field 'datatype' "
   "of sensor_msgs/msg/PointField is uint32"},
  {"string frame_id\n", "", "header: std_msgs/msg/Header has no field "
   "'frame_id'"},
};
/* *INDENT-ON* */

/* Builtin schemas changed so that a needed field is missing or another
 * type; the message is the builtin one (the check comes first, or the
 * message cannot be read far enough). */
static void
test_schema_mismatch (void)
{
  const gchar *builtin = rc_ros2_type_definition (RC_ROS2_TYPE_POINT_CLOUD2);
  RcPointCloud2 want, got;
  gsize size;
  guint8 *msg;

  random_cloud (&want, 3);
  for (guint i = 0; i < want.n_fields; i++)
    g_free (want.fields[i].name);
  want.n_fields = 1;
  want.fields[0].name = g_strdup ("x");
  msg = encode_cloud (&want, FALSE, FALSE, &size);
  for (guint i = 0; i < G_N_ELEMENTS (cloud_schema_changes); i++) {
    gchar *schema = replace (builtin, cloud_schema_changes[i].old,
        cloud_schema_changes[i].new);
    RcRos2Decoder *decoder = new_decoder ("sensor_msgs/PointCloud2", schema);
    GError *error = NULL;

    EXPECT_ERROR (rc_ros2_parse_point_cloud2 (decoder, msg, size, &got,
            &error), RC_READER_ERROR_UNSUPPORTED,
        cloud_schema_changes[i].message);
    g_assert_null (got.fields);
    g_assert_null (got.header.frame_id);
    rc_ros2_decoder_free (decoder);
    g_free (schema);
  }
  g_free (msg);
  free_cloud (&want);
}

/* A string and a sequence longer than their bounds. */
static void
test_bounds (void)
{
  gchar *schema = replace (rc_ros2_type_definition (RC_ROS2_TYPE_IMAGE),
      "string encoding\n", "string<=3 encoding\n");
  RcRos2Decoder *decoder = new_decoder (RC_ROS2_TYPE_IMAGE, schema);
  RcImage image, got;
  RcJointState joints, got_joints;
  GError *error = NULL;
  gsize size;
  guint8 *msg;

  random_image (&image, 2);
  g_free (image.encoding);
  image.encoding = g_strdup ("rgb8");
  msg = encode_image (&image, TRUE, &size);
  EXPECT_ERROR (rc_ros2_parse_image (decoder, msg, size, &got, &error),
      RC_READER_ERROR_FORMAT, "encoding: a string of 4 bytes at "
      "offset 32 exceeds its bound of 3");
  g_free (msg);
  g_free ((gpointer) image.data);
  rc_ros_image_clear (&image);
  rc_ros2_decoder_free (decoder);
  g_free (schema);

  schema = replace (rc_ros2_type_definition (RC_ROS2_TYPE_JOINT_STATE),
      "string[] name\n", "string[<=3] name\n");
  decoder = new_decoder (RC_ROS2_TYPE_JOINT_STATE, schema);
  random_joints (&joints, 1);
  while (joints.n_names < 4) {
    joints.names = g_renew (gchar *, joints.names, joints.n_names + 2);
    joints.names[joints.n_names++] = g_strdup ("j");
    joints.names[joints.n_names] = NULL;
  }
  msg = encode_joints (&joints, FALSE, FALSE, &size);
  EXPECT_ERROR (rc_ros2_parse_joint_state (decoder, msg, size, &got_joints,
          &error), RC_READER_ERROR_FORMAT, "name: ");
  g_assert_null (got_joints.names);
  g_free (msg);
  rc_ros_joint_state_clear (&joints);
  rc_ros2_decoder_free (decoder);
  g_free (schema);
}

void add_bad_schema_message_tests (void);

void
add_bad_schema_message_tests (void)
{
  g_test_add_func ("/ros2msg/bad/encapsulation", test_encapsulation);
  g_test_add_func ("/ros2msg/bad/wrong-type", test_wrong_type);
  g_test_add_func ("/ros2msg/bad/schema-mismatch", test_schema_mismatch);
  g_test_add_func ("/ros2msg/bad/bounds", test_bounds);
}
