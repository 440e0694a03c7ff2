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

/* The base class numbers rate, seed and is-live. */
enum
{
  PROP_DOF = GST_ROBOCACHE_LIVE_SRC_PROP_LAST + 1,
  PROP_JITTER,
  PROP_DROPOUT,
  PROP_QUATERNION,
  PROP_FORMAT
};

/* Property values, under the object lock. */
typedef struct
{
  guint dof;
  gdouble jitter;
  gdouble dropout;
  gboolean quaternion;
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

/* Streaming state: a snapshot of the settings taken in configure, used by
 * the streaming thread only. */
typedef struct
{
  guint dof;
  guint channels;
  gboolean quaternion;
  GstRobocacheJointSrcFormat format;
  gdouble dropout;
  gint64 max_jitter;            /* nanoseconds */
  JointMotion *joints;
  gdouble axis_rate;            /* quaternion: rad/s of the axis azimuth */
  gdouble tilt_rate;            /* rad/s of the axis tilt wobble */
  gdouble spin_rate;            /* rad/s of the rotation angle */
  gdouble *values;              /* one sample, channels values */
} GstRobocacheJointSrcState;

struct _GstRobocacheJointSrc
{
  GstRobocacheLiveSrc parent;

  GstRobocacheJointSrcSettings settings;
  GstRobocacheJointSrcState state;
};

/* The element's own properties; rate and seed are the base class's. */
static const GstRobocacheField fields[] = {
  GST_ROBOCACHE_FIELD (PROP_DOF, GstRobocacheJointSrc, settings.dof),
  GST_ROBOCACHE_FIELD (PROP_JITTER, GstRobocacheJointSrc, settings.jitter),
  GST_ROBOCACHE_FIELD (PROP_DROPOUT, GstRobocacheJointSrc, settings.dropout),
  GST_ROBOCACHE_FIELD (PROP_QUATERNION, GstRobocacheJointSrc,
      settings.quaternion),
  GST_ROBOCACHE_FIELD (PROP_FORMAT, GstRobocacheJointSrc, settings.format),
  {0}
};

static GstStaticPadTemplate src_template = GST_STATIC_PAD_TEMPLATE ("src",
    GST_PAD_SRC,
    GST_PAD_ALWAYS,
    GST_STATIC_CAPS (GST_ROBOCACHE_VECTORS_CAPS));

/* *INDENT-OFF* */
G_DEFINE_ENUM_TYPE (GstRobocacheJointSrcFormat, gst_robocache_joint_src_format,
    {GST_ROBOCACHE_JOINT_SRC_FORMAT_FLOAT32, "32-bit floating point",
        "float32"},
    {GST_ROBOCACHE_JOINT_SRC_FORMAT_FLOAT64, "64-bit floating point",
        "float64"});
/* *INDENT-ON* */

G_DEFINE_TYPE (GstRobocacheJointSrc, gst_robocache_joint_src,
    GST_TYPE_ROBOCACHE_LIVE_SRC);
GST_ELEMENT_REGISTER_DEFINE_WITH_CODE (robocachejointsrc, "robocachejointsrc",
    GST_RANK_NONE, GST_TYPE_ROBOCACHE_JOINT_SRC,
    GST_DEBUG_CATEGORY_INIT (gst_robocache_joint_src_debug,
        "robocachejointsrc", 0, "robocache synthetic joint state source"));

static GstCaps *gst_robocache_joint_src_get_caps (GstRobocacheLiveSrc * src);
static gboolean gst_robocache_joint_src_configure (GstRobocacheLiveSrc * src,
    GstCaps * caps, const GstRobocacheLiveSrcConfig * config);
static void gst_robocache_joint_src_clear (GstRobocacheLiveSrc * src);
static gsize gst_robocache_joint_src_get_sample_size (GstRobocacheLiveSrc *
    src);
static gboolean gst_robocache_joint_src_drop_sample (GstRobocacheLiveSrc *
    src, guint64 n);
static GstClockTime gst_robocache_joint_src_get_sample_time
    (GstRobocacheLiveSrc * src, guint64 n, GstClockTime nominal);
static void gst_robocache_joint_src_make_sample (GstRobocacheLiveSrc * src,
    guint64 n, GstClockTime pts, guint8 * data);

static void
gst_robocache_joint_src_class_init (GstRobocacheJointSrcClass * klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  GstElementClass *element_class = GST_ELEMENT_CLASS (klass);
  GstRobocacheLiveSrcClass *live_class = GST_ROBOCACHE_LIVE_SRC_CLASS (klass);

  /**
   * GstRobocacheJointSrc:rate:
   *
   * Nominal samples per second: sample n is due at n / rate.
   */
  /**
   * GstRobocacheJointSrc:seed:
   *
   * Seed of the joint motions, the jitter and the dropouts: the same seed
   * gives identical output.
   */
  gst_robocache_live_src_class_install_properties (live_class, fields,
      "Nominal samples per second", MAX_RATE_N, DEFAULT_RATE_N,
      DEFAULT_RATE_D,
      "Seed of motions, jitter and dropouts (same seed, same output)");

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
      "timing jitter and dropouts", GST_ROBOCACHE_AUTHOR);

  live_class->get_caps = GST_DEBUG_FUNCPTR (gst_robocache_joint_src_get_caps);
  live_class->configure =
      GST_DEBUG_FUNCPTR (gst_robocache_joint_src_configure);
  live_class->clear = GST_DEBUG_FUNCPTR (gst_robocache_joint_src_clear);
  live_class->get_sample_size =
      GST_DEBUG_FUNCPTR (gst_robocache_joint_src_get_sample_size);
  live_class->drop_sample =
      GST_DEBUG_FUNCPTR (gst_robocache_joint_src_drop_sample);
  live_class->get_sample_time =
      GST_DEBUG_FUNCPTR (gst_robocache_joint_src_get_sample_time);
  live_class->make_sample =
      GST_DEBUG_FUNCPTR (gst_robocache_joint_src_make_sample);

  gst_type_mark_as_plugin_api (GST_TYPE_ROBOCACHE_JOINT_SRC_FORMAT, 0);
}

