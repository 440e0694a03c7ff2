#ifndef __GST_ROBOCACHE_BEV_H__
#define __GST_ROBOCACHE_BEV_H__

#include "gstrobocachebasetransform.h"

G_BEGIN_DECLS

#define GST_TYPE_ROBOCACHE_BEV (gst_robocache_bev_get_type ())
G_DECLARE_FINAL_TYPE (GstRobocacheBev, gst_robocache_bev,
    GST, ROBOCACHE_BEV, GstRobocacheBaseTransform);

#define GST_TYPE_ROBOCACHE_BEV_VALUE (gst_robocache_bev_value_get_type ())
GType gst_robocache_bev_value_get_type (void);
#define GST_TYPE_ROBOCACHE_BEV_COLORMAP \
    (gst_robocache_bev_colormap_get_type ())
GType gst_robocache_bev_colormap_get_type (void);

G_END_DECLS
#endif
