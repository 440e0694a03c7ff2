/**
 * SECTION:element-robocachepillars
 * @title: robocachepillars
 *
 * Hard voxelization for lidar detectors (PointPillars, SECOND,
 * CenterPoint): each sweep (other/x-robocache-points) becomes at most
 * #GstRobocachePillars:max-voxels voxels of at most
 * #GstRobocachePillars:max-points-per-voxel points each
 * (other/x-robocache-sparse-voxels): zero-padded float32 features, (z, y,
 * x) int32 coordinates, int32 points per voxel and the number of voxels
 * used, the arrays OpenPCDet and mmdetection3d models take.  mode=pillars
 * decorates each point as OpenPCDet's PillarVFE does (10 channels for x, y,
 * z, intensity; the paper's 9 with paper-features=true); mode=voxels keeps
 * the raw fields.
 *
 * Deterministic: the voxels kept are the first reached in input order,
 * and in each voxel its first points in input order; the GPU (integer
 * atomics, a scan and a stable sort) writes the same bytes as the CPU.
 * Points outside the grid, NaN or Inf points, voxels and points beyond the
 * limits are counted (#GstRobocacheSweepFilter:stats, and an element message
 * per sweep with post-messages=true), not errors.  A buffer that is not a
 * whole number of points is dropped and counted.
 *
 * ## Example launch line
 * A KITTI sweep, read whole (a blocksize at least the file's: a buffer is
 * a sweep):
 * |[
 * gst-launch-1.0 filesrc location=000000.bin blocksize=4194304 ! \
 *     'other/x-robocache-points,point-step=16,fields="x:float32:0,y:float32:4,z:float32:8,intensity:float32:12"' ! \
 *     robocachepillars ! fakesink
 * ]|
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstrobocachepillars.h"
#include "gstrobocacheelements.h"
#include "gstrobocachecaps.h"
#include "gstrobocachefields.h"
#include "gstrobocachegrid.h"
#include "gstrobocachesweep.h"

GST_DEBUG_CATEGORY_STATIC (gst_robocache_pillars_debug);
#define GST_CAT_DEFAULT gst_robocache_pillars_debug

/* KITTI's PointPillars grid: [0, 69.12] x [-39.68, 39.68] x [-3, 1]. */
#define DEFAULT_VOXEL_SIZE_XY 0.16
#define DEFAULT_VOXEL_SIZE_Z 4.0
#define DEFAULT_ORIGIN_X 0.0
#define DEFAULT_ORIGIN_Y -39.68
#define DEFAULT_ORIGIN_Z -3.0
#define DEFAULT_DIMS_X 432
#define DEFAULT_DIMS_Y 496
#define DEFAULT_DIMS_Z 1
#define DEFAULT_MODE GST_ROBOCACHE_SPARSE_MODE_PILLARS
#define DEFAULT_PAPER_FEATURES FALSE
#define DEFAULT_FEATURES "intensity"
#define DEFAULT_MAX_POINTS 32
#define DEFAULT_MAX_VOXELS 40000

typedef enum
{
  GST_ROBOCACHE_SPARSE_MODE_PILLARS,
  GST_ROBOCACHE_SPARSE_MODE_VOXELS
} GstRobocacheSparseMode;

/* The grid's properties, post-messages and stats are the base's. */
enum
{
  PROP_0,
  PROP_MODE,
  PROP_PAPER_FEATURES,
  PROP_FEATURES,
  PROP_MAX_POINTS,
  PROP_MAX_VOXELS
};

typedef struct
{
  GstRobocacheSparseMode mode;
  gboolean paper_features;
  gchar *features;
  guint max_points;
  guint max_voxels;
} Settings;

/* Totals since start, under the object lock: the voxels and points
 * dropped, besides the base's counts. */
typedef struct
{
  guint64 dropped_voxels, dropped_points, overflowed_sweeps;
  guint64 last_voxels;
} Totals;

typedef struct
{
  GstRobocacheGpu *gpu;
  rc_point_layout layout;
  GstRobocacheSparseInfo info;
  gboolean out_cuda;
  GstRobocacheScratch device_points;
  GstRobocacheScratch device_out;
  GstRobocacheScratch device_scratch;
  GstRobocacheScratch host_stats;
  guint64 scratch_points;       /* the GPU scratch's cloud size */
  GstRobocacheScratch host_scratch;     /* the CPU's slot per grid voxel */
} State;

