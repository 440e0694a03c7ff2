/* The counting shared by the elements that take lidar sweeps. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstrobocachesweep.h"
#include "gstrobocachefields.h"
#include "gstrobocachegrid.h"

#include <string.h>

void
gst_robocache_sweep_totals_add (GstRobocacheSweepTotals * totals,
    const GstRobocacheSweepCounts * counts)
{
  totals->sweeps++;
  totals->counts.points += counts->points;
  totals->counts.in_grid += counts->in_grid;
  totals->counts.out_of_range += counts->out_of_range;
  totals->counts.invalid += counts->invalid;
  totals->empty_sweeps += counts->points == 0;
}

/* The stats and the messages alike: @name with @first (sweeps, or the
 * timestamp), the counts, then the element's own fields. */
static GstStructure *
counts_structure (const gchar * name, const gchar * first, guint64 value,
    const GstRobocacheSweepCounts * counts, const gchar * first_field,
    va_list args)
{
  GstStructure *s = gst_structure_new (name,
      first, G_TYPE_UINT64, value,
      "points", G_TYPE_UINT64, counts->points,
      "in-grid", G_TYPE_UINT64, counts->in_grid,
      "out-of-range", G_TYPE_UINT64, counts->out_of_range,
      "invalid", G_TYPE_UINT64, counts->invalid, NULL);

  if (first_field)
    gst_structure_set_valist (s, first_field, args);
  return s;
}

GstStructure *
gst_robocache_sweep_totals_to_structure (const gchar * name,
    const GstRobocacheSweepTotals * totals, const gchar * first_field, ...)
{
  GstStructure *s;
  va_list args;

  va_start (args, first_field);
  s = counts_structure (name, "sweeps", totals->sweeps, &totals->counts,
      first_field, args);
  va_end (args);
  gst_structure_set (s, "dropped-buffers", G_TYPE_UINT64,
      totals->dropped_buffers, "empty-sweeps", G_TYPE_UINT64,
      totals->empty_sweeps, NULL);
  return s;
}

void
gst_robocache_sweep_post_message (GstElement * element, const gchar * name,
    GstClockTime pts, const GstRobocacheSweepCounts * counts, gboolean gpu,
    const gchar * first_field, ...)
{
  GstStructure *s;
  va_list args;

  va_start (args, first_field);
  s = counts_structure (name, "timestamp", pts, counts, first_field, args);
  va_end (args);
  gst_structure_set (s, "backend", G_TYPE_STRING, gpu ? "gpu" : "cpu", NULL);
  gst_element_post_message (element,
      gst_message_new_element (GST_OBJECT (element), s));
}

gboolean
gst_robocache_sweep_count_points (GstElement * element, GstBuffer * inbuf,
    guint32 point_step, guint64 max_points, const gchar * too_many,
    GstRobocacheSweepTotals * totals, gboolean * warned, guint64 * n_points)
{
  gsize size = gst_buffer_get_size (inbuf);

  *n_points = size / point_step;
  if (size % point_step == 0 && *n_points < max_points)
    return TRUE;
  GST_OBJECT_LOCK (element);
  totals->dropped_buffers++;
  GST_OBJECT_UNLOCK (element);
  if (!*warned)
    GST_ELEMENT_WARNING (element, STREAM, FORMAT,
        ("dropping a buffer of %" G_GSIZE_FORMAT " bytes: not a whole "
            "number of %u-byte points (point-step in the caps)%s%s", size,
            point_step, too_many ? ", or " : "", too_many ? too_many : ""),
        ("further such buffers are dropped and counted in the stats "
            "property without a warning"));
  *warned = TRUE;
  return FALSE;
}

gboolean
gst_robocache_sweep_start (GstBaseTransform * trans,
    GstBaseTransformClass * parent_class, gchar * problem, gpointer totals,
    gsize totals_size, gboolean * warned)
{
  if (!gst_robocache_grid_settings_usable (GST_ELEMENT (trans), problem)
      || !parent_class->start (trans))
    return FALSE;
  GST_OBJECT_LOCK (trans);
  memset (totals, 0, totals_size);
  GST_OBJECT_UNLOCK (trans);
  *warned = FALSE;
  return TRUE;
}

void
gst_robocache_sweep_install_properties (GObjectClass * klass,
    guint post_messages_id, guint stats_id)
{
  g_object_class_install_property (klass, post_messages_id,
      g_param_spec_boolean ("post-messages", "Post messages",
          "Post an element message with the counts of every sweep", FALSE,
          G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
          GST_PARAM_MUTABLE_PLAYING));
  gst_robocache_fields_install_stats (klass, stats_id, "Totals since start");
}
