/**
 * SECTION:element-robocachevoxelize
 * @title: robocachevoxelize
 *
 * Bins each lidar sweep (other/x-robocache-points) into a dense voxel grid
 * (other/x-robocache-voxels): occupancy, point counts, or the mean of chosen
 * point fields per voxel.  With mode=centroids it downsamples instead, as
 * PCL's VoxelGrid filter does: the output is a point cloud
 * (other/x-robocache-points, float32 fields) with one point per occupied
 * voxel, in voxel order, the mean of the chosen fields.  Runs on the GPU
 * when there is one (backend=auto) and on the CPU otherwise, with the same
 * results.  Points and grids may be in system memory or in CUDA memory on
 * either pad; CUDA memory is preferred between GPU elements.
 *
 * Points outside the grid and points with a NaN or Inf coordinate are
 * skipped and counted (the #GstRobocacheSweepFilter:stats property, the debug
 * log, and with post-messages=true an element message per sweep).  A buffer
 * whose size is not a whole number of points is dropped, counted, and
 * warned about once.  An empty sweep gives an empty grid.
 *
 * ## Example launch line
 * |[
 * gst-launch-1.0 robocachelidarsrc num-buffers=100 ! \
 *     robocachevoxelize mode=count \
 *     voxel-size="<0.1,0.1,0.2>" ! fakesink
 * ]|
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstrobocachevoxelize.h"
#include "gstrobocacheelements.h"
#include "gstrobocachecaps.h"
#include "gstrobocachefields.h"
#include "gstrobocachegrid.h"
#include "gstrobocachesweep.h"

#include <math.h>
#include <string.h>
#include <unistd.h>

GST_DEBUG_CATEGORY_STATIC (gst_robocache_voxelize_debug);
#define GST_CAT_DEFAULT gst_robocache_voxelize_debug

#define DEFAULT_VOXEL_SIZE 0.2
#define DEFAULT_ORIGIN_XY -25.6
#define DEFAULT_ORIGIN_Z -3.2
#define DEFAULT_DIMS_XY 256
#define DEFAULT_DIMS_Z 32
#define DEFAULT_MODE RC_VOXEL_OCCUPANCY
#define DEFAULT_FEATURES NULL

/* The grid's properties, post-messages and stats are the base's. */
enum
{
  PROP_0,
  PROP_MODE,
  PROP_FEATURES
};

/* Property values, under the object lock. */
typedef struct
{
  rc_voxel_mode mode;
  gchar *features;
} Settings;

/* One sweep on the GPU between submit and finish: its maps, its size and
 * when it was submitted. */
typedef struct
{
  GstMapInfo in;
  GstMapInfo out;
  guint64 n_points;
  gint64 submitted_us;
} Flight;

/* Built in set_caps, grown by the sweeps; streaming thread only. */
typedef struct
{
  GstRobocacheGpu *gpu;         /* the base's; use_gpu fixed from start */
  rc_point_layout layout;
  rc_voxel_grid grid;
  gsize out_size;               /* centroids: room for a point per voxel */
  gsize out_step;               /* centroids: bytes per output point */
  gboolean out_cuda;
  /* The kernels' working set, shared by the sweeps in flight (their
   * kernels run one after the other on the element's stream); each
   * sweep's points, grid and statistics are in its GPU slot.  Grown to the
   * largest size seen, so that steady state allocates nothing; freed by
   * the base at stop, as is the CPU's scratch. */
  GstRobocacheScratch device_scratch;
  GstRobocacheScratch host_scratch;
  Flight flights[GST_ROBOCACHE_MAX_DEPTH];
} State;

struct _GstRobocacheVoxelize
{
  GstRobocacheSweepFilter parent;

  Settings settings;
  guint64 last_occupied;        /* the last sweep's, under the object lock */
  State state;
};

#define gst_robocache_voxelize_parent_class parent_class
G_DEFINE_TYPE (GstRobocacheVoxelize, gst_robocache_voxelize,
    GST_TYPE_ROBOCACHE_SWEEP_FILTER);
GST_ELEMENT_REGISTER_DEFINE_WITH_CODE (robocachevoxelize, "robocachevoxelize",
    GST_RANK_NONE, GST_TYPE_ROBOCACHE_VOXELIZE,
    GST_DEBUG_CATEGORY_INIT (gst_robocache_voxelize_debug,
        "robocachevoxelize", 0, "robocache voxelization"));

