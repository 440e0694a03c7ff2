/**
 * SECTION:element-robocachebev
 * @title: robocachebev
 *
 * Draws each voxel grid (other/x-robocache-voxels: occupancy, count or
 * mean) as a bird's-eye-view picture (video/x-raw, RGBA): seen from above,
 * x to the right and y up, as rviz and Foxglove show a robot's
 * surroundings, one pixel per voxel column by default.  Runs on the GPU
 * when there is one (backend=auto) and on the CPU otherwise, with the same
 * pixels, byte for byte, from the same grid (a mean grid that
 * robocachevoxelize summed on the GPU may differ from the CPU's in a last
 * bit, and a colour drawn from it by one step).  Grids may come in
 * system or CUDA memory; the pictures leave in system memory or in
 * GStreamer's CUDA memory (memory:CUDAMemory), which nvcodec's
 * cudadownload and encoders take.
 *
 * What a column shows (#GstRobocacheBev:value): its density (points in a
 * count grid, occupied voxels otherwise), the height of its highest
 * occupied voxel, or, for mean grids, the mean of one feature in that
 * voxel (what is seen from above: intensity, z ...).  Values are coloured
 * through a 256-entry table (#GstRobocacheBev:colormap) over a range that
 * is either each frame's own smallest to largest value or fixed
 * (#GstRobocacheBev:auto-range).  Empty columns are black.  Range rings
 * around the sensor (the grid's point (0, 0)), a marker for the sensor
 * pointing along +x, and a scale bar of known length in the lower left
 * corner are drawn over the picture.
 *
 * ## Example launch line
 * |[
 * gst-launch-1.0 robocachelidarsrc num-buffers=1 ! robocachevoxelize \
 *     mode=count ! robocachebev value=height ! pngenc ! \
 *     filesink location=bev.png
 * ]|
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstrobocachebev.h"
#include "gstrobocacheelements.h"
#include "gstrobocachecaps.h"
#include "gstrobocachefields.h"

#include <gst/video/video.h>
#include <math.h>
#include <string.h>

GST_DEBUG_CATEGORY_STATIC (gst_robocache_bev_debug);
#define GST_CAT_DEFAULT gst_robocache_bev_debug

#define DEFAULT_WIDTH 0
#define DEFAULT_HEIGHT 0
#define DEFAULT_VALUE RC_BEV_DENSITY
#define DEFAULT_FEATURE NULL
#define DEFAULT_COLORMAP RC_BEV_COLORMAP_TURBO
#define DEFAULT_AUTO_RANGE TRUE
#define DEFAULT_RANGE_MIN 0.0
#define DEFAULT_RANGE_MAX 10.0
#define DEFAULT_RANGE_RINGS 10.0
#define DEFAULT_EGO_MARKER TRUE
#define DEFAULT_SCALE_BAR 10.0

enum
{
  PROP_0,
  /* Renegotiated when set: */
  PROP_WIDTH,
  PROP_HEIGHT,
  /* Read at set_caps only: */
  PROP_VALUE,
  PROP_FEATURE,
  PROP_RANGE_RINGS,
  PROP_EGO_MARKER,
  PROP_SCALE_BAR,
  /* Read at every frame: */
  PROP_COLORMAP,
  PROP_AUTO_RANGE,
  PROP_RANGE_MIN,
  PROP_RANGE_MAX
};

/* Property values, under the object lock. */
typedef struct
{
  guint width, height;
  rc_bev_value value;
  gchar *feature;
  gdouble range_rings;
  gboolean ego_marker;
  gdouble scale_bar;
  rc_bev_colormap colormap;
  gboolean auto_range;
  gdouble range_min, range_max;
} Settings;

/* Built in set_caps, dropped in stop; streaming thread only. */
typedef struct
{
  GstRobocacheGpu *gpu;         /* the base's; use_gpu fixed from start */
  rc_bev_params params;
  GstVideoInfo out_info;
  gboolean out_cuda;
  gsize in_size;
  guint8 *overlay;              /* NULL when nothing is drawn over */
  /* Grown once per caps, freed by the base at stop. */
  GstRobocacheScratch host_scratch;
  GstRobocacheScratch device_grid;
  GstRobocacheScratch device_out;
  GstRobocacheScratch device_scratch;
  GstRobocacheScratch device_overlay;
} State;

struct _GstRobocacheBev
{
  GstRobocacheBaseTransform parent;

  Settings settings;
  State state;
};

#define gst_robocache_bev_parent_class parent_class
G_DEFINE_TYPE (GstRobocacheBev, gst_robocache_bev,
    GST_TYPE_ROBOCACHE_BASE_TRANSFORM);
GST_ELEMENT_REGISTER_DEFINE_WITH_CODE (robocachebev, "robocachebev",
    GST_RANK_NONE, GST_TYPE_ROBOCACHE_BEV,
    GST_DEBUG_CATEGORY_INIT (gst_robocache_bev_debug, "robocachebev", 0,
        "robocache bird's-eye view"));

