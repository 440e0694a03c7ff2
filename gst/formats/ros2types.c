/* The definitions of ros2types.h, as in ROS 2's common_interfaces (the
 * comments left out). */
#include "ros2types.h"

#include <string.h>

#define SEPARATOR "=============================================" \
  "===================================\n"

#define HEADER_DEFINITIONS \
  SEPARATOR "MSG: std_msgs/Header\n" \
  "builtin_interfaces/Time stamp\n" \
  "string frame_id\n" \
  SEPARATOR "MSG: builtin_interfaces/Time\n" \
  "int32 sec\n" \
  "uint32 nanosec\n"

static const gchar point_cloud2[] =
    "std_msgs/Header header\n"
    "uint32 height\n"
    "uint32 width\n"
    "PointField[] fields\n"
    "bool is_bigendian\n"
    "uint32 point_step\n"
    "uint32 row_step\n"
    "uint8[] data\n"
    "bool is_dense\n"
    HEADER_DEFINITIONS
    SEPARATOR "MSG: sensor_msgs/PointField\n"
    "uint8 INT8 = 1\n"
    "uint8 UINT8 = 2\n"
    "uint8 INT16 = 3\n"
    "uint8 UINT16 = 4\n"
    "uint8 INT32 = 5\n"
    "uint8 UINT32 = 6\n"
    "uint8 FLOAT32 = 7\n"
    "uint8 FLOAT64 = 8\n"
    "string name\n"
    "uint32 offset\n"
    "uint8 datatype\n"
    "uint32 count\n";

static const gchar joint_state[] =
    "std_msgs/Header header\n"
    "string[] name\n"
    "float64[] position\n"
    "float64[] velocity\n"
    "float64[] effort\n"
    HEADER_DEFINITIONS;

static const gchar image[] =
    "std_msgs/Header header\n"
    "uint32 height\n"
    "uint32 width\n"
    "string encoding\n"
    "uint8 is_bigendian\n"
    "uint32 step\n"
    "uint8[] data\n"
    HEADER_DEFINITIONS;

static const gchar compressed_image[] =
    "std_msgs/Header header\n"
    "string format\n"
    "uint8[] data\n"
    HEADER_DEFINITIONS;

gchar *
rc_ros2_type_canonical (const gchar * type)
{
  const gchar *slash = strchr (type, '/');

  if (!slash || strchr (slash + 1, '/'))
    return g_strdup (type);
  return g_strdup_printf ("%.*s/msg/%s", (gint) (slash - type), type,
      slash + 1);
}

const gchar *
rc_ros2_type_definition (const gchar * type)
{
  static const struct
  {
    const gchar *type;
    const gchar *definition;
  } types[] = {
    {RC_ROS2_TYPE_POINT_CLOUD2, point_cloud2},
    {RC_ROS2_TYPE_JOINT_STATE, joint_state},
    {RC_ROS2_TYPE_IMAGE, image},
    {RC_ROS2_TYPE_COMPRESSED_IMAGE, compressed_image},
  };
  gchar *canonical = rc_ros2_type_canonical (type);
  const gchar *definition = NULL;

  for (guint i = 0; i < G_N_ELEMENTS (types); i++)
    if (!strcmp (canonical, types[i].type))
      definition = types[i].definition;
  g_free (canonical);
  return definition;
}
