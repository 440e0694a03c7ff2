/* The part of the GPU layer that is the same with and without CUDA. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstrobocachegpu.h"
#include "robocache-kernels.h"

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

/* Grows @ptr (@have bytes) to at least @size with @alloc and @release:
 * device memory or page-locked host memory. */
static gboolean
ensure_memory (GstElement * element, gpointer * ptr, gsize * have,
    gsize size, const gchar * what, rc_status (*alloc) (void **, size_t),
    rc_status (*release) (void *), const gchar * kind)
{
  rc_status ret;

  if (*ptr && *have >= size)
    return TRUE;
  release (*ptr);
  *ptr = NULL;
  *have = 0;
  size = MAX (size, 1);
  ret = alloc (ptr, size);
  if (ret != RC_OK) {
    *ptr = NULL;
    GST_ELEMENT_ERROR (element, RESOURCE, NO_SPACE_LEFT,
        ("cannot allocate %" G_GSIZE_FORMAT " bytes of %s for the %s",
            size, kind, what), ("%s: %s", rc_status_message (ret),
            rc_error_detail ()));
    return FALSE;
  }
  *have = size;
  return TRUE;
}

gboolean
gst_robocache_gpu_ensure_scratch (GstElement * element, gpointer * ptr,
    gsize * have, gsize size, const gchar * what)
{
  return ensure_memory (element, ptr, have, size, what, rc_device_alloc,
      rc_device_free, "GPU memory");
}

gboolean
gst_robocache_gpu_ensure_pinned (GstElement * element, gpointer * ptr,
    gsize * have, gsize size, const gchar * what)
{
  return ensure_memory (element, ptr, have, size, what, rc_host_alloc,
      rc_host_free, "page-locked memory");
}

void
gst_robocache_gpu_install_properties (GObjectClass * klass,
    guint prop_backend, guint prop_device_id)
{
  /* backend: auto computes on the GPU when there is one and on the CPU
   * otherwise, with the same results; cpu never touches CUDA; gpu is an
   * error without a usable GPU. */
  g_object_class_install_property (klass, prop_backend,
      g_param_spec_enum ("backend", "Backend",
          "Where to compute: auto (the GPU when there is one), cpu or gpu",
          GST_TYPE_ROBOCACHE_BACKEND, GST_ROBOCACHE_DEFAULT_BACKEND,
          G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
          GST_PARAM_MUTABLE_READY));
  /* cuda-device-id: the CUDA device, -1 for any (the pipeline's shared
   * context decides). */
  g_object_class_install_property (klass, prop_device_id,
      g_param_spec_int ("cuda-device-id", "CUDA device id",
          "CUDA device to use (-1 = any)", -1, G_MAXINT,
          GST_ROBOCACHE_DEFAULT_DEVICE_ID, G_PARAM_READWRITE |
          G_PARAM_STATIC_STRINGS | GST_PARAM_MUTABLE_READY));
}

gboolean
gst_robocache_gpu_may_offer_cuda (GstRobocacheBackend backend,
    gboolean started, gboolean use_gpu)
{
  if (started)
    return use_gpu;
  return backend != GST_ROBOCACHE_BACKEND_CPU &&
      gst_robocache_gpu_usable (NULL);
}