/* *INDENT-OFF* */
G_DEFINE_ENUM_TYPE (GstRobocacheVoxelMode, gst_robocache_voxel_mode,
    {RC_VOXEL_OCCUPANCY, "uint8 per voxel: 1 where any point fell",
        "occupancy"},
    {RC_VOXEL_COUNT, "uint32 per voxel: the number of points", "count"},
    {RC_VOXEL_MEAN, "float32 per voxel and feature: the mean of the "
          "feature fields", "mean"},
    {RC_VOXEL_CENTROIDS, "a point cloud, not a grid: a point per occupied "
          "voxel, the mean of the feature fields (PCL's VoxelGrid filter)",
        "centroids"});
/* *INDENT-ON* */

/* ------------------------------------------------------------------ */
/* Properties                                                          */
/* ------------------------------------------------------------------ */

static void
add_stats (GstRobocacheSweepFilter * base, GstStructure * stats)
{
  gst_structure_set (stats, "last-occupied", G_TYPE_UINT64,
      GST_ROBOCACHE_VOXELIZE (base)->last_occupied, NULL);
}

static void
clear_stats (GstRobocacheSweepFilter * base)
{
  GST_ROBOCACHE_VOXELIZE (base)->last_occupied = 0;
}

/* The properties kept in settings. */
static const GstRobocacheField fields[] = {
  GST_ROBOCACHE_FIELD (PROP_MODE, GstRobocacheVoxelize, settings.mode),
  GST_ROBOCACHE_FIELD (PROP_FEATURES, GstRobocacheVoxelize,
      settings.features),
  {0}
};

static void
gst_robocache_voxelize_set_property (GObject * object, guint prop_id,
    const GValue * value, GParamSpec * pspec)
{
  gst_robocache_fields_set_property (object, prop_id, value, pspec);
  /* A new mode or features means new output caps, even while playing. */
  gst_base_transform_reconfigure_src (GST_BASE_TRANSFORM (object));
}

/* ------------------------------------------------------------------ */
/* Negotiation                                                         */
/* ------------------------------------------------------------------ */

static guint
count_features (const gchar * features)
{
  guint n = 0;
  gchar **names;

  if (!features || !*features)
    return 3;
  names = g_strsplit (features, ",", -1);
  n = g_strv_length (names);
  g_strfreev (names);
  return n;
}

/* The grid the properties describe, and the features, or why the
 * properties cannot be used. */
static gchar *
settings_grid (GstRobocacheVoxelize * self, rc_voxel_grid * grid,
    gchar ** features)
{
  Settings *s = &self->settings;
  gchar *problem = NULL;

  GST_OBJECT_LOCK (self);
  problem = gst_robocache_sweep_filter_read_grid (GST_ROBOCACHE_SWEEP_FILTER
      (self), grid);
  grid->mode = s->mode;
  if (features)
    *features = g_strdup (s->features);
  GST_OBJECT_UNLOCK (self);
  return problem;
}

static GstCaps *
gst_robocache_voxelize_transform_caps (GstBaseTransform * trans,
    GstPadDirection direction, GstCaps * caps, GstCaps * filter)
{
  GstRobocacheVoxelize *self = GST_ROBOCACHE_VOXELIZE (trans);
  gboolean gpu =
      gst_robocache_base_transform_may_offer_cuda (GST_ROBOCACHE_BASE_TRANSFORM
      (self));
  GstCaps *ret;

  if (direction == GST_PAD_SINK) {
    rc_voxel_grid grid;
    gchar *features = NULL, *problem;

    /* Bad grid properties: before start, any grid (linking works, start
     * refuses them with their reason); while playing, none, so that the
     * renegotiation fails with the reason posted once. */
    problem = settings_grid (self, &grid, &features);
    if (problem && !gst_robocache_gpu_started (self->state.gpu,
            GST_ELEMENT (self))) {
      g_free (problem);
      g_free (features);
      return gst_pad_get_pad_template_caps (GST_BASE_TRANSFORM_SRC_PAD (trans));
    }
    ret = gst_caps_new_empty ();
    if (problem)
      gst_robocache_base_transform_post_refusal (GST_ROBOCACHE_BASE_TRANSFORM
          (self), GST_LIBRARY_ERROR, GST_LIBRARY_ERROR_SETTINGS, problem, NULL);
    for (gint cuda = gpu; cuda >= 0 && !problem; cuda--) {
      if (grid.mode == RC_VOXEL_CENTROIDS)
        gst_caps_append (ret, gst_robocache_centroids_caps_new (&grid,
                features, cuda));
      else
        gst_caps_append (ret, gst_robocache_voxels_caps_new (&grid,
                count_features (features), features, cuda));
    }
    g_free (features);
  } else {
    /* Any point layout: the element reads the one it is given. */
    ret = gst_robocache_caps_with_cuda (GST_ROBOCACHE_POINTS_CAPS,
        GST_ROBOCACHE_POINTS_CUDA_CAPS);
  }

  ret = gst_robocache_caps_filter (ret, filter);
  GST_DEBUG_OBJECT (self, "%s caps %" GST_PTR_FORMAT " -> %" GST_PTR_FORMAT,
      direction == GST_PAD_SINK ? "sink" : "src", caps, ret);
  return ret;
}