/* *INDENT-OFF* */
G_DEFINE_ENUM_TYPE (GstRobocacheBevValue, gst_robocache_bev_value,
    {RC_BEV_DENSITY, "points in the column (count grids), else occupied "
          "voxels", "density"},
    {RC_BEV_HEIGHT, "height of the column's highest occupied voxel",
        "height"},
    {RC_BEV_FEATURE, "mean grids: the feature's mean in the column's "
          "highest occupied voxel", "feature"});
G_DEFINE_ENUM_TYPE (GstRobocacheBevColormap, gst_robocache_bev_colormap,
    {RC_BEV_COLORMAP_TURBO, "Google's Turbo rainbow, blue to dark red",
        "turbo"},
    {RC_BEV_COLORMAP_DENSITY, "gnuplot's pm3d palette, violet to yellow",
        "density"});
/* *INDENT-ON* */

static const GstRobocacheField fields[] = {
  GST_ROBOCACHE_FIELD (PROP_WIDTH, GstRobocacheBev, settings.width),
  GST_ROBOCACHE_FIELD (PROP_HEIGHT, GstRobocacheBev, settings.height),
  GST_ROBOCACHE_FIELD (PROP_VALUE, GstRobocacheBev, settings.value),
  GST_ROBOCACHE_FIELD (PROP_FEATURE, GstRobocacheBev, settings.feature),
  GST_ROBOCACHE_FIELD (PROP_RANGE_RINGS, GstRobocacheBev,
      settings.range_rings),
  GST_ROBOCACHE_FIELD (PROP_EGO_MARKER, GstRobocacheBev, settings.ego_marker),
  GST_ROBOCACHE_FIELD (PROP_SCALE_BAR, GstRobocacheBev, settings.scale_bar),
  GST_ROBOCACHE_FIELD (PROP_COLORMAP, GstRobocacheBev, settings.colormap),
  GST_ROBOCACHE_FIELD (PROP_AUTO_RANGE, GstRobocacheBev, settings.auto_range),
  GST_ROBOCACHE_FIELD (PROP_RANGE_MIN, GstRobocacheBev, settings.range_min),
  GST_ROBOCACHE_FIELD (PROP_RANGE_MAX, GstRobocacheBev, settings.range_max),
  {0}
};

/* ------------------------------------------------------------------ */
/* Negotiation                                                         */
/* ------------------------------------------------------------------ */

/* The picture of one voxels structure: the sizes the properties ask for,
 * or the grid's (clamped to what caps allow; set_caps says when the grid
 * is too large), and the pixels' aspect ratio in metres. */
static GstStructure *
picture_structure (GstRobocacheBev * self, const GstStructure * voxels)
{
  GstStructure *s = gst_structure_from_string (GST_ROBOCACHE_BEV_CAPS, NULL);
  gint gx = 0, gy = 0;
  guint w, h;
  gdouble vx = 0, vy = 0;

  GST_OBJECT_LOCK (self);
  w = self->settings.width;
  h = self->settings.height;
  GST_OBJECT_UNLOCK (self);
  gst_structure_set (s, "framerate", GST_TYPE_FRACTION, 0, 1, NULL);
  if (!gst_structure_get_int (voxels, "grid-x", &gx)
      || !gst_structure_get_int (voxels, "grid-y", &gy))
    return s;
  w = w ? w : (guint) CLAMP (gx, 1, RC_BEV_MAX_SIZE);
  h = h ? h : (guint) CLAMP (gy, 1, RC_BEV_MAX_SIZE);
  gst_structure_set (s, "width", G_TYPE_INT, (gint) w, "height", G_TYPE_INT,
      (gint) h, NULL);
  if (gst_structure_get_double (voxels, "voxel-size-x", &vx)
      && gst_structure_get_double (voxels, "voxel-size-y", &vy) && vx > 0
      && vy > 0) {
    gint n = 1, d = 1;

    gst_util_double_to_fraction ((vx * gx / w) / (vy * gy / h), &n, &d);
    gst_structure_set (s, "pixel-aspect-ratio", GST_TYPE_FRACTION, n, d, NULL);
  }
  return s;
}

