/* robocachelidarsrc: a synthetic spinning lidar.
 *
 * One buffer is one sweep (a full turn) of a sensor standing 1.7 m above a
 * flat ground, among a few boxes (a building, a wall, a fence with a gate,
 * parked cars, a person, poles, and a car that drives along x, so that
 * successive sweeps differ). */
/**
 * SECTION:element-robocachelidarsrc
 * @title: robocachelidarsrc
 *
 * Produces point clouds (other/x-robocache-points) in system memory, one
 * buffer per sweep, as a spinning multi-ring lidar would.
 *
 * The sensor sits at the origin (x forward, y left, z up); the ground is
 * the plane z = -1.7.  The @rings elevation angles are spread evenly from
 * -25 degrees (ring 0) to +3 degrees (the last ring).  A sweep fires
 * columns of rays at evenly spaced azimuths, starting along +x and turning
 * counter-clockwise (towards +y), every ring of a column at once; there are
 * ceil (points-per-sweep / rings) columns.  Points are stored column after
 * column, ring 0 first, and a buffer holds exactly @points-per-sweep
 * points: when @points-per-sweep is not a multiple of @rings the last
 * column only fires its lowest rings.
 *
 * Each ray returns the nearest surface hit within 100 m, its range blurred
 * by Gaussian noise (2 cm standard deviation).  Rays that hit nothing,
 * whose noisy range passes 100 m, or that are randomly lost (1 % of them)
 * give NaN x, y and z and a zero intensity, as real lidars report a missing
 * return.  The intensity, in [0, 1], depends on the surface, the incidence
 * angle and the range.  With #GstRobocacheLidarSrc:extended-fields, each
 * point also carries its ring index and its time, in seconds, from the
 * start of the sweep (the sweep lasts one period of
 * #GstRobocacheLidarSrc:rate); the car is seen where it is at that time.
 *
 * Sweep n has PTS n / rate (exact integer arithmetic), the duration up to
 * the next one and offset n.  With #GstRobocacheLidarSrc:is-live, sweeps
 * are pushed at the running time of their timestamps, and, as for any live
 * #GstBaseSrc, the base class moves all timestamps by the running time at
 * which the first one was made; the latency reported is one sweep.
 *
 * The output only depends on the properties: the same
 * #GstRobocacheLidarSrc:seed gives byte-identical buffers.
 *
 * ## Example launch line
 * |[
 * gst-launch-1.0 robocachelidarsrc num-buffers=50 extended-fields=true ! \
 *     robocachevoxelize ! fakesink
 * ]|
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstrobocachelidarsrc.h"

#include <math.h>
#include <string.h>

#include "gstrobocachecaps.h"
#include "gstrobocacheelements.h"

GST_DEBUG_CATEGORY_STATIC (gst_robocache_lidar_src_debug);
#define GST_CAT_DEFAULT gst_robocache_lidar_src_debug

#define DEFAULT_POINTS_PER_SWEEP 131072
#define MAX_POINTS_PER_SWEEP (1 << 24)
#define DEFAULT_RINGS 64
#define MAX_RINGS 1024
#define DEFAULT_RATE_N 10
#define DEFAULT_RATE_D 1
#define MAX_RATE_N 1000
#define DEFAULT_EXTENDED_FIELDS FALSE

/* The two point layouts. */
#define POINT_STEP_XYZI 16
#define POINT_STEP_EXTENDED 32
#define FIELDS_EXTENDED \
    GST_ROBOCACHE_FIELDS_XYZI_RING_TIME
#define OFFSET_RING 16
#define OFFSET_TIME 20

/* The sensor and its scene, in metres, degrees and seconds. */
#define SENSOR_HEIGHT 1.7
#define MAX_RANGE 100.0
#define MIN_ELEVATION -25.0
#define MAX_ELEVATION 3.0
#define RANGE_NOISE_STDDEV 0.02
#define LOST_RETURN_FRACTION 0.01
#define GROUND_REFLECTIVITY 0.25

typedef struct
{
  gdouble lo[3];
  gdouble hi[3];
  gdouble reflectivity;
  gdouble speed;                /* along x, in m/s; the box wraps around
                                 * [TRACK_START, TRACK_START + TRACK_LENGTH) */
  gdouble phase;                /* metres along the track at time 0 */
} SceneBox;