/* The features property. */
static gchar *
settings_features (GstRobocacheVoxelize * self)
{
  gchar *features;

  GST_OBJECT_LOCK (self);
  features = g_strdup (self->settings.features);
  GST_OBJECT_UNLOCK (self);
  return features;
}

/* The point layout of fixed sink caps, read for @features (taken); a
 * refusal is posted once. */
static gboolean
parse_sink_caps (GstRobocacheVoxelize * self, GstCaps * caps,
    gchar * features, rc_point_layout * layout)
{
  GError *error = NULL;
  gboolean ok;

  ok = gst_robocache_points_caps_parse (caps, features, layout, &error);
  g_free (features);
  if (!ok) {
    gchar *text = gst_caps_to_string (caps);

    gst_robocache_base_transform_post_refusal (GST_ROBOCACHE_BASE_TRANSFORM
        (self), GST_STREAM_ERROR, GST_STREAM_ERROR_FORMAT,
        g_strdup (error->message), g_strdup_printf ("input caps %s", text));
    g_free (text);
    g_clear_error (&error);
  }
  return ok;
}

/* Points caps whose fields the element cannot read are refused here, where
 * negotiation asks, so that upstream fails cleanly instead of sending
 * them. */
static gboolean
gst_robocache_voxelize_accept_caps (GstBaseTransform * trans,
    GstPadDirection direction, GstCaps * caps)
{
  GstRobocacheVoxelize *self = GST_ROBOCACHE_VOXELIZE (trans);
  rc_point_layout layout;

  if (!GST_BASE_TRANSFORM_CLASS (parent_class)->accept_caps (trans,
          direction, caps))
    return FALSE;
  if (direction != GST_PAD_SINK || !gst_caps_is_fixed (caps))
    return TRUE;
  return parse_sink_caps (self, caps, settings_features (self), &layout);
}

/* Checks the negotiated grid against the points and the memory there is,
 * and says precisely what is wrong. */
static gboolean
check_grid (GstRobocacheVoxelize * self, const rc_voxel_grid * grid,
    const rc_point_layout * layout)
{
  gchar *problem = gst_robocache_grid_problem (grid);
  guint64 out_size;
  gchar *what;
  gboolean ok;

  if (problem) {
    gst_robocache_base_transform_post_refusal (GST_ROBOCACHE_BASE_TRANSFORM
        (self), GST_LIBRARY_ERROR, GST_LIBRARY_ERROR_SETTINGS, problem, NULL);
    return FALSE;
  }
  if (rc_voxelize_check (layout, grid) != RC_OK) {
    GST_ELEMENT_ERROR (self, LIBRARY, SETTINGS,
        ("the point layout and grid are not accepted together: accepted are "
            "float32 or float64 x, y and z and up to %d feature fields (one "
            "at least for mean and centroids), each inside point-step %u, on "
            "a grid of finite voxel sizes > 0 and fewer than 2^32 voxels",
            RC_VOXELIZE_MAX_FEATURES, layout->point_step), (NULL));
    return FALSE;
  }
  out_size = rc_voxelize_output_size (layout, grid);
  if (out_size > G_MAXSIZE / (2 * GST_ROBOCACHE_BUFFERS_IN_FLIGHT)) {
    GST_ELEMENT_ERROR (self, RESOURCE, NO_SPACE_LEFT,
        ("a voxel grid of %" G_GUINT64_FORMAT " bytes cannot be addressed",
            out_size), (NULL));
    return FALSE;
  }
  if (grid->mode == RC_VOXEL_CENTROIDS ||
      (self->state.gpu->use_gpu && self->state.out_cuda))
    return TRUE;

  /* The grids in system memory in flight and the CPU's counts, checked
   * before any is allocated (GPU memory is checked as it is allocated):
   * beyond the memory there is they would be paged in until the OOM
   * killer took the whole process.  (The centroids' output is as large as
   * the sweep.) */
  what = g_strdup_printf ("%d voxel grids of %" G_GUINT64_FORMAT " bytes "
      "in flight and the counts", GST_ROBOCACHE_BUFFERS_IN_FLIGHT, out_size);
  ok = gst_robocache_gpu_check_memory (self->state.gpu, GST_ELEMENT (self),
      GST_ROBOCACHE_MEMORY_HOST, out_size * GST_ROBOCACHE_BUFFERS_IN_FLIGHT +
      (self->state.gpu->use_gpu ? 0 : rc_voxelize_scratch_size (layout,
              grid, 0)), what, "the grid (dims, voxel-size, mode, features)");
  g_free (what);
  return ok;
}

