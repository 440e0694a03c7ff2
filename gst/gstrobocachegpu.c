/* The part of the GPU layer that is the same with and without CUDA. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstrobocachegpu.h"

GST_DEBUG_CATEGORY (gst_robocache_gpu_debug);

GType
gst_robocache_backend_get_type (void)
{
  static GType type = 0;
  static const GEnumValue values[] = {
    {GST_ROBOCACHE_BACKEND_AUTO, "The GPU when there is one, else the CPU",
        "auto"},
    {GST_ROBOCACHE_BACKEND_CPU, "Always the CPU", "cpu"},
    {GST_ROBOCACHE_BACKEND_GPU, "Always the GPU (an error without one)",
        "gpu"},
    {0, NULL, NULL}
  };

  if (g_once_init_enter (&type)) {
    GType t = g_enum_register_static ("GstRobocacheBackend", values);
    g_once_init_leave (&type, t);
  }
  return type;
}
