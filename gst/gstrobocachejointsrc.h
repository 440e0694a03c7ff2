/* robocachejointsrc: synthetic joint states, one jittered sample per
 * buffer. */
#ifndef __GST_ROBOCACHE_JOINT_SRC_H__
#define __GST_ROBOCACHE_JOINT_SRC_H__

#include <gst/gst.h>
#include "gstrobocachelivesrc.h"

G_BEGIN_DECLS

/* The value type of the output vectors (the caps' format field). */
typedef enum
{
  GST_ROBOCACHE_JOINT_SRC_FORMAT_FLOAT32,
  GST_ROBOCACHE_JOINT_SRC_FORMAT_FLOAT64
} GstRobocacheJointSrcFormat;

#define GST_TYPE_ROBOCACHE_JOINT_SRC_FORMAT \
    (gst_robocache_joint_src_format_get_type ())
GType gst_robocache_joint_src_format_get_type (void);

#define GST_TYPE_ROBOCACHE_JOINT_SRC (gst_robocache_joint_src_get_type ())
G_DECLARE_FINAL_TYPE (GstRobocacheJointSrc, gst_robocache_joint_src, GST,
    ROBOCACHE_JOINT_SRC, GstRobocacheLiveSrc);

G_END_DECLS
#endif /* __GST_ROBOCACHE_JOINT_SRC_H__ */