/* The grid of the src caps: voxels, or the centroids' points. */
static gboolean
parse_src_caps (GstCaps * caps, rc_voxel_grid * grid, guint * n_features,
    GError ** error)
{
  if (gst_caps_is_fixed (caps)
      && gst_structure_has_name (gst_caps_get_structure (caps, 0),
          GST_ROBOCACHE_POINTS_MEDIA_TYPE))
    return gst_robocache_centroids_caps_parse (caps, grid, n_features, error);
  return gst_robocache_voxels_caps_parse (caps, grid, n_features, error);
}

/* The features the src caps @caps of @grid were made for: a mean's
 * feature-names, the centroids' field names, else the property's.  The
 * property may have changed since transform_caps made them (a
 * renegotiation follows); the grids must be what their caps say. */
static gchar *
src_caps_features (GstRobocacheVoxelize * self, GstCaps * caps,
    const rc_voxel_grid * grid)
{
  const GstStructure *s = gst_caps_get_structure (caps, 0);
  const gchar *list = gst_structure_get_string (s, "fields");
  GString *names;
  gchar **fields;

  if (grid->mode == RC_VOXEL_MEAN)
    return g_strdup (gst_structure_get_string (s, "feature-names"));
  if (grid->mode != RC_VOXEL_CENTROIDS || !list)
    return settings_features (self);
  /* "x:float32:0,y:float32:4,...": the names before the colons. */
  fields = g_strsplit (list, ",", -1);
  names = g_string_new (NULL);
  for (guint i = 0; fields[i]; i++)
    g_string_append_printf (names, "%s%.*s", i ? "," : "",
        (gint) strcspn (fields[i], ":"), fields[i]);
  g_strfreev (fields);
  return g_string_free (names, FALSE);
}

/* Grows the CPU scratch to @size bytes for sweeps of @n_points points,
 * within the memory limits with the outputs in flight: grids (as
 * check_grid counted them), or centroids in system memory, each the
 * room of such a sweep (transform_size), not of a point per voxel. */
static gboolean
ensure_host_scratch (GstRobocacheVoxelize * self, gsize size, guint64 n_points)
{
  State *st = &self->state;
  guint64 output = st->grid.mode == RC_VOXEL_CENTROIDS && !st->out_cuda ?
      rc_voxelize_centroids_size (&st->layout, &st->grid, n_points) :
      st->out_size;

  return gst_robocache_gpu_ensure_host (st->gpu, GST_ELEMENT (self),
      &st->host_scratch, size, gst_robocache_memory_mul (output,
          GST_ROBOCACHE_BUFFERS_IN_FLIGHT),
      "the outputs in flight and the scratch for this sweep's points",
      "the grid (dims, voxel-size, mode, features) or the sweep's points");
}

/* The kernels' working set for the negotiated grid and sweeps of up to
 * @n_points points, grown (never shrunk) as sweeps need it: a large mean
 * partitions or sorts its points in it (the slots' memory is grown
 * likewise).  New
 * memory, and with @new_grid any, is marked as holding nothing from an
 * earlier grid.  The context must be current. */
static gboolean
ensure_gpu_scratch (GstRobocacheVoxelize * self, guint64 n_points,
    gboolean new_grid)
{
  State *st = &self->state;
  gpointer before = st->device_scratch.ptr;
  gboolean ok;
  rc_status ret;

  ok = gst_robocache_gpu_ensure_device (st->gpu, GST_ELEMENT (self),
      &st->device_scratch, rc_voxelize_cuda_scratch_size (&st->layout,
          &st->grid, 1, n_points), "voxelization scratch");
  if (ok && (new_grid || st->device_scratch.ptr != before)) {
    ret = rc_voxelize_cuda_scratch_reset (st->device_scratch.ptr,
        st->gpu->stream);
    if (ret != RC_OK) {
      gst_robocache_gpu_failed (GST_ELEMENT (self), "clearing the "
          "voxelization scratch", ret);
      ok = FALSE;
    }
  }
  return ok;
}

