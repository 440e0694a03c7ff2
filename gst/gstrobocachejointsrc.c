/* robocachejointsrc: synthetic joint states, one jittered sample per
 * buffer, for testing resampling and fusion. */
/**
 * SECTION:element-robocachejointsrc
 * @title: robocachejointsrc
 *
 * Produces joint states (other/x-robocache-vectors, layout "sample") in
 * system memory: one vector of #GstRobocacheJointSrc:dof joint positions
 * per buffer, followed by a unit quaternion (x, y, z, w) when
 * #GstRobocacheJointSrc:quaternion is set.  The caps name the channels
 * ("joint0,joint1,...,qx,qy,qz,qw") and give the first quaternion channel
 * in their quaternions field.
 *
 * Nominal sample n is taken at n / rate seconds; its actual time, the
 * buffer's PTS, is moved by a uniform random offset of at most
 * #GstRobocacheJointSrc:jitter periods either way (never before 0), so the
 * timestamps stay strictly increasing.  A sample lost to
 * #GstRobocacheJointSrc:dropout gives no buffer: the stream just has a gap
 * (no DISCONT flag).  The buffer offset is the sample index n, its
 * duration the nominal period.  With #GstRobocacheJointSrc:is-live,
 * samples are pushed at the running time of their timestamps, and, as for
 * any live #GstBaseSrc, the base class moves all timestamps by the running
 * time at which the first one was made; the latency reported is one
 * nominal period.
 *
 * Joint j follows b_j + a_j sin (2 pi f_j t + p_j) at the actual sample
 * time t (seconds), with a bias b_j in [-1, 1], an amplitude a_j in
 * [0.1, 1.5], a frequency f_j in [0.05, 2] Hz and a phase p_j drawn from
 * #GstRobocacheJointSrc:seed, so values stay within [-2.5, 2.5] rad.  The
 * quaternion turns smoothly about an axis that itself wanders slowly.  The
 * same seed gives identical output.
 *
 * ## Example launch line
 * |[
 * gst-launch-1.0 robocachejointsrc num-buffers=100 quaternion=true \
 *     jitter=0.2 dropout=0.1 ! fakesink silent=false -v
 * ]|
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstrobocachejointsrc.h"

#include <math.h>
#include <string.h>

#include "gstrobocachecaps.h"
#include "gstrobocacheelements.h"

GST_DEBUG_CATEGORY_STATIC (gst_robocache_joint_src_debug);
#define GST_CAT_DEFAULT gst_robocache_joint_src_debug

#define DEFAULT_DOF 7
#define MAX_DOF 1024
#define DEFAULT_RATE_N 100
#define DEFAULT_RATE_D 1
#define MAX_RATE_N 10000
#define DEFAULT_JITTER 0.1
#define MAX_JITTER 0.49
#define DEFAULT_DROPOUT 0.0
#define MAX_DROPOUT 0.99
#define DEFAULT_QUATERNION FALSE
#define DEFAULT_IS_LIVE FALSE
#define DEFAULT_SEED 0
#define DEFAULT_FORMAT GST_ROBOCACHE_JOINT_SRC_FORMAT_FLOAT32

#define QUATERNION_CHANNELS 4

/* Independent random streams drawn from the seed. */
enum
{
  STREAM_JITTER = 1,
  STREAM_DROPOUT,
  STREAM_JOINT,
  STREAM_QUATERNION
};

enum
{
  PROP_0,
  PROP_DOF,
  PROP_RATE,
  PROP_JITTER,
  PROP_DROPOUT,
  PROP_QUATERNION,
  PROP_IS_LIVE,
  PROP_SEED,
  PROP_FORMAT
};

/* Property values, under the object lock. */
typedef struct
{
  guint dof;
  gint rate_n;
  gint rate_d;
  gdouble jitter;
  gdouble dropout;
  gboolean quaternion;
  gboolean is_live;
  guint seed;
  GstRobocacheJointSrcFormat format;
} GstRobocacheJointSrcSettings;

