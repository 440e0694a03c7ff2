/* Every element of the robocache plugin, registered by plugin.c. */
#ifndef __GST_ROBOCACHE_ELEMENTS_H__
#define __GST_ROBOCACHE_ELEMENTS_H__

#include <gst/gst.h>
#include <gst/base/gstbasesrc.h>

G_BEGIN_DECLS

GST_ELEMENT_REGISTER_DECLARE (robocachevoxelize);
GST_ELEMENT_REGISTER_DECLARE (robocachefuse);
GST_ELEMENT_REGISTER_DECLARE (robocachelidarsrc);
GST_ELEMENT_REGISTER_DECLARE (robocachejointsrc);
GST_ELEMENT_REGISTER_DECLARE (robocacheresample);
GST_ELEMENT_REGISTER_DECLARE (robocachebagsrc);

/* The synthetic sources' answer to a LATENCY query: one @period (0 while
 * the rate is not known yet) as the minimum, as videotestsrc reports one
 * frame, and no maximum: they make data on demand and never drop it.  Also
 * before caps, where GstBaseSrc would answer a maximum of 0, which leaves
 * an aggregator downstream no room for its own latency. */
static inline void
gst_robocache_source_set_latency (GstBaseSrc * src, GstQuery * query,
    GstClockTime period)
{
  gst_query_set_latency (query, gst_base_src_is_live (src), period,
      GST_CLOCK_TIME_NONE);
}

G_END_DECLS
#endif