static gboolean
gst_robocache_voxelize_set_caps (GstBaseTransform * trans, GstCaps * incaps,
    GstCaps * outcaps)
{
  GstRobocacheVoxelize *self = GST_ROBOCACHE_VOXELIZE (trans);
  State *st = &self->state;
  GError *error = NULL;
  guint n_features = 0;
  gsize scratch;
  gboolean ok;

  if (!parse_src_caps (outcaps, &st->grid, &n_features, &error)) {
    GST_ELEMENT_ERROR (self, CORE, NEGOTIATION, ("%s", error->message), (NULL));
    g_clear_error (&error);
    return FALSE;
  }
  if (!parse_sink_caps (self, incaps, src_caps_features (self, outcaps,
              &st->grid), &st->layout))
    return FALSE;
  st->out_cuda = gst_robocache_caps_is_cuda (outcaps);
  if (!check_grid (self, &st->grid, &st->layout))
    return FALSE;

  st->out_size = rc_voxelize_output_size (&st->layout, &st->grid);
  st->out_step = st->layout.n_features * sizeof (gfloat);
  /* A mean's or the centroids' CPU scratch grows with the sweep
   * (voxelize_cpu): a table row for each voxel its points can reach. */
  scratch = rc_voxelize_scratch_size (&st->layout, &st->grid, 0);

  if (st->gpu->use_gpu) {
    ok = gst_robocache_gpu_push (st->gpu);
    ok = ok && ensure_gpu_scratch (self, 0, TRUE);
    gst_robocache_gpu_pop (st->gpu);
  } else {
    ok = ensure_host_scratch (self, scratch, 0);
  }
  if (!ok)
    return FALSE;

  GST_INFO_OBJECT (self, "%s, %u x %u x %u %s grid of %" G_GSIZE_FORMAT
      " bytes in %s memory, point step %u", st->gpu->use_gpu ? "GPU" : "CPU",
      st->grid.dims[0], st->grid.dims[1], st->grid.dims[2],
      gst_robocache_voxel_mode_to_string (st->grid.mode), st->out_size,
      st->out_cuda ? "CUDA" : "system", st->layout.point_step);
  return TRUE;
}

static gboolean
gst_robocache_voxelize_transform_size (GstBaseTransform * trans,
    GstPadDirection direction, GstCaps * caps, gsize size, GstCaps * othercaps,
    gsize * othersize)
{
  GstRobocacheVoxelize *self = GST_ROBOCACHE_VOXELIZE (trans);

  if (direction != GST_PAD_SINK)
    return FALSE;
  if (self->state.grid.mode == RC_VOXEL_CENTROIDS)
    *othersize = rc_voxelize_centroids_size (&self->state.layout,
        &self->state.grid, size / self->state.layout.point_step);
  else
    *othersize = self->state.out_size;
  return TRUE;
}

static gboolean
gst_robocache_voxelize_decide_allocation (GstBaseTransform * trans,
    GstQuery * query)
{
  GstRobocacheVoxelize *self = GST_ROBOCACHE_VOXELIZE (trans);
  State *st = &self->state;

  if (!st->out_cuda) {
    /* Centroids in system memory: a buffer of each sweep's room
     * (transform_size), not one pool size for all. */
    while (st->grid.mode == RC_VOXEL_CENTROIDS
        && gst_query_get_n_allocation_pools (query) > 0)
      gst_query_remove_nth_allocation_pool (query, 0);
    return GST_BASE_TRANSFORM_CLASS (parent_class)->decide_allocation (trans,
        query);
  }

  /* Grids in CUDA memory come from robocache's own pool on the shared
   * context; downstream's pools hold other memory.  Centroids take a
   * pool buffer with room for a point per voxel, cut to size. */
  return gst_robocache_gpu_decide_pool (st->gpu, GST_ELEMENT (self), query,
      st->out_size, "a voxel grid");
}

/* ------------------------------------------------------------------ */
/* Start, stop, transform                                              */
/* ------------------------------------------------------------------ */

static gchar *
settings_problem (GstRobocacheSweepFilter * base)
{
  rc_voxel_grid grid;

  return settings_grid (GST_ROBOCACHE_VOXELIZE (base), &grid, NULL);
}

static GstFlowReturn
voxelize_cpu (GstRobocacheVoxelize * self, GstBuffer * inbuf,
    GstBuffer * outbuf, guint64 n_points, rc_voxelize_stats * stats)
{
  State *st = &self->state;
  GstMapInfo in, out;
  rc_status ret;

  if (!ensure_host_scratch (self, rc_voxelize_scratch_size (&st->layout,
              &st->grid, n_points), n_points))
    return GST_FLOW_ERROR;
  if (!gst_robocache_base_transform_map_cpu (GST_ROBOCACHE_BASE_TRANSFORM
          (self), inbuf, &in, outbuf, &out))
    return GST_FLOW_ERROR;
  ret = rc_voxelize_cpu (&st->layout, &st->grid, in.data, &n_points, 1,
      out.data, st->host_scratch.ptr, stats);
  gst_buffer_unmap (outbuf, &out);
  gst_buffer_unmap (inbuf, &in);
  if (ret != RC_OK)
    return gst_robocache_base_transform_cpu_failed
        (GST_ROBOCACHE_BASE_TRANSFORM (self), "voxelization", ret);
  return GST_FLOW_OK;
}

