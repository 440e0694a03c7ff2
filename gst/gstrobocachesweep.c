/* The base of the filters that take lidar sweeps, see gstrobocachesweep.h. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstrobocachesweep.h"
#include "gstrobocachecaps.h"
#include "gstrobocachefields.h"

#include <string.h>

#define DEFAULT_POST_MESSAGES FALSE

enum
{
  PROP_0,
  PROP_VOXEL_SIZE,
  PROP_ORIGIN,
  PROP_DIMS,
  PROP_POST_MESSAGES,
  PROP_STATS
};

/* Totals since start. */
typedef struct
{
  guint64 sweeps;
  GstRobocacheSweepCounts counts;       /* summed over the sweeps */
  guint64 dropped_buffers;
  guint64 empty_sweeps;
} Totals;

typedef struct
{
  /* Settings and totals, under the object lock. */
  GstRobocacheGridSettings grid;
  gboolean post_messages;
  Totals totals;
  /* The streaming thread's: a badly sized buffer has been warned about. */
  gboolean warned_bad_size;
} GstRobocacheSweepFilterPrivate;

#define gst_robocache_sweep_filter_parent_class parent_class
G_DEFINE_ABSTRACT_TYPE_WITH_PRIVATE (GstRobocacheSweepFilter,
    gst_robocache_sweep_filter, GST_TYPE_ROBOCACHE_BASE_TRANSFORM);

static GstRobocacheSweepFilterPrivate *
get_priv (gpointer self)
{
  return gst_robocache_sweep_filter_get_instance_private
      (GST_ROBOCACHE_SWEEP_FILTER (self));
}

/* The stats and the messages alike: @name with @first (sweeps, or the
 * timestamp) and the counts; the element's own fields follow. */
static GstStructure *
counts_structure (const gchar * name, const gchar * first, guint64 value,
    const GstRobocacheSweepCounts * counts)
{
  return gst_structure_new (name,
      first, G_TYPE_UINT64, value,
      "points", G_TYPE_UINT64, counts->points,
      "in-grid", G_TYPE_UINT64, counts->in_grid,
      "out-of-range", G_TYPE_UINT64, counts->out_of_range,
      "invalid", G_TYPE_UINT64, counts->invalid, NULL);
}

static GstStructure *
totals_to_structure (GstRobocacheSweepFilter * self)
{
  GstRobocacheSweepFilterClass *klass =
      GST_ROBOCACHE_SWEEP_FILTER_GET_CLASS (self);
  Totals *t = &get_priv (self)->totals;
  gchar *name = g_strdup_printf ("%s-stats", klass->sweep_name);
  GstStructure *s = counts_structure (name, "sweeps", t->sweeps, &t->counts);

  gst_structure_set (s, "dropped-buffers", G_TYPE_UINT64, t->dropped_buffers,
      "empty-sweeps", G_TYPE_UINT64, t->empty_sweeps, NULL);
  if (klass->add_stats)
    klass->add_stats (self, s);
  g_free (name);
  return s;
}

void
gst_robocache_sweep_filter_set_default_grid (GstRobocacheSweepFilter * self,
    const rc_voxel_grid * grid)
{
  GstRobocacheSweepFilterPrivate *priv = get_priv (self);

  gst_robocache_grid_settings_clear (&priv->grid);
  gst_robocache_grid_settings_init (&priv->grid, grid->voxel_size,
      grid->origin, grid->dims);
}

gchar *
gst_robocache_sweep_filter_read_grid (GstRobocacheSweepFilter * self,
    rc_voxel_grid * grid)
{
  return gst_robocache_grid_from_settings (&get_priv (self)->grid, grid);
}