/* The base class sets the fields to their defaults. */
static void
gst_robocache_joint_src_init (GstRobocacheJointSrc * self)
{
}

static const gchar *
format_to_string (GstRobocacheJointSrcFormat format)
{
  return rc_scalar_type_to_string (format ==
      GST_ROBOCACHE_JOINT_SRC_FORMAT_FLOAT64 ? RC_TYPE_FLOAT64 :
      RC_TYPE_FLOAT32);
}

/* Values per vector: the joints, then the quaternion if any. */
static guint
settings_channels (const GstRobocacheJointSrcSettings * settings)
{
  return settings->dof + (settings->quaternion ? QUATERNION_CHANNELS : 0);
}

static GstCaps *
gst_robocache_joint_src_get_caps (GstRobocacheLiveSrc * src)
{
  GstRobocacheJointSrc *self = GST_ROBOCACHE_JOINT_SRC (src);
  GstRobocacheJointSrcSettings settings;
  GString *names = g_string_new (NULL);
  GstCaps *caps;

  gst_robocache_fields_read_locked (self, &self->settings, &settings,
      sizeof (settings));

  for (guint j = 0; j < settings.dof; j++)
    g_string_append_printf (names, "%sjoint%u", j ? "," : "", j);
  if (settings.quaternion)
    g_string_append (names, ",qx,qy,qz,qw");

  caps = gst_caps_new_simple (GST_ROBOCACHE_VECTORS_MEDIA_TYPE,
      "channels", G_TYPE_INT, (gint) settings_channels (&settings),
      "format", G_TYPE_STRING, format_to_string (settings.format),
      "layout", G_TYPE_STRING, "sample",
      "names", G_TYPE_STRING, names->str, NULL);
  if (settings.quaternion) {
    gchar *first = g_strdup_printf ("%u", settings.dof);
    gst_caps_set_simple (caps, "quaternions", G_TYPE_STRING, first, NULL);
    g_free (first);
  }
  g_string_free (names, TRUE);
  return caps;
}

static void
gst_robocache_joint_src_clear (GstRobocacheLiveSrc * src)
{
  GstRobocacheJointSrc *self = GST_ROBOCACHE_JOINT_SRC (src);

  g_clear_pointer (&self->state.joints, g_free);
  g_clear_pointer (&self->state.values, g_free);
}

/* Draws each joint's motion and the quaternion's rates from @seed. */
static void
joint_draw_motions (GstRobocacheJointSrcState * state, guint seed)
{
  state->joints = g_new (JointMotion, state->dof);
  for (guint j = 0; j < state->dof; j++) {
    JointMotion *m = &state->joints[j];

    m->bias = -1.0 + 2.0 * gst_robocache_random_at (seed, STREAM_JOINT,
        4 * j);
    m->amplitude = 0.1 + 1.4 * gst_robocache_random_at (seed, STREAM_JOINT,
        4 * j + 1);
    m->frequency = 0.05 + 1.95 * gst_robocache_random_at (seed, STREAM_JOINT,
        4 * j + 2);
    m->phase = 2.0 * G_PI * gst_robocache_random_at (seed, STREAM_JOINT,
        4 * j + 3);
  }
  state->axis_rate = 0.1 + 0.3 * gst_robocache_random_at (seed,
      STREAM_QUATERNION, 0);
  state->tilt_rate = 0.05 + 0.2 * gst_robocache_random_at (seed,
      STREAM_QUATERNION, 1);
  state->spin_rate = 0.3 + 1.2 * gst_robocache_random_at (seed,
      STREAM_QUATERNION, 2);
}

