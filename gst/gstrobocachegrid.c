/* The grid properties shared by the voxelizing elements. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstrobocachegrid.h"
#include "gstrobocachefields.h"

#include <math.h>
#include <string.h>

static const gchar *const property_names[GST_ROBOCACHE_GRID_N_PROPERTIES] = {
  "voxel-size", "origin", "dims"
};

/* Why @value along @axis cannot be used for @prop, or NULL. */
static gchar *
axis_problem (GstRobocacheGridProperty prop, gint axis, gdouble value)
{
  const gchar *name = property_names[prop];
  gchar c = "xyz"[axis];

  switch (prop) {
    case GST_ROBOCACHE_GRID_VOXEL_SIZE:
      if (!(value > 0.0) || !isfinite (value))
        return g_strdup_printf ("%s along %c is %g; it must be a finite "
            "number > 0", name, c, value);
      break;
    case GST_ROBOCACHE_GRID_ORIGIN:
      if (!isfinite (value))
        return g_strdup_printf ("%s along %c is %g; it must be finite",
            name, c, value);
      break;
    default:
      if (!(value >= 1.0) || value > G_MAXINT || value != floor (value))
        return g_strdup_printf ("%s along %c is %g; each dimension must be "
            "a whole number from 1 to %d", name, c, value, G_MAXINT);
      break;
  }
  return NULL;
}

void
gst_robocache_grid_settings_init (GstRobocacheGridSettings * settings,
    const gdouble voxel_size[3], const gdouble origin[3], const guint dims[3])
{
  memset (settings, 0, sizeof (*settings));
  for (gint a = 0; a < 3; a++) {
    settings->value[GST_ROBOCACHE_GRID_VOXEL_SIZE][a] = voxel_size[a];
    settings->value[GST_ROBOCACHE_GRID_ORIGIN][a] = origin[a];
    settings->value[GST_ROBOCACHE_GRID_DIMS][a] = dims[a];
  }
}

void
gst_robocache_grid_settings_clear (GstRobocacheGridSettings * settings)
{
  for (gint p = 0; p < GST_ROBOCACHE_GRID_N_PROPERTIES; p++)
    g_clear_pointer (&settings->invalid[p], g_free);
}

/* Reads one value for all axes or <x,y,z>, of any numeric type. */
static void
set_values (GstRobocacheGridSettings * settings, GstRobocacheGridProperty prop,
    const GValue * array)
{
  guint n = gst_value_array_get_size (array);
  gchar **invalid = &settings->invalid[prop];

  g_clear_pointer (invalid, g_free);
  if (n != 1 && n != 3) {
    *invalid = g_strdup_printf ("%s takes one value for all axes or three "
        "(<x,y,z>), not %u", property_names[prop], n);
    return;
  }
  for (guint a = 0; a < 3 && !*invalid; a++) {
    const GValue *v = gst_value_array_get_value (array, n == 1 ? 0 : a);
    GValue d = G_VALUE_INIT;

    g_value_init (&d, G_TYPE_DOUBLE);
    if (!g_value_type_transformable (G_VALUE_TYPE (v), G_TYPE_DOUBLE)
        || !g_value_transform (v, &d)) {
      *invalid = g_strdup_printf ("%s: a value of type %s is not a number",
          property_names[prop], G_VALUE_TYPE_NAME (v));
      break;
    }
    settings->value[prop][a] = g_value_get_double (&d);
    *invalid = axis_problem (prop, a, settings->value[prop][a]);
  }
}

static gboolean
grid_set_property (GstRobocacheGridSettings * settings,
    guint first_id, guint prop_id, const GValue * value)
{
  if (prop_id < first_id || prop_id >= first_id +
      GST_ROBOCACHE_GRID_N_PROPERTIES)
    return FALSE;
  set_values (settings, prop_id - first_id, value);
  return TRUE;
}

static gboolean
grid_get_property (const GstRobocacheGridSettings * settings,
    guint first_id, guint prop_id, GValue * value)
{
  GstRobocacheGridProperty prop = prop_id - first_id;

  if (prop_id < first_id || prop >= GST_ROBOCACHE_GRID_N_PROPERTIES)
    return FALSE;
  for (guint a = 0; a < 3; a++) {
    GValue v = G_VALUE_INIT;

    if (prop == GST_ROBOCACHE_GRID_DIMS) {
      g_value_init (&v, G_TYPE_INT);
      g_value_set_int (&v, (gint) CLAMP (settings->value[prop][a], G_MININT,
              G_MAXINT));
    } else {
      g_value_init (&v, G_TYPE_DOUBLE);
      g_value_set_double (&v, settings->value[prop][a]);
    }
    gst_value_array_append_and_take_value (value, &v);
  }
  return TRUE;
}

