/* robocachebagsrc: ROS 1 bags (the base, gstrobocacherecordingsrc.h, does
 * the work). */
#ifndef __GST_ROBOCACHE_BAG_SRC_H__
#define __GST_ROBOCACHE_BAG_SRC_H__

#include "gstrobocacherecordingsrc.h"

G_BEGIN_DECLS

#define GST_TYPE_ROBOCACHE_BAG_SRC (gst_robocache_bag_src_get_type ())
G_DECLARE_FINAL_TYPE (GstRobocacheBagSrc, gst_robocache_bag_src,
    GST, ROBOCACHE_BAG_SRC, GstRobocacheRecordingSrc);

G_END_DECLS
#endif