/* Motion of one joint: bias + amplitude * sin (2 pi frequency t + phase). */
typedef struct
{
  gdouble bias;
  gdouble amplitude;
  gdouble frequency;
  gdouble phase;
} JointMotion;

/* Streaming state: a snapshot of the settings taken in set_caps, used by
 * the streaming thread only (rate_n and rate_d are also read, under the
 * object lock, by the latency query). */
typedef struct
{
  gboolean configured;
  guint dof;
  guint channels;
  gboolean quaternion;
  GstRobocacheJointSrcFormat format;
  gint rate_n;
  gint rate_d;
  gdouble dropout;
  guint seed;
  gint64 max_jitter;            /* nanoseconds */
  JointMotion *joints;
  gdouble axis_rate;            /* quaternion: rad/s of the axis azimuth */
  gdouble tilt_rate;            /* rad/s of the axis tilt wobble */
  gdouble spin_rate;            /* rad/s of the rotation angle */
  gdouble *values;              /* one sample, channels values */
  guint64 next_sample;          /* nominal index of the next sample */
} GstRobocacheJointSrcState;

struct _GstRobocacheJointSrc
{
  GstPushSrc parent;

  GstRobocacheJointSrcSettings settings;
  GstRobocacheJointSrcState state;
};

static GstStaticPadTemplate src_template = GST_STATIC_PAD_TEMPLATE ("src",
    GST_PAD_SRC,
    GST_PAD_ALWAYS,
    GST_STATIC_CAPS (GST_ROBOCACHE_VECTORS_CAPS));

GType
gst_robocache_joint_src_format_get_type (void)
{
  static GType type = 0;
  static const GEnumValue values[] = {
    {GST_ROBOCACHE_JOINT_SRC_FORMAT_FLOAT32, "32-bit floating point",
        "float32"},
    {GST_ROBOCACHE_JOINT_SRC_FORMAT_FLOAT64, "64-bit floating point",
        "float64"},
    {0, NULL, NULL}
  };

  if (g_once_init_enter (&type)) {
    GType t = g_enum_register_static ("GstRobocacheJointSrcFormat", values);
    g_once_init_leave (&type, t);
  }
  return type;
}

#define gst_robocache_joint_src_parent_class parent_class
G_DEFINE_TYPE (GstRobocacheJointSrc, gst_robocache_joint_src,
    GST_TYPE_PUSH_SRC);
GST_ELEMENT_REGISTER_DEFINE_WITH_CODE (robocachejointsrc, "robocachejointsrc",
    GST_RANK_NONE, GST_TYPE_ROBOCACHE_JOINT_SRC,
    GST_DEBUG_CATEGORY_INIT (gst_robocache_joint_src_debug,
        "robocachejointsrc", 0, "robocache synthetic joint state source"));

static void gst_robocache_joint_src_set_property (GObject * object,
    guint prop_id, const GValue * value, GParamSpec * pspec);
static void gst_robocache_joint_src_get_property (GObject * object,
    guint prop_id, GValue * value, GParamSpec * pspec);
static void gst_robocache_joint_src_finalize (GObject * object);
static GstCaps *gst_robocache_joint_src_get_caps (GstBaseSrc * bsrc,
    GstCaps * filter);
static gboolean gst_robocache_joint_src_set_caps (GstBaseSrc * bsrc,
    GstCaps * caps);
static gboolean gst_robocache_joint_src_decide_allocation (GstBaseSrc * bsrc,
    GstQuery * query);
static gboolean gst_robocache_joint_src_query (GstBaseSrc * bsrc,
    GstQuery * query);
static gboolean gst_robocache_joint_src_is_seekable (GstBaseSrc * bsrc);
static void gst_robocache_joint_src_get_times (GstBaseSrc * bsrc,
    GstBuffer * buffer, GstClockTime * start, GstClockTime * end);
static gboolean gst_robocache_joint_src_start (GstBaseSrc * bsrc);
static gboolean gst_robocache_joint_src_stop (GstBaseSrc * bsrc);
static GstFlowReturn gst_robocache_joint_src_fill (GstPushSrc * psrc,
    GstBuffer * buffer);

