/* libFuzzer target over the ROS 2 CDR decoders (gst/formats/msgschema.c,
 * cdr.c, ros2msg.c).  The input is a schema and a message:
 *
 *   2 bytes    schema length L, little endian
 *   1 byte     the type the schema defines: PointCloud2, JointState, Image
 *              or another (by its value modulo 4)
 *   L bytes    ros2msg schema text (none: the builtin definition)
 *   the rest   the CDR message
 *
 * The schema is parsed and the message walked along it, then decoded with
 * a decoder of that schema; the whole input, and the message alone, are
 * also decoded as each type with the builtin definitions of ros2types.h.  Built with meson
 * -Dfuzz=true and clang; see docs/fuzzing.md. */
#include <stdint.h>
#include <stddef.h>

#include "formats/cdr.h"
#include "formats/ros2msg.h"

#define PREFIX_SIZE 3

int LLVMFuzzerTestOneInput (const uint8_t * data, size_t size);

/* Every parse function; each struct is cleared after a success. */
static void
parse_all (const RcRos2Decoder * decoder, const guint8 * msg, gsize size)
{
  RcRosHeader header;
  RcPointCloud2 cloud;
  RcJointState joints;
  RcImage image;

  if (rc_ros2_parse_header (decoder, msg, size, &header, NULL))
    rc_ros_header_clear (&header);
  if (rc_ros2_parse_point_cloud2 (decoder, msg, size, &cloud, NULL))
    rc_ros_point_cloud2_clear (&cloud);
  if (rc_ros2_parse_joint_state (decoder, msg, size, &joints, NULL))
    rc_ros_joint_state_clear (&joints);
  if (rc_ros2_parse_image (decoder, msg, size, &image, NULL))
    rc_ros_image_clear (&image);
}

/* The builtin decoders, made once. */
static void
parse_builtin (const guint8 * msg, gsize size)
{
  static RcRos2Decoder *decoders[3];

  if (!decoders[0]) {
    decoders[0] = rc_ros2_decoder_new (RC_ROS2_TYPE_POINT_CLOUD2, NULL,
        NULL, 0, NULL);
    decoders[1] = rc_ros2_decoder_new (RC_ROS2_TYPE_JOINT_STATE, NULL,
        NULL, 0, NULL);
    decoders[2] = rc_ros2_decoder_new (RC_ROS2_TYPE_IMAGE, NULL, NULL, 0,
        NULL);
  }
  for (guint i = 0; i < G_N_ELEMENTS (decoders); i++)
    parse_all (decoders[i], msg, size);
}

int
LLVMFuzzerTestOneInput (const uint8_t * data, size_t size)
{
  const gchar *types[] = { RC_ROS2_TYPE_POINT_CLOUD2,
    RC_ROS2_TYPE_JOINT_STATE, RC_ROS2_TYPE_IMAGE, "fuzz_msgs/msg/Thing"
  };
  const gchar *type, *schema;
  gsize schema_size;
  RcMsgSchema *parsed;
  RcRos2Decoder *decoder;

  parse_builtin (data, size);
  if (size < PREFIX_SIZE)
    return 0;
  schema_size = data[0] | (data[1] << 8);
  type = types[data[2] % G_N_ELEMENTS (types)];
  if (schema_size > size - PREFIX_SIZE)
    return 0;
  schema = (const gchar *) data + PREFIX_SIZE;
  data += PREFIX_SIZE + schema_size;
  size -= PREFIX_SIZE + schema_size;
  parse_builtin (data, size);

  parsed = rc_msg_schema_parse (type, schema, schema_size, NULL);
  if (parsed) {
    (void) rc_cdr_walk (rc_msg_schema_root (parsed), data, size, NULL, NULL);
    rc_msg_schema_free (parsed);
  }
  decoder = rc_ros2_decoder_new (type, "ros2msg", schema, schema_size, NULL);
  if (decoder) {
    parse_all (decoder, data, size);
    rc_ros2_decoder_free (decoder);
  }
  return 0;
}
