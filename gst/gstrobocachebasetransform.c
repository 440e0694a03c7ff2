/* The base of robocache's CUDA filters: everything of the GPU that is the
 * same in every filter, so that a filter negotiates and calls its kernels
 * and nothing else. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstrobocachebasetransform.h"

GST_DEBUG_CATEGORY_STATIC (gst_robocache_base_transform_debug);
#define GST_CAT_DEFAULT gst_robocache_base_transform_debug

enum
{
  PROP_0,
  PROP_GPU_FIRST
};

typedef struct
{
  GstRobocacheGpu gpu;
} GstRobocacheBaseTransformPrivate;

#define gst_robocache_base_transform_parent_class parent_class
G_DEFINE_ABSTRACT_TYPE_WITH_CODE (GstRobocacheBaseTransform,
    gst_robocache_base_transform, GST_TYPE_BASE_TRANSFORM,
    G_ADD_PRIVATE (GstRobocacheBaseTransform);
    GST_DEBUG_CATEGORY_INIT (gst_robocache_base_transform_debug,
        "robocachebasetransform", 0, "robocache CUDA filter base"));

static GstRobocacheGpu *
get_gpu (gpointer self)
{
  GstRobocacheBaseTransformPrivate *priv =
      gst_robocache_base_transform_get_instance_private
      (GST_ROBOCACHE_BASE_TRANSFORM (self));

  return &priv->gpu;
}

GstRobocacheGpu *
gst_robocache_base_transform_get_gpu (GstRobocacheBaseTransform * self)
{
  return get_gpu (self);
}

gboolean
gst_robocache_base_transform_may_offer_cuda (GstRobocacheBaseTransform * self)
{
  return gst_robocache_gpu_may_offer_cuda (get_gpu (self), GST_ELEMENT (self));
}

static void
gst_robocache_base_transform_set_property (GObject * object, guint prop_id,
    const GValue * value, GParamSpec * pspec)
{
  if (!gst_robocache_gpu_set_property (get_gpu (object), GST_ELEMENT (object),
          PROP_GPU_FIRST, prop_id, value))
    G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
}

static void
gst_robocache_base_transform_get_property (GObject * object, guint prop_id,
    GValue * value, GParamSpec * pspec)
{
  if (!gst_robocache_gpu_get_property (get_gpu (object), GST_ELEMENT (object),
          PROP_GPU_FIRST, prop_id, value))
    G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
}

static void
gst_robocache_base_transform_set_context (GstElement * element,
    GstContext * context)
{
  gst_robocache_gpu_set_context (get_gpu (element), element, context);
  GST_ELEMENT_CLASS (parent_class)->set_context (element, context);
}

static gboolean
gst_robocache_base_transform_query (GstBaseTransform * trans,
    GstPadDirection direction, GstQuery * query)
{
  if (gst_robocache_gpu_query_context (get_gpu (trans), GST_ELEMENT (trans),
          query))
    return TRUE;
  return GST_BASE_TRANSFORM_CLASS (parent_class)->query (trans, direction,
      query);
}

static gboolean
gst_robocache_base_transform_start (GstBaseTransform * trans)
{
  return gst_robocache_gpu_start (get_gpu (trans), GST_ELEMENT (trans));
}

static gboolean
gst_robocache_base_transform_stop (GstBaseTransform * trans)
{
  gst_robocache_gpu_stop (get_gpu (trans), GST_ELEMENT (trans));
  return TRUE;
}

/* Inputs vary in size, so no pool: on the GPU, upstream of CUDA caps gets
 * the allocator and allocates device memory of the size it needs. */
static gboolean
gst_robocache_base_transform_propose_allocation (GstBaseTransform * trans,
    GstQuery * decide_query, GstQuery * query)
{
  gst_robocache_gpu_propose_allocator (get_gpu (trans), query);
  return TRUE;
}

static void
gst_robocache_base_transform_finalize (GObject * object)
{
  gst_robocache_gpu_finalize (get_gpu (object));
  G_OBJECT_CLASS (parent_class)->finalize (object);
}

static void
gst_robocache_base_transform_class_init (GstRobocacheBaseTransformClass * klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  GstElementClass *element_class = GST_ELEMENT_CLASS (klass);
  GstBaseTransformClass *trans_class = GST_BASE_TRANSFORM_CLASS (klass);

  gobject_class->set_property = gst_robocache_base_transform_set_property;
  gobject_class->get_property = gst_robocache_base_transform_get_property;
  gobject_class->finalize = gst_robocache_base_transform_finalize;

  /**
   * GstRobocacheBaseTransform:backend:
   *
   * Where to compute: auto (the GPU when there is one, else the CPU, with
   * the same results), cpu, or gpu (an error at start without a usable
   * GPU).
   *
   * GstRobocacheBaseTransform:cuda-device-id:
   *
   * The CUDA device, -1 for any: the pipeline's shared context decides.
   */
  gst_robocache_gpu_install_properties (gobject_class, PROP_GPU_FIRST);

  element_class->set_context =
      GST_DEBUG_FUNCPTR (gst_robocache_base_transform_set_context);
  trans_class->passthrough_on_same_caps = FALSE;
  trans_class->query = GST_DEBUG_FUNCPTR (gst_robocache_base_transform_query);
  trans_class->start = GST_DEBUG_FUNCPTR (gst_robocache_base_transform_start);
  trans_class->stop = GST_DEBUG_FUNCPTR (gst_robocache_base_transform_stop);
  trans_class->propose_allocation =
      GST_DEBUG_FUNCPTR (gst_robocache_base_transform_propose_allocation);

  gst_type_mark_as_plugin_api (GST_TYPE_ROBOCACHE_BASE_TRANSFORM, 0);
}

static void
gst_robocache_base_transform_init (GstRobocacheBaseTransform * self)
{
  gst_robocache_gpu_init (get_gpu (self));
}
