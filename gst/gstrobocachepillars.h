#ifndef __GST_ROBOCACHE_PILLARS_H__
#define __GST_ROBOCACHE_PILLARS_H__

#include "gstrobocachesweep.h"

G_BEGIN_DECLS

#define GST_TYPE_ROBOCACHE_PILLARS (gst_robocache_pillars_get_type ())
G_DECLARE_FINAL_TYPE (GstRobocachePillars, gst_robocache_pillars,
    GST, ROBOCACHE_PILLARS, GstRobocacheSweepFilter);

G_END_DECLS
#endif