struct _GstRobocachePillars
{
  GstRobocacheSweepFilter parent;

  Settings settings;
  Totals totals;
  State state;
};

#define gst_robocache_pillars_parent_class parent_class
G_DEFINE_TYPE (GstRobocachePillars, gst_robocache_pillars,
    GST_TYPE_ROBOCACHE_SWEEP_FILTER);
GST_ELEMENT_REGISTER_DEFINE_WITH_CODE (robocachepillars, "robocachepillars",
    GST_RANK_NONE, GST_TYPE_ROBOCACHE_PILLARS,
    GST_DEBUG_CATEGORY_INIT (gst_robocache_pillars_debug,
        "robocachepillars", 0, "robocache sparse voxels and pillars"));

#define GST_TYPE_ROBOCACHE_SPARSE_MODE (gst_robocache_sparse_mode_get_type ())
static GType gst_robocache_sparse_mode_get_type (void);
/* *INDENT-OFF* */
G_DEFINE_ENUM_TYPE (GstRobocacheSparseMode, gst_robocache_sparse_mode,
    {GST_ROBOCACHE_SPARSE_MODE_PILLARS, "PillarVFE point decorations",
        "pillars"},
    {GST_ROBOCACHE_SPARSE_MODE_VOXELS, "the raw point fields", "voxels"});
/* *INDENT-ON* */

static void
add_stats (GstRobocacheSweepFilter * base, GstStructure * stats)
{
  const Totals *t = &GST_ROBOCACHE_PILLARS (base)->totals;

  gst_structure_set (stats, "dropped-voxels", G_TYPE_UINT64,
      t->dropped_voxels, "dropped-points", G_TYPE_UINT64, t->dropped_points,
      "overflowed-sweeps", G_TYPE_UINT64, t->overflowed_sweeps,
      "last-voxels", G_TYPE_UINT64, t->last_voxels, NULL);
}

static void
clear_stats (GstRobocacheSweepFilter * base)
{
  memset (&GST_ROBOCACHE_PILLARS (base)->totals, 0, sizeof (Totals));
}

static const GstRobocacheField fields[] = {
  GST_ROBOCACHE_FIELD (PROP_MODE, GstRobocachePillars, settings.mode),
  GST_ROBOCACHE_FIELD (PROP_PAPER_FEATURES, GstRobocachePillars,
      settings.paper_features),
  GST_ROBOCACHE_FIELD (PROP_FEATURES, GstRobocachePillars, settings.features),
  GST_ROBOCACHE_FIELD (PROP_MAX_POINTS, GstRobocachePillars,
      settings.max_points),
  GST_ROBOCACHE_FIELD (PROP_MAX_VOXELS, GstRobocachePillars,
      settings.max_voxels),
  {0}
};

/* The parameters the properties give, the extra fields and why they
 * cannot be used, if they cannot. */
static gchar *
settings_params (GstRobocachePillars * self, rc_sparse_params * p,
    gchar ** features)
{
  Settings *s = &self->settings;
  gchar *problem;

  memset (p, 0, sizeof (*p));
  GST_OBJECT_LOCK (self);
  problem = gst_robocache_sweep_filter_read_grid (GST_ROBOCACHE_SWEEP_FILTER
      (self), &p->grid);
  p->grid.mode = RC_VOXEL_COUNT;
  p->mode = s->mode == GST_ROBOCACHE_SPARSE_MODE_VOXELS ? RC_SPARSE_VOXELS :
      s->paper_features ? RC_SPARSE_PILLARS_9 : RC_SPARSE_PILLARS_10;
  p->max_points = s->max_points;
  p->max_voxels = s->max_voxels;
  if (features)
    *features = g_strdup (s->features);
  GST_OBJECT_UNLOCK (self);
  if (!problem && rc_voxel_grid_n_voxels (&p->grid) >= G_MAXUINT32)
    problem = g_strdup ("the grid has 2^32 - 1 voxels or more");
  return problem;
}

/* "x,y,z,<features>[,xc,yc,zc,xp,yp[,zp]]". */
static gchar *
channel_names (rc_sparse_mode mode, const gchar * features)
{
  GString *s = g_string_new ("x,y,z");

  if (features && *features)
    g_string_append_printf (s, ",%s", features);
  if (mode != RC_SPARSE_VOXELS)
    g_string_append (s, ",xc,yc,zc,xp,yp");
  if (mode == RC_SPARSE_PILLARS_10)
    g_string_append (s, ",zp");
  return g_string_free (s, FALSE);
}