/* Queues the sweep's kernels on the GPU, its grid written in place (CUDA
 * memory) or downloaded into @f's output map.  Centroids need their number
 * before the download, so they wait for the kernels. */
static gboolean
queue_gpu (GstRobocacheVoxelize * self, guint slot, Flight * f,
    gconstpointer device_in)
{
  State *st = &self->state;
  GstElement *element = GST_ELEMENT (self);
  GstRobocacheGpuSlot *s = &st->gpu->slots[slot];
  rc_voxelize_stats *stats = s->host_result.ptr;
  gpointer grid = f->out.data;
  gsize size = f->out.size;
  rc_status ret;

  if (!ensure_gpu_scratch (self, f->n_points, FALSE) || (!st->out_cuda
          && !gst_robocache_gpu_ensure_device (st->gpu, element,
              &s->device_out, size, "voxel grid")))
    return FALSE;
  if (!st->out_cuda)
    grid = s->device_out.ptr;
  ret = rc_voxelize_cuda (&st->layout, &st->grid, device_in, &f->n_points, 1,
      grid, st->device_scratch.ptr, stats, st->gpu->stream);
  if (ret == RC_OK && !st->out_cuda && st->grid.mode == RC_VOXEL_CENTROIDS) {
    ret = rc_stream_synchronize (st->gpu->stream);
    size = stats->occupied * st->out_step;
  }
  if (ret != RC_OK) {
    gst_robocache_gpu_failed (element, "GPU voxelization", ret);
    return FALSE;
  }
  if (st->out_cuda)
    return gst_robocache_gpu_slot_fence (st->gpu, element, slot);
  return gst_robocache_gpu_stage_output (st->gpu, element, slot, f->out.data,
      grid, size, "a voxel grid");
}

static gboolean
submit_gpu (GstRobocacheVoxelize * self, GstBuffer * inbuf,
    GstBuffer * outbuf, guint slot)
{
  State *st = &self->state;
  GstElement *element = GST_ELEMENT (self);
  Flight *f = &st->flights[slot];
  gconstpointer device_in;

  if (!gst_robocache_gpu_ensure_pinned (st->gpu, element,
          &st->gpu->slots[slot].host_result, sizeof (rc_voxelize_stats),
          "statistics")
      || !gst_robocache_gpu_stage_input (st->gpu, element, slot, inbuf,
          &f->in, &device_in, "a sweep"))
    return FALSE;
  if (!gst_buffer_map (outbuf, &f->out, GST_MAP_WRITE |
          (st->out_cuda ? GST_ROBOCACHE_MAP_CUDA : 0))) {
    GST_ELEMENT_ERROR (self, RESOURCE, FAILED, ("cannot map a grid"), (NULL));
    gst_buffer_unmap (inbuf, &f->in);
    return FALSE;
  }
  if (!queue_gpu (self, slot, f, device_in)) {
    gst_buffer_unmap (outbuf, &f->out);
    gst_buffer_unmap (inbuf, &f->in);
    return FALSE;
  }
  return TRUE;
}

/* The number of points of @inbuf, or FALSE when it is not a whole number
 * of points: dropped, counted, warned about once. */
static gboolean
sweep_points (GstRobocacheVoxelize * self, GstBuffer * inbuf,
    guint64 * n_points)
{
  return gst_robocache_sweep_filter_count_points (GST_ROBOCACHE_SWEEP_FILTER
      (self), inbuf, self->state.layout.point_step, G_MAXUINT64, NULL,
      n_points);
}

/* Cuts centroids to the points there are, counts the sweep and posts its
 * message; @elapsed is the time from taking it to its grid being ready. */
static void
sweep_done (GstRobocacheVoxelize * self, GstBuffer * inbuf,
    GstBuffer * outbuf, guint64 n_points, const rc_voxelize_stats * stats,
    GstClockTime elapsed)
{
  GstRobocacheSweepCounts counts = { n_points, stats->in_grid,
    stats->out_of_range, stats->invalid
  };
  State *st = &self->state;

  if (st->grid.mode == RC_VOXEL_CENTROIDS)
    gst_buffer_resize (outbuf, 0, stats->occupied * st->out_step);

  GST_LOG_OBJECT (self, "sweep %" GST_TIME_FORMAT ": %" G_GUINT64_FORMAT
      " points, %" G_GUINT64_FORMAT " in grid, %" G_GUINT64_FORMAT
      " out of range, %" G_GUINT64_FORMAT " invalid, %" G_GUINT64_FORMAT
      " voxels occupied, %" G_GUINT64_FORMAT " us",
      GST_TIME_ARGS (GST_BUFFER_PTS (inbuf)), n_points, stats->in_grid,
      stats->out_of_range, stats->invalid, stats->occupied, elapsed / 1000);

  GST_OBJECT_LOCK (self);
  self->last_occupied = stats->occupied;
  GST_OBJECT_UNLOCK (self);
  gst_robocache_sweep_filter_sweep_done (GST_ROBOCACHE_SWEEP_FILTER (self),
      GST_BUFFER_PTS (inbuf), &counts, "occupied", G_TYPE_UINT64,
      stats->occupied, "processing-time", G_TYPE_UINT64, elapsed, NULL);
}