static GstCaps *
gst_robocache_bev_transform_caps (GstBaseTransform * trans,
    GstPadDirection direction, GstCaps * caps, GstCaps * filter)
{
  GstRobocacheBev *self = GST_ROBOCACHE_BEV (trans);
  gboolean gpu =
      gst_robocache_base_transform_may_offer_cuda (GST_ROBOCACHE_BASE_TRANSFORM
      (self));
  GstCaps *ret;

  if (direction == GST_PAD_SINK) {
    ret = gst_caps_new_empty ();
    for (gint cuda = gpu; cuda >= 0; cuda--) {
      for (guint i = 0; i < gst_caps_get_size (caps); i++) {
        GstStructure *s = picture_structure (self,
            gst_caps_get_structure (caps, i));

        gst_caps_append_structure_full (ret, s, cuda ?
            gst_caps_features_new (GST_ROBOCACHE_CAPS_FEATURE_CUDA, NULL) :
            NULL);
      }
    }
  } else {
    /* Any grid: set_caps says which it cannot draw. */
    ret = gst_robocache_caps_with_cuda (GST_ROBOCACHE_VOXELS_CAPS,
        GST_ROBOCACHE_VOXELS_CUDA_CAPS);
  }
  ret = gst_robocache_caps_filter (ret, filter);
  GST_DEBUG_OBJECT (self, "%s caps %" GST_PTR_FORMAT " -> %" GST_PTR_FORMAT,
      direction == GST_PAD_SINK ? "sink" : "src", caps, ret);
  return ret;
}

/* The feature plane named by the feature property among the grid's
 * feature-names (the first when the property is empty); -1 if absent. */
static gint
feature_index (const gchar * wanted, const gchar * names)
{
  gchar **list;
  gint found = -1;

  if (!wanted || !*wanted)
    return 0;
  list = g_strsplit (names ? names : "", ",", -1);
  for (gint i = 0; list[i] && found < 0; i++) {
    if (g_str_equal (g_strstrip (list[i]), wanted))
      found = i;
  }
  g_strfreev (list);
  return found;
}

/* Fills @p from the grid caps and the settings; FALSE with @why (to free)
 * naming what cannot be drawn and what can. */
static gboolean
params_from_caps (GstRobocacheBev * self, GstCaps * caps, rc_bev_params * p,
    gchar ** why)
{
  const GstStructure *s = gst_caps_get_structure (caps, 0);
  Settings *set = &self->settings;
  GError *error = NULL;
  guint n_features = 0;
  gchar *feature;
  gint index = 0;

  memset (p, 0, sizeof (*p));
  if (!gst_robocache_voxels_caps_parse (caps, &p->grid, &n_features, &error)) {
    *why = g_strdup (error->message);
    g_clear_error (&error);
    return FALSE;
  }
  if (p->grid.dims[0] > RC_BEV_MAX_SIZE || p->grid.dims[1] > RC_BEV_MAX_SIZE) {
    *why = g_strdup_printf ("a grid of %u x %u columns is too large to "
        "draw: grid-x and grid-y up to %d are accepted", p->grid.dims[0],
        p->grid.dims[1], RC_BEV_MAX_SIZE);
    return FALSE;
  }
  /* Fewer than 2^32 voxels: the caps' own rule, checked in the parse. */
  GST_OBJECT_LOCK (self);
  p->value = set->value;
  feature = g_strdup (set->feature);
  GST_OBJECT_UNLOCK (self);
  if (p->value == RC_BEV_FEATURE && p->grid.mode != RC_VOXEL_MEAN) {
    *why = g_strdup_printf ("value=feature draws mean grids only, and this "
        "grid is mode=%s: value=density or value=height draw it",
        gst_robocache_voxel_mode_to_string (p->grid.mode));
    g_free (feature);
    return FALSE;
  }
  if (p->grid.mode == RC_VOXEL_MEAN) {
    const gchar *names = gst_structure_get_string (s, "feature-names");

    index = feature_index (feature, names);
    if (index < 0 || (guint) index >= n_features) {
      *why = g_strdup_printf ("feature \"%s\" is not one of the grid's "
          "features (%s)", feature, names ? names : "");
      g_free (feature);
      return FALSE;
    }
  }
  g_free (feature);
  p->n_features = n_features;
  p->feature = index;
  p->background[3] = 255;
  return TRUE;
}

/* A pixel of the overlay: @rgb over the view at @alpha. */
static void
overlay_put (guint8 * px, guint8 v, guint8 alpha)
{
  px[0] = px[1] = px[2] = v;
  px[3] = MAX (px[3], alpha);
}

/* Whether overlay pixel (px, py) is part of the scale bar, @bar_px pixels
 * long: a 3-pixel line 9 pixels above the bottom over x = 10 up to (not
 * including) 10 + @bar_px, with 7-pixel ticks at its ends; none when the
 * picture is too small for it. */
static gboolean
in_scale_bar (const rc_bev_params * p, guint px, guint py, gdouble bar_px)
{
  guint h = p->height;

  if (bar_px <= 0 || bar_px + 20 > p->width || h < 30 || px < 10
      || px >= 10 + bar_px || py + 16 < h || py + 9 >= h)
    return FALSE;
  return py + 12 >= h || px < 12 || px + 2 > 10 + bar_px;
}

/* Range rings every @spacing metres around (0, 0), the sensor marker
 * there (a triangle pointing along +x) and a scale bar of @bar metres in
 * the lower left corner: drawn once per caps, in host code, so that CPU
 * and GPU lay the same bytes over the view. */
