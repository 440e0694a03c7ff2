/* The base of robocache's CUDA filters: everything of the GPU that is the
 * same in every filter, so that a filter negotiates and calls its kernels
 * and nothing else. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstrobocachebasetransform.h"
#include "gstrobocachefields.h"

GST_DEBUG_CATEGORY_STATIC (gst_robocache_base_transform_debug);
#define GST_CAT_DEFAULT gst_robocache_base_transform_debug

/* pipeline-depth 0: one buffer at a time behind a live source (no added
 * latency), this many otherwise (upload, kernel and download of three
 * buffers overlap). */
#define DEFAULT_PIPELINE_DEPTH 0
#define AUTO_DEPTH 3

enum
{
  PROP_0,
  PROP_PIPELINE_DEPTH,
  PROP_GPU_FIRST
};

/* A buffer whose GPU work is queued; its slot is its place in the ring. */
typedef struct
{
  GstBuffer *inbuf;
  GstBuffer *outbuf;
} InFlight;

typedef struct
{
  GstRobocacheGpu gpu;
  /* The pipeline-depth property, under the object lock. */
  guint depth_setting;

  /* Streaming thread: the ring of buffers in flight, the depth in use (0
   * until the first buffer resolves it), and for live upstreams the
   * longest gap between buffers seen, which a depth above 1 adds to the
   * latency per buffer held. */
  InFlight ring[GST_ROBOCACHE_MAX_DEPTH];
  guint head;
  guint len;
  guint depth;
  gboolean live;
  GstClockTime last_pts;
  GstClockTime period;
  /* The caps refusal posted last (post_refusal), until stop. */
  gchar *last_refusal;
  /* The caps of the last CAPS event, accepted or not, until stop. */
  GstCaps *input_caps;
  /* The caps of the last CAPS event refused, until stop: sent again (a
   * source retrying), they are refused without a second error. */
  GstCaps *refused_caps;
} GstRobocacheBaseTransformPrivate;

#define gst_robocache_base_transform_parent_class parent_class
G_DEFINE_ABSTRACT_TYPE_WITH_CODE (GstRobocacheBaseTransform,
    gst_robocache_base_transform, GST_TYPE_BASE_TRANSFORM,
    G_ADD_PRIVATE (GstRobocacheBaseTransform);
    GST_DEBUG_CATEGORY_INIT (gst_robocache_base_transform_debug,
        "robocachebasetransform", 0, "robocache CUDA filter base"));

static GstRobocacheBaseTransformPrivate *
get_priv (gpointer self)
{
  return gst_robocache_base_transform_get_instance_private
      (GST_ROBOCACHE_BASE_TRANSFORM (self));
}

static GstRobocacheGpu *
get_gpu (gpointer self)
{
  return &get_priv (self)->gpu;
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
  if (!gst_robocache_property_settable (object, pspec))
    return;
  if (prop_id == PROP_PIPELINE_DEPTH) {
    GST_OBJECT_LOCK (object);
    get_priv (object)->depth_setting = g_value_get_uint (value);
    GST_OBJECT_UNLOCK (object);
  } else if (!gst_robocache_gpu_set_property (get_gpu (object),
          GST_ELEMENT (object), PROP_GPU_FIRST, prop_id, value)) {
    G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
  }
}

static void
gst_robocache_base_transform_get_property (GObject * object, guint prop_id,
    GValue * value, GParamSpec * pspec)
{
  if (prop_id == PROP_PIPELINE_DEPTH) {
    GST_OBJECT_LOCK (object);
    g_value_set_uint (value, get_priv (object)->depth_setting);
    GST_OBJECT_UNLOCK (object);
  } else if (!gst_robocache_gpu_get_property (get_gpu (object),
          GST_ELEMENT (object), PROP_GPU_FIRST, prop_id, value)) {
    G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
  }
}

/* ------------------------------------------------------------------ */
/* Buffers in flight                                                   */
/* ------------------------------------------------------------------ */

void
gst_robocache_base_transform_post_refusal (GstRobocacheBaseTransform * self,
    GQuark domain, gint code, gchar * text, gchar * debug)
{
  gchar **last = &get_priv (self)->last_refusal;

  if (*last && g_str_equal (*last, text)) {
    g_free (text);
    g_free (debug);
    return;
  }
  g_free (*last);
  *last = g_strdup (text);
  gst_element_message_full (GST_ELEMENT (self), GST_MESSAGE_ERROR, domain,
      code, text, debug, __FILE__, GST_FUNCTION, __LINE__);
}