#define TRACK_START -40.0
#define TRACK_LENGTH 80.0

/* Seen from above (robocachebev), in the default 51.2 m grid: the long
 * wall across the top, the building's corner to the upper right, the
 * fence along the bottom, parked cars, a person and poles, and the car
 * driving to the right below the sensor. */
static const SceneBox scene_boxes[] = {
  /* a building, front left */
  {{12.0, 4.0, -SENSOR_HEIGHT}, {20.0, 12.0, 6.0}, 0.45, 0.0, 0.0},
  /* a long wall along x, to the left */
  {{-30.0, 15.0, -SENSOR_HEIGHT}, {30.0, 16.0, 1.3}, 0.30, 0.0, 0.0},
  /* a pole, front right */
  {{4.0, -3.0, -SENSOR_HEIGHT}, {4.3, -2.7, 3.0}, 0.60, 0.0, 0.0},
  /* a car driving along x in the lane to the right, 28 m along the track
   * (x = -12) at time 0 */
  {{TRACK_START, -5.0, -SENSOR_HEIGHT}, {TRACK_START + 4.5, -3.2, -0.2}, 0.85,
      5.0, 28.0},
  /* a fence along x, to the right, with a gate */
  {{-24.0, -12.0, -SENSOR_HEIGHT}, {2.0, -11.8, -0.5}, 0.35, 0.0, 0.0},
  {{6.0, -12.0, -SENSOR_HEIGHT}, {22.0, -11.8, -0.5}, 0.35, 0.0, 0.0},
  /* two cars parked behind the sensor, to the left */
  {{-11.0, 4.0, -SENSOR_HEIGHT}, {-6.5, 5.8, -0.3}, 0.80, 0.0, 0.0},
  {{-18.0, 4.2, -SENSOR_HEIGHT}, {-13.5, 6.0, -0.3}, 0.80, 0.0, 0.0},
  /* a person, front left */
  {{6.0, 6.0, -SENSOR_HEIGHT}, {6.5, 6.5, 0.1}, 0.50, 0.0, 0.0},
  /* a pole behind, to the right */
  {{-8.0, -8.0, -SENSOR_HEIGHT}, {-7.7, -7.7, 3.0}, 0.60, 0.0, 0.0},
};

#define N_BOXES G_N_ELEMENTS (scene_boxes)

/* The scene at one instant: the boxes where they are then. */
typedef struct
{
  SceneBox boxes[N_BOXES];
  gdouble shift[N_BOXES];       /* of each moving box, along x */
} Scene;

/* What one ray gives: NaN x, y and z and a zero intensity when nothing
 * returns. */
typedef struct
{
  gfloat x, y, z, intensity;
} LidarReturn;

/* The base class numbers rate, seed and is-live. */
enum
{
  PROP_POINTS_PER_SWEEP = GST_ROBOCACHE_LIVE_SRC_PROP_LAST + 1,
  PROP_RINGS,
  PROP_EXTENDED_FIELDS
};

/* Property values, under the object lock. */
typedef struct
{
  guint points_per_sweep;
  guint rings;
  gboolean extended_fields;
} GstRobocacheLidarSrcSettings;

/* Streaming state: a snapshot of the settings taken in configure, used by
 * the streaming thread only. */
typedef struct
{
  guint n_points;
  guint point_step;
  gboolean extended;
  guint rings;
  guint n_columns;
  gdouble *ring_sin;            /* sin and cos of each ring's elevation */
  gdouble *ring_cos;
} GstRobocacheLidarSrcState;

struct _GstRobocacheLidarSrc
{
  GstRobocacheLiveSrc parent;

  GstRobocacheLidarSrcSettings settings;
  GstRobocacheLidarSrcState state;
};

/* The element's own properties; rate and seed are the base class's. */
static const GstRobocacheField fields[] = {
  GST_ROBOCACHE_FIELD (PROP_POINTS_PER_SWEEP, GstRobocacheLidarSrc,
      settings.points_per_sweep),
  GST_ROBOCACHE_FIELD (PROP_RINGS, GstRobocacheLidarSrc, settings.rings),
  GST_ROBOCACHE_FIELD (PROP_EXTENDED_FIELDS, GstRobocacheLidarSrc,
      settings.extended_fields),
  {0}
};

