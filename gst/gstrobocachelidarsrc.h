/* robocachelidarsrc: a synthetic spinning lidar, one sweep per buffer. */
#ifndef __GST_ROBOCACHE_LIDAR_SRC_H__
#define __GST_ROBOCACHE_LIDAR_SRC_H__

#include <gst/gst.h>
#include "gstrobocachelivesrc.h"

G_BEGIN_DECLS

#define GST_TYPE_ROBOCACHE_LIDAR_SRC (gst_robocache_lidar_src_get_type ())
G_DECLARE_FINAL_TYPE (GstRobocacheLidarSrc, gst_robocache_lidar_src, GST,
    ROBOCACHE_LIDAR_SRC, GstRobocacheLiveSrc);

G_END_DECLS
#endif /* __GST_ROBOCACHE_LIDAR_SRC_H__ */
