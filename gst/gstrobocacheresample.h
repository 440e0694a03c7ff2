#ifndef __GST_ROBOCACHE_RESAMPLE_H__
#define __GST_ROBOCACHE_RESAMPLE_H__

#include "gstrobocachebasetransform.h"

G_BEGIN_DECLS
#define GST_TYPE_ROBOCACHE_RESAMPLE (gst_robocache_resample_get_type ())
G_DECLARE_FINAL_TYPE (GstRobocacheResample, gst_robocache_resample,
    GST, ROBOCACHE_RESAMPLE, GstRobocacheBaseTransform);

#define GST_TYPE_ROBOCACHE_RESAMPLE_METHOD \
    (gst_robocache_resample_method_get_type ())
GType gst_robocache_resample_method_get_type (void);

typedef enum
{
  GST_ROBOCACHE_RESAMPLE_ORIGIN_FIRST_SAMPLE,
  GST_ROBOCACHE_RESAMPLE_ORIGIN_ZERO
} GstRobocacheResampleTimeOrigin;

#define GST_TYPE_ROBOCACHE_RESAMPLE_TIME_ORIGIN \
    (gst_robocache_resample_time_origin_get_type ())
GType gst_robocache_resample_time_origin_get_type (void);

G_END_DECLS
#endif