static void
gst_robocache_joint_src_class_init (GstRobocacheJointSrcClass * klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  GstElementClass *element_class = GST_ELEMENT_CLASS (klass);
  GstBaseSrcClass *basesrc_class = GST_BASE_SRC_CLASS (klass);
  GstPushSrcClass *pushsrc_class = GST_PUSH_SRC_CLASS (klass);

  gobject_class->set_property = gst_robocache_joint_src_set_property;
  gobject_class->get_property = gst_robocache_joint_src_get_property;
  gobject_class->finalize = gst_robocache_joint_src_finalize;

  /**
   * GstRobocacheJointSrc:dof:
   *
   * Joints (degrees of freedom): the first channels of each vector.
   */
  g_object_class_install_property (gobject_class, PROP_DOF,
      g_param_spec_uint ("dof", "Degrees of freedom", "Number of joints", 1,
          MAX_DOF, DEFAULT_DOF,
          G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
          GST_PARAM_MUTABLE_READY));

  /**
   * GstRobocacheJointSrc:rate:
   *
   * Nominal samples per second: sample n is due at n / rate.
   */
  g_object_class_install_property (gobject_class, PROP_RATE,
      gst_param_spec_fraction ("rate", "Rate", "Nominal samples per second",
          1, 1, MAX_RATE_N, 1, DEFAULT_RATE_N, DEFAULT_RATE_D,
          G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
          GST_PARAM_MUTABLE_READY));

  /**
   * GstRobocacheJointSrc:jitter:
   *
   * Largest timing error of a sample, as a fraction of the nominal period:
   * each sample is taken at its nominal time plus a uniform random offset
   * in [-jitter, +jitter] periods.  Below 0.5, timestamps stay strictly
   * increasing.
   */
  g_object_class_install_property (gobject_class, PROP_JITTER,
      g_param_spec_double ("jitter", "Jitter",
          "Largest timing offset of a sample, in nominal periods (uniform)",
          0.0, MAX_JITTER, DEFAULT_JITTER,
          G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
          GST_PARAM_MUTABLE_READY));

  /**
   * GstRobocacheJointSrc:dropout:
   *
   * Probability that a sample is lost: it then gives no buffer.
   */
  g_object_class_install_property (gobject_class, PROP_DROPOUT,
      g_param_spec_double ("dropout", "Dropout",
          "Probability that a sample is lost (gives no buffer)", 0.0,
          MAX_DROPOUT, DEFAULT_DROPOUT,
          G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
          GST_PARAM_MUTABLE_READY));

  /**
   * GstRobocacheJointSrc:quaternion:
   *
   * Whether to append a unit quaternion (qx, qy, qz, qw), declared in the
   * caps' quaternions field, after the joints.
   */
  g_object_class_install_property (gobject_class, PROP_QUATERNION,
      g_param_spec_boolean ("quaternion", "Quaternion",
          "Append a smoothly turning unit quaternion (x, y, z, w) channel "
          "group", DEFAULT_QUATERNION,
          G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
          GST_PARAM_MUTABLE_READY));

  /**
   * GstRobocacheJointSrc:is-live:
   *
   * Whether to act as a live source: samples are then pushed at the pace of
   * the pipeline clock, each at the running time of its timestamp.
   */
  g_object_class_install_property (gobject_class, PROP_IS_LIVE,
      g_param_spec_boolean ("is-live", "Is live",
          "Whether to act as a live source, paced by the clock",
          DEFAULT_IS_LIVE, G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS));

  /**
   * GstRobocacheJointSrc:seed:
   *
   * Seed of the joint motions, the jitter and the dropouts: the same seed
   * gives identical output.
   */
  g_object_class_install_property (gobject_class, PROP_SEED,
      g_param_spec_uint ("seed", "Seed",
          "Seed of motions, jitter and dropouts (same seed, same output)", 0,
          G_MAXUINT, DEFAULT_SEED,
          G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
          GST_PARAM_MUTABLE_READY));

  /**
   * GstRobocacheJointSrc:format:
   *
   * The value type of the output vectors.
   */
  g_object_class_install_property (gobject_class, PROP_FORMAT,
      g_param_spec_enum ("format", "Format", "Value type of the vectors",
          GST_TYPE_ROBOCACHE_JOINT_SRC_FORMAT, DEFAULT_FORMAT,
          G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
          GST_PARAM_MUTABLE_READY));

  gst_element_class_add_static_pad_template (element_class, &src_template);
  gst_element_class_set_static_metadata (element_class,
      "robocache synthetic joint state source", "Source/Sensor",
      "Synthetic robot joint states (and an orientation quaternion) with "
      "timing jitter and dropouts", "robocache developers");

  basesrc_class->get_caps =
      GST_DEBUG_FUNCPTR (gst_robocache_joint_src_get_caps);
  basesrc_class->set_caps =
      GST_DEBUG_FUNCPTR (gst_robocache_joint_src_set_caps);
  basesrc_class->decide_allocation =
      GST_DEBUG_FUNCPTR (gst_robocache_joint_src_decide_allocation);
  basesrc_class->query = GST_DEBUG_FUNCPTR (gst_robocache_joint_src_query);
  basesrc_class->is_seekable =
      GST_DEBUG_FUNCPTR (gst_robocache_joint_src_is_seekable);
  basesrc_class->get_times =
      GST_DEBUG_FUNCPTR (gst_robocache_joint_src_get_times);
  basesrc_class->start = GST_DEBUG_FUNCPTR (gst_robocache_joint_src_start);
  basesrc_class->stop = GST_DEBUG_FUNCPTR (gst_robocache_joint_src_stop);
  pushsrc_class->fill = GST_DEBUG_FUNCPTR (gst_robocache_joint_src_fill);

  gst_type_mark_as_plugin_api (GST_TYPE_ROBOCACHE_JOINT_SRC_FORMAT, 0);
}

