/* GstRobocacheLiveSrc: what the synthetic sources share, so that they only
 * make their samples.
 *
 * Sample n is due at n / rate (exact integer arithmetic): the base class
 * gives it that PTS (or the subclass's own, see get_sample_time), the
 * duration up to the next one and offset n.  With is-live, GstBaseSrc
 * pushes each buffer at the running time of its timestamp (get_times) and
 * counts num-buffers as for any source; the latency is one period.  The
 * rate and seed are read once, when caps are set, so that a stream runs
 * with one set of values. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstrobocachelivesrc.h"
#include "gstrobocachecaps.h"

GST_DEBUG_CATEGORY_STATIC (gst_robocache_live_src_debug);
#define GST_CAT_DEFAULT gst_robocache_live_src_debug

#define DEFAULT_IS_LIVE FALSE
#define DEFAULT_SEED 0

enum
{
  PROP_0,
  PROP_IS_LIVE,
  PROP_RATE,
  PROP_SEED
};

G_STATIC_ASSERT (PROP_SEED == GST_ROBOCACHE_LIVE_SRC_PROP_LAST);

typedef struct
{
  /* Property values, under the object lock. */
  gboolean is_live;
  gint rate_n;
  gint rate_d;
  guint seed;

  /* Streaming state: config and configured are set in set_caps, under the
   * object lock since the latency query reads them too. */
  gboolean configured;
  GstRobocacheLiveSrcConfig config;
  /* The latency last answered (GST_CLOCK_TIME_NONE: none yet), under the
   * object lock: a change from it is posted as a LATENCY message. */
  GstClockTime answered;
  guint64 n_samples;            /* nominal index of the next sample */
} GstRobocacheLiveSrcPrivate;

#define gst_robocache_live_src_parent_class parent_class
G_DEFINE_ABSTRACT_TYPE_WITH_CODE (GstRobocacheLiveSrc, gst_robocache_live_src,
    GST_TYPE_PUSH_SRC, G_ADD_PRIVATE (GstRobocacheLiveSrc);
    GST_DEBUG_CATEGORY_INIT (gst_robocache_live_src_debug,
        "robocachelivesrc", 0, "robocache synthetic live source base"));

#define GET_PRIV(src) \
    ((GstRobocacheLiveSrcPrivate *) \
    gst_robocache_live_src_get_instance_private (src))

static void gst_robocache_live_src_set_property (GObject * object,
    guint prop_id, const GValue * value, GParamSpec * pspec);
static void gst_robocache_live_src_get_property (GObject * object,
    guint prop_id, GValue * value, GParamSpec * pspec);
static void gst_robocache_live_src_constructed (GObject * object);
static void gst_robocache_live_src_finalize (GObject * object);
static GstCaps *gst_robocache_live_src_get_caps (GstBaseSrc * bsrc,
    GstCaps * filter);
static gboolean gst_robocache_live_src_set_caps (GstBaseSrc * bsrc,
    GstCaps * caps);
static gboolean gst_robocache_live_src_decide_allocation (GstBaseSrc * bsrc,
    GstQuery * query);
static gboolean gst_robocache_live_src_query (GstBaseSrc * bsrc,
    GstQuery * query);
static gboolean gst_robocache_live_src_is_seekable (GstBaseSrc * bsrc);
static void gst_robocache_live_src_get_times (GstBaseSrc * bsrc,
    GstBuffer * buffer, GstClockTime * start, GstClockTime * end);
static gboolean gst_robocache_live_src_start (GstBaseSrc * bsrc);
static gboolean gst_robocache_live_src_stop (GstBaseSrc * bsrc);
static GstFlowReturn gst_robocache_live_src_fill (GstPushSrc * psrc,
    GstBuffer * buffer);