static guint8 *
make_overlay (const rc_bev_params * p, gdouble spacing, gboolean ego,
    gdouble bar)
{
  const rc_voxel_grid *g = &p->grid;
  gdouble mx = g->voxel_size[0] * g->dims[0] / p->width;
  gdouble my = g->voxel_size[1] * g->dims[1] / p->height;
  gdouble cx = -g->origin[0] / mx, cy = p->height + g->origin[1] / my;
  gdouble half = 0.5 * MAX (mx, my);
  guint8 *ov;

  if (spacing <= 0 && !ego && bar <= 0)
    return NULL;
  ov = g_malloc0 ((gsize) p->width * p->height * 4);
  for (guint py = 0; py < p->height; py++) {
    for (guint px = 0; px < p->width; px++) {
      guint8 *o = ov + ((gsize) py * p->width + px) * 4;
      gdouble ux = px + 0.5 - cx, uy = py + 0.5 - cy;
      gdouble r = hypot (ux * mx, uy * my);

      if (spacing > 0 && r > 0.5 * spacing
          && fabs (r - spacing * floor (r / spacing + 0.5)) <= half)
        overlay_put (o, 255, 96);
      if (ego && ux >= -5 && ux <= 9 && fabs (uy) <= (9 - ux) * 6 / 14)
        overlay_put (o, 255, 255);
      if (in_scale_bar (p, px, py, bar / mx))
        overlay_put (o, 255, 230);
    }
  }
  return ov;
}

/* The GPU's working set for the negotiated caps, allocated once: the
 * column plane, the picture when it leaves in system memory, the overlay
 * (uploaded here). */
static gboolean
ensure_gpu_scratch (GstRobocacheBev * self)
{
  State *st = &self->state;
  GstElement *element = GST_ELEMENT (self);
  gsize ov_size = (gsize) st->params.width * st->params.height * 4;
  gboolean ok = gst_robocache_gpu_push (st->gpu);

  ok = ok && gst_robocache_gpu_ensure_device (st->gpu, element,
      &st->device_scratch, rc_bev_cuda_scratch_size (&st->params),
      "the column plane");
  if (ok && !st->out_cuda)
    ok = gst_robocache_gpu_ensure_device (st->gpu, element, &st->device_out,
        ov_size, "a picture");
  if (ok && st->overlay) {
    ok = gst_robocache_gpu_ensure_device (st->gpu, element,
        &st->device_overlay, ov_size, "the overlay");
    ok = ok && rc_device_copy_async (st->device_overlay.ptr, st->overlay,
        ov_size, RC_COPY_HOST_TO_DEVICE, st->gpu->stream) == RC_OK
        && rc_stream_synchronize (st->gpu->stream) == RC_OK;
    if (!ok)
      GST_ELEMENT_ERROR (self, RESOURCE, FAILED,
          ("cannot copy the overlay to the GPU"), ("%s", rc_error_detail ()));
  }
  gst_robocache_gpu_pop (st->gpu);
  return ok;
}

/* The host memory the negotiated view takes, checked before any is
 * allocated: the overlay, the frames in system memory in flight and, on
 * the CPU, the scratch. */
static gboolean
check_host_memory (GstRobocacheBev * self, const rc_bev_params * p)
{
  State *st = &self->state;
  guint64 frame = gst_robocache_memory_mul ((guint64) p->width * p->height,
      4);
  guint64 bytes = frame;

  if (!st->out_cuda)
    bytes += gst_robocache_memory_mul (frame, GST_ROBOCACHE_BUFFERS_IN_FLIGHT);
  if (!st->gpu->use_gpu)
    bytes += rc_bev_scratch_size (p);
  return gst_robocache_gpu_check_memory (st->gpu, GST_ELEMENT (self),
      GST_ROBOCACHE_MEMORY_HOST, bytes, "the view's overlay, frames in "
      "flight and scratch (8 bytes a grid column)", "the picture (width, "
      "height) or the grid's columns (grid-x × grid-y)");
}