void
gst_robocache_base_transform_forget_refusal (GstRobocacheBaseTransform * self)
{
  g_clear_pointer (&get_priv (self)->last_refusal, g_free);
}

gboolean
gst_robocache_base_transform_upstream_live (GstBaseTransform * trans)
{
  GstQuery *query = gst_query_new_latency ();
  gboolean live = FALSE;

  if (gst_pad_peer_query (trans->sinkpad, query))
    gst_query_parse_latency (query, &live, NULL, NULL);
  gst_query_unref (query);
  return live;
}

gboolean
gst_robocache_base_transform_map_cpu (GstRobocacheBaseTransform * self,
    GstBuffer * inbuf, GstMapInfo * in, GstBuffer * outbuf, GstMapInfo * out)
{
  if (gst_buffer_map (inbuf, in, GST_MAP_READ)) {
    if (gst_buffer_map (outbuf, out, GST_MAP_WRITE))
      return TRUE;
    gst_buffer_unmap (inbuf, in);
  }
  GST_ELEMENT_ERROR (self, RESOURCE, FAILED, ("cannot map a buffer"), (NULL));
  return FALSE;
}

GstFlowReturn
gst_robocache_base_transform_cpu_failed (GstRobocacheBaseTransform * self,
    const gchar * what, rc_status status)
{
  GST_ELEMENT_ERROR (self, STREAM, FAILED, ("%s failed: %s", what,
          rc_status_message (status)), (NULL));
  return GST_FLOW_ERROR;
}

/* The depth for this stream: the property, or for 0 one buffer behind a
 * live upstream and AUTO_DEPTH otherwise. */
static guint
resolve_depth (GstBaseTransform * trans)
{
  GstRobocacheBaseTransformPrivate *priv = get_priv (trans);
  guint depth;

  priv->live = gst_robocache_base_transform_upstream_live (trans);
  GST_OBJECT_LOCK (trans);
  depth = priv->depth_setting;
  GST_OBJECT_UNLOCK (trans);
  if (depth == 0)
    depth = priv->live ? 1 : AUTO_DEPTH;
  GST_DEBUG_OBJECT (trans, "%u buffer(s) in flight (upstream %slive)", depth,
      priv->live ? "" : "not ");
  return depth;
}

/* Behind a live upstream, holding depth - 1 buffers delays each by as many
 * buffer periods: the longest gap seen is reported (and the pipeline told
 * when it grows by a quarter). */
static void
note_period (GstBaseTransform * trans, GstBuffer * inbuf)
{
  GstRobocacheBaseTransformPrivate *priv = get_priv (trans);
  GstClockTime pts = GST_BUFFER_PTS (inbuf);

  if (!priv->live || priv->depth < 2 || !GST_CLOCK_TIME_IS_VALID (pts))
    return;
  if (GST_CLOCK_TIME_IS_VALID (priv->last_pts) && pts > priv->last_pts
      && (!GST_CLOCK_TIME_IS_VALID (priv->period)
          || pts - priv->last_pts > priv->period + priv->period / 4)) {
    GST_OBJECT_LOCK (trans);
    priv->period = pts - priv->last_pts;
    GST_OBJECT_UNLOCK (trans);
    gst_element_post_message (GST_ELEMENT (trans),
        gst_message_new_latency (GST_OBJECT (trans)));
  }
  priv->last_pts = pts;
}

static GstFlowReturn
submit_buffer (GstBaseTransform * trans, GstBuffer * inbuf)
{
  GstRobocacheBaseTransformClass *klass =
      GST_ROBOCACHE_BASE_TRANSFORM_GET_CLASS (trans);
  GstRobocacheBaseTransformPrivate *priv = get_priv (trans);
  GstBuffer *outbuf = NULL;
  guint slot = (priv->head + priv->len) % GST_ROBOCACHE_MAX_DEPTH;
  GstFlowReturn flow;

  if (priv->depth == 0)
    priv->depth = resolve_depth (trans);
  note_period (trans, inbuf);
  flow = GST_BASE_TRANSFORM_GET_CLASS (trans)->prepare_output_buffer (trans,
      inbuf, &outbuf);
  if (flow == GST_FLOW_OK && outbuf)
    flow = klass->submit (GST_ROBOCACHE_BASE_TRANSFORM (trans), inbuf, outbuf,
        slot);
  if (flow != GST_FLOW_OK) {
    gst_clear_buffer (&outbuf);
    gst_buffer_unref (inbuf);
    return flow == GST_BASE_TRANSFORM_FLOW_DROPPED ? GST_FLOW_OK : flow;
  }
  priv->ring[slot].inbuf = inbuf;
  priv->ring[slot].outbuf = outbuf;
  priv->len++;
  return GST_FLOW_OK;
}

