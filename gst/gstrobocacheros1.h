/* ROS 1 messages (gst/formats/ros1msg.h) as robocache buffers and caps:
 * PointCloud2 as points, JointState as float64 vectors, Image as raw
 * video.  For robocachebagsrc, whatever file format the messages come
 * from. */
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
