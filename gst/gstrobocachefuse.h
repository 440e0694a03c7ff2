#ifndef __GST_ROBOCACHE_FUSE_H__
#define __GST_ROBOCACHE_FUSE_H__

#include <gst/base/gstaggregator.h>

G_BEGIN_DECLS

#define GST_TYPE_ROBOCACHE_FUSE (gst_robocache_fuse_get_type ())
G_DECLARE_FINAL_TYPE (GstRobocacheFuse, gst_robocache_fuse,
    GST, ROBOCACHE_FUSE, GstAggregator);

#define GST_TYPE_ROBOCACHE_FUSE_PAD (gst_robocache_fuse_pad_get_type ())
G_DECLARE_FINAL_TYPE (GstRobocacheFusePad, gst_robocache_fuse_pad,
    GST, ROBOCACHE_FUSE_PAD, GstAggregatorPad);

G_END_DECLS
#endif