/* Waits for the oldest buffer in flight and finishes it: *outbuf is then
 * its output, NULL when it was dropped or failed. */
static GstFlowReturn
finish_oldest (GstBaseTransform * trans, GstBuffer ** outbuf)
{
  GstRobocacheBaseTransformClass *klass =
      GST_ROBOCACHE_BASE_TRANSFORM_GET_CLASS (trans);
  GstRobocacheBaseTransformPrivate *priv = get_priv (trans);
  guint slot = priv->head;
  InFlight entry = priv->ring[slot];
  gboolean waited;
  GstFlowReturn flow;

  priv->ring[slot].inbuf = priv->ring[slot].outbuf = NULL;
  priv->head = (priv->head + 1) % GST_ROBOCACHE_MAX_DEPTH;
  priv->len--;
  waited = gst_robocache_gpu_slot_wait (&priv->gpu, GST_ELEMENT (trans), slot);
  /* Always finished, so that what submit mapped is unmapped. */
  flow = klass->finish (GST_ROBOCACHE_BASE_TRANSFORM (trans), entry.inbuf,
      entry.outbuf, slot);
  gst_buffer_unref (entry.inbuf);
  if (waited && flow == GST_FLOW_OK) {
    *outbuf = entry.outbuf;
    return GST_FLOW_OK;
  }
  gst_buffer_unref (entry.outbuf);
  if (!waited)
    return GST_FLOW_ERROR;
  return flow == GST_BASE_TRANSFORM_FLOW_DROPPED ? GST_FLOW_OK : flow;
}

/* Finishes every buffer in flight, oldest first, pushing their outputs
 * downstream when @push (before a serialized event, so that it keeps its
 * place in the stream) or dropping them (a flush, stop). */
static void
drain (GstBaseTransform * trans, gboolean push)
{
  GstRobocacheBaseTransformPrivate *priv = get_priv (trans);
  GstFlowReturn flow = GST_FLOW_OK;

  while (priv->len > 0) {
    GstBuffer *outbuf = NULL;

    if (finish_oldest (trans, &outbuf) != GST_FLOW_OK)
      push = FALSE;
    if (outbuf && push && flow == GST_FLOW_OK)
      flow = gst_pad_push (trans->srcpad, outbuf);
    else if (outbuf)
      gst_buffer_unref (outbuf);
  }
  if (flow != GST_FLOW_OK)
    GST_DEBUG_OBJECT (trans, "pushing the drained buffers: %s",
        gst_flow_get_name (flow));
}

/* Submits the queued input, then hands back the oldest buffer in flight
 * once depth buffers are: up to depth buffers' copies and kernels overlap,
 * and outputs leave in input order. */
static GstFlowReturn
gst_robocache_base_transform_generate_output (GstBaseTransform * trans,
    GstBuffer ** outbuf)
{
  GstRobocacheBaseTransformPrivate *priv = get_priv (trans);
  GstBuffer *inbuf = trans->queued_buf;
  GstFlowReturn flow;

  *outbuf = NULL;
  if (!GST_ROBOCACHE_BASE_TRANSFORM_GET_CLASS (trans)->submit
      || !priv->gpu.use_gpu)
    return GST_BASE_TRANSFORM_CLASS (parent_class)->generate_output (trans,
        outbuf);
  if (inbuf) {
    trans->queued_buf = NULL;
    flow = submit_buffer (trans, inbuf);
    if (flow != GST_FLOW_OK)
      return flow;
  }
  /* Until PLAYING nothing is held: a sink waiting for its first buffer
   * must get it, or a pipeline whose other branches fill their queues
   * first never prerolls. */
  if (priv->len > 0 && (priv->len >= priv->depth
          || GST_STATE (trans) < GST_STATE_PLAYING))
    return finish_oldest (trans, outbuf);
  return GST_FLOW_OK;
}