static GstStaticPadTemplate src_template = GST_STATIC_PAD_TEMPLATE ("src",
    GST_PAD_SRC,
    GST_PAD_ALWAYS,
    GST_STATIC_CAPS (GST_ROBOCACHE_POINTS_XYZI_CAPS));

G_DEFINE_TYPE (GstRobocacheLidarSrc, gst_robocache_lidar_src,
    GST_TYPE_ROBOCACHE_LIVE_SRC);
GST_ELEMENT_REGISTER_DEFINE_WITH_CODE (robocachelidarsrc, "robocachelidarsrc",
    GST_RANK_NONE, GST_TYPE_ROBOCACHE_LIDAR_SRC,
    GST_DEBUG_CATEGORY_INIT (gst_robocache_lidar_src_debug,
        "robocachelidarsrc", 0, "robocache synthetic lidar source"));

static GstCaps *gst_robocache_lidar_src_get_caps (GstRobocacheLiveSrc * src);
static gboolean gst_robocache_lidar_src_configure (GstRobocacheLiveSrc * src,
    GstCaps * caps, const GstRobocacheLiveSrcConfig * config);
static void gst_robocache_lidar_src_clear (GstRobocacheLiveSrc * src);
static gsize gst_robocache_lidar_src_get_sample_size (GstRobocacheLiveSrc *
    src);
static void gst_robocache_lidar_src_make_sample (GstRobocacheLiveSrc * src,
    guint64 n, GstClockTime pts, guint8 * data);

static void
gst_robocache_lidar_src_class_init (GstRobocacheLidarSrcClass * klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  GstElementClass *element_class = GST_ELEMENT_CLASS (klass);
  GstRobocacheLiveSrcClass *live_class = GST_ROBOCACHE_LIVE_SRC_CLASS (klass);

  /**
   * GstRobocacheLidarSrc:rate:
   *
   * Sweeps (turns, buffers) per second.
   */
  /**
   * GstRobocacheLidarSrc:seed:
   *
   * Seed of the range noise and of the lost returns: the same seed gives
   * byte-identical output.
   */
  gst_robocache_live_src_class_install_properties (live_class, fields,
      "Sweeps per second", MAX_RATE_N, DEFAULT_RATE_N, DEFAULT_RATE_D,
      "Seed of the noise and lost returns (same seed, same output)");

  /**
   * GstRobocacheLidarSrc:points-per-sweep:
   *
   * Points in one sweep (one buffer), returns and missing returns alike.
   * They are fired in columns of #GstRobocacheLidarSrc:rings rays; when
   * this is not a multiple of the rings the last column is incomplete.
   */
  g_object_class_install_property (gobject_class, PROP_POINTS_PER_SWEEP,
      g_param_spec_uint ("points-per-sweep", "Points per sweep",
          "Points in one sweep (one buffer)", 1, MAX_POINTS_PER_SWEEP,
          DEFAULT_POINTS_PER_SWEEP,
          G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
          GST_PARAM_MUTABLE_READY));

  /**
   * GstRobocacheLidarSrc:rings:
   *
   * Laser rings (elevation angles), spread evenly from -25 degrees (ring 0)
   * to +3 degrees; a single ring looks 11 degrees down.
   */
  g_object_class_install_property (gobject_class, PROP_RINGS,
      g_param_spec_uint ("rings", "Rings",
          "Laser rings, from -25 (ring 0) to +3 degrees of elevation", 1,
          MAX_RINGS, DEFAULT_RINGS,
          G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
          GST_PARAM_MUTABLE_READY));

  /**
   * GstRobocacheLidarSrc:extended-fields:
   *
   * Whether points also carry their ring (uint16 at byte 16) and their time
   * within the sweep (float32 seconds at byte 20): 32 bytes per point
   * instead of the 16 of x, y, z and intensity.
   */
  g_object_class_install_property (gobject_class, PROP_EXTENDED_FIELDS,
      g_param_spec_boolean ("extended-fields", "Extended fields",
          "Add ring (uint16) and time (float32) fields: 32 bytes per point "
          "instead of 16", DEFAULT_EXTENDED_FIELDS,
          G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
          GST_PARAM_MUTABLE_READY));

  gst_element_class_add_static_pad_template (element_class, &src_template);
  gst_element_class_set_static_metadata (element_class,
      "robocache synthetic lidar source", "Source/Sensor/Lidar",
      "Synthetic spinning lidar: one point cloud per sweep of a simple "
      "scene with ground, boxes and a moving car",
      GST_ROBOCACHE_AUTHOR);

  live_class->sample_name = "sweep";
  live_class->get_caps = GST_DEBUG_FUNCPTR (gst_robocache_lidar_src_get_caps);
  live_class->configure =
      GST_DEBUG_FUNCPTR (gst_robocache_lidar_src_configure);
  live_class->clear = GST_DEBUG_FUNCPTR (gst_robocache_lidar_src_clear);
  live_class->get_sample_size =
      GST_DEBUG_FUNCPTR (gst_robocache_lidar_src_get_sample_size);
  live_class->make_sample =
      GST_DEBUG_FUNCPTR (gst_robocache_lidar_src_make_sample);
}