/* The CPU: one sweep at a time. */
static GstFlowReturn
gst_robocache_voxelize_transform (GstBaseTransform * trans, GstBuffer * inbuf,
    GstBuffer * outbuf)
{
  GstRobocacheVoxelize *self = GST_ROBOCACHE_VOXELIZE (trans);
  rc_voxelize_stats stats = { 0, 0, 0, 0 };
  guint64 n_points;
  gint64 started = g_get_monotonic_time ();
  GstFlowReturn flow;

  if (!sweep_points (self, inbuf, &n_points))
    return GST_BASE_TRANSFORM_FLOW_DROPPED;
  flow = voxelize_cpu (self, inbuf, outbuf, n_points, &stats);
  if (flow == GST_FLOW_OK)
    sweep_done (self, inbuf, outbuf, n_points, &stats,
        (g_get_monotonic_time () - started) * GST_USECOND);
  return flow;
}

/* The GPU: up to pipeline-depth sweeps in flight (the base's ring). */
static GstFlowReturn
gst_robocache_voxelize_submit (GstRobocacheBaseTransform * base,
    GstBuffer * inbuf, GstBuffer * outbuf, guint slot)
{
  GstRobocacheVoxelize *self = GST_ROBOCACHE_VOXELIZE (base);
  State *st = &self->state;
  Flight *f = &st->flights[slot];
  gboolean ok;

  if (!sweep_points (self, inbuf, &f->n_points))
    return GST_BASE_TRANSFORM_FLOW_DROPPED;
  f->submitted_us = g_get_monotonic_time ();
  if (!gst_robocache_gpu_push (st->gpu)) {
    GST_ELEMENT_ERROR (self, RESOURCE, FAILED,
        ("cannot make the CUDA context current"), (NULL));
    return GST_FLOW_ERROR;
  }
  ok = submit_gpu (self, inbuf, outbuf, slot);
  gst_robocache_gpu_pop (st->gpu);
  return ok ? GST_FLOW_OK : GST_FLOW_ERROR;
}

static GstFlowReturn
gst_robocache_voxelize_finish (GstRobocacheBaseTransform * base,
    GstBuffer * inbuf, GstBuffer * outbuf, guint slot)
{
  GstRobocacheVoxelize *self = GST_ROBOCACHE_VOXELIZE (base);
  State *st = &self->state;
  Flight *f = &st->flights[slot];
  rc_voxelize_stats stats = *(rc_voxelize_stats *)
      st->gpu->slots[slot].host_result.ptr;

  gst_buffer_unmap (outbuf, &f->out);
  gst_buffer_unmap (inbuf, &f->in);
  sweep_done (self, inbuf, outbuf, f->n_points, &stats,
      (g_get_monotonic_time () - f->submitted_us) * GST_USECOND);
  return GST_FLOW_OK;
}

/* ------------------------------------------------------------------ */
/* GObject                                                             */
/* ------------------------------------------------------------------ */

static void
gst_robocache_voxelize_finalize (GObject * object)
{
  GstRobocacheVoxelize *self = GST_ROBOCACHE_VOXELIZE (object);

  g_free (self->settings.features);
  G_OBJECT_CLASS (parent_class)->finalize (object);
}