/* GstBaseTransform says only "not negotiated" (a warning, and upstream's
 * not-negotiated error) when downstream takes none of the outputs of the
 * input: a capsfilter after the element, new input caps or a property set
 * while playing that downstream cannot follow.  Says what the element
 * makes and what downstream takes, unless the subclass said why already. */
static void
explain_refusal (GstBaseTransform * trans)
{
  GstRobocacheBaseTransformPrivate *priv = get_priv (trans);
  GstCaps *offered, *accepted;
  gchar *in, *out, *takes;

  if (priv->last_refusal || !priv->input_caps)
    return;
  offered = GST_BASE_TRANSFORM_GET_CLASS (trans)->transform_caps (trans,
      GST_PAD_SINK, priv->input_caps, NULL);
  accepted = gst_pad_peer_query_caps (trans->srcpad, NULL);
  /* Downstream takes some: the refusal was the element's (its own
   * error says why). */
  if (gst_caps_can_intersect (offered, accepted)) {
    gst_caps_unref (offered);
    gst_caps_unref (accepted);
    return;
  }
  in = gst_caps_to_string (priv->input_caps);
  out = gst_caps_to_string (offered);
  takes = gst_caps_to_string (accepted);
  gst_robocache_base_transform_post_refusal (GST_ROBOCACHE_BASE_TRANSFORM
      (trans), GST_CORE_ERROR, GST_CORE_ERROR_NEGOTIATION,
      g_strdup_printf ("downstream takes nothing %s makes: of %s it makes "
          "%s (by its properties), and downstream takes %s",
          GST_ELEMENT_NAME (trans), in, out, takes), NULL);
  g_free (in);
  g_free (out);
  g_free (takes);
  gst_caps_unref (offered);
  gst_caps_unref (accepted);
}

static GstFlowReturn
gst_robocache_base_transform_submit_input_buffer (GstBaseTransform * trans,
    gboolean discont, GstBuffer * input)
{
  GstFlowReturn flow = GST_BASE_TRANSFORM_CLASS
      (parent_class)->submit_input_buffer (trans, discont, input);

  if (flow == GST_FLOW_NOT_NEGOTIATED)
    explain_refusal (trans);
  return flow;
}

/* Whether @caps were refused last, with the same properties: sent again
 * (a source retrying its caps), they are refused without posting the same
 * error a second time. */
static gboolean
refused_before (GstBaseTransform * trans, GstCaps * caps)
{
  GstRobocacheBaseTransformPrivate *priv = get_priv (trans);
  gboolean refused;

  GST_OBJECT_LOCK (trans);
  refused = priv->refused_caps && gst_caps_is_equal (caps,
      priv->refused_caps);
  GST_OBJECT_UNLOCK (trans);
  return refused;
}

static gboolean
gst_robocache_base_transform_sink_event (GstBaseTransform * trans,
    GstEvent * event)
{
  GstRobocacheBaseTransformPrivate *priv = get_priv (trans);

  if (GST_EVENT_TYPE (event) == GST_EVENT_FLUSH_STOP) {
    drain (trans, FALSE);
    priv->depth = 0;
    priv->last_pts = GST_CLOCK_TIME_NONE;
  } else if (GST_EVENT_IS_SERIALIZED (event)) {
    drain (trans, TRUE);
  }
  if (GST_EVENT_TYPE (event) == GST_EVENT_CAPS) {
    GstCaps *caps;

    gst_event_parse_caps (event, &caps);
    gst_caps_replace (&priv->input_caps, caps);
    if (refused_before (trans, caps)) {
      gst_event_unref (event);
      return FALSE;
    }
    if (!GST_BASE_TRANSFORM_CLASS (parent_class)->sink_event (trans, event)) {
      GST_OBJECT_LOCK (trans);
      gst_caps_replace (&priv->refused_caps, priv->input_caps);
      GST_OBJECT_UNLOCK (trans);
      explain_refusal (trans);
      return FALSE;
    }
    return TRUE;
  }
  return GST_BASE_TRANSFORM_CLASS (parent_class)->sink_event (trans, event);
}