gboolean
gst_robocache_sweep_filter_count_points (GstRobocacheSweepFilter * self,
    GstBuffer * inbuf, guint32 point_step, guint64 max_points,
    const gchar * too_many, guint64 * n_points)
{
  GstRobocacheSweepFilterPrivate *priv = get_priv (self);
  gsize size = gst_buffer_get_size (inbuf);

  *n_points = size / point_step;
  if (size % point_step == 0 && *n_points < max_points)
    return TRUE;
  GST_OBJECT_LOCK (self);
  priv->totals.dropped_buffers++;
  GST_OBJECT_UNLOCK (self);
  if (!priv->warned_bad_size)
    GST_ELEMENT_WARNING (self, STREAM, FORMAT,
        ("dropping a buffer of %" G_GSIZE_FORMAT " bytes: not a whole "
            "number of %u-byte points (point-step in the caps)%s%s", size,
            point_step, too_many ? ", or " : "", too_many ? too_many : ""),
        ("further such buffers are dropped and counted in the stats "
            "property without a warning"));
  priv->warned_bad_size = TRUE;
  return FALSE;
}

void
gst_robocache_sweep_filter_sweep_done (GstRobocacheSweepFilter * self,
    GstClockTime pts, const GstRobocacheSweepCounts * counts,
    const gchar * first_field, ...)
{
  GstRobocacheSweepFilterClass *klass =
      GST_ROBOCACHE_SWEEP_FILTER_GET_CLASS (self);
  GstRobocacheSweepFilterPrivate *priv = get_priv (self);
  Totals *t = &priv->totals;
  GstStructure *s;
  gboolean post;
  va_list args;

  GST_OBJECT_LOCK (self);
  t->sweeps++;
  t->counts.points += counts->points;
  t->counts.in_grid += counts->in_grid;
  t->counts.out_of_range += counts->out_of_range;
  t->counts.invalid += counts->invalid;
  t->empty_sweeps += counts->points == 0;
  post = priv->post_messages;
  GST_OBJECT_UNLOCK (self);
  if (!post)
    return;

  s = counts_structure (klass->sweep_name, "timestamp", pts, counts);
  va_start (args, first_field);
  gst_structure_set_valist (s, first_field, args);
  va_end (args);
  gst_structure_set (s, "backend", G_TYPE_STRING,
      gst_robocache_base_transform_get_gpu (GST_ROBOCACHE_BASE_TRANSFORM
          (self))->use_gpu ? "gpu" : "cpu", NULL);
  gst_element_post_message (GST_ELEMENT (self),
      gst_message_new_element (GST_OBJECT (self), s));
}

/* Bad properties are refused here, at READY, before anything is
 * allocated; the last run's totals are cleared. */
static gboolean
gst_robocache_sweep_filter_start (GstBaseTransform * trans)
{
  GstRobocacheSweepFilter *self = GST_ROBOCACHE_SWEEP_FILTER (trans);
  GstRobocacheSweepFilterClass *klass =
      GST_ROBOCACHE_SWEEP_FILTER_GET_CLASS (self);
  GstRobocacheSweepFilterPrivate *priv = get_priv (self);

  if (!gst_robocache_grid_settings_usable (GST_ELEMENT (self),
          klass->settings_problem (self))
      || !GST_BASE_TRANSFORM_CLASS (parent_class)->start (trans))
    return FALSE;
  GST_OBJECT_LOCK (self);
  memset (&priv->totals, 0, sizeof (priv->totals));
  if (klass->clear_stats)
    klass->clear_stats (self);
  GST_OBJECT_UNLOCK (self);
  priv->warned_bad_size = FALSE;
  return TRUE;
}

static void
gst_robocache_sweep_filter_set_property (GObject * object, guint prop_id,
    const GValue * value, GParamSpec * pspec)
{
  GstRobocacheSweepFilterPrivate *priv = get_priv (object);

  if (prop_id == PROP_POST_MESSAGES) {
    GST_OBJECT_LOCK (object);
    priv->post_messages = g_value_get_boolean (value);
    GST_OBJECT_UNLOCK (object);
    return;
  }
  gst_robocache_grid_object_set_property (object, &priv->grid,
      PROP_VOXEL_SIZE, prop_id, value, pspec);
  /* A new grid means new output caps, even while playing. */
  gst_base_transform_reconfigure_src (GST_BASE_TRANSFORM (object));
}

