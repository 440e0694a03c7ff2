/* robocachefuse's frame of a tick (gstrobocachefuseframe.c). */
#ifndef __GST_ROBOCACHE_FUSE_FRAME_H__
#define __GST_ROBOCACHE_FUSE_FRAME_H__

#include "gstrobocachefusepad.h"
#include "gstrobocachegpu.h"

G_BEGIN_DECLS

/* The fused buffer of the tick at running time @tick from @pads (the
 * element's sink pads, in order), with a GstRobocacheFusedMeta, and with
 * @flat_output the flat vector memory; *n_stale counts the stale streams.
 * On the GPU (@gpu in use) another device's robocache CUDA memory is
 * copied onto the element's.  NULL when the tick is dropped (@drop_stale
 * and a stream stale; *ret GST_FLOW_OK) or on an error (posted on
 * @element; *ret GST_FLOW_ERROR). */
GstBuffer *gst_robocache_fuse_frame_make (GstElement * element,
    GstRobocacheGpu * gpu, GList * pads, GstClockTime tick,
    gboolean flat_output, gboolean drop_stale, guint * n_stale,
    GstFlowReturn * ret);

G_END_DECLS
#endif