/* A property changed: caps refused before may be taken now. */
static void
forget_refused_caps (GObject * object, GParamSpec * pspec, gpointer unused)
{
  GstRobocacheBaseTransformPrivate *priv = get_priv (object);

  GST_OBJECT_LOCK (object);
  gst_caps_replace (&priv->refused_caps, NULL);
  GST_OBJECT_UNLOCK (object);
}

static void
reset_ring (GstRobocacheBaseTransformPrivate * priv)
{
  priv->head = priv->len = priv->depth = 0;
  priv->live = FALSE;
  priv->last_pts = GST_CLOCK_TIME_NONE;
  priv->period = GST_CLOCK_TIME_NONE;
}

static void
gst_robocache_base_transform_set_context (GstElement * element,
    GstContext * context)
{
  gst_robocache_gpu_set_context (get_gpu (element), element, context);
  GST_ELEMENT_CLASS (parent_class)->set_context (element, context);
}

/* Adds what buffers held in flight add to a live pipeline's latency. */
static void
add_held_latency (GstBaseTransform * trans, GstQuery * query)
{
  GstRobocacheBaseTransformPrivate *priv = get_priv (trans);
  GstClockTime min, max, held = 0;
  gboolean live;
  guint depth;

  GST_OBJECT_LOCK (trans);
  depth = priv->depth_setting;
  if (depth > 1 && GST_CLOCK_TIME_IS_VALID (priv->period))
    held = (depth - 1) * priv->period;
  GST_OBJECT_UNLOCK (trans);
  gst_query_parse_latency (query, &live, &min, &max);
  if (!live || held == 0)
    return;
  min += held;
  if (GST_CLOCK_TIME_IS_VALID (max))
    max += held;
  gst_query_set_latency (query, live, min, max);
}

static gboolean
gst_robocache_base_transform_query (GstBaseTransform * trans,
    GstPadDirection direction, GstQuery * query)
{
  gboolean ret;

  if (gst_robocache_gpu_query_context (get_gpu (trans), GST_ELEMENT (trans),
          query))
    return TRUE;
  ret = GST_BASE_TRANSFORM_CLASS (parent_class)->query (trans, direction,
      query);
  if (ret && direction == GST_PAD_SRC
      && GST_QUERY_TYPE (query) == GST_QUERY_LATENCY)
    add_held_latency (trans, query);
  return ret;
}

static gboolean
gst_robocache_base_transform_start (GstBaseTransform * trans)
{
  reset_ring (get_priv (trans));
  return gst_robocache_gpu_start (get_gpu (trans), GST_ELEMENT (trans));
}

static gboolean
gst_robocache_base_transform_stop (GstBaseTransform * trans)
{
  /* The streaming thread has stopped: what is still in flight is dropped,
   * finished first so that the subclass unmaps it. */
  drain (trans, FALSE);
  reset_ring (get_priv (trans));
  gst_robocache_gpu_stop (get_gpu (trans), GST_ELEMENT (trans));
  gst_robocache_base_transform_forget_refusal (GST_ROBOCACHE_BASE_TRANSFORM
      (trans));
  gst_caps_replace (&get_priv (trans)->input_caps, NULL);
  GST_OBJECT_LOCK (trans);
  gst_caps_replace (&get_priv (trans)->refused_caps, NULL);
  GST_OBJECT_UNLOCK (trans);
  return TRUE;
}

/* Inputs vary in size, so no pool: on the GPU, upstream gets an allocator
 * of CUDA memory for CUDA caps, of page-locked memory for system memory,
 * and allocates the sizes it needs. */
static gboolean
gst_robocache_base_transform_propose_allocation (GstBaseTransform * trans,
    GstQuery * decide_query, GstQuery * query)
{
  gst_robocache_gpu_propose_allocator (get_gpu (trans), query);
  return TRUE;
}

/* Outputs in system memory on the GPU: page-locked, so that downloads run
 * at full speed and asynchronously.  Subclasses with CUDA outputs decide
 * their own pool and chain up only for system memory. */
static gboolean
gst_robocache_base_transform_decide_allocation (GstBaseTransform * trans,
    GstQuery * query)
{
  gst_robocache_gpu_decide_host_allocator (get_gpu (trans), query);
  return GST_BASE_TRANSFORM_CLASS (parent_class)->decide_allocation (trans,
      query);
}

/* A buffer pool of CUDA memory fails an acquire when the device
 * allocation fails, and GstBaseTransform passes the flow error on without
 * a word: say what failed, naming the CUDA error. */