static void
gst_robocache_live_src_class_init (GstRobocacheLiveSrcClass * klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  GstBaseSrcClass *basesrc_class = GST_BASE_SRC_CLASS (klass);
  GstPushSrcClass *pushsrc_class = GST_PUSH_SRC_CLASS (klass);

  gobject_class->set_property = gst_robocache_live_src_set_property;
  gobject_class->get_property = gst_robocache_live_src_get_property;
  gobject_class->constructed = gst_robocache_live_src_constructed;
  gobject_class->finalize = gst_robocache_live_src_finalize;

  /**
   * GstRobocacheLiveSrc:is-live:
   *
   * Whether to act as a live source: samples are then pushed at the pace of
   * the pipeline clock, each at the running time of its timestamp.
   */
  g_object_class_install_property (gobject_class, PROP_IS_LIVE,
      g_param_spec_boolean ("is-live", "Is live",
          "Whether to act as a live source, paced by the clock",
          DEFAULT_IS_LIVE, G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS));

  klass->sample_name = "sample";

  basesrc_class->get_caps =
      GST_DEBUG_FUNCPTR (gst_robocache_live_src_get_caps);
  basesrc_class->set_caps =
      GST_DEBUG_FUNCPTR (gst_robocache_live_src_set_caps);
  basesrc_class->decide_allocation =
      GST_DEBUG_FUNCPTR (gst_robocache_live_src_decide_allocation);
  basesrc_class->query = GST_DEBUG_FUNCPTR (gst_robocache_live_src_query);
  basesrc_class->is_seekable =
      GST_DEBUG_FUNCPTR (gst_robocache_live_src_is_seekable);
  basesrc_class->get_times =
      GST_DEBUG_FUNCPTR (gst_robocache_live_src_get_times);
  basesrc_class->start = GST_DEBUG_FUNCPTR (gst_robocache_live_src_start);
  basesrc_class->stop = GST_DEBUG_FUNCPTR (gst_robocache_live_src_stop);
  pushsrc_class->fill = GST_DEBUG_FUNCPTR (gst_robocache_live_src_fill);

  gst_type_mark_as_plugin_api (GST_TYPE_ROBOCACHE_LIVE_SRC, 0);
}

void
gst_robocache_live_src_class_install_properties (GstRobocacheLiveSrcClass *
    klass, const GstRobocacheField * fields, const gchar * rate_blurb,
    gint max_rate_n, gint default_rate_n, gint default_rate_d,
    const gchar * seed_blurb)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);

  /* GObject gives each class its own, unset, set_property: the base's
   * serves the subclass, its properties by @fields. */
  gobject_class->set_property = gst_robocache_live_src_set_property;
  gobject_class->get_property = gst_robocache_live_src_get_property;
  gst_robocache_fields_register (gobject_class, fields);
  klass->fields = fields;

  g_object_class_install_property (gobject_class, PROP_RATE,
      gst_param_spec_fraction ("rate", "Rate", rate_blurb, 1, 1,
          max_rate_n, 1, default_rate_n, default_rate_d,
          G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
          GST_PARAM_MUTABLE_READY));
  g_object_class_install_property (gobject_class, PROP_SEED,
      g_param_spec_uint ("seed", "Seed", seed_blurb, 0, G_MAXUINT,
          DEFAULT_SEED,
          G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
          GST_PARAM_MUTABLE_READY));
}

static void
gst_robocache_live_src_init (GstRobocacheLiveSrc * self)
{
  GstRobocacheLiveSrcPrivate *priv = GET_PRIV (self);

  priv->is_live = DEFAULT_IS_LIVE;
  priv->seed = DEFAULT_SEED;
  priv->answered = GST_CLOCK_TIME_NONE;

  gst_base_src_set_format (GST_BASE_SRC (self), GST_FORMAT_TIME);
  gst_base_src_set_live (GST_BASE_SRC (self), DEFAULT_IS_LIVE);
}

/* The default rate and the defaults of the subclass's fields are its
 * class's, known only now (the instance init sees the base class);
 * properties are set after this. */
static void
gst_robocache_live_src_constructed (GObject * object)
{
  GstRobocacheLiveSrc *self = GST_ROBOCACHE_LIVE_SRC (object);
  GstRobocacheLiveSrcPrivate *priv = GET_PRIV (self);
  GParamSpec *rate =
      g_object_class_find_property (G_OBJECT_GET_CLASS (object), "rate");

  g_return_if_fail (GST_IS_PARAM_SPEC_FRACTION (rate));
  priv->rate_n = GST_PARAM_SPEC_FRACTION (rate)->def_num;
  priv->rate_d = GST_PARAM_SPEC_FRACTION (rate)->def_den;
  gst_robocache_fields_init (self,
      GST_ROBOCACHE_LIVE_SRC_GET_CLASS (self)->fields);

  G_OBJECT_CLASS (parent_class)->constructed (object);
}

