#ifndef __GST_ROBOCACHE_BAG_SRC_H__
#define __GST_ROBOCACHE_BAG_SRC_H__

#include <gst/gst.h>

G_BEGIN_DECLS

#define GST_TYPE_ROBOCACHE_BAG_SRC (gst_robocache_bag_src_get_type ())
G_DECLARE_FINAL_TYPE (GstRobocacheBagSrc, gst_robocache_bag_src,
    GST, ROBOCACHE_BAG_SRC, GstElement);

typedef enum
{
  GST_ROBOCACHE_BAG_TIMESTAMPS_HEADER,
  GST_ROBOCACHE_BAG_TIMESTAMPS_RECORD
} GstRobocacheBagTimestamps;

#define GST_TYPE_ROBOCACHE_BAG_TIMESTAMPS \
    (gst_robocache_bag_timestamps_get_type ())
GType gst_robocache_bag_timestamps_get_type (void);

G_END_DECLS
#endif