static guint
count_names (const gchar * names)
{
  gchar **v = g_strsplit (names, ",", -1);
  guint n = g_strv_length (v);

  g_strfreev (v);
  return n;
}

static GstCaps *
gst_robocache_pillars_transform_caps (GstBaseTransform * trans,
    GstPadDirection direction, GstCaps * caps, GstCaps * filter)
{
  GstRobocachePillars *self = GST_ROBOCACHE_PILLARS (trans);
  gboolean gpu =
      gst_robocache_base_transform_may_offer_cuda (GST_ROBOCACHE_BASE_TRANSFORM
      (self));
  GstCaps *ret;

  if (direction == GST_PAD_SINK) {
    GstRobocacheSparseInfo info;
    gchar *features = NULL, *names, *problem;

    memset (&info, 0, sizeof (info));
    problem = settings_params (self, &info.params, &features);
    names = channel_names (info.params.mode, features);
    info.channels = count_names (names);
    ret = problem ? gst_pad_get_pad_template_caps
        (GST_BASE_TRANSFORM_SRC_PAD (trans)) : gst_caps_new_empty ();
    for (gint cuda = gpu; cuda >= 0 && !problem; cuda--)
      gst_caps_append (ret, gst_robocache_sparse_caps_new (&info, names, cuda));
    g_free (problem);
    g_free (features);
    g_free (names);
  } else {
    ret = gst_robocache_caps_with_cuda (GST_ROBOCACHE_POINTS_CAPS,
        GST_ROBOCACHE_POINTS_CUDA_CAPS);
  }
  return gst_robocache_caps_filter (ret, filter);
}

/* The layout of the points: x, y, z and the extra fields, which must be
 * there. */
static gboolean
parse_points (GstRobocachePillars * self, GstCaps * caps,
    rc_point_layout * layout)
{
  GError *error = NULL;
  gchar *features;
  gboolean ok;

  GST_OBJECT_LOCK (self);
  features = g_strdup (self->settings.features);
  GST_OBJECT_UNLOCK (self);
  ok = gst_robocache_points_caps_parse (caps, features && *features ?
      features : NULL, layout, &error);
  if (ok && !(features && *features))
    layout->n_features = 0;
  if (!ok) {
    gchar *text = gst_caps_to_string (caps);
    GST_ELEMENT_ERROR (self, STREAM, FORMAT, ("%s", error->message),
        ("input caps %s; the features property names the fields read after "
            "x, y, z (\"\" for none)", text));
    g_free (text);
    g_clear_error (&error);
  }
  g_free (features);
  return ok;
}

/* The outputs in system memory in flight. */
static guint64
host_outputs_size (GstRobocachePillars * self)
{
  State *st = &self->state;

  return st->out_cuda ? 0 : gst_robocache_memory_mul (st->info.size,
      GST_ROBOCACHE_BUFFERS_IN_FLIGHT);
}

#define HOST_MEMORY_WHAT "the sparse voxels in flight and their scratch"
#define HOST_MEMORY_SIZED_BY "max-voxels, max-points-per-voxel or the grid " \
    "(dims, voxel-size)"

/* The host memory the negotiated parameters take, checked before any is
 * allocated (at each negotiation: the scratch, grown only, may be large
 * enough already): the outputs in flight and, on the CPU, a slot per grid
 * voxel. */
static gboolean
check_host_memory (GstRobocachePillars * self)
{
  State *st = &self->state;
  guint64 bytes = host_outputs_size (self);

  if (!st->gpu->use_gpu)
    bytes += rc_sparse_scratch_size (&st->info.params);
  return gst_robocache_gpu_check_memory (st->gpu, GST_ELEMENT (self),
      GST_ROBOCACHE_MEMORY_HOST, bytes, HOST_MEMORY_WHAT, HOST_MEMORY_SIZED_BY);
}

/* Scratch for the negotiated parameters: the CPU's slot per grid voxel, or
 * the GPU's working set for clouds of up to @max_points. */