static void
gst_robocache_sweep_filter_get_property (GObject * object, guint prop_id,
    GValue * value, GParamSpec * pspec)
{
  GstRobocacheSweepFilterPrivate *priv = get_priv (object);

  GST_OBJECT_LOCK (object);
  if (prop_id == PROP_POST_MESSAGES)
    g_value_set_boolean (value, priv->post_messages);
  else if (prop_id == PROP_STATS)
    g_value_take_boxed (value,
        totals_to_structure (GST_ROBOCACHE_SWEEP_FILTER (object)));
  GST_OBJECT_UNLOCK (object);
  if (prop_id != PROP_POST_MESSAGES && prop_id != PROP_STATS)
    gst_robocache_grid_object_get_property (object, &priv->grid,
        PROP_VOXEL_SIZE, prop_id, value, pspec);
}

static void
gst_robocache_sweep_filter_finalize (GObject * object)
{
  gst_robocache_grid_settings_clear (&get_priv (object)->grid);
  G_OBJECT_CLASS (parent_class)->finalize (object);
}

static void
gst_robocache_sweep_filter_class_init (GstRobocacheSweepFilterClass * klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  GstElementClass *element_class = GST_ELEMENT_CLASS (klass);

  gobject_class->set_property = gst_robocache_sweep_filter_set_property;
  gobject_class->get_property = gst_robocache_sweep_filter_get_property;
  gobject_class->finalize = gst_robocache_sweep_filter_finalize;

  /**
   * GstRobocacheSweepFilter:voxel-size:
   *
   * Edge of a voxel in metres, one value for all axes or <x,y,z>; each a
   * finite number > 0.  Changing it while playing renegotiates the output
   * caps.
   *
   * GstRobocacheSweepFilter:origin:
   *
   * Position in metres of the grid's minimum corner, <x,y,z> (or one value
   * for all axes).
   *
   * GstRobocacheSweepFilter:dims:
   *
   * Voxels along each axis, <x,y,z> (or one value for all); each at least
   * 1, fewer than 2^32 voxels in all.
   *
   * A bad value of any of the three is an element error at start.  Each
   * element has its own default grid.
   */
  gst_robocache_grid_install_properties (gobject_class, PROP_VOXEL_SIZE);
  /**
   * GstRobocacheSweepFilter:post-messages:
   *
   * Post an element message, named as the element, per sweep with its
   * counts.
   */
  g_object_class_install_property (gobject_class, PROP_POST_MESSAGES,
      g_param_spec_boolean ("post-messages", "Post messages",
          "Post an element message with the counts of every sweep",
          DEFAULT_POST_MESSAGES, G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
          GST_PARAM_MUTABLE_PLAYING));
  /**
   * GstRobocacheSweepFilter:stats:
   *
   * Totals since the element started: sweeps, points, in-grid,
   * out-of-range, invalid, dropped-buffers (not a whole number of points)
   * and empty-sweeps, then the element's own.
   */
  gst_robocache_fields_install_stats (gobject_class, PROP_STATS,
      "Totals since start");

  /* Any point layout: each element reads the fields it needs. */
  gst_element_class_add_pad_template (element_class,
      gst_pad_template_new_with_gtype ("sink", GST_PAD_SINK, GST_PAD_ALWAYS,
          gst_robocache_caps_with_cuda (GST_ROBOCACHE_POINTS_CAPS,
              GST_ROBOCACHE_POINTS_CUDA_CAPS), GST_TYPE_PAD));
  GST_BASE_TRANSFORM_CLASS (klass)->start =
      GST_DEBUG_FUNCPTR (gst_robocache_sweep_filter_start);

  gst_type_mark_as_plugin_api (GST_TYPE_ROBOCACHE_SWEEP_FILTER, 0);
}

static void
gst_robocache_sweep_filter_init (GstRobocacheSweepFilter * self)
{
  static const gdouble unit[3] = { 1.0, 1.0, 1.0 };
  static const gdouble zero[3] = { 0.0, 0.0, 0.0 };
  static const guint one[3] = { 1, 1, 1 };

  gst_robocache_grid_settings_init (&get_priv (self)->grid, unit, zero, one);
  get_priv (self)->post_messages = DEFAULT_POST_MESSAGES;
}