static gboolean
gst_robocache_bev_set_caps (GstBaseTransform * trans, GstCaps * incaps,
    GstCaps * outcaps)
{
  GstRobocacheBev *self = GST_ROBOCACHE_BEV (trans);
  GstRobocacheBaseTransform *base = GST_ROBOCACHE_BASE_TRANSFORM (trans);
  State *st = &self->state;
  rc_bev_params *p = &st->params;
  gdouble rings, bar;
  gboolean ego;
  gchar *why = NULL;

  if (!params_from_caps (self, incaps, p, &why)) {
    gst_robocache_base_transform_post_refusal (base, GST_STREAM_ERROR,
        GST_STREAM_ERROR_FORMAT, why, NULL);
    return FALSE;
  }
  if (!gst_video_info_from_caps (&st->out_info, outcaps)) {
    gchar *text = gst_caps_to_string (outcaps);

    gst_robocache_base_transform_post_refusal (base, GST_CORE_ERROR,
        GST_CORE_ERROR_NEGOTIATION, g_strdup_printf ("bad output caps %s",
            text), NULL);
    g_free (text);
    return FALSE;
  }
  p->width = GST_VIDEO_INFO_WIDTH (&st->out_info);
  p->height = GST_VIDEO_INFO_HEIGHT (&st->out_info);
  if (rc_bev_check (p) != RC_OK) {
    gchar *in = gst_caps_to_string (incaps);
    gchar *out = gst_caps_to_string (outcaps);

    gst_robocache_base_transform_post_refusal (base, GST_CORE_ERROR,
        GST_CORE_ERROR_NEGOTIATION, g_strdup_printf ("cannot draw %s as %s",
            in, out), NULL);
    g_free (in);
    g_free (out);
    return FALSE;
  }
  /* Caps drawn: a later refusal, even one said before, is news. */
  gst_robocache_base_transform_forget_refusal (base);
  st->in_size = rc_bev_input_size (p);
  st->out_cuda = gst_robocache_caps_is_cuda (outcaps);
  GST_OBJECT_LOCK (self);
  rings = self->settings.range_rings;
  ego = self->settings.ego_marker;
  bar = self->settings.scale_bar;
  GST_OBJECT_UNLOCK (self);
  if (!check_host_memory (self, p))
    return FALSE;
  g_free (st->overlay);
  st->overlay = make_overlay (p, rings, ego, bar);

  if (st->gpu->use_gpu ? !ensure_gpu_scratch (self) :
      !gst_robocache_gpu_ensure_host (st->gpu, GST_ELEMENT (self),
          &st->host_scratch, rc_bev_scratch_size (p), 0, "drawing scratch",
          "the grid's columns (grid-x × grid-y)"))
    return FALSE;
  GST_INFO_OBJECT (self, "%s: %u x %u x %u %s grid to %u x %u RGBA in %s "
      "memory", st->gpu->use_gpu ? "GPU" : "CPU", p->grid.dims[0],
      p->grid.dims[1], p->grid.dims[2],
      gst_robocache_voxel_mode_to_string (p->grid.mode), p->width, p->height,
      st->out_cuda ? "CUDA" : "system");
  return TRUE;
}

static gboolean
gst_robocache_bev_transform_size (GstBaseTransform * trans,
    GstPadDirection direction, GstCaps * caps, gsize size, GstCaps * othercaps,
    gsize * othersize)
{
  GstVideoInfo info;

  if (direction != GST_PAD_SINK || !gst_video_info_from_caps (&info, othercaps))
    return FALSE;
  *othersize = GST_VIDEO_INFO_SIZE (&info);
  return TRUE;
}

static gboolean
gst_robocache_bev_decide_allocation (GstBaseTransform * trans, GstQuery * query)
{
  GstRobocacheBev *self = GST_ROBOCACHE_BEV (trans);

  if (self->state.out_cuda)
    return gst_robocache_gpu_decide_video_pool (self->state.gpu,
        GST_ELEMENT (self), query);
  return GST_BASE_TRANSFORM_CLASS (parent_class)->decide_allocation (trans,
      query);
}

static gboolean
gst_robocache_bev_stop (GstBaseTransform * trans)
{
  GstRobocacheBev *self = GST_ROBOCACHE_BEV (trans);
  State *st = &self->state;
  GstRobocacheGpu *gpu = st->gpu;

  /* The base frees the scratch; the overlay is the element's. */
  GST_BASE_TRANSFORM_CLASS (parent_class)->stop (trans);
  g_free (st->overlay);
  memset (st, 0, sizeof (*st));
  st->gpu = gpu;
  return TRUE;
}

/* ------------------------------------------------------------------ */
/* Drawing                                                             */
/* ------------------------------------------------------------------ */

/* The negotiated parameters with this frame's colormap and range (these
 * may change while playing); a height range in metres becomes layers. */
static rc_bev_params
frame_params (GstRobocacheBev * self)
{
  rc_bev_params p = self->state.params;
  const rc_voxel_grid *g = &p.grid;

  GST_OBJECT_LOCK (self);
  p.colormap = self->settings.colormap;
  p.auto_range = self->settings.auto_range;
  p.range_min = self->settings.range_min;
  p.range_max = self->settings.range_max;
  GST_OBJECT_UNLOCK (self);
  if (p.value == RC_BEV_HEIGHT) {
    p.range_min = (p.range_min - g->origin[2]) / g->voxel_size[2] - 0.5;
    p.range_max = (p.range_max - g->origin[2]) / g->voxel_size[2] - 0.5;
  }
  return p;
}

