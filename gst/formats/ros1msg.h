/* Decoders of the ROS 1 messages robocachebagsrc plays, from their
 * serialized bytes (encoding "ros1": little-endian, strings and arrays as
 * a uint32 length then the elements).  Apart from the bag reader because
 * any container of ROS 1 messages (a bag, an MCAP file with encoding
 * "ros1") holds the same bytes.
 *
 * A parse function fills its struct (rosmsg.h); on failure the struct is
 * already cleared and @error, in RC_READER_ERROR, says which field is
 * wrong. */
#ifndef __ROBOCACHE_ROS1MSG_H__
#define __ROBOCACHE_ROS1MSG_H__

#include "reader.h"
#include "rosmsg.h"

G_BEGIN_DECLS
/* The message types decoded here, as RcTopic.type names them. */
#define RC_ROS1_TYPE_POINT_CLOUD2 "sensor_msgs/PointCloud2"
#define RC_ROS1_TYPE_JOINT_STATE "sensor_msgs/JointState"
#define RC_ROS1_TYPE_IMAGE "sensor_msgs/Image"

/* Only the header, whatever the message type. */
gboolean rc_ros1_parse_header (const guint8 * data, gsize size,
    RcRosHeader * header, GError ** error);

gboolean rc_ros1_parse_point_cloud2 (const guint8 * data, gsize size,
    RcPointCloud2 * msg, GError ** error);

gboolean rc_ros1_parse_joint_state (const guint8 * data, gsize size,
    RcJointState * msg, GError ** error);

gboolean rc_ros1_parse_image (const guint8 * data, gsize size,
    RcImage * msg, GError ** error);
gboolean rc_ros1_parse_compressed_image (const guint8 * data, gsize size,
    RcCompressedImage * msg, GError ** error);

G_END_DECLS
#endif