static void
gst_robocache_joint_src_init (GstRobocacheJointSrc * self)
{
  self->settings.dof = DEFAULT_DOF;
  self->settings.rate_n = DEFAULT_RATE_N;
  self->settings.rate_d = DEFAULT_RATE_D;
  self->settings.jitter = DEFAULT_JITTER;
  self->settings.dropout = DEFAULT_DROPOUT;
  self->settings.quaternion = DEFAULT_QUATERNION;
  self->settings.is_live = DEFAULT_IS_LIVE;
  self->settings.seed = DEFAULT_SEED;
  self->settings.format = DEFAULT_FORMAT;

  gst_base_src_set_format (GST_BASE_SRC (self), GST_FORMAT_TIME);
  gst_base_src_set_live (GST_BASE_SRC (self), DEFAULT_IS_LIVE);
}

static void
gst_robocache_joint_src_clear_state (GstRobocacheJointSrc * self)
{
  g_clear_pointer (&self->state.joints, g_free);
  g_clear_pointer (&self->state.values, g_free);
  self->state.configured = FALSE;
}

static void
gst_robocache_joint_src_finalize (GObject * object)
{
  gst_robocache_joint_src_clear_state (GST_ROBOCACHE_JOINT_SRC (object));

  G_OBJECT_CLASS (parent_class)->finalize (object);
}