static GstFlowReturn
draw_cpu (GstRobocacheBev * self, const rc_bev_params * p, GstBuffer * inbuf,
    GstVideoFrame * frame)
{
  State *st = &self->state;
  GstMapInfo in;
  rc_status ret;

  if (!gst_buffer_map (inbuf, &in, GST_MAP_READ)) {
    GST_ELEMENT_ERROR (self, RESOURCE, FAILED, ("cannot map a grid"), (NULL));
    return GST_FLOW_ERROR;
  }
  ret = rc_bev_render_cpu (p, in.data, st->overlay,
      GST_VIDEO_FRAME_PLANE_DATA (frame, 0),
      GST_VIDEO_FRAME_PLANE_STRIDE (frame, 0), st->host_scratch.ptr, NULL);
  gst_buffer_unmap (inbuf, &in);
  if (ret != RC_OK)
    return gst_robocache_base_transform_cpu_failed
        (GST_ROBOCACHE_BASE_TRANSFORM (self), "drawing", ret);
  return GST_FLOW_OK;
}

/* On the GPU: into the CUDA frame directly, or into the device picture
 * and down into the system frame; then this element's stream is waited
 * for (never the whole device). */
static GstFlowReturn
draw_gpu (GstRobocacheBev * self, const rc_bev_params * p, GstBuffer * inbuf,
    GstVideoFrame * frame)
{
  State *st = &self->state;
  GstMapInfo in;
  gconstpointer grid;
  gsize stride = GST_VIDEO_FRAME_PLANE_STRIDE (frame, 0);
  gsize row = (gsize) p->width * 4;
  const guint8 *overlay = st->overlay ? st->device_overlay.ptr : NULL;
  rc_status ret;

  if (!gst_robocache_gpu_map_input (st->gpu, GST_ELEMENT (self), inbuf, &in,
          &st->device_grid, &grid, "a voxel grid"))
    return GST_FLOW_ERROR;
  if (st->out_cuda) {
    ret = rc_bev_render_cuda (p, grid, overlay,
        GST_VIDEO_FRAME_PLANE_DATA (frame, 0), stride,
        st->device_scratch.ptr, NULL, st->gpu->stream);
  } else {
    ret = rc_bev_render_cuda (p, grid, overlay,
        st->device_out.ptr, row, st->device_scratch.ptr, NULL, st->gpu->stream);
    if (ret == RC_OK)
      ret = rc_device_copy_2d_async (GST_VIDEO_FRAME_PLANE_DATA (frame, 0),
          stride, st->device_out.ptr, row, row, p->height,
          RC_COPY_DEVICE_TO_HOST, st->gpu->stream);
  }
  if (ret == RC_OK)
    ret = rc_stream_synchronize (st->gpu->stream);
  gst_buffer_unmap (inbuf, &in);
  if (ret != RC_OK)
    return gst_robocache_gpu_failed (GST_ELEMENT (self), "GPU drawing", ret);
  return GST_FLOW_OK;
}

static GstFlowReturn
gst_robocache_bev_transform (GstBaseTransform * trans, GstBuffer * inbuf,
    GstBuffer * outbuf)
{
  GstRobocacheBev *self = GST_ROBOCACHE_BEV (trans);
  State *st = &self->state;
  gboolean gpu = st->gpu->use_gpu;
  rc_bev_params p = frame_params (self);
  GstVideoFrame frame;
  GstFlowReturn flow;

  if (gst_buffer_get_size (inbuf) < st->in_size) {
    GST_ELEMENT_ERROR (self, STREAM, FORMAT, ("a grid of %" G_GSIZE_FORMAT
            " bytes, where its caps make %" G_GSIZE_FORMAT,
            gst_buffer_get_size (inbuf), st->in_size), (NULL));
    return GST_FLOW_ERROR;
  }
  if (gpu && !gst_robocache_gpu_push (st->gpu)) {
    GST_ELEMENT_ERROR (self, RESOURCE, FAILED,
        ("cannot make the CUDA context current"), (NULL));
    return GST_FLOW_ERROR;
  }
  if (!gst_video_frame_map (&frame, &st->out_info, outbuf, GST_MAP_WRITE |
          (st->out_cuda ? GST_ROBOCACHE_MAP_CUDA : 0))) {
    GST_ELEMENT_ERROR (self, RESOURCE, FAILED, ("cannot map a picture"),
        (NULL));
    flow = GST_FLOW_ERROR;
  } else {
    flow = gpu ? draw_gpu (self, &p, inbuf, &frame) :
        draw_cpu (self, &p, inbuf, &frame);
    gst_video_frame_unmap (&frame);
  }
  if (gpu)
    gst_robocache_gpu_pop (st->gpu);
  return flow;
}

/* ------------------------------------------------------------------ */
/* GObject                                                             */
/* ------------------------------------------------------------------ */

static void
gst_robocache_bev_set_property (GObject * object, guint prop_id,
    const GValue * value, GParamSpec * pspec)
{
  gst_robocache_fields_set_property (object, prop_id, value, pspec);
  /* A new size renegotiates. */
  if (prop_id == PROP_WIDTH || prop_id == PROP_HEIGHT)
    gst_base_transform_reconfigure_src (GST_BASE_TRANSFORM (object));
}