static gboolean
ensure_scratch (GstRobocachePillars * self, guint64 max_points)
{
  State *st = &self->state;
  GstElement *element = GST_ELEMENT (self);
  guint64 size = 0;
  rc_status ret;
  gboolean ok;

  if (!st->gpu->use_gpu)
    return gst_robocache_gpu_ensure_host (st->gpu, element, &st->host_scratch,
        rc_sparse_scratch_size (&st->info.params), host_outputs_size (self),
        HOST_MEMORY_WHAT, HOST_MEMORY_SIZED_BY);
  if (!gst_robocache_gpu_push (st->gpu))
    return FALSE;
  st->scratch_points = max_points;
  ret = rc_sparse_cuda_scratch_size (&st->layout, &st->info.params,
      max_points, &size);
  ok = ret == RC_OK || gst_robocache_gpu_failed (element,
      "sizing the sparse voxel scratch", ret) == GST_FLOW_OK;
  ok = ok && gst_robocache_gpu_ensure_device (st->gpu, element,
      &st->device_scratch, size, "sparse voxel scratch");
  if (ok && !st->out_cuda)
    ok = gst_robocache_gpu_ensure_device (st->gpu, element, &st->device_out,
        st->info.size, "sparse voxels");
  ok = ok && gst_robocache_gpu_ensure_pinned (st->gpu, element,
      &st->host_stats, sizeof (rc_sparse_stats), "statistics");
  gst_robocache_gpu_pop (st->gpu);
  return ok;
}

static gboolean
gst_robocache_pillars_set_caps (GstBaseTransform * trans, GstCaps * incaps,
    GstCaps * outcaps)
{
  GstRobocachePillars *self = GST_ROBOCACHE_PILLARS (trans);
  State *st = &self->state;
  GstRobocacheSparseInfo negotiated;
  GError *error = NULL;
  rc_sparse_params p;

  if (!gst_robocache_grid_settings_usable (GST_ELEMENT (self),
          settings_params (self, &p, NULL))
      || !parse_points (self, incaps, &st->layout))
    return FALSE;
  /* The grid the output caps name: the grid properties may have changed
   * since transform_caps made them (a renegotiation follows), and the
   * voxels must be what their caps say.  The rest is fixed from READY. */
  if (!gst_robocache_sparse_caps_parse (outcaps, &negotiated, &error)) {
    GST_ELEMENT_ERROR (self, CORE, NEGOTIATION, ("%s", error->message), (NULL));
    g_clear_error (&error);
    return FALSE;
  }
  p.grid = negotiated.params.grid;
  if (rc_sparse_check (&st->layout, &p) != RC_OK) {
    /* The settings and the layout were checked: what is left is the
     * features' size, which must not overflow. */
    GST_ELEMENT_ERROR (self, LIBRARY, SETTINGS, ("max-voxels %u x "
            "max-points-per-voxel %u x %u channels of 4 bytes is too large "
            "an output: accepted are at most 2^62 bytes; make max-voxels or "
            "max-points-per-voxel smaller", p.max_voxels, p.max_points,
            rc_sparse_channels (&st->layout, &p)), (NULL));
    return FALSE;
  }
  st->info.params = p;
  st->info.channels = rc_sparse_channels (&st->layout, &p);
  gst_robocache_sparse_info_layout (&st->info);
  st->out_cuda = gst_robocache_caps_is_cuda (outcaps);
  return check_host_memory (self) && ensure_scratch (self, 0);
}

static gboolean
gst_robocache_pillars_transform_size (GstBaseTransform * trans,
    GstPadDirection direction, GstCaps * caps, gsize size, GstCaps * othercaps,
    gsize * othersize)
{
  GstRobocachePillars *self = GST_ROBOCACHE_PILLARS (trans);

  if (direction != GST_PAD_SINK)
    return FALSE;
  *othersize = self->state.info.size;
  return TRUE;
}

static gboolean
gst_robocache_pillars_decide_allocation (GstBaseTransform * trans,
    GstQuery * query)
{
  GstRobocachePillars *self = GST_ROBOCACHE_PILLARS (trans);
  State *st = &self->state;

  if (!st->out_cuda)
    return GST_BASE_TRANSFORM_CLASS (parent_class)->decide_allocation (trans,
        query);
  return gst_robocache_gpu_decide_pool (st->gpu, GST_ELEMENT (self), query,
      st->info.size, "sparse voxels");
}

static gchar *
settings_problem (GstRobocacheSweepFilter * base)
{
  rc_sparse_params p;

  return settings_params (GST_ROBOCACHE_PILLARS (base), &p, NULL);
}