gchar *
gst_robocache_grid_problem (const rc_voxel_grid * grid)
{
  guint64 n_voxels = 1;
  gchar *problem = NULL;

  for (gint a = 0; a < 3 && !problem; a++) {
    problem = axis_problem (GST_ROBOCACHE_GRID_VOXEL_SIZE, a,
        grid->voxel_size[a]);
    if (!problem)
      problem = axis_problem (GST_ROBOCACHE_GRID_ORIGIN, a, grid->origin[a]);
    if (!problem)
      problem = axis_problem (GST_ROBOCACHE_GRID_DIMS, a, grid->dims[a]);
  }
  if (problem)
    return problem;
  /* Voxel indices and counts are 32-bit. */
  for (gint a = 0; a < 3; a++)
    n_voxels *= grid->dims[a];
  if (n_voxels >= (G_GUINT64_CONSTANT (1) << 32))
    return g_strdup_printf ("a grid of %u x %u x %u voxels is too large: "
        "fewer than 2^32 voxels are accepted", grid->dims[0], grid->dims[1],
        grid->dims[2]);
  return NULL;
}

gchar *
gst_robocache_grid_from_settings (const GstRobocacheGridSettings * settings,
    rc_voxel_grid * grid)
{
  for (gint a = 0; a < 3; a++) {
    grid->voxel_size[a] = settings->value[GST_ROBOCACHE_GRID_VOXEL_SIZE][a];
    grid->origin[a] = settings->value[GST_ROBOCACHE_GRID_ORIGIN][a];
    grid->dims[a] = (guint) CLAMP (settings->value[GST_ROBOCACHE_GRID_DIMS][a],
        0, G_MAXINT);
  }
  for (gint p = 0; p < GST_ROBOCACHE_GRID_N_PROPERTIES; p++)
    if (settings->invalid[p])
      return g_strdup (settings->invalid[p]);
  return gst_robocache_grid_problem (grid);
}

gboolean
gst_robocache_grid_settings_usable (GstElement * element, gchar * problem)
{
  if (!problem)
    return TRUE;
  GST_ELEMENT_ERROR (element, LIBRARY, SETTINGS, ("%s", problem), (NULL));
  g_free (problem);
  return FALSE;
}

/* The values are checked by the element, not by GLib, so that a bad one
 * is refused with an element error at start rather than dropped with a
 * warning: metres are any number, dims any int. */
static GParamSpec *
grid_param (const gchar * name, const gchar * nick, const gchar * blurb,
    gboolean integer)
{
  GParamSpec *element = integer ?
      g_param_spec_int ("dim", "Dimension", "Voxels along one axis",
      G_MININT, G_MAXINT, 1, G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS) : NULL;

  return gst_param_spec_array (name, nick, blurb, element,
      G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS | GST_PARAM_MUTABLE_PLAYING);
}

void
gst_robocache_grid_install_properties (GObjectClass * klass, guint first_id)
{
  /* voxel-size: edge of a voxel in metres, one value for all axes (<v>,
   * an array of one: a bare number is not an array to gst-launch) or
   * <x,y,z>; each a finite number > 0.  Changing it while playing
   * renegotiates the output caps. */
  g_object_class_install_property (klass,
      first_id + GST_ROBOCACHE_GRID_VOXEL_SIZE, grid_param ("voxel-size",
          "Voxel size", "Voxel edge in metres: <v> for all axes or "
          "<x,y,z> (each > 0)", FALSE));
  /* origin: position in metres of the grid's minimum corner, <x,y,z> (or
   * one value for all axes). */
  g_object_class_install_property (klass,
      first_id + GST_ROBOCACHE_GRID_ORIGIN, grid_param ("origin", "Origin",
          "Minimum corner of the grid in metres: <x,y,z>", FALSE));
  /* dims: voxels along each axis, <x,y,z> (or one value for all); each at
   * least 1, fewer than 2^32 voxels in all. */
  g_object_class_install_property (klass,
      first_id + GST_ROBOCACHE_GRID_DIMS, grid_param ("dims", "Dimensions",
          "Voxels along each axis: <x,y,z> (each >= 1, fewer than 2^32 in "
          "all)", TRUE));
}

void
gst_robocache_grid_object_set_property (GObject * object,
    GstRobocacheGridSettings * settings, guint first_id, guint prop_id,
    const GValue * value, GParamSpec * pspec)
{
  gboolean grid;

  GST_OBJECT_LOCK (object);
  grid = grid_set_property (settings, first_id, prop_id, value);
  GST_OBJECT_UNLOCK (object);
  if (!grid)
    gst_robocache_fields_set_property (object, prop_id, value, pspec);
}

void
gst_robocache_grid_object_get_property (GObject * object,
    const GstRobocacheGridSettings * settings, guint first_id, guint prop_id,
    GValue * value, GParamSpec * pspec)
{
  gboolean grid;

  GST_OBJECT_LOCK (object);
  grid = grid_get_property (settings, first_id, prop_id, value);
  GST_OBJECT_UNLOCK (object);
  if (!grid)
    gst_robocache_fields_get_property (object, prop_id, value, pspec);
}