/* The base class sets the fields to their defaults. */
static void
gst_robocache_lidar_src_init (GstRobocacheLidarSrc * self)
{
}

static GstCaps *
gst_robocache_lidar_src_get_caps (GstRobocacheLiveSrc * src)
{
  GstRobocacheLidarSrc *self = GST_ROBOCACHE_LIDAR_SRC (src);
  gboolean extended;

  GST_OBJECT_LOCK (self);
  extended = self->settings.extended_fields;
  GST_OBJECT_UNLOCK (self);

  return gst_caps_new_simple (GST_ROBOCACHE_POINTS_MEDIA_TYPE,
      "point-step", G_TYPE_INT,
      extended ? POINT_STEP_EXTENDED : POINT_STEP_XYZI,
      "fields", G_TYPE_STRING,
      extended ? FIELDS_EXTENDED : GST_ROBOCACHE_FIELDS_XYZI, NULL);
}

static void
gst_robocache_lidar_src_clear (GstRobocacheLiveSrc * src)
{
  GstRobocacheLidarSrc *self = GST_ROBOCACHE_LIDAR_SRC (src);

  g_clear_pointer (&self->state.ring_sin, g_free);
  g_clear_pointer (&self->state.ring_cos, g_free);
}

static gboolean
gst_robocache_lidar_src_configure (GstRobocacheLiveSrc * src, GstCaps * caps,
    const GstRobocacheLiveSrcConfig * config)
{
  GstRobocacheLidarSrc *self = GST_ROBOCACHE_LIDAR_SRC (src);
  GstRobocacheLidarSrcState *state = &self->state;
  GstRobocacheLidarSrcSettings settings;
  rc_point_layout layout;
  GError *error = NULL;
  guint step;

  if (!gst_robocache_points_caps_parse (caps, NULL, &layout, &error)) {
    GST_ERROR_OBJECT (self, "%s", error->message);
    g_clear_error (&error);
    return FALSE;
  }

  gst_robocache_fields_read_locked (self, &self->settings, &settings,
      sizeof (settings));

  step = settings.extended_fields ? POINT_STEP_EXTENDED : POINT_STEP_XYZI;
  if (layout.point_step != step) {
    GST_ERROR_OBJECT (self, "caps %" GST_PTR_FORMAT " do not have "
        "point-step %u", caps, step);
    return FALSE;
  }

  gst_robocache_lidar_src_clear (src);
  state->n_points = settings.points_per_sweep;
  state->point_step = step;
  state->extended = settings.extended_fields;
  state->rings = settings.rings;
  state->n_columns = (settings.points_per_sweep + settings.rings - 1) /
      settings.rings;
  state->ring_sin = g_new (gdouble, state->rings);
  state->ring_cos = g_new (gdouble, state->rings);
  for (guint r = 0; r < state->rings; r++) {
    gdouble elevation = state->rings == 1 ?
        (MIN_ELEVATION + MAX_ELEVATION) / 2.0 :
        MIN_ELEVATION + (MAX_ELEVATION - MIN_ELEVATION) * r /
        (state->rings - 1);
    state->ring_sin[r] = sin (elevation * G_PI / 180.0);
    state->ring_cos[r] = cos (elevation * G_PI / 180.0);
  }

  GST_DEBUG_OBJECT (self, "%u points of %u bytes, %u rings x %u columns, "
      "%d/%d sweeps/s", state->n_points, state->point_step, state->rings,
      state->n_columns, config->rate_n, config->rate_d);
  return TRUE;
}