/* The four arrays inside a mapped output buffer. */
static rc_sparse_output
output_arrays (const GstRobocacheSparseInfo * info, guint8 * data)
{
  rc_sparse_output out = { (float *) data,
    (int32_t *) (data + info->coords_offset),
    (int32_t *) (data + info->num_points_offset),
    (int32_t *) (data + info->n_voxels_offset)
  };
  return out;
}

static GstFlowReturn
pillars_cpu (GstRobocachePillars * self, GstBuffer * inbuf,
    GstBuffer * outbuf, guint64 n_points, rc_sparse_stats * stats)
{
  State *st = &self->state;
  GstMapInfo in, out;
  rc_sparse_output arrays;
  rc_status ret;

  if (!gst_robocache_base_transform_map_cpu (GST_ROBOCACHE_BASE_TRANSFORM
          (self), inbuf, &in, outbuf, &out))
    return GST_FLOW_ERROR;
  arrays = output_arrays (&st->info, out.data);
  memset (out.data + st->info.n_voxels_offset, 0, 16);
  ret = rc_sparse_voxelize_cpu (&st->layout, &st->info.params, in.data,
      n_points, &arrays, st->host_scratch.ptr, stats);
  gst_buffer_unmap (outbuf, &out);
  gst_buffer_unmap (inbuf, &in);
  if (ret != RC_OK)
    return gst_robocache_base_transform_cpu_failed
        (GST_ROBOCACHE_BASE_TRANSFORM (self), "sparse voxelization", ret);
  return GST_FLOW_OK;
}

static GstFlowReturn
pillars_gpu (GstRobocachePillars * self, GstBuffer * inbuf,
    GstBuffer * outbuf, guint64 n_points, rc_sparse_stats * stats)
{
  State *st = &self->state;
  GstMapInfo in = GST_MAP_INFO_INIT, out = GST_MAP_INFO_INIT;
  gconstpointer points;
  rc_sparse_output arrays;
  rc_status ret = RC_ERROR_CUDA;
  guint8 *device_out;

  if (!gst_robocache_gpu_push (st->gpu))
    return gst_robocache_gpu_failed (GST_ELEMENT (self),
        "making the CUDA context current", RC_ERROR_CUDA);
  /* In place when it is CUDA memory of this context, else copied into the
   * element's device buffer (errors posted by map_input). */
  if (!gst_robocache_gpu_map_input (st->gpu, GST_ELEMENT (self), inbuf, &in,
          &st->device_points, &points, "a sweep")) {
    gst_robocache_gpu_pop (st->gpu);
    return GST_FLOW_ERROR;
  }
  if (gst_buffer_map (outbuf, &out, GST_MAP_WRITE |
          (st->out_cuda ? GST_ROBOCACHE_MAP_CUDA : 0))) {
    device_out = st->out_cuda ? out.data : st->device_out.ptr;
    arrays = output_arrays (&st->info, device_out);
    ret = rc_device_memset_async (device_out + st->info.n_voxels_offset, 0,
        16, st->gpu->stream);
    /* A larger sweep than the scratch was sized for grows it. */
    if (ret == RC_OK && n_points > st->scratch_points &&
        !ensure_scratch (self, n_points))
      ret = RC_ERROR_OUT_OF_MEMORY;
    if (ret == RC_OK)
      ret = rc_sparse_voxelize_cuda (&st->layout, &st->info.params, points,
          n_points, &arrays, st->device_scratch.ptr, st->device_scratch.size,
          st->host_stats.ptr, st->gpu->stream);
    if (ret == RC_OK && !st->out_cuda)
      ret = rc_device_copy_async (out.data, device_out, st->info.size,
          RC_COPY_DEVICE_TO_HOST, st->gpu->stream);
    if (ret == RC_OK)
      ret = rc_stream_synchronize (st->gpu->stream);
    if (ret == RC_OK)
      *stats = *(rc_sparse_stats *) st->host_stats.ptr;
    gst_buffer_unmap (outbuf, &out);
  }
  gst_buffer_unmap (inbuf, &in);
  gst_robocache_gpu_pop (st->gpu);
  if (ret != RC_OK)
    return gst_robocache_gpu_failed (GST_ELEMENT (self),
        "GPU sparse voxelization", ret);
  return GST_FLOW_OK;
}

