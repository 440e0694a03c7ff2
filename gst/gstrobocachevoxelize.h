#ifndef __GST_ROBOCACHE_VOXELIZE_H__
#define __GST_ROBOCACHE_VOXELIZE_H__

#include "gstrobocachesweep.h"

G_BEGIN_DECLS

#define GST_TYPE_ROBOCACHE_VOXELIZE (gst_robocache_voxelize_get_type ())
G_DECLARE_FINAL_TYPE (GstRobocacheVoxelize, gst_robocache_voxelize,
    GST, ROBOCACHE_VOXELIZE, GstRobocacheSweepFilter);

#define GST_TYPE_ROBOCACHE_VOXEL_MODE (gst_robocache_voxel_mode_get_type ())
GType gst_robocache_voxel_mode_get_type (void);

G_END_DECLS
#endif