static void
gst_robocache_voxelize_class_init (GstRobocacheVoxelizeClass * klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  GstElementClass *element_class = GST_ELEMENT_CLASS (klass);
  GstBaseTransformClass *trans_class = GST_BASE_TRANSFORM_CLASS (klass);
  GstRobocacheSweepFilterClass *sweep_class =
      GST_ROBOCACHE_SWEEP_FILTER_CLASS (klass);
  GstCaps *src_caps;

  gobject_class->set_property = gst_robocache_voxelize_set_property;
  gobject_class->get_property = gst_robocache_fields_get_property;
  gst_robocache_fields_register (gobject_class, fields);
  gobject_class->finalize = gst_robocache_voxelize_finalize;

  /* The base's grid: 256 x 256 x 32 voxels of 0.2 m from <-25.6,-25.6,
   * -3.2> by default.  Its stats add last-occupied, the last sweep's
   * occupied voxels; its messages occupied and processing-time. */

  /**
   * GstRobocacheVoxelize:mode:
   *
   * What each voxel holds: occupancy (uint8), count (uint32) or the mean
   * of the #GstRobocacheVoxelize:features fields (float32 planes); or, with
   * centroids, a point cloud of one point per occupied voxel holding those
   * means (float32 fields in #GstRobocacheVoxelize:features order).
   */
  g_object_class_install_property (gobject_class, PROP_MODE,
      g_param_spec_enum ("mode", "Mode", "What each voxel holds",
          GST_TYPE_ROBOCACHE_VOXEL_MODE, DEFAULT_MODE,
          G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
          GST_PARAM_MUTABLE_PLAYING));
  /**
   * GstRobocacheVoxelize:features:
   *
   * Comma-separated point fields averaged in mean and centroids modes, e.g.
   * "intensity" or "x,y,z,intensity"; empty means "x,y,z" (the centroid).
   */
  g_object_class_install_property (gobject_class, PROP_FEATURES,
      g_param_spec_string ("features", "Features",
          "Comma-separated point fields averaged in mean mode "
          "(empty: x,y,z, the centroid)", DEFAULT_FEATURES,
          G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
          GST_PARAM_MUTABLE_PLAYING));
  src_caps = gst_robocache_caps_with_cuda (GST_ROBOCACHE_VOXELS_CAPS,
      GST_ROBOCACHE_VOXELS_CUDA_CAPS);
  gst_caps_append (src_caps,
      gst_robocache_caps_with_cuda (GST_ROBOCACHE_POINTS_CAPS,
          GST_ROBOCACHE_POINTS_CUDA_CAPS));
  gst_element_class_add_pad_template (element_class,
      gst_pad_template_new_with_gtype ("src", GST_PAD_SRC, GST_PAD_ALWAYS,
          src_caps, GST_TYPE_PAD));
  gst_element_class_set_static_metadata (element_class,
      "robocache voxelizer", "Filter/Converter/Robotics",
      "Bins lidar point clouds into voxel grids on the GPU or the CPU",
      GST_ROBOCACHE_AUTHOR);

  trans_class->transform_caps =
      GST_DEBUG_FUNCPTR (gst_robocache_voxelize_transform_caps);
  trans_class->accept_caps =
      GST_DEBUG_FUNCPTR (gst_robocache_voxelize_accept_caps);
  trans_class->set_caps = GST_DEBUG_FUNCPTR (gst_robocache_voxelize_set_caps);
  trans_class->transform_size =
      GST_DEBUG_FUNCPTR (gst_robocache_voxelize_transform_size);
  trans_class->decide_allocation =
      GST_DEBUG_FUNCPTR (gst_robocache_voxelize_decide_allocation);
  trans_class->transform = GST_DEBUG_FUNCPTR (gst_robocache_voxelize_transform);
  GST_ROBOCACHE_BASE_TRANSFORM_CLASS (klass)->submit =
      GST_DEBUG_FUNCPTR (gst_robocache_voxelize_submit);
  GST_ROBOCACHE_BASE_TRANSFORM_CLASS (klass)->finish =
      GST_DEBUG_FUNCPTR (gst_robocache_voxelize_finish);
  sweep_class->sweep_name = "robocachevoxelize";
  sweep_class->settings_problem = GST_DEBUG_FUNCPTR (settings_problem);
  sweep_class->add_stats = GST_DEBUG_FUNCPTR (add_stats);
  sweep_class->clear_stats = GST_DEBUG_FUNCPTR (clear_stats);

  gst_type_mark_as_plugin_api (GST_TYPE_ROBOCACHE_VOXEL_MODE, 0);
}

static void
gst_robocache_voxelize_init (GstRobocacheVoxelize * self)
{
  static const rc_voxel_grid default_grid = {
    {DEFAULT_ORIGIN_XY, DEFAULT_ORIGIN_XY, DEFAULT_ORIGIN_Z},
    {DEFAULT_VOXEL_SIZE, DEFAULT_VOXEL_SIZE, DEFAULT_VOXEL_SIZE},
    {DEFAULT_DIMS_XY, DEFAULT_DIMS_XY, DEFAULT_DIMS_Z}, DEFAULT_MODE
  };

  gst_robocache_sweep_filter_set_default_grid (GST_ROBOCACHE_SWEEP_FILTER
      (self), &default_grid);
  gst_robocache_fields_init (self, fields);
  self->state.gpu =
      gst_robocache_base_transform_get_gpu (GST_ROBOCACHE_BASE_TRANSFORM
      (self));
}