/* Counts the sweep in the totals and posts its message. */
static void
sweep_done (GstRobocachePillars * self, GstBuffer * inbuf, guint64 n_points,
    const rc_sparse_stats * stats)
{
  GstRobocacheSweepCounts counts = { n_points, stats->in_grid,
    stats->out_of_range, stats->invalid
  };
  Totals *t = &self->totals;

  GST_OBJECT_LOCK (self);
  t->dropped_voxels += stats->dropped_voxels;
  t->dropped_points += stats->dropped_points;
  t->overflowed_sweeps += stats->dropped_voxels > 0;
  t->last_voxels = stats->voxels - stats->dropped_voxels;
  GST_OBJECT_UNLOCK (self);
  gst_robocache_sweep_filter_sweep_done (GST_ROBOCACHE_SWEEP_FILTER (self),
      GST_BUFFER_PTS (inbuf), &counts,
      "voxels", G_TYPE_UINT64, stats->voxels - stats->dropped_voxels,
      "dropped-voxels", G_TYPE_UINT64, stats->dropped_voxels,
      "dropped-points", G_TYPE_UINT64, stats->dropped_points, NULL);
}

static GstFlowReturn
gst_robocache_pillars_transform (GstBaseTransform * trans, GstBuffer * inbuf,
    GstBuffer * outbuf)
{
  GstRobocachePillars *self = GST_ROBOCACHE_PILLARS (trans);
  State *st = &self->state;
  rc_sparse_stats stats;
  guint64 n_points;
  GstFlowReturn flow;

  if (!gst_robocache_sweep_filter_count_points (GST_ROBOCACHE_SWEEP_FILTER
          (self), inbuf, st->layout.point_step, G_MAXINT32,
          "2^31 points or more", &n_points))
    return GST_BASE_TRANSFORM_FLOW_DROPPED;
  memset (&stats, 0, sizeof (stats));
  flow = st->gpu->use_gpu ? pillars_gpu (self, inbuf, outbuf, n_points,
      &stats) : pillars_cpu (self, inbuf, outbuf, n_points, &stats);
  if (flow != GST_FLOW_OK)
    return flow;
  GST_LOG_OBJECT (self, "%" G_GUINT64_FORMAT " points: %" G_GUINT64_FORMAT
      " voxels, %" G_GUINT64_FORMAT " dropped, %" G_GUINT64_FORMAT
      " points dropped", n_points, stats.voxels, stats.dropped_voxels,
      stats.dropped_points);
  sweep_done (self, inbuf, n_points, &stats);
  return GST_FLOW_OK;
}

static void
gst_robocache_pillars_finalize (GObject * object)
{
  GstRobocachePillars *self = GST_ROBOCACHE_PILLARS (object);

  g_free (self->settings.features);
  G_OBJECT_CLASS (parent_class)->finalize (object);
}

static void
install_properties (GObjectClass * gobject_class)
{
  GParamFlags flags = G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
      GST_PARAM_MUTABLE_READY;

  /**
   * GstRobocachePillars:mode:
   *
   * pillars: each point decorated as OpenPCDet's PillarVFE does (x, y, z,
   * the features, offsets from the voxel's mean and centre); voxels: the
   * raw x, y, z and features.
   */
  g_object_class_install_property (gobject_class, PROP_MODE,
      g_param_spec_enum ("mode", "Mode", "Point channels: pillar "
          "decorations or raw fields", GST_TYPE_ROBOCACHE_SPARSE_MODE,
          DEFAULT_MODE, flags));
  /**
   * GstRobocachePillars:paper-features:
   *
   * Pillars: the 9 channels of the PointPillars paper (no z offset from
   * the centre) instead of OpenPCDet's 10.
   */
  g_object_class_install_property (gobject_class, PROP_PAPER_FEATURES,
      g_param_spec_boolean ("paper-features", "Paper features",
          "Pillars: the paper's 9 channels instead of OpenPCDet's 10",
          DEFAULT_PAPER_FEATURES, flags));
  /**
   * GstRobocachePillars:features:
   *
   * Comma-separated point fields carried after x, y, z (default
   * "intensity"; "" for none); the input must have them.
   */
  g_object_class_install_property (gobject_class, PROP_FEATURES,
      g_param_spec_string ("features", "Features", "Point fields carried "
          "after x, y, z (\"\" for none)", DEFAULT_FEATURES, flags));
  /**
   * GstRobocachePillars:max-points-per-voxel:
   *
   * K: the first K points of each voxel, in input order, are kept.
   */
  g_object_class_install_property (gobject_class, PROP_MAX_POINTS,
      g_param_spec_uint ("max-points-per-voxel", "Max points per voxel",
          "Points kept per voxel (the first, in input order)", 1,
          G_MAXINT32, DEFAULT_MAX_POINTS, flags));
  /**
   * GstRobocachePillars:max-voxels:
   *
   * M: the first M voxels reached, in input order, are kept; more are
   * counted in the stats (dropped-voxels, overflowed-sweeps).
   */
  g_object_class_install_property (gobject_class, PROP_MAX_VOXELS,
      g_param_spec_uint ("max-voxels", "Max voxels", "Voxels kept per "
          "sweep (the first reached, in input order)", 1, G_MAXINT32,
          DEFAULT_MAX_VOXELS, flags));
}

