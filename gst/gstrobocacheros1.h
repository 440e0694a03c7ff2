/* ROS 1 messages (gst/formats/ros1msg.h) as robocache buffers and caps,
 * for robocachebagsrc, whatever file format the messages come from:
 *
 * - sensor_msgs/PointCloud2: other/x-robocache-points with the message's
 *   own point-step and fields (ring, time and any other field kept).  A
 *   field with count > 1 is expanded into "name_0", "name_1", ...  Row
 *   padding is dropped.  A cloud whose layout the caps cannot describe is
 *   skipped: point_step 0 or above 65535, a field of unknown datatype, of
 *   count 0, ending beyond point_step or overlapping another, or x, y or z
 *   missing or of count > 1.  Big-endian clouds are skipped too.
 * - sensor_msgs/JointState: other/x-robocache-vectors, format float64,
 *   layout sample, names = the joint names: the positions, then the
 *   velocities ("name.velocity") and efforts ("name.effort") where the
 *   message has one per joint.
 * - sensor_msgs/Image: video/x-raw (rgb8, bgr8, rgba8, bgra8, mono8,
 *   mono16, 8UC1, 16UC1); other encodings are skipped. */
#ifndef __GST_ROBOCACHE_ROS1_H__
#define __GST_ROBOCACHE_ROS1_H__

#include <gst/gst.h>

G_BEGIN_DECLS
/* Whether gst_robocache_ros1_buffer_new converts messages of @type. */
    gboolean gst_robocache_ros1_type_is_supported (const gchar * type);

/* Why a well formed message cannot be played. */
typedef enum
{
  GST_ROBOCACHE_ROS1_SKIP_NONE,
  /* A PointCloud2 whose point_step or fields points caps cannot describe
   * (gstrobocacheros1.c: points_layout_problem). */
  GST_ROBOCACHE_ROS1_SKIP_POINT_LAYOUT,
  /* Big-endian clouds, other image encodings, a JointState without one
   * position per name. */
  GST_ROBOCACHE_ROS1_SKIP_UNSUPPORTED,
  GST_ROBOCACHE_ROS1_SKIP_KINDS
} GstRobocacheRos1SkipKind;

typedef struct
{
  GstRobocacheRos1SkipKind kind;
  gchar *reason;                /* what is wrong and what is accepted */
} GstRobocacheRos1Skip;

/* The buffer (no timestamps set) and caps of the serialized message @data
 * of @type; @stamp gets its header.stamp (ns, 0 if unstamped).  NULL
 * either with @error set (malformed: a length or layout that does not fit)
 * or with @skip filled in (a well formed message that cannot be played:
 * free its reason).  The caller owns the buffer and caps. */
GstBuffer *gst_robocache_ros1_buffer_new (const gchar * type,
    const guint8 * data, gsize size, guint64 * stamp, GstCaps ** caps,
    GstRobocacheRos1Skip * skip, GError ** error);

G_END_DECLS
#endif