static gboolean
gst_robocache_joint_src_configure (GstRobocacheLiveSrc * src, GstCaps * caps,
    const GstRobocacheLiveSrcConfig * config)
{
  GstRobocacheJointSrc *self = GST_ROBOCACHE_JOINT_SRC (src);
  GstRobocacheJointSrcState *state = &self->state;
  GstRobocacheJointSrcSettings settings;
  const GstStructure *s = gst_caps_get_structure (caps, 0);
  GstClockTime period;
  gint caps_channels = 0;
  guint channels;

  gst_robocache_fields_read_locked (self, &self->settings, &settings,
      sizeof (settings));

  channels = settings_channels (&settings);
  if (!gst_structure_get_int (s, "channels", &caps_channels) ||
      caps_channels != (gint) channels ||
      g_strcmp0 (gst_structure_get_string (s, "format"),
          format_to_string (settings.format)) != 0) {
    GST_ERROR_OBJECT (self, "caps %" GST_PTR_FORMAT " do not match %u "
        "channels of %s", caps, channels, format_to_string (settings.format));
    return FALSE;
  }

  gst_robocache_joint_src_clear (src);
  state->dof = settings.dof;
  state->channels = channels;
  state->quaternion = settings.quaternion;
  state->format = settings.format;
  state->dropout = settings.dropout;
  period = gst_util_uint64_scale (GST_SECOND, config->rate_d, config->rate_n);
  /* Truncated, so that |offset| <= jitter * period holds exactly. */
  state->max_jitter = (gint64) (settings.jitter * period);
  joint_draw_motions (state, config->seed);
  state->values = g_new0 (gdouble, state->channels);

  GST_DEBUG_OBJECT (self, "%u joints%s, %d/%d Hz, jitter up to %"
      G_GINT64_FORMAT " ns, dropout %g", state->dof,
      state->quaternion ? " + quaternion" : "", config->rate_n,
      config->rate_d, state->max_jitter, state->dropout);
  return TRUE;
}

static gsize
gst_robocache_joint_src_get_sample_size (GstRobocacheLiveSrc * src)
{
  GstRobocacheJointSrc *self = GST_ROBOCACHE_JOINT_SRC (src);

  return (gsize) self->state.channels *
      (self->state.format == GST_ROBOCACHE_JOINT_SRC_FORMAT_FLOAT64 ?
      sizeof (gdouble) : sizeof (gfloat));
}

/* A lost sample leaves a gap in the stream. */
static gboolean
gst_robocache_joint_src_drop_sample (GstRobocacheLiveSrc * src, guint64 n)
{
  GstRobocacheJointSrcState *state = &GST_ROBOCACHE_JOINT_SRC (src)->state;

  return state->dropout > 0.0 &&
      gst_robocache_random_at (gst_robocache_live_src_get_config (src)->seed,
      STREAM_DROPOUT, n) < state->dropout;
}

/* The nominal time moved by up to max_jitter either way, never before 0. */
static GstClockTime
gst_robocache_joint_src_get_sample_time (GstRobocacheLiveSrc * src,
    guint64 n, GstClockTime nominal)
{
  GstRobocacheJointSrcState *state = &GST_ROBOCACHE_JOINT_SRC (src)->state;
  guint seed = gst_robocache_live_src_get_config (src)->seed;
  /* Truncation towards zero keeps |offset| <= max_jitter. */
  gint64 offset = (gint64) ((2.0 * gst_robocache_random_at (seed,
              STREAM_JITTER, n) - 1.0) * state->max_jitter);

  return (GstClockTime) MAX ((gint64) nominal + offset, 0);
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

/* The sample taken at @pts, in the negotiated value type. */
static void
gst_robocache_joint_src_make_sample (GstRobocacheLiveSrc * src, guint64 n,
    GstClockTime pts, guint8 * data)
{
  GstRobocacheJointSrcState *state = &GST_ROBOCACHE_JOINT_SRC (src)->state;

  gst_robocache_joint_src_compute (state, (gdouble) pts / GST_SECOND);

  for (guint c = 0; c < state->channels; c++) {
    if (state->format == GST_ROBOCACHE_JOINT_SRC_FORMAT_FLOAT64) {
      memcpy (data + c * sizeof (gdouble), &state->values[c],
          sizeof (gdouble));
    } else {
      gfloat v = (gfloat) state->values[c];
      memcpy (data + c * sizeof (gfloat), &v, sizeof (gfloat));
    }
  }
}