static void
gst_robocache_bev_finalize (GObject * object)
{
  GstRobocacheBev *self = GST_ROBOCACHE_BEV (object);

  g_free (self->settings.feature);
  G_OBJECT_CLASS (parent_class)->finalize (object);
}

#define READY_FLAGS (G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS | \
    GST_PARAM_MUTABLE_READY)
#define PLAYING_FLAGS (G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS | \
    GST_PARAM_MUTABLE_PLAYING)

static void
install_picture_properties (GObjectClass * gobject_class)
{
  /**
   * GstRobocacheBev:width:
   *
   * Picture width in pixels, 1 to 16384; 0: one pixel per voxel column
   * (grid-x).  Pixel x shows column x * grid-x / width (integer division:
   * the column under the pixel's left edge, so a width that is not a whole
   * multiple of grid-x may shift a column by up to one pixel against the
   * rings and the ego marker).  A new width, like a
   * new height, renegotiates the picture, while playing too.
   */
  g_object_class_install_property (gobject_class, PROP_WIDTH,
      g_param_spec_uint ("width", "Width", "Picture width in pixels "
          "(0: grid-x, one pixel per column)", 0, RC_BEV_MAX_SIZE,
          DEFAULT_WIDTH, PLAYING_FLAGS));
  /**
   * GstRobocacheBev:height:
   *
   * Picture height in pixels, 1 to 16384; 0: grid-y.  Row 0 is the grid's
   * largest y (y points up).
   */
  g_object_class_install_property (gobject_class, PROP_HEIGHT,
      g_param_spec_uint ("height", "Height", "Picture height in pixels "
          "(0: grid-y, one pixel per column)", 0, RC_BEV_MAX_SIZE,
          DEFAULT_HEIGHT, PLAYING_FLAGS));
  /**
   * GstRobocacheBev:value:
   *
   * What a column shows: density (points of a count grid, occupied voxels
   * of the others), height (of its highest occupied voxel's centre, in
   * metres) or feature (mean grids only: the mean of
   * #GstRobocacheBev:feature in that voxel).  In mean grids a voxel is
   * empty where that feature is 0, NaN or Inf.
   */
  g_object_class_install_property (gobject_class, PROP_VALUE,
      g_param_spec_enum ("value", "Value", "What a column shows",
          GST_TYPE_ROBOCACHE_BEV_VALUE, DEFAULT_VALUE, READY_FLAGS));
  /**
   * GstRobocacheBev:feature:
   *
   * Mean grids: the feature drawn and tested for emptiness, one of the
   * caps' feature-names (e.g. "intensity" or "z"); empty: the first.
   */
  g_object_class_install_property (gobject_class, PROP_FEATURE,
      g_param_spec_string ("feature", "Feature", "Mean grids: the feature "
          "drawn (empty: the first)", DEFAULT_FEATURE, READY_FLAGS));
}

static void
install_look_properties (GObjectClass * gobject_class)
{
  /**
   * GstRobocacheBev:colormap:
   *
   * The colours of the range, low to high, each a 256-entry table
   * (kernels/bev-colormaps.py writes them from their published
   * definitions): turbo (Google's Turbo rainbow) or density (gnuplot's
   * pm3d palette from violet to yellow).  Empty columns are black.
   */
  g_object_class_install_property (gobject_class, PROP_COLORMAP,
      g_param_spec_enum ("colormap", "Colormap", "Colours of the value range",
          GST_TYPE_ROBOCACHE_BEV_COLORMAP, DEFAULT_COLORMAP, PLAYING_FLAGS));
  /**
   * GstRobocacheBev:auto-range:
   *
   * Colour each frame from its own smallest to its largest value (over its
   * non-empty columns), else over [range-min, range-max].  A range of zero
   * width (one value, or range-min = range-max) colours every non-empty
   * column with the top colour.
   */
  g_object_class_install_property (gobject_class, PROP_AUTO_RANGE,
      g_param_spec_boolean ("auto-range", "Automatic range",
          "Colour each frame from its smallest to its largest value",
          DEFAULT_AUTO_RANGE, PLAYING_FLAGS));
  /**
   * GstRobocacheBev:range-min:
   *
   * With auto-range=false, the value of the first colour (points or
   * voxels for density, metres for height, the feature's unit); values
   * below take it.
   */
  g_object_class_install_property (gobject_class, PROP_RANGE_MIN,
      g_param_spec_double ("range-min", "Range minimum", "With "
          "auto-range=false: the value of the first colour", -G_MAXDOUBLE,
          G_MAXDOUBLE, DEFAULT_RANGE_MIN, PLAYING_FLAGS));
  /**
   * GstRobocacheBev:range-max:
   *
   * With auto-range=false, the value of the last colour; values above take
   * it.
   */
  g_object_class_install_property (gobject_class, PROP_RANGE_MAX,
      g_param_spec_double ("range-max", "Range maximum", "With "
          "auto-range=false: the value of the last colour", -G_MAXDOUBLE,
          G_MAXDOUBLE, DEFAULT_RANGE_MAX, PLAYING_FLAGS));
}

