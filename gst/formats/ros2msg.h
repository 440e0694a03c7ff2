/* Decoders of the ROS 2 messages robocache plays, from their CDR bytes
 * (MCAP message encoding "cdr"), driven by the topic's ros2msg schema
 * (msgschema.h, cdr.h): fields are found by name, so a definition with
 * fields added, or reordered, still decodes; a needed field that is
 * missing or of another type is an RC_READER_ERROR_UNSUPPORTED error.
 * Corrupt or truncated bytes are RC_READER_ERROR_FORMAT errors naming the
 * field and offset; encapsulations other than plain CDR (XCDR1, either
 * byte order) are RC_READER_ERROR_UNSUPPORTED.
 *
 * Header stamps: builtin_interfaces/Time's sec is an int32; a stamp before
 * the epoch is clamped to 0 (a message is never dropped for it).
 *
 * A parse function fills its struct (rosmsg.h, freed with rc_ros_*_clear):
 * `data` points into the message bytes, JointState's doubles are copied
 * in host byte order.  On failure the struct is left cleared.  Checks
 * between fields (data_size against height * row_step, ...) are left to
 * the caller, as with ros1msg.h. */
#ifndef __ROBOCACHE_ROS2MSG_H__
#define __ROBOCACHE_ROS2MSG_H__

#include "reader.h"
#include "rosmsg.h"
#include "ros2types.h"

G_BEGIN_DECLS typedef struct _RcRos2Decoder RcRos2Decoder;

/* A decoder for messages of @type ("sensor_msgs/msg/PointCloud2" or
 * "sensor_msgs/PointCloud2", ...) described by the @schema text of
 * @schema_size bytes in @schema_encoding, which is parsed when it is
 * "ros2msg".  When @schema is NULL or empty, or in another encoding
 * (rosbag2 stores some types as "ros2idl"; robocache parses no IDL), the
 * definition of ros2types.h is used: an RC_READER_ERROR_UNSUPPORTED
 * error, naming the encoding, if the type has none. */
RcRos2Decoder *rc_ros2_decoder_new (const gchar * type,
    const gchar * schema_encoding, const gchar * schema, gsize schema_size,
    GError ** error);
void rc_ros2_decoder_free (RcRos2Decoder * decoder);

/* The message's std_msgs/Header (a top-level field named "header" of that
 * type); FALSE with error if it has none. */
gboolean rc_ros2_parse_header (const RcRos2Decoder * decoder,
    const guint8 * data, gsize size, RcRosHeader * header, GError ** error);

gboolean rc_ros2_parse_point_cloud2 (const RcRos2Decoder * decoder,
    const guint8 * data, gsize size, RcPointCloud2 * msg, GError ** error);

gboolean rc_ros2_parse_joint_state (const RcRos2Decoder * decoder,
    const guint8 * data, gsize size, RcJointState * msg, GError ** error);

gboolean rc_ros2_parse_image (const RcRos2Decoder * decoder,
    const guint8 * data, gsize size, RcImage * msg, GError ** error);

gboolean rc_ros2_parse_compressed_image (const RcRos2Decoder * decoder,
    const guint8 * data, gsize size, RcCompressedImage * msg,
    GError ** error);

G_END_DECLS
#endif