static void
gst_robocache_live_src_finalize (GObject * object)
{
  GstRobocacheLiveSrc *self = GST_ROBOCACHE_LIVE_SRC (object);

  GST_ROBOCACHE_LIVE_SRC_GET_CLASS (self)->clear (self);

  G_OBJECT_CLASS (parent_class)->finalize (object);
}

/* One period of the stream's rate once caps are set, else of the rate
 * property (what set_caps will take).  Object lock held. */
static GstClockTime
current_latency (GstRobocacheLiveSrcPrivate * priv)
{
  gint n = priv->configured ? priv->config.rate_n : priv->rate_n;
  gint d = priv->configured ? priv->config.rate_d : priv->rate_d;

  return n > 0 ? gst_util_uint64_scale (GST_SECOND, d, n) : 0;
}

/* Posts a LATENCY message when the latency is no longer the one answered,
 * so that the pipeline queries it again and sets its own. */
static void
post_latency_if_changed (GstRobocacheLiveSrc * self)
{
  GstRobocacheLiveSrcPrivate *priv = GET_PRIV (self);
  gboolean changed;

  GST_OBJECT_LOCK (self);
  changed = priv->answered != GST_CLOCK_TIME_NONE
      && priv->answered != current_latency (priv);
  GST_OBJECT_UNLOCK (self);
  if (changed && gst_base_src_is_live (GST_BASE_SRC (self))) {
    GST_DEBUG_OBJECT (self, "latency changed");
    gst_element_post_message (GST_ELEMENT (self),
        gst_message_new_latency (GST_OBJECT (self)));
  }
}

