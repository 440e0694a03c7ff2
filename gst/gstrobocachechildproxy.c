/* Request sink pads as an element's children (gstrobocachechildproxy.h). */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstrobocachechildproxy.h"

static GObject *
get_child_by_index (GstChildProxy * proxy, guint index)
{
  GObject *pad = NULL;

  GST_OBJECT_LOCK (proxy);
  pad = g_list_nth_data (GST_ELEMENT_CAST (proxy)->sinkpads, index);
  if (pad)
    g_object_ref (pad);
  GST_OBJECT_UNLOCK (proxy);
  return pad;
}

static guint
get_children_count (GstChildProxy * proxy)
{
  guint count;

  GST_OBJECT_LOCK (proxy);
  count = GST_ELEMENT_CAST (proxy)->numsinkpads;
  GST_OBJECT_UNLOCK (proxy);
  return count;
}

void
gst_robocache_sink_pads_child_proxy_init (gpointer g_iface, gpointer iface_data)
{
  GstChildProxyInterface *iface = g_iface;

  iface->get_child_by_index = get_child_by_index;
  iface->get_children_count = get_children_count;
}