static GstFlowReturn
gst_robocache_base_transform_prepare_output_buffer (GstBaseTransform * trans,
    GstBuffer * input, GstBuffer ** outbuf)
{
  GstFlowReturn ret =
      GST_BASE_TRANSFORM_CLASS (parent_class)->prepare_output_buffer (trans,
      input, outbuf);

  if (ret == GST_FLOW_ERROR && get_gpu (trans)->use_gpu)
    GST_ELEMENT_ERROR (trans, RESOURCE, NO_SPACE_LEFT,
        ("cannot allocate an output buffer in GPU memory: %s",
            gst_robocache_gpu_status_text (RC_ERROR_OUT_OF_MEMORY)), (NULL));
  return ret;
}

static void
gst_robocache_base_transform_finalize (GObject * object)
{
  gst_robocache_gpu_finalize (get_gpu (object));
  g_free (get_priv (object)->last_refusal);
  gst_caps_replace (&get_priv (object)->input_caps, NULL);
  gst_caps_replace (&get_priv (object)->refused_caps, NULL);
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
   * An id this machine does not have is an error at start (with
   * backend=auto too, where a GPU exists).  A CUDA buffer from an element
   * on another device is copied device to device before the kernels run.
   */
  gst_robocache_gpu_install_properties (gobject_class, PROP_GPU_FIRST);

  /**
   * GstRobocacheBaseTransform:pipeline-depth:
   *
   * How many buffers a filter with a GPU pipeline keeps in flight: the
   * upload of one, the kernels of another and the download of a third
   * overlap, and outputs leave in input order.  0 chooses: 1 behind a live
   * source (each buffer leaves as soon as it is done, adding no latency),
   * 3 otherwise (recordings replayed as fast as they go).  Above 1 behind
   * a live source, each buffer waits for depth - 1 later ones, which is
   * added to the reported latency.  No effect on the CPU, nor in filters
   * that take one buffer at a time (robocacheresample, robocachepillars
   * and robocachebev today: their GPU work is not split into submit and
   * finish).
   */
  g_object_class_install_property (gobject_class, PROP_PIPELINE_DEPTH,
      g_param_spec_uint ("pipeline-depth", "Pipeline depth",
          "Buffers in flight on the GPU at once (0 = 1 behind a live source, "
          "3 otherwise)", 0, GST_ROBOCACHE_MAX_DEPTH, DEFAULT_PIPELINE_DEPTH,
          G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
          GST_PARAM_MUTABLE_READY));

  element_class->set_context =
      GST_DEBUG_FUNCPTR (gst_robocache_base_transform_set_context);
  trans_class->passthrough_on_same_caps = FALSE;
  trans_class->query = GST_DEBUG_FUNCPTR (gst_robocache_base_transform_query);
  trans_class->start = GST_DEBUG_FUNCPTR (gst_robocache_base_transform_start);
  trans_class->stop = GST_DEBUG_FUNCPTR (gst_robocache_base_transform_stop);
  trans_class->propose_allocation =
      GST_DEBUG_FUNCPTR (gst_robocache_base_transform_propose_allocation);
  trans_class->decide_allocation =
      GST_DEBUG_FUNCPTR (gst_robocache_base_transform_decide_allocation);
  trans_class->generate_output =
      GST_DEBUG_FUNCPTR (gst_robocache_base_transform_generate_output);
  trans_class->sink_event =
      GST_DEBUG_FUNCPTR (gst_robocache_base_transform_sink_event);
  trans_class->submit_input_buffer =
      GST_DEBUG_FUNCPTR (gst_robocache_base_transform_submit_input_buffer);
  trans_class->prepare_output_buffer =
      GST_DEBUG_FUNCPTR (gst_robocache_base_transform_prepare_output_buffer);

  gst_type_mark_as_plugin_api (GST_TYPE_ROBOCACHE_BASE_TRANSFORM, 0);
}

static void
gst_robocache_base_transform_init (GstRobocacheBaseTransform * self)
{
  gst_robocache_gpu_init (get_gpu (self));
  get_priv (self)->depth_setting = DEFAULT_PIPELINE_DEPTH;
  reset_ring (get_priv (self));
  g_signal_connect (self, "notify", G_CALLBACK (forget_refused_caps), NULL);
}