static void
install_overlay_properties (GObjectClass * gobject_class)
{
  /**
   * GstRobocacheBev:range-rings:
   *
   * Circles around the sensor (the grid's point x = 0, y = 0) every this
   * many metres, grey; 0: none.
   */
  g_object_class_install_property (gobject_class, PROP_RANGE_RINGS,
      g_param_spec_double ("range-rings", "Range rings", "Metres between "
          "range rings around the sensor (0: none)", 0, G_MAXDOUBLE,
          DEFAULT_RANGE_RINGS, READY_FLAGS));
  /**
   * GstRobocacheBev:ego-marker:
   *
   * A white triangle at the sensor pointing along +x (to the right).
   */
  g_object_class_install_property (gobject_class, PROP_EGO_MARKER,
      g_param_spec_boolean ("ego-marker", "Ego marker", "Mark the sensor "
          "with a triangle pointing along +x", DEFAULT_EGO_MARKER,
          READY_FLAGS));
  /**
   * GstRobocacheBev:scale-bar:
   *
   * Length in metres of the white bar in the lower left corner (with
   * ticks at its ends); 0, or a bar that does not fit, draws none.
   */
  g_object_class_install_property (gobject_class, PROP_SCALE_BAR,
      g_param_spec_double ("scale-bar", "Scale bar", "Metres of the scale "
          "bar in the lower left corner (0: none)", 0, G_MAXDOUBLE,
          DEFAULT_SCALE_BAR, READY_FLAGS));
}

static void
gst_robocache_bev_class_init (GstRobocacheBevClass * klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  GstElementClass *element_class = GST_ELEMENT_CLASS (klass);
  GstBaseTransformClass *trans_class = GST_BASE_TRANSFORM_CLASS (klass);

  gst_robocache_fields_class_init (gobject_class, fields);
  gobject_class->set_property = gst_robocache_bev_set_property;
  gobject_class->finalize = gst_robocache_bev_finalize;
  install_picture_properties (gobject_class);
  install_look_properties (gobject_class);
  install_overlay_properties (gobject_class);

  gst_element_class_add_pad_template (element_class,
      gst_pad_template_new_with_gtype ("sink", GST_PAD_SINK, GST_PAD_ALWAYS,
          gst_robocache_caps_with_cuda (GST_ROBOCACHE_VOXELS_CAPS,
              GST_ROBOCACHE_VOXELS_CUDA_CAPS), GST_TYPE_PAD));
  gst_element_class_add_pad_template (element_class,
      gst_pad_template_new_with_gtype ("src", GST_PAD_SRC, GST_PAD_ALWAYS,
          gst_robocache_caps_with_cuda (GST_ROBOCACHE_BEV_CAPS,
              GST_ROBOCACHE_BEV_CUDA_CAPS), GST_TYPE_PAD));
  gst_element_class_set_static_metadata (element_class,
      "robocache bird's-eye view", "Filter/Converter/Video/Robotics",
      "Draws voxel grids seen from above as RGBA video, on the GPU or the "
      "CPU", GST_ROBOCACHE_AUTHOR);

  trans_class->transform_caps =
      GST_DEBUG_FUNCPTR (gst_robocache_bev_transform_caps);
  trans_class->set_caps = GST_DEBUG_FUNCPTR (gst_robocache_bev_set_caps);
  trans_class->transform_size =
      GST_DEBUG_FUNCPTR (gst_robocache_bev_transform_size);
  trans_class->decide_allocation =
      GST_DEBUG_FUNCPTR (gst_robocache_bev_decide_allocation);
  trans_class->stop = GST_DEBUG_FUNCPTR (gst_robocache_bev_stop);
  trans_class->transform = GST_DEBUG_FUNCPTR (gst_robocache_bev_transform);

  gst_type_mark_as_plugin_api (GST_TYPE_ROBOCACHE_BEV_VALUE, 0);
  gst_type_mark_as_plugin_api (GST_TYPE_ROBOCACHE_BEV_COLORMAP, 0);
}

static void
gst_robocache_bev_init (GstRobocacheBev * self)
{
  Settings *s = &self->settings;

  s->width = DEFAULT_WIDTH;
  s->height = DEFAULT_HEIGHT;
  s->value = DEFAULT_VALUE;
  s->feature = g_strdup (DEFAULT_FEATURE);
  s->range_rings = DEFAULT_RANGE_RINGS;
  s->ego_marker = DEFAULT_EGO_MARKER;
  s->scale_bar = DEFAULT_SCALE_BAR;
  s->colormap = DEFAULT_COLORMAP;
  s->auto_range = DEFAULT_AUTO_RANGE;
  s->range_min = DEFAULT_RANGE_MIN;
  s->range_max = DEFAULT_RANGE_MAX;
  self->state.gpu =
      gst_robocache_base_transform_get_gpu (GST_ROBOCACHE_BASE_TRANSFORM
      (self));
}
