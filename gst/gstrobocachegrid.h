/* The grid properties of the elements that bin points into voxels:
 * voxel-size, origin and dims, each one value for all axes or <x,y,z>.
 * Their values are checked here rather than by GLib's ranges, so that a bad
 * one (0, negative, NaN, Inf, a wrong count) reaches the element, which
 * refuses it with an element error at start instead of a GLib warning and
 * a run on the default grid. */
#ifndef __GST_ROBOCACHE_GRID_H__
#define __GST_ROBOCACHE_GRID_H__

#include <gst/gst.h>

#include "robocache-kernels.h"

G_BEGIN_DECLS typedef enum
{
  GST_ROBOCACHE_GRID_VOXEL_SIZE,
  GST_ROBOCACHE_GRID_ORIGIN,
  GST_ROBOCACHE_GRID_DIMS,
  GST_ROBOCACHE_GRID_N_PROPERTIES
} GstRobocacheGridProperty;

/* The three properties as set, under the element's object lock: a value
 * per axis, and for each property why it cannot be used, if it cannot. */
typedef struct
{
  gdouble value[GST_ROBOCACHE_GRID_N_PROPERTIES][3];
  gchar *invalid[GST_ROBOCACHE_GRID_N_PROPERTIES];
} GstRobocacheGridSettings;

void gst_robocache_grid_settings_init (GstRobocacheGridSettings * settings,
    const gdouble voxel_size[3], const gdouble origin[3], const guint dims[3]);
void gst_robocache_grid_settings_clear (GstRobocacheGridSettings * settings);

/* Installs voxel-size, origin and dims with ids @first_id, @first_id + 1
 * and @first_id + 2, changeable while playing. */
void gst_robocache_grid_install_properties (GObjectClass * klass,
    guint first_id);

/* set_property / get_property of an element with those properties and a
 * fields table (gstrobocachefields.h): the grid properties under the
 * object lock, any other through the fields table. */
void gst_robocache_grid_object_set_property (GObject * object,
    GstRobocacheGridSettings * settings, guint first_id, guint prop_id,
    const GValue * value, GParamSpec * pspec);
void gst_robocache_grid_object_get_property (GObject * object,
    const GstRobocacheGridSettings * settings, guint first_id, guint prop_id,
    GValue * value, GParamSpec * pspec);

/* Fills @grid's voxel size, origin and dims from @settings; returns why they
 * cannot be used (to be freed), or NULL. */
gchar *gst_robocache_grid_from_settings (const GstRobocacheGridSettings *
    settings, rc_voxel_grid * grid);

/* Why @grid cannot be used whatever the points (an axis out of range, 2^32
 * voxels or more), to be freed, or NULL. */
gchar *gst_robocache_grid_problem (const rc_voxel_grid * grid);

/* TRUE when @problem, why the properties cannot be used, is NULL; else it
 * is posted as a settings error of @element and freed.  For start and
 * set_caps, so that bad properties are refused before anything is
 * allocated. */
gboolean gst_robocache_grid_settings_usable (GstElement * element,
    gchar * problem);

G_END_DECLS
#endif
