/* Request sink pads as an element's children (GstChildProxy), so that
 * gst-launch sets their properties: `robocachefuse name=f
 * sink_1::max-age=100000000`, `robocachemcapsink sink_0::topic=/lidar`. */
#ifndef __GST_ROBOCACHE_CHILD_PROXY_H__
#define __GST_ROBOCACHE_CHILD_PROXY_H__

#include <gst/gst.h>

G_BEGIN_DECLS

/* The interface's init, for G_IMPLEMENT_INTERFACE (GST_TYPE_CHILD_PROXY,
 * ...): the children are the element's sink pads, in order.  The element
 * calls gst_child_proxy_child_added () as it adds a pad: gst-launch sets
 * a property given before the pad existed (the pad is requested by a
 * link later in the description) then. */
void gst_robocache_sink_pads_child_proxy_init (gpointer g_iface,
    gpointer iface_data);

G_END_DECLS
#endif /* __GST_ROBOCACHE_CHILD_PROXY_H__ */
