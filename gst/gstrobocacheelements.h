/* Every element of the robocache plugin, registered by plugin.c. */
#ifndef __GST_ROBOCACHE_ELEMENTS_H__
#define __GST_ROBOCACHE_ELEMENTS_H__

#include <gst/gst.h>

G_BEGIN_DECLS

/* The author of every element (gst-inspect's Author). */
#define GST_ROBOCACHE_AUTHOR "robocache developers"

GST_ELEMENT_REGISTER_DECLARE (robocachevoxelize);
GST_ELEMENT_REGISTER_DECLARE (robocachebev);
GST_ELEMENT_REGISTER_DECLARE (robocachepillars);
GST_ELEMENT_REGISTER_DECLARE (robocachefuse);
GST_ELEMENT_REGISTER_DECLARE (robocachelidarsrc);
GST_ELEMENT_REGISTER_DECLARE (robocachejointsrc);
GST_ELEMENT_REGISTER_DECLARE (robocacheresample);
GST_ELEMENT_REGISTER_DECLARE (robocachebagsrc);
GST_ELEMENT_REGISTER_DECLARE (robocachemcapsrc);
GST_ELEMENT_REGISTER_DECLARE (robocachemcapsink);

G_END_DECLS
#endif
