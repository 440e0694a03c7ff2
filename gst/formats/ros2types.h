/* The ROS 2 message types robocache reads and writes, and their
 * definitions as rosbag2 stores them in MCAP (schema encoding "ros2msg":
 * the type's .msg text, then each type it uses after a line of 80 '='
 * and "MSG: package/Name").  The reader falls back on these when a file
 * stores no schema; the writer stores them. */
#ifndef __ROBOCACHE_ROS2TYPES_H__
#define __ROBOCACHE_ROS2TYPES_H__

#include <glib.h>

G_BEGIN_DECLS

#define RC_ROS2_TYPE_POINT_CLOUD2 "sensor_msgs/msg/PointCloud2"
#define RC_ROS2_TYPE_JOINT_STATE "sensor_msgs/msg/JointState"
#define RC_ROS2_TYPE_IMAGE "sensor_msgs/msg/Image"
#define RC_ROS2_TYPE_COMPRESSED_IMAGE "sensor_msgs/msg/CompressedImage"

/* The full "ros2msg" definition of @type (one of the RC_ROS2_TYPE_*
 * names; "sensor_msgs/PointCloud2" is taken too), or NULL. */
const gchar *rc_ros2_type_definition (const gchar * type);

/* "pkg/msg/Name" for "pkg/Name" or "pkg/msg/Name": a newly allocated
 * string, the form MCAP schemas and rosbag2 use. */
gchar *rc_ros2_type_canonical (const gchar * type);

G_END_DECLS
#endif
