/* The robocache plugin: GPU-first resampling, voxelization and fusion of
 * robot sensor streams, with the same results on the CPU. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstrobocacheelements.h"
#include "gstrobocachegpu.h"

static gboolean
plugin_init (GstPlugin * plugin)
{
  gboolean ret = FALSE;

  GST_DEBUG_CATEGORY_INIT (gst_robocache_gpu_debug, "robocachegpu", 0,
      "robocache CUDA context, streams and memory");
  gst_type_mark_as_plugin_api (GST_TYPE_ROBOCACHE_BACKEND, 0);

  ret |= GST_ELEMENT_REGISTER (robocachevoxelize, plugin);
  ret |= GST_ELEMENT_REGISTER (robocachebev, plugin);
  ret |= GST_ELEMENT_REGISTER (robocachepillars, plugin);
  ret |= GST_ELEMENT_REGISTER (robocachefuse, plugin);
  ret |= GST_ELEMENT_REGISTER (robocachelidarsrc, plugin);
  ret |= GST_ELEMENT_REGISTER (robocachejointsrc, plugin);
  ret |= GST_ELEMENT_REGISTER (robocacheresample, plugin);
  ret |= GST_ELEMENT_REGISTER (robocachebagsrc, plugin);
  ret |= GST_ELEMENT_REGISTER (robocachemcapsrc, plugin);
  ret |= GST_ELEMENT_REGISTER (robocachemcapsink, plugin);
  return ret;
}

GST_PLUGIN_DEFINE (GST_VERSION_MAJOR, GST_VERSION_MINOR, robocache,
    "Resample, voxelize and fuse robot sensor streams on the GPU",
    plugin_init, PACKAGE_VERSION, "LGPL", GST_PACKAGE_NAME, GST_PACKAGE_ORIGIN)