static void
gst_robocache_pillars_class_init (GstRobocachePillarsClass * klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  GstElementClass *element_class = GST_ELEMENT_CLASS (klass);
  GstBaseTransformClass *trans_class = GST_BASE_TRANSFORM_CLASS (klass);
  GstRobocacheSweepFilterClass *sweep_class =
      GST_ROBOCACHE_SWEEP_FILTER_CLASS (klass);

  gst_robocache_fields_class_init (gobject_class, fields);
  gobject_class->finalize = gst_robocache_pillars_finalize;
  /* The base's grid: KITTI's pillars by default, 432 x 496 x 1 voxels of
   * <0.16,0.16,4> from <0,-39.68,-3> (one voxel along z makes pillars).
   * Its stats add dropped-voxels, dropped-points, overflowed-sweeps and
   * last-voxels; its messages voxels, dropped-voxels and dropped-points. */
  install_properties (gobject_class);
  gst_element_class_add_pad_template (element_class,
      gst_pad_template_new_with_gtype ("src", GST_PAD_SRC, GST_PAD_ALWAYS,
          gst_robocache_caps_with_cuda (GST_ROBOCACHE_SPARSE_CAPS,
              GST_ROBOCACHE_SPARSE_CUDA_CAPS), GST_TYPE_PAD));
  gst_element_class_set_static_metadata (element_class,
      "robocache pillars", "Filter/Converter/Robotics",
      "Hard voxelization of lidar sweeps into detector-ready sparse voxels "
      "or pillars, deterministic on the GPU and the CPU", GST_ROBOCACHE_AUTHOR);

  trans_class->transform_caps =
      GST_DEBUG_FUNCPTR (gst_robocache_pillars_transform_caps);
  trans_class->set_caps = GST_DEBUG_FUNCPTR (gst_robocache_pillars_set_caps);
  trans_class->transform_size =
      GST_DEBUG_FUNCPTR (gst_robocache_pillars_transform_size);
  trans_class->decide_allocation =
      GST_DEBUG_FUNCPTR (gst_robocache_pillars_decide_allocation);
  trans_class->transform = GST_DEBUG_FUNCPTR (gst_robocache_pillars_transform);
  sweep_class->sweep_name = "robocachepillars";
  sweep_class->settings_problem = GST_DEBUG_FUNCPTR (settings_problem);
  sweep_class->add_stats = GST_DEBUG_FUNCPTR (add_stats);
  sweep_class->clear_stats = GST_DEBUG_FUNCPTR (clear_stats);

  gst_type_mark_as_plugin_api (GST_TYPE_ROBOCACHE_SPARSE_MODE, 0);
}

static void
gst_robocache_pillars_init (GstRobocachePillars * self)
{
  static const rc_voxel_grid kitti_pillars = {
    {DEFAULT_ORIGIN_X, DEFAULT_ORIGIN_Y, DEFAULT_ORIGIN_Z},
    {DEFAULT_VOXEL_SIZE_XY, DEFAULT_VOXEL_SIZE_XY, DEFAULT_VOXEL_SIZE_Z},
    {DEFAULT_DIMS_X, DEFAULT_DIMS_Y, DEFAULT_DIMS_Z}, RC_VOXEL_COUNT
  };

  gst_robocache_sweep_filter_set_default_grid (GST_ROBOCACHE_SWEEP_FILTER
      (self), &kitti_pillars);
  gst_robocache_fields_init (self, fields);
  self->state.gpu =
      gst_robocache_base_transform_get_gpu (GST_ROBOCACHE_BASE_TRANSFORM
      (self));
}