static void
gst_robocache_live_src_set_property (GObject * object, guint prop_id,
    const GValue * value, GParamSpec * pspec)
{
  GstRobocacheLiveSrcPrivate *priv =
      GET_PRIV (GST_ROBOCACHE_LIVE_SRC (object));
  gboolean set_live = FALSE, set_rate = FALSE;

  /* The subclass's own, which it registered as fields. */
  if (prop_id > GST_ROBOCACHE_LIVE_SRC_PROP_LAST) {
    gst_robocache_fields_set_property (object, prop_id, value, pspec);
    return;
  }
  if (!gst_robocache_property_settable (object, pspec))
    return;

  GST_OBJECT_LOCK (object);
  switch (prop_id) {
    case PROP_IS_LIVE:
      priv->is_live = g_value_get_boolean (value);
      set_live = TRUE;
      break;
    case PROP_RATE:
      priv->rate_n = gst_value_get_fraction_numerator (value);
      priv->rate_d = gst_value_get_fraction_denominator (value);
      set_rate = TRUE;
      break;
    case PROP_SEED:
      priv->seed = g_value_get_uint (value);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
  GST_OBJECT_UNLOCK (object);

  /* gst_base_src_set_live() takes the object lock itself. */
  if (set_live)
    gst_base_src_set_live (GST_BASE_SRC (object), g_value_get_boolean (value));
  /* Before caps the latency follows the property. */
  if (set_rate)
    post_latency_if_changed (GST_ROBOCACHE_LIVE_SRC (object));
}

static void
gst_robocache_live_src_get_property (GObject * object, guint prop_id,
    GValue * value, GParamSpec * pspec)
{
  GstRobocacheLiveSrcPrivate *priv =
      GET_PRIV (GST_ROBOCACHE_LIVE_SRC (object));

  if (prop_id > GST_ROBOCACHE_LIVE_SRC_PROP_LAST) {
    gst_robocache_fields_get_property (object, prop_id, value, pspec);
    return;
  }

  GST_OBJECT_LOCK (object);
  switch (prop_id) {
    case PROP_IS_LIVE:
      g_value_set_boolean (value, priv->is_live);
      break;
    case PROP_RATE:
      gst_value_set_fraction (value, priv->rate_n, priv->rate_d);
      break;
    case PROP_SEED:
      g_value_set_uint (value, priv->seed);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
  GST_OBJECT_UNLOCK (object);
}

const GstRobocacheLiveSrcConfig *
gst_robocache_live_src_get_config (GstRobocacheLiveSrc * src)
{
  return &GET_PRIV (src)->config;
}

static GstCaps *
gst_robocache_live_src_get_caps (GstBaseSrc * bsrc, GstCaps * filter)
{
  GstRobocacheLiveSrc *self = GST_ROBOCACHE_LIVE_SRC (bsrc);
  GstCaps *caps = GST_ROBOCACHE_LIVE_SRC_GET_CLASS (self)->get_caps (self);

  return gst_robocache_caps_filter (caps, filter);
}

static gboolean
gst_robocache_live_src_set_caps (GstBaseSrc * bsrc, GstCaps * caps)
{
  GstRobocacheLiveSrc *self = GST_ROBOCACHE_LIVE_SRC (bsrc);
  GstRobocacheLiveSrcClass *klass = GST_ROBOCACHE_LIVE_SRC_GET_CLASS (self);
  GstRobocacheLiveSrcPrivate *priv = GET_PRIV (self);
  GstRobocacheLiveSrcConfig config;

  GST_OBJECT_LOCK (self);
  config.rate_n = priv->rate_n;
  config.rate_d = priv->rate_d;
  config.seed = priv->seed;
  GST_OBJECT_UNLOCK (self);

  if (!klass->configure (self, caps, &config))
    return FALSE;

  GST_OBJECT_LOCK (self);
  priv->config = config;
  priv->configured = TRUE;
  GST_OBJECT_UNLOCK (self);
  /* The rate may have changed since a query answered before. */
  post_latency_if_changed (self);

  gst_base_src_set_blocksize (bsrc, klass->get_sample_size (self));
  return TRUE;
}

/* Makes sure a pool, if downstream offers one, makes buffers of a sample. */
static gboolean
gst_robocache_live_src_decide_allocation (GstBaseSrc * bsrc,
    GstQuery * query)
{
  GstRobocacheLiveSrc *self = GST_ROBOCACHE_LIVE_SRC (bsrc);

  if (gst_query_get_n_allocation_pools (query) > 0) {
    GstBufferPool *pool = NULL;
    guint size, min, max;
    guint needed = GST_ROBOCACHE_LIVE_SRC_GET_CLASS (self)->get_sample_size
        (self);

    gst_query_parse_nth_allocation_pool (query, 0, &pool, &size, &min, &max);
    if (size < needed)
      size = needed;
    gst_query_set_nth_allocation_pool (query, 0, pool, size, min, max);
    if (pool)
      gst_object_unref (pool);
  }

  return GST_BASE_SRC_CLASS (parent_class)->decide_allocation (bsrc, query);
}

/* One period as the minimum, as videotestsrc reports one frame: a sample
 * is pushed at its start time but only complete one period later.  No
 * maximum: the sources make data on demand and never drop it.  Also before
 * caps (one period of the rate property, the one set_caps will take),
 * where GstBaseSrc would answer a maximum of 0, which leaves an aggregator
 * downstream no room for its own latency. */
static gboolean
gst_robocache_live_src_query (GstBaseSrc * bsrc, GstQuery * query)
{
  GstRobocacheLiveSrcPrivate *priv =
      GET_PRIV (GST_ROBOCACHE_LIVE_SRC (bsrc));

  if (GST_QUERY_TYPE (query) == GST_QUERY_LATENCY) {
    GstClockTime latency;

    GST_OBJECT_LOCK (bsrc);
    latency = current_latency (priv);
    priv->answered = latency;
    GST_OBJECT_UNLOCK (bsrc);

    GST_DEBUG_OBJECT (bsrc, "latency %" GST_TIME_FORMAT,
        GST_TIME_ARGS (latency));
    gst_query_set_latency (query, gst_base_src_is_live (bsrc), latency,
        GST_CLOCK_TIME_NONE);
    return TRUE;
  }

  return GST_BASE_SRC_CLASS (parent_class)->query (bsrc, query);
}

static gboolean
gst_robocache_live_src_is_seekable (GstBaseSrc * bsrc)
{
  return FALSE;
}

static void
gst_robocache_live_src_get_times (GstBaseSrc * bsrc, GstBuffer * buffer,
    GstClockTime * start, GstClockTime * end)
{
  /* Only live: sync each sample on the clock at its timestamp. */
  if (gst_base_src_is_live (bsrc)) {
    GstClockTime pts = GST_BUFFER_PTS (buffer);

    if (GST_CLOCK_TIME_IS_VALID (pts)) {
      *start = pts;
      if (GST_BUFFER_DURATION_IS_VALID (buffer))
        *end = pts + GST_BUFFER_DURATION (buffer);
    }
  } else {
    *start = GST_CLOCK_TIME_NONE;
    *end = GST_CLOCK_TIME_NONE;
  }
}

static gboolean
gst_robocache_live_src_start (GstBaseSrc * bsrc)
{
  GET_PRIV (GST_ROBOCACHE_LIVE_SRC (bsrc))->n_samples = 0;
  return TRUE;
}

static gboolean
gst_robocache_live_src_stop (GstBaseSrc * bsrc)
{
  GstRobocacheLiveSrc *self = GST_ROBOCACHE_LIVE_SRC (bsrc);

  GST_OBJECT_LOCK (self);
  GET_PRIV (self)->configured = FALSE;
  GST_ROBOCACHE_LIVE_SRC_GET_CLASS (self)->clear (self);
  GST_OBJECT_UNLOCK (self);
  return TRUE;
}

/* Writes the next sample that is not lost into @buffer (which GstBaseSrc
 * sized to get_sample_size() or a pool bigger) and timestamps it. */
static GstFlowReturn
gst_robocache_live_src_fill (GstPushSrc * psrc, GstBuffer * buffer)
{
  GstRobocacheLiveSrc *self = GST_ROBOCACHE_LIVE_SRC (psrc);
  GstRobocacheLiveSrcClass *klass = GST_ROBOCACHE_LIVE_SRC_GET_CLASS (self);
  GstRobocacheLiveSrcPrivate *priv = GET_PRIV (self);
  const GstRobocacheLiveSrcConfig *config = &priv->config;
  GstClockTime nominal, next, pts;
  GstMapInfo map;
  guint64 n;
  gsize size;

  if (!priv->configured) {
    GST_ELEMENT_ERROR (self, CORE, NEGOTIATION, (NULL),
        ("no caps were negotiated before the first %s", klass->sample_name));
    return GST_FLOW_NOT_NEGOTIATED;
  }

  size = klass->get_sample_size (self);
  if (gst_buffer_get_size (buffer) < size) {
    GST_ELEMENT_ERROR (self, RESOURCE, FAILED, (NULL),
        ("buffer of %" G_GSIZE_FORMAT " bytes, a %s needs %" G_GSIZE_FORMAT,
            gst_buffer_get_size (buffer), klass->sample_name, size));
    return GST_FLOW_ERROR;
  }
  gst_buffer_set_size (buffer, size);

  /* Skip the lost samples: they leave a gap, nothing else. */
  do {
    n = priv->n_samples++;
  } while (klass->drop_sample && klass->drop_sample (self, n));

  nominal = gst_util_uint64_scale (n, GST_SECOND * config->rate_d,
      config->rate_n);
  next = gst_util_uint64_scale (n + 1, GST_SECOND * config->rate_d,
      config->rate_n);
  pts = klass->get_sample_time ? klass->get_sample_time (self, n, nominal) :
      nominal;

  if (!gst_buffer_map (buffer, &map, GST_MAP_WRITE)) {
    GST_ELEMENT_ERROR (self, RESOURCE, WRITE, (NULL),
        ("could not map the output buffer"));
    return GST_FLOW_ERROR;
  }
  klass->make_sample (self, n, pts, map.data);
  gst_buffer_unmap (buffer, &map);

  GST_BUFFER_PTS (buffer) = pts;
  GST_BUFFER_DTS (buffer) = GST_CLOCK_TIME_NONE;
  GST_BUFFER_DURATION (buffer) = next - nominal;
  GST_BUFFER_OFFSET (buffer) = n;
  GST_BUFFER_OFFSET_END (buffer) = n + 1;

  GST_LOG_OBJECT (self, "%s %" G_GUINT64_FORMAT " at %" GST_TIME_FORMAT
      " (nominal %" GST_TIME_FORMAT ")", klass->sample_name, n,
      GST_TIME_ARGS (pts), GST_TIME_ARGS (nominal));
  return GST_FLOW_OK;
}
