/* The ROS messages robocache plays, decoded: the same structs whatever
 * the wire format (ros1msg.h for ROS 1, ros2msg.h for CDR).  A struct
 * points into the message bytes (valid as long as they are) and owns what
 * it allocated: its clear function frees that. */
#ifndef __ROBOCACHE_ROSMSG_H__
#define __ROBOCACHE_ROSMSG_H__

#include <glib.h>

G_BEGIN_DECLS

/* std_msgs/Header, at the start of every stamped message (ROS 2 has no
 * seq: 0). */
typedef struct
{
  guint32 seq;
  guint64 stamp;                /* ns */
  gchar *frame_id;
} RcRosHeader;

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

typedef struct
{
  RcRosHeader header;
  guint n_names;
  gchar **names;
  /* Each NULL when the message's array is empty. */
  guint n_position, n_velocity, n_effort;
  gdouble *position, *velocity, *effort;
} RcJointState;

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

/* sensor_msgs/CompressedImage: @format as image_transport writes it
 * ("jpeg", "png", "bgr8; jpeg compressed bgr8", ...), @data the encoded
 * image. */
typedef struct
{
  RcRosHeader header;
  gchar *format;
  const guint8 *data;
  guint32 data_size;
} RcCompressedImage;

void rc_ros_header_clear (RcRosHeader * header);
void rc_ros_point_cloud2_clear (RcPointCloud2 * msg);
void rc_ros_joint_state_clear (RcJointState * msg);
void rc_ros_image_clear (RcImage * msg);
void rc_ros_compressed_image_clear (RcCompressedImage * msg);

G_END_DECLS
#endif
