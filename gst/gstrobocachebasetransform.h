/* The base of robocache's CUDA filters: a GstBaseTransform that owns the
 * GPU side (GstRobocacheGpu): the backend and cuda-device-id properties,
 * the CUDA context shared through GstContext, the stream, the allocator
 * offered upstream and the scratch freed at stop.  A filter derived from
 * it writes only its negotiation and its kernel calls. */
#ifndef __GST_ROBOCACHE_BASE_TRANSFORM_H__
#define __GST_ROBOCACHE_BASE_TRANSFORM_H__

#include <gst/base/gstbasetransform.h>

#include "gstrobocachegpu.h"

G_BEGIN_DECLS
#define GST_TYPE_ROBOCACHE_BASE_TRANSFORM \
    (gst_robocache_base_transform_get_type ())
G_DECLARE_DERIVABLE_TYPE (GstRobocacheBaseTransform,
    gst_robocache_base_transform, GST, ROBOCACHE_BASE_TRANSFORM,
    GstBaseTransform);

/**
 * GstRobocacheBaseTransformClass:
 *
 * Subclasses that override #GstBaseTransformClass.start chain up first
 * (the GPU is then open and gpu.use_gpu says where to compute); those that
 * override stop chain up before clearing their state (the base frees the
 * GPU scratch, setting each GstRobocacheScratch to empty, and closes).
 * CONTEXT queries, set_context and the allocator proposed upstream for
 * CUDA caps are handled by the base.
 */
struct _GstRobocacheBaseTransformClass
{
  GstBaseTransformClass parent_class;

  /**
   * GstRobocacheBaseTransformClass::submit:
   *
   * Optional, for the GPU: queues the work of @inbuf into @outbuf on the
   * GPU under slot @slot (gst_robocache_gpu_stage_input, the kernels on
   * the element's stream, then gst_robocache_gpu_stage_output or
   * gst_robocache_gpu_slot_fence) and returns without waiting for it.  Up
   * to pipeline-depth buffers are then in flight: the base waits for the
   * oldest slot and calls finish before pushing its buffer, in order.
   * Without submit, or on the CPU, transform is called as usual.
   * Returning GST_BASE_TRANSFORM_FLOW_DROPPED drops the buffer.
   */
    GstFlowReturn (*submit) (GstRobocacheBaseTransform * self,
      GstBuffer * inbuf, GstBuffer * outbuf, guint slot);

  /**
   * GstRobocacheBaseTransformClass::finish:
   *
   * Called once slot @slot's GPU work is done (also when it is discarded
   * at a flush or stop): unmaps what submit mapped, and counts and posts
   * what the buffer gave.  Its return is the flow of the buffer.
   */
    GstFlowReturn (*finish) (GstRobocacheBaseTransform * self,
      GstBuffer * inbuf, GstBuffer * outbuf, guint slot);
};

/* The filter's GPU side; gpu.use_gpu is fixed between start and stop. */
GstRobocacheGpu *gst_robocache_base_transform_get_gpu (GstRobocacheBaseTransform
    * self);

/* Whether the filter may offer CUDA memory in its caps now (see
 * gst_robocache_gpu_may_offer_cuda). */
gboolean gst_robocache_base_transform_may_offer_cuda (GstRobocacheBaseTransform
    * self);

/* Posts @text (and @debug; both taken) as an element error of @domain and
 * @code, unless it is the refusal posted before: a refused caps comes back
 * with every buffer and renegotiation, and would post the same error each
 * time.  The base keeps the text until stop, or until forget_refusal once
 * caps are accepted (a later refusal, even the same, is then news). */
void gst_robocache_base_transform_post_refusal (GstRobocacheBaseTransform *
    self, GQuark domain, gint code, gchar * text, gchar * debug);
void gst_robocache_base_transform_forget_refusal (GstRobocacheBaseTransform *
    self);

/* Whether upstream says it is live (a LATENCY query on @trans's sink
 * pad's peer). */
gboolean gst_robocache_base_transform_upstream_live (GstBaseTransform *
    trans);

/* Maps @inbuf for reading and @outbuf for writing, as a transform on the
 * CPU does; FALSE, with neither mapped, after an element error. */
gboolean gst_robocache_base_transform_map_cpu (GstRobocacheBaseTransform *
    self, GstBuffer * inbuf, GstMapInfo * in, GstBuffer * outbuf,
    GstMapInfo * out);

/* Posts the failure of @what, a kernel on the CPU, with @status's text;
 * returns GST_FLOW_ERROR for the caller to return. */
GstFlowReturn gst_robocache_base_transform_cpu_failed (GstRobocacheBaseTransform
    * self, const gchar * what, rc_status status);

G_END_DECLS
#endif
