/* robocachemcapsrc: MCAP files, as rosbag2 (ROS 2) and Foxglove write
 * them (the base, gstrobocacherecordingsrc.h, does the work). */
#ifndef __GST_ROBOCACHE_MCAP_SRC_H__
#define __GST_ROBOCACHE_MCAP_SRC_H__

#include "gstrobocacherecordingsrc.h"

G_BEGIN_DECLS

#define GST_TYPE_ROBOCACHE_MCAP_SRC (gst_robocache_mcap_src_get_type ())
G_DECLARE_FINAL_TYPE (GstRobocacheMcapSrc, gst_robocache_mcap_src,
    GST, ROBOCACHE_MCAP_SRC, GstRobocacheRecordingSrc);

G_END_DECLS
#endif