static gsize
gst_robocache_lidar_src_get_sample_size (GstRobocacheLiveSrc * src)
{
  GstRobocacheLidarSrc *self = GST_ROBOCACHE_LIDAR_SRC (src);

  return (gsize) self->state.n_points * self->state.point_step;
}

/* Uniform in [0, 1). */
static inline gdouble
lidar_rand_uniform (guint64 * s)
{
  return gst_robocache_random_to_unit (gst_robocache_random_next (s));
}

/* Standard normal (Box-Muller; always draws two uniforms). */
static inline gdouble
lidar_rand_normal (guint64 * s)
{
  gdouble u1 = 1.0 - lidar_rand_uniform (s);    /* (0, 1] */
  gdouble u2 = lidar_rand_uniform (s);

  return sqrt (-2.0 * log (u1)) * cos (2.0 * G_PI * u2);
}

/* Slab test of the ray from the origin along @dir against [lo, hi]: TRUE
 * with the entry distance and the axis of the entered face if it hits in
 * front of the sensor. */
static gboolean
ray_hits_box (const gdouble dir[3], const gdouble lo[3],
    const gdouble hi[3], gdouble * distance, gint * axis)
{
  gdouble t_near = 0.0, t_far = G_MAXDOUBLE;
  gint near_axis = -1;

  for (gint a = 0; a < 3; a++) {
    gdouble t0, t1;

    if (fabs (dir[a]) < 1e-12) {
      if (lo[a] > 0.0 || hi[a] < 0.0)
        return FALSE;
      continue;
    }
    t0 = lo[a] / dir[a];
    t1 = hi[a] / dir[a];
    if (t0 > t1) {
      gdouble t = t0;
      t0 = t1;
      t1 = t;
    }
    if (t0 > t_near) {
      t_near = t0;
      near_axis = a;
    }
    if (t1 < t_far)
      t_far = t1;
    if (t_near > t_far)
      return FALSE;
  }
  /* near_axis < 0: the sensor is inside the box; not a return. */
  if (near_axis < 0)
    return FALSE;
  *distance = t_near;
  *axis = near_axis;
  return TRUE;
}

/* Moves the moving boxes of @scene to where they are at @now seconds. */
static void
scene_move_to (Scene * scene, gdouble now)
{
  for (guint b = 0; b < N_BOXES; b++) {
    if (scene_boxes[b].speed != 0.0) {
      gdouble shift = fmod (scene_boxes[b].speed * now +
          scene_boxes[b].phase, TRACK_LENGTH);
      if (shift != scene->shift[b]) {
        scene->shift[b] = shift;
        scene->boxes[b].lo[0] = scene_boxes[b].lo[0] + shift;
        scene->boxes[b].hi[0] = scene_boxes[b].hi[0] + shift;
      }
    }
  }
}

/* Casts one ray from the sensor along the unit vector @dir: its nearest
 * hit, blurred and sometimes lost as drawn from @rng (always three draws:
 * lost, noise, speckle, so that every ray moves @rng the same). */
