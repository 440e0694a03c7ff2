/* The base of the filters that take lidar sweeps (robocachevoxelize,
 * robocachepillars): a GstRobocacheBaseTransform that owns what they do
 * the same way, so that each element writes only its negotiation and its
 * kernel calls.  The grid properties (voxel-size, origin, dims: a change
 * while playing renegotiates), post-messages and the stats property; the
 * refusal of bad properties at start; the buffers dropped for not being a
 * whole number of points; the totals of the sweeps and the element message
 * of each. */
#ifndef __GST_ROBOCACHE_SWEEP_H__
#define __GST_ROBOCACHE_SWEEP_H__

#include "gstrobocachebasetransform.h"
#include "gstrobocachegrid.h"

G_BEGIN_DECLS

/* What the kernels found in one sweep of @points points. */
typedef struct
{
  guint64 points;
  guint64 in_grid;
  guint64 out_of_range;
  guint64 invalid;
} GstRobocacheSweepCounts;

#define GST_TYPE_ROBOCACHE_SWEEP_FILTER \
    (gst_robocache_sweep_filter_get_type ())
G_DECLARE_DERIVABLE_TYPE (GstRobocacheSweepFilter,
    gst_robocache_sweep_filter, GST, ROBOCACHE_SWEEP_FILTER,
    GstRobocacheBaseTransform);

struct _GstRobocacheSweepFilterClass
{
  GstRobocacheBaseTransformClass parent_class;

  /* The name of the element message of each sweep; the stats structure
   * is "<sweep_name>-stats". */
  const gchar *sweep_name;

  /**
   * GstRobocacheSweepFilterClass::settings_problem:
   *
   * Why the element's properties cannot be used (the grid's included,
   * gst_robocache_sweep_filter_read_grid), to be freed, or NULL.  Asked
   * at start, which then fails before anything is allocated.
   */
  gchar *(*settings_problem) (GstRobocacheSweepFilter * self);

  /**
   * GstRobocacheSweepFilterClass::add_stats:
   *
   * Optional: adds the element's own totals to @stats, the structure of
   * the stats property.  Called with the object lock held.
   */
  void (*add_stats) (GstRobocacheSweepFilter * self, GstStructure * stats);

  /**
   * GstRobocacheSweepFilterClass::clear_stats:
   *
   * Optional: zeroes the element's own totals at start.  Called with the
   * object lock held.
   */
  void (*clear_stats) (GstRobocacheSweepFilter * self);
};

/* The default voxel size, origin and dims (@grid's mode is not read), from
 * the element's instance init. */
void gst_robocache_sweep_filter_set_default_grid (GstRobocacheSweepFilter *
    self, const rc_voxel_grid * grid);

/* Fills @grid's voxel size, origin and dims from the properties; returns
 * why they cannot be used (to be freed), or NULL.  The caller holds the
 * object lock, so that it reads its own properties in the same state. */
gchar *gst_robocache_sweep_filter_read_grid (GstRobocacheSweepFilter * self,
    rc_voxel_grid * grid);

/* The number of @point_step-byte points in @inbuf, or FALSE when it is not
 * a whole number of them or @max_points or more (@too_many says so in
 * words, NULL when there is no such limit): the buffer is then to be
 * dropped, and is counted in the stats and warned about once. */
gboolean gst_robocache_sweep_filter_count_points (GstRobocacheSweepFilter *
    self, GstBuffer * inbuf, guint32 point_step, guint64 max_points,
    const gchar * too_many, guint64 * n_points);

/* Counts a sweep of timestamp @pts in the stats and, with post-messages,
 * posts its element message: the timestamp, points, in-grid, out-of-range
 * and invalid, then the element's own fields (@first_field, its type and
 * value, ..., NULL as for gst_structure_new), then the backend that ran
 * it. */
void gst_robocache_sweep_filter_sweep_done (GstRobocacheSweepFilter * self,
    GstClockTime pts, const GstRobocacheSweepCounts * counts,
    const gchar * first_field, ...) G_GNUC_NULL_TERMINATED;

G_END_DECLS
#endif /* __GST_ROBOCACHE_SWEEP_H__ */
