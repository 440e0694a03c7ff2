/* What the elements that take lidar sweeps (robocachevoxelize,
 * robocachepillars) count the same way: the totals of their stats
 * property, the element message of each sweep, and the buffers dropped for
 * not being a whole number of points.  Each element adds its own counts
 * (voxels kept, dropped, ...) to the structures these functions start. */
#ifndef __GST_ROBOCACHE_SWEEP_H__
#define __GST_ROBOCACHE_SWEEP_H__

#include <gst/gst.h>
#include <gst/base/gstbasetransform.h>

G_BEGIN_DECLS

/* What the kernels found in one sweep of @points points. */
typedef struct
{
  guint64 points;
  guint64 in_grid;
  guint64 out_of_range;
  guint64 invalid;
} GstRobocacheSweepCounts;

/* Totals since start, under the element's object lock. */
typedef struct
{
  guint64 sweeps;
  GstRobocacheSweepCounts counts;       /* summed over the sweeps */
  guint64 dropped_buffers;
  guint64 empty_sweeps;
} GstRobocacheSweepTotals;

/* Adds one sweep to @totals; the caller holds the object lock. */
void gst_robocache_sweep_totals_add (GstRobocacheSweepTotals * totals,
    const GstRobocacheSweepCounts * counts);

/* The stats structure @name: sweeps, points, in-grid, out-of-range and
 * invalid, then the element's own fields (@first_field, its type and value,
 * ..., NULL as for gst_structure_new; NULL alone for none), then
 * dropped-buffers and empty-sweeps.  Fields after those are set by the
 * caller. */
GstStructure *gst_robocache_sweep_totals_to_structure (const gchar * name,
    const GstRobocacheSweepTotals * totals, const gchar * first_field, ...);

/* Posts the element message @name of one sweep: its timestamp @pts, points,
 * in-grid, out-of-range and invalid, then the element's own fields
 * (@first_field, ..., NULL), then the backend that ran it. */
void gst_robocache_sweep_post_message (GstElement * element,
    const gchar * name, GstClockTime pts,
    const GstRobocacheSweepCounts * counts, gboolean gpu,
    const gchar * first_field, ...) G_GNUC_NULL_TERMINATED;

/* The number of @point_step-byte points in @inbuf, or FALSE when it is not a
 * whole number of them or @max_points or more (@too_many says so in words,
 * NULL when there is no such limit): the buffer is then to be dropped, and
 * is counted in @totals (under the object lock) and warned about once
 * (@warned, the streaming thread's). */
gboolean gst_robocache_sweep_count_points (GstElement * element,
    GstBuffer * inbuf, guint32 point_step, guint64 max_points,
    const gchar * too_many, GstRobocacheSweepTotals * totals,
    gboolean * warned, guint64 * n_points);

/* The start of an element that takes sweeps: @problem (taken), why its
 * properties cannot be used, is refused before anything is allocated;
 * else @parent_class starts and the last run's totals (@totals_size bytes
 * at @totals, under the object lock) and @warned are cleared. */
gboolean gst_robocache_sweep_start (GstBaseTransform * trans,
    GstBaseTransformClass * parent_class, gchar * problem, gpointer totals,
    gsize totals_size, gboolean * warned);

/* Installs post-messages (an element message per sweep, changeable while
 * playing) and the read-only stats, with ids @post_messages_id and
 * @stats_id; the element keeps them in its fields table. */
void gst_robocache_sweep_install_properties (GObjectClass * klass,
    guint post_messages_id, guint stats_id);

G_END_DECLS
#endif /* __GST_ROBOCACHE_SWEEP_H__ */