static LidarReturn
lidar_cast_ray (const Scene * scene, const gdouble dir[3], guint64 * rng)
{
  gdouble best = G_MAXDOUBLE, incidence = 0.0, reflectivity = 0.0;
  gdouble lost = lidar_rand_uniform (rng);
  gdouble noise = lidar_rand_normal (rng) * RANGE_NOISE_STDDEV;
  gdouble speckle = lidar_rand_uniform (rng) - 0.5;
  LidarReturn ret = { NAN, NAN, NAN, 0.0f };

  if (dir[2] < 0.0) {
    best = -SENSOR_HEIGHT / dir[2];
    incidence = -dir[2];
    reflectivity = GROUND_REFLECTIVITY;
  }
  for (guint b = 0; b < N_BOXES; b++) {
    const SceneBox *box = &scene->boxes[b];
    gdouble d;
    gint axis;

    if (ray_hits_box (dir, box->lo, box->hi, &d, &axis) && d < best) {
      best = d;
      incidence = fabs (dir[axis]);
      reflectivity = box->reflectivity;
    }
  }

  if (best <= MAX_RANGE && lost >= LOST_RETURN_FRACTION) {
    gdouble range = best + noise;

    if (range > 0.0 && range <= MAX_RANGE) {
      gdouble falloff = 1.0 / (1.0 + (range / 60.0) * (range / 60.0));
      gdouble value = reflectivity * (0.3 + 0.7 * incidence) * falloff *
          (1.0 + 0.1 * speckle);

      ret.x = (gfloat) (dir[0] * range);
      ret.y = (gfloat) (dir[1] * range);
      ret.z = (gfloat) (dir[2] * range);
      ret.intensity = (gfloat) CLAMP (value, 0.0, 1.0);
    }
  }
  return ret;
}

static inline void
write_float (guint8 * p, gfloat v)
{
  memcpy (p, &v, sizeof (v));
}

/* Writes one point at @p in the negotiated layout. */
static void
lidar_write_point (const GstRobocacheLidarSrcState * state, guint8 * p,
    const LidarReturn * ret, guint ring, gdouble t_offset)
{
  if (state->extended) {
    guint16 ring16 = (guint16) ring;

    memset (p, 0, POINT_STEP_EXTENDED);
    memcpy (p + OFFSET_RING, &ring16, sizeof (ring16));
    write_float (p + OFFSET_TIME, (gfloat) t_offset);
  }
  write_float (p, ret->x);
  write_float (p + 4, ret->y);
  write_float (p + 8, ret->z);
  write_float (p + 12, ret->intensity);
}

/* Fires column @c (all rings at one azimuth, @t_offset seconds into the
 * sweep) into @data from point @i on; returns the index after its last
 * point (the last column may be cut short by n_points). */
static guint
lidar_fire_column (const GstRobocacheLidarSrcState * state,
    const Scene * scene, guint c, gdouble t_offset, guint64 * rng,
    guint8 * data, guint i)
{
  gdouble azimuth = 2.0 * G_PI * c / state->n_columns;
  gdouble ca = cos (azimuth), sa = sin (azimuth);

  for (guint r = 0; r < state->rings && i < state->n_points; r++, i++) {
    gdouble dir[3] = { state->ring_cos[r] * ca, state->ring_cos[r] * sa,
      state->ring_sin[r]
    };
    LidarReturn ret = lidar_cast_ray (scene, dir, rng);

    lidar_write_point (state, data + (gsize) i * state->point_step, &ret, r,
        t_offset);
  }
  return i;
}

/* Sweep @n, starting at @pts: its columns in turn, each seeing the scene
 * as it is when it fires. */
static void
gst_robocache_lidar_src_make_sample (GstRobocacheLiveSrc * src, guint64 n,
    GstClockTime pts, guint8 * data)
{
  const GstRobocacheLidarSrcState *state =
      &GST_ROBOCACHE_LIDAR_SRC (src)->state;
  const GstRobocacheLiveSrcConfig *config =
      gst_robocache_live_src_get_config (src);
  gdouble sweep_start = (gdouble) pts / GST_SECOND;
  gdouble period = (gdouble) config->rate_d / config->rate_n;
  /* One generator per sweep, seeded from (seed, n). */
  guint64 rng = ((guint64) config->seed << 32) ^ n;
  Scene scene = { {{{0}}}, {0} };
  guint i = 0;

  rng = gst_robocache_random_next (&rng);
  memcpy (scene.boxes, scene_boxes, sizeof (scene.boxes));

  for (guint c = 0; c < state->n_columns; c++) {
    gdouble t_offset = period * c / state->n_columns;

    scene_move_to (&scene, sweep_start + t_offset);
    i = lidar_fire_column (state, &scene, c, t_offset, &rng, data, i);
  }
}
