/* Decoders of the ROS 1 messages robocachebagsrc plays, from their
 * serialized bytes (encoding "ros1": little-endian, strings and arrays as
 * a uint32 length then the elements).  Apart from the bag reader because
 * any container of ROS 1 messages (a bag, an MCAP file with encoding
 * "ros1") holds the same bytes.
 *
 * A parse function fills its struct, which points into the message bytes
 * (valid as long as they are) and owns what it allocated: the matching
 * clear function frees that.  On failure the struct is already cleared
 * and @error, in RC_READER_ERROR, says which field is wrong. */
#ifndef __ROBOCACHE_ROS1MSG_H__
#define __ROBOCACHE_ROS1MSG_H__

#include "reader.h"

G_BEGIN_DECLS
/* The message types decoded here, as RcTopic.type names them. */
#define RC_ROS1_TYPE_POINT_CLOUD2 "sensor_msgs/PointCloud2"
#define RC_ROS1_TYPE_JOINT_STATE "sensor_msgs/JointState"
#define RC_ROS1_TYPE_IMAGE "sensor_msgs/Image"
/* std_msgs/Header, at the start of every stamped message. */
    typedef struct
{
  guint32 seq;
  guint64 stamp;                /* ns */
  gchar *frame_id;
} RcRosHeader;

/* Only the header, whatever the message type. */
gboolean rc_ros1_parse_header (const guint8 * data, gsize size,
    RcRosHeader * header, GError ** error);
void rc_ros1_header_clear (RcRosHeader * header);

/* PointField datatypes 1..8. */
typedef enum
{
  RC_POINT_FIELD_INT8 = 1,
  RC_POINT_FIELD_UINT8,
  RC_POINT_FIELD_INT16,
  RC_POINT_FIELD_UINT16,
  RC_POINT_FIELD_INT32,
  RC_POINT_FIELD_UINT32,
  RC_POINT_FIELD_FLOAT32,
  RC_POINT_FIELD_FLOAT64
} RcPointFieldType;

typedef struct
{
  gchar *name;
  guint32 offset;
  guint8 datatype;
  guint32 count;
} RcPointField;

typedef struct
{
  RcRosHeader header;
  guint32 height, width;
  guint n_fields;
  RcPointField *fields;
  gboolean is_bigendian;
  guint32 point_step, row_step;
  const guint8 *data;
  guint32 data_size;
  gboolean is_dense;
} RcPointCloud2;

gboolean rc_ros1_parse_point_cloud2 (const guint8 * data, gsize size,
    RcPointCloud2 * msg, GError ** error);
void rc_ros1_point_cloud2_clear (RcPointCloud2 * msg);

typedef struct
{
  RcRosHeader header;
  guint n_names;
  gchar **names;
  /* Each NULL when the message's array is empty. */
  guint n_position, n_velocity, n_effort;
  gdouble *position, *velocity, *effort;
} RcJointState;

gboolean rc_ros1_parse_joint_state (const guint8 * data, gsize size,
    RcJointState * msg, GError ** error);
void rc_ros1_joint_state_clear (RcJointState * msg);

typedef struct
{
  RcRosHeader header;
  guint32 height, width;
  gchar *encoding;
  gboolean is_bigendian;
  guint32 step;
  const guint8 *data;
  guint32 data_size;
} RcImage;

gboolean rc_ros1_parse_image (const guint8 * data, gsize size,
    RcImage * msg, GError ** error);
void rc_ros1_image_clear (RcImage * msg);

G_END_DECLS
#endif