static void
gst_robocache_joint_src_set_property (GObject * object, guint prop_id,
    const GValue * value, GParamSpec * pspec)
{
  GstRobocacheJointSrc *self = GST_ROBOCACHE_JOINT_SRC (object);
  gboolean set_live = FALSE;

  GST_OBJECT_LOCK (self);
  switch (prop_id) {
    case PROP_DOF:
      self->settings.dof = g_value_get_uint (value);
      break;
    case PROP_RATE:
      self->settings.rate_n = gst_value_get_fraction_numerator (value);
      self->settings.rate_d = gst_value_get_fraction_denominator (value);
      break;
    case PROP_JITTER:
      self->settings.jitter = g_value_get_double (value);
      break;
    case PROP_DROPOUT:
      self->settings.dropout = g_value_get_double (value);
      break;
    case PROP_QUATERNION:
      self->settings.quaternion = g_value_get_boolean (value);
      break;
    case PROP_IS_LIVE:
      self->settings.is_live = g_value_get_boolean (value);
      set_live = TRUE;
      break;
    case PROP_SEED:
      self->settings.seed = g_value_get_uint (value);
      break;
    case PROP_FORMAT:
      self->settings.format = g_value_get_enum (value);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
  GST_OBJECT_UNLOCK (self);

  /* gst_base_src_set_live() takes the object lock itself. */
  if (set_live)
    gst_base_src_set_live (GST_BASE_SRC (self), g_value_get_boolean (value));
}

static void
gst_robocache_joint_src_get_property (GObject * object, guint prop_id,
    GValue * value, GParamSpec * pspec)
{
  GstRobocacheJointSrc *self = GST_ROBOCACHE_JOINT_SRC (object);

  GST_OBJECT_LOCK (self);
  switch (prop_id) {
    case PROP_DOF:
      g_value_set_uint (value, self->settings.dof);
      break;
    case PROP_RATE:
      gst_value_set_fraction (value, self->settings.rate_n,
          self->settings.rate_d);
      break;
    case PROP_JITTER:
      g_value_set_double (value, self->settings.jitter);
      break;
    case PROP_DROPOUT:
      g_value_set_double (value, self->settings.dropout);
      break;
    case PROP_QUATERNION:
      g_value_set_boolean (value, self->settings.quaternion);
      break;
    case PROP_IS_LIVE:
      g_value_set_boolean (value, self->settings.is_live);
      break;
    case PROP_SEED:
      g_value_set_uint (value, self->settings.seed);
      break;
    case PROP_FORMAT:
      g_value_set_enum (value, self->settings.format);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
  GST_OBJECT_UNLOCK (self);
}

static const gchar *
format_to_string (GstRobocacheJointSrcFormat format)
{
  return rc_scalar_type_to_string (format ==
      GST_ROBOCACHE_JOINT_SRC_FORMAT_FLOAT64 ? RC_TYPE_FLOAT64 :
      RC_TYPE_FLOAT32);
}

static GstCaps *
gst_robocache_joint_src_get_caps (GstBaseSrc * bsrc, GstCaps * filter)
{
  GstRobocacheJointSrc *self = GST_ROBOCACHE_JOINT_SRC (bsrc);
  GstRobocacheJointSrcSettings settings;
  GString *names = g_string_new (NULL);
  GstCaps *caps;

  GST_OBJECT_LOCK (self);
  settings = self->settings;
  GST_OBJECT_UNLOCK (self);

  for (guint j = 0; j < settings.dof; j++)
    g_string_append_printf (names, "%sjoint%u", j ? "," : "", j);
  if (settings.quaternion)
    g_string_append (names, ",qx,qy,qz,qw");

  caps = gst_caps_new_simple (GST_ROBOCACHE_VECTORS_MEDIA_TYPE,
      "channels", G_TYPE_INT,
      (gint) (settings.dof + (settings.quaternion ? QUATERNION_CHANNELS : 0)),
      "format", G_TYPE_STRING, format_to_string (settings.format),
      "layout", G_TYPE_STRING, "sample",
      "names", G_TYPE_STRING, names->str, NULL);
  if (settings.quaternion) {
    gchar *first = g_strdup_printf ("%u", settings.dof);
    gst_caps_set_simple (caps, "quaternions", G_TYPE_STRING, first, NULL);
    g_free (first);
  }
  g_string_free (names, TRUE);

  if (filter) {
    GstCaps *tmp = gst_caps_intersect_full (filter, caps,
        GST_CAPS_INTERSECT_FIRST);
    gst_caps_unref (caps);
    caps = tmp;
  }
  return caps;
}

/* Uniform in [0, 1), a pure function of (seed, stream, index): the
 * splitmix64 finaliser, so any sample can be drawn on its own. */
static inline guint64
joint_mix (guint64 z)
{
  z += G_GUINT64_CONSTANT (0x9e3779b97f4a7c15);
  z = (z ^ (z >> 30)) * G_GUINT64_CONSTANT (0xbf58476d1ce4e5b9);
  z = (z ^ (z >> 27)) * G_GUINT64_CONSTANT (0x94d049bb133111eb);
  return z ^ (z >> 31);
}

static gdouble
joint_uniform (guint seed, guint stream, guint64 index)
{
  guint64 h = joint_mix ((((guint64) seed << 8) | stream) ^
      joint_mix (index));

  return (h >> 11) * (1.0 / 9007199254740992.0);
}

static gboolean
gst_robocache_joint_src_set_caps (GstBaseSrc * bsrc, GstCaps * caps)
{
  GstRobocacheJointSrc *self = GST_ROBOCACHE_JOINT_SRC (bsrc);
  GstRobocacheJointSrcState *state = &self->state;
  GstRobocacheJointSrcSettings settings;
  const GstStructure *s = gst_caps_get_structure (caps, 0);
  guint channels, value_size;
  GstClockTime period;
  gint caps_channels = 0;

  GST_OBJECT_LOCK (self);
  settings = self->settings;
  GST_OBJECT_UNLOCK (self);

  channels = settings.dof + (settings.quaternion ? QUATERNION_CHANNELS : 0);
  if (!gst_structure_get_int (s, "channels", &caps_channels) ||
      caps_channels != (gint) channels ||
      g_strcmp0 (gst_structure_get_string (s, "format"),
          format_to_string (settings.format)) != 0) {
    GST_ERROR_OBJECT (self, "caps %" GST_PTR_FORMAT " do not match %u "
        "channels of %s", caps, channels, format_to_string (settings.format));
    return FALSE;
  }

  GST_OBJECT_LOCK (self);
  gst_robocache_joint_src_clear_state (self);
  GST_OBJECT_UNLOCK (self);

  state->dof = settings.dof;
  state->channels = channels;
  state->quaternion = settings.quaternion;
  state->format = settings.format;
  state->dropout = settings.dropout;
  state->seed = settings.seed;
  period = gst_util_uint64_scale (GST_SECOND, settings.rate_d,
      settings.rate_n);
  /* Truncated, so that |offset| <= jitter * period holds exactly. */
  state->max_jitter = (gint64) (settings.jitter * period);

  state->joints = g_new (JointMotion, state->dof);
  for (guint j = 0; j < state->dof; j++) {
    JointMotion *m = &state->joints[j];

    m->bias = -1.0 + 2.0 * joint_uniform (state->seed, STREAM_JOINT, 4 * j);
    m->amplitude = 0.1 + 1.4 * joint_uniform (state->seed, STREAM_JOINT,
        4 * j + 1);
    m->frequency = 0.05 + 1.95 * joint_uniform (state->seed, STREAM_JOINT,
        4 * j + 2);
    m->phase = 2.0 * G_PI * joint_uniform (state->seed, STREAM_JOINT,
        4 * j + 3);
  }
  state->axis_rate = 0.1 + 0.3 * joint_uniform (state->seed,
      STREAM_QUATERNION, 0);
  state->tilt_rate = 0.05 + 0.2 * joint_uniform (state->seed,
      STREAM_QUATERNION, 1);
  state->spin_rate = 0.3 + 1.2 * joint_uniform (state->seed,
      STREAM_QUATERNION, 2);
  state->values = g_new0 (gdouble, state->channels);

  GST_OBJECT_LOCK (self);
  state->rate_n = settings.rate_n;
  state->rate_d = settings.rate_d;
  state->configured = TRUE;
  GST_OBJECT_UNLOCK (self);

  value_size = settings.format == GST_ROBOCACHE_JOINT_SRC_FORMAT_FLOAT64 ?
      sizeof (gdouble) : sizeof (gfloat);
  gst_base_src_set_blocksize (bsrc, state->channels * value_size);

  GST_DEBUG_OBJECT (self, "%u joints%s, %d/%d Hz, jitter up to %"
      G_GINT64_FORMAT " ns, dropout %g", state->dof,
      state->quaternion ? " + quaternion" : "", state->rate_n, state->rate_d,
      state->max_jitter, state->dropout);
  return TRUE;
}

static gsize
gst_robocache_joint_src_sample_size (GstRobocacheJointSrc * self)
{
  return (gsize) self->state.channels *
      (self->state.format == GST_ROBOCACHE_JOINT_SRC_FORMAT_FLOAT64 ?
      sizeof (gdouble) : sizeof (gfloat));
}

/* Makes sure a pool, if downstream offers one, makes buffers of a sample. */
static gboolean
gst_robocache_joint_src_decide_allocation (GstBaseSrc * bsrc,
    GstQuery * query)
{
  GstRobocacheJointSrc *self = GST_ROBOCACHE_JOINT_SRC (bsrc);

  if (gst_query_get_n_allocation_pools (query) > 0) {
    GstBufferPool *pool = NULL;
    guint size, min, max;
    guint needed = gst_robocache_joint_src_sample_size (self);

    gst_query_parse_nth_allocation_pool (query, 0, &pool, &size, &min, &max);
    if (size < needed)
      size = needed;
    gst_query_set_nth_allocation_pool (query, 0, pool, size, min, max);
    if (pool)
      gst_object_unref (pool);
  }

  return GST_BASE_SRC_CLASS (parent_class)->decide_allocation (bsrc, query);
}

static gboolean
gst_robocache_joint_src_query (GstBaseSrc * bsrc, GstQuery * query)
{
  GstRobocacheJointSrc *self = GST_ROBOCACHE_JOINT_SRC (bsrc);

  if (GST_QUERY_TYPE (query) == GST_QUERY_LATENCY) {
    GstClockTime latency = 0;

    /* One nominal period. */
    GST_OBJECT_LOCK (self);
    if (self->state.configured) {
      latency = gst_util_uint64_scale (GST_SECOND, self->state.rate_d,
          self->state.rate_n);
    }
    GST_OBJECT_UNLOCK (self);

    GST_DEBUG_OBJECT (self, "latency %" GST_TIME_FORMAT,
        GST_TIME_ARGS (latency));
    gst_robocache_source_set_latency (bsrc, query, latency);
    return TRUE;
  }

  return GST_BASE_SRC_CLASS (parent_class)->query (bsrc, query);
}

static gboolean
gst_robocache_joint_src_is_seekable (GstBaseSrc * bsrc)
{
  return FALSE;
}

static void
gst_robocache_joint_src_get_times (GstBaseSrc * bsrc, GstBuffer * buffer,
    GstClockTime * start, GstClockTime * end)
{
  /* Only live: sync each sample on the clock at its (jittered) time. */
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
gst_robocache_joint_src_start (GstBaseSrc * bsrc)
{
  GstRobocacheJointSrc *self = GST_ROBOCACHE_JOINT_SRC (bsrc);

  self->state.next_sample = 0;
  return TRUE;
}

static gboolean
gst_robocache_joint_src_stop (GstBaseSrc * bsrc)
{
  GstRobocacheJointSrc *self = GST_ROBOCACHE_JOINT_SRC (bsrc);

  GST_OBJECT_LOCK (self);
  gst_robocache_joint_src_clear_state (self);
  GST_OBJECT_UNLOCK (self);
  return TRUE;
}

/* Fills state->values with the sample at @t seconds. */
static void
gst_robocache_joint_src_compute (GstRobocacheJointSrcState * state,
    gdouble t)
{
  for (guint j = 0; j < state->dof; j++) {
    const JointMotion *m = &state->joints[j];

    state->values[j] = m->bias +
        m->amplitude * sin (2.0 * G_PI * m->frequency * t + m->phase);
  }

  if (state->quaternion) {
    gdouble *q = state->values + state->dof;
    gdouble azimuth = state->axis_rate * t;
    gdouble tilt = 0.6 * sin (state->tilt_rate * t);
    gdouble half = 0.5 * state->spin_rate * t;
    gdouble s = sin (half), norm;

    q[0] = cos (tilt) * cos (azimuth) * s;
    q[1] = cos (tilt) * sin (azimuth) * s;
    q[2] = sin (tilt) * s;
    q[3] = cos (half);
    norm = sqrt (q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
    for (guint k = 0; k < QUATERNION_CHANNELS; k++)
      q[k] /= norm;
  }
}

static GstFlowReturn
gst_robocache_joint_src_fill (GstPushSrc * psrc, GstBuffer * buffer)
{
  GstRobocacheJointSrc *self = GST_ROBOCACHE_JOINT_SRC (psrc);
  GstRobocacheJointSrcState *state = &self->state;
  GstClockTime nominal, next;
  gint64 offset, pts;
  guint64 n;
  GstMapInfo map;
  gsize size;

  if (!state->configured) {
    GST_ELEMENT_ERROR (self, CORE, NEGOTIATION, (NULL),
        ("no caps were negotiated before the first sample"));
    return GST_FLOW_NOT_NEGOTIATED;
  }

  size = gst_robocache_joint_src_sample_size (self);
  if (gst_buffer_get_size (buffer) < size) {
    GST_ELEMENT_ERROR (self, RESOURCE, FAILED, (NULL),
        ("buffer of %" G_GSIZE_FORMAT " bytes, a sample needs %"
            G_GSIZE_FORMAT, gst_buffer_get_size (buffer), size));
    return GST_FLOW_ERROR;
  }
  gst_buffer_set_size (buffer, size);

  /* Skip the lost samples: they leave a gap, nothing else. */
  do {
    n = state->next_sample++;
  } while (state->dropout > 0.0 &&
      joint_uniform (state->seed, STREAM_DROPOUT, n) < state->dropout);

  nominal = gst_util_uint64_scale (n, GST_SECOND * state->rate_d,
      state->rate_n);
  next = gst_util_uint64_scale (n + 1, GST_SECOND * state->rate_d,
      state->rate_n);
  /* Truncation towards zero keeps |offset| <= max_jitter. */
  offset = (gint64) ((2.0 * joint_uniform (state->seed, STREAM_JITTER, n) -
          1.0) * state->max_jitter);
  pts = MAX ((gint64) nominal + offset, 0);

  gst_robocache_joint_src_compute (state, (gdouble) pts / GST_SECOND);

  if (!gst_buffer_map (buffer, &map, GST_MAP_WRITE)) {
    GST_ELEMENT_ERROR (self, RESOURCE, WRITE, (NULL),
        ("could not map the output buffer"));
    return GST_FLOW_ERROR;
  }
  for (guint c = 0; c < state->channels; c++) {
    if (state->format == GST_ROBOCACHE_JOINT_SRC_FORMAT_FLOAT64) {
      memcpy (map.data + c * sizeof (gdouble), &state->values[c],
          sizeof (gdouble));
    } else {
      gfloat v = (gfloat) state->values[c];
      memcpy (map.data + c * sizeof (gfloat), &v, sizeof (gfloat));
    }
  }
  gst_buffer_unmap (buffer, &map);

  GST_BUFFER_PTS (buffer) = (GstClockTime) pts;
  GST_BUFFER_DTS (buffer) = GST_CLOCK_TIME_NONE;
  GST_BUFFER_DURATION (buffer) = next - nominal;
  GST_BUFFER_OFFSET (buffer) = n;
  GST_BUFFER_OFFSET_END (buffer) = n + 1;

  GST_LOG_OBJECT (self, "sample %" G_GUINT64_FORMAT " at %" GST_TIME_FORMAT
      " (nominal %" GST_TIME_FORMAT ")", n, GST_TIME_ARGS (pts),
      GST_TIME_ARGS (nominal));
  return GST_FLOW_OK;
}
