/* Buffers as DLPack arrays over their own memory, and the CUDA context a
 * pipeline shares with PyTorch (robocache.h, docs/ros.md, docs/python.md).
 *
 * An array keeps its buffer referenced and mapped: system memory with a
 * plain READ map, CUDA memory (robocache's own and GStreamer's
 * GstCudaMemory) with GST_MAP_CUDA, which gives the device pointer.  The
 * array's deleter unmaps and unrefs, so a pooled buffer goes back to its
 * pool when the consumer drops the array. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "robocache.h"

#include <stdarg.h>
#include <string.h>

#ifdef ROBOCACHE_HAVE_CUDA
#define GST_USE_UNSTABLE_API
#include <gst/cuda/gstcudacontext.h>
#include <gst/cuda/gstcudaloader.h>
#include <gst/cuda/gstcudamemory.h>
#include <gst/cuda/gstcudautils.h>
#include <gst/cuda/cuda-gst.h>
#endif

/* GStreamer's GST_MAP_CUDA (gst/cuda/gstcudamemory.h), which robocache's
 * allocator understands too. */
#define MAP_CUDA (GST_MAP_FLAG_LAST << 1)

/* What the caps say the array is. */
typedef struct
{
  gint ndim;
  int64_t shape[4];
  int64_t strides[4];           /* elements; used when @strided */
  gboolean strided;
  rc_scalar_type type;
  gboolean int64;               /* int64 (rc_scalar_type has none): made as
                                 * float64, the same size, then retyped */
  gsize offset;                 /* bytes from the mapped data */
  gsize needed;                 /* bytes the array covers from @offset */
} ArrayShape;

/* The mapping an array holds until its consumer drops it. */
typedef struct
{
  GstBuffer *buffer;
  GstMapInfo map;
  gboolean memory_map;          /* map.memory mapped alone (fused flat) */
  int64_t strides[4];
} ArrayHold;

static void
hold_release (void *data)
{
  ArrayHold *hold = data;

  if (hold->memory_map)
    gst_memory_unmap (hold->map.memory, &hold->map);
  else
    gst_buffer_unmap (hold->buffer, &hold->map);
  gst_buffer_unref (hold->buffer);
  g_free (hold);
}

static gboolean
is_cuda_memory (GstMemory * mem)
{
  /* "robocache.cuda.memory" and GStreamer's "gst.cuda.memory". */
  return mem && mem->allocator && mem->allocator->mem_type &&
      g_str_has_suffix (mem->allocator->mem_type, "cuda.memory");
}

/* The CUDA device of mapped CUDA memory @mem at @ptr. */
static gboolean
cuda_device_of (GstMemory * mem, gpointer ptr, gint * device, GError ** error)
{
#ifdef ROBOCACHE_HAVE_CUDA
  rc_status ret;

  if (gst_is_cuda_memory (mem)) {
    g_object_get (GST_CUDA_MEMORY_CAST (mem)->context, "cuda-device-id",
        device, NULL);
    return TRUE;
  }
  ret = rc_pointer_device (ptr, device);
  if (ret == RC_OK && *device >= 0)
    return TRUE;
  g_set_error (error, ROBOCACHE_ERROR, ROBOCACHE_ERROR_INVALID,
      "the CUDA device of %s memory at %p is unknown: %s",
      mem->allocator->mem_type, ptr, ret == RC_OK ? "not device memory" :
      rc_error_detail ());
  return FALSE;
#else
  g_set_error (error, ROBOCACHE_ERROR, ROBOCACHE_ERROR_UNSUPPORTED,
      "the buffer holds CUDA memory (%s) but robocache was built without "
      "CUDA", mem->allocator->mem_type);
  return FALSE;
#endif
}

static void
shape_set (ArrayShape * s, rc_scalar_type type, gint ndim, ...)
{
  va_list args;

  memset (s, 0, sizeof (*s));
  s->type = type;
  s->ndim = ndim;
  s->needed = rc_scalar_type_size (type);
  va_start (args, ndim);
  for (gint i = 0; i < ndim; i++) {
    s->shape[i] = va_arg (args, int64_t);
    s->needed *= s->shape[i];
  }
  va_end (args);
}

/* ---- Shapes by media type ---------------------------------------------- */

static gboolean
shape_voxels (const GstCaps * caps, ArrayShape * s, GError ** error)
{
  RobocacheVoxelsInfo info;
  int64_t x, y, z;

  if (!robocache_voxels_info_from_caps (caps, &info, error))
    return FALSE;
  x = info.dims[0];
  y = info.dims[1];
  z = info.dims[2];
  switch (info.mode) {
    case RC_VOXEL_OCCUPANCY:
      shape_set (s, RC_TYPE_UINT8, 3, z, y, x);
      break;
    case RC_VOXEL_COUNT:
      shape_set (s, RC_TYPE_UINT32, 3, z, y, x);
      break;
    default:
      shape_set (s, RC_TYPE_FLOAT32, 4, (int64_t) info.n_features, z, y, x);
      break;
  }
  return TRUE;
}

/* Points: (n, n_fields) float32 when every field is float32 and they are
 * packed in order from byte 0 with nothing after them; else the raw
 * (n, point_step) bytes. */
static gboolean
shape_points (const GstStructure * st, gsize size, ArrayShape * s,
    GError ** error)
{
  const gchar *fields = gst_structure_get_string (st, "fields");
  gint step = 0;
  gchar **list;
  gboolean packed = TRUE;
  guint n;

  if (!gst_structure_get_int (st, "point-step", &step) || step <= 0
      || !fields) {
    g_set_error (error, ROBOCACHE_ERROR, ROBOCACHE_ERROR_INVALID,
        "points caps need point-step (1..65535) and fields");
    return FALSE;
  }
  if (size % step) {
    g_set_error (error, ROBOCACHE_ERROR, ROBOCACHE_ERROR_INVALID,
        "a points buffer of %" G_GSIZE_FORMAT " bytes is not a whole number "
        "of %d-byte points", size, step);
    return FALSE;
  }
  list = g_strsplit (fields, ",", -1);
  n = g_strv_length (list);
  for (guint i = 0; i < n && packed; i++) {
    gchar **parts = g_strsplit (list[i], ":", -1);

    packed = g_strv_length (parts) == 3 &&
        rc_scalar_type_from_string (parts[1]) == RC_TYPE_FLOAT32 &&
        g_ascii_strtoull (parts[2], NULL, 10) == 4 * i;
    g_strfreev (parts);
  }
  g_strfreev (list);
  if (packed && n > 0 && (guint) step == 4 * n)
    shape_set (s, RC_TYPE_FLOAT32, 2, (int64_t) (size / step), (int64_t) n);
  else
    shape_set (s, RC_TYPE_UINT8, 2, (int64_t) (size / step), (int64_t) step);
  return TRUE;
}

/* Vectors: layout sample (1, channels); chunk (S, channels), or
 * (batch, S, channels) with batch > 1, after the timestamps; with
 * @times, the chunk's timestamps instead: (S) or (batch, S) int64. */
static gboolean
shape_vectors (const GstCaps * caps, gsize size, gboolean times,
    ArrayShape * s, GError ** error)
{
  GstRobocacheVectorsInfo info;
  GError *perr = NULL;
  gsize vector, row;
  int64_t samples;

  if (!gst_robocache_vectors_caps_parse (caps, &info, &perr)) {
    g_set_error_literal (error, ROBOCACHE_ERROR, ROBOCACHE_ERROR_INVALID,
        perr->message);
    g_error_free (perr);
    return FALSE;
  }
  vector = gst_robocache_vectors_sample_size (&info);
  if (info.layout == GST_ROBOCACHE_VECTORS_LAYOUT_SAMPLE) {
    if (times) {
      g_set_error (error, ROBOCACHE_ERROR, ROBOCACHE_ERROR_INVALID,
          "vectors of layout sample carry no timestamps of their own (the "
          "buffer's PTS is the sample's time); layout chunk does");
      return FALSE;
    }
    if (size != vector) {
      g_set_error (error, ROBOCACHE_ERROR, ROBOCACHE_ERROR_INVALID,
          "a vector buffer of %" G_GSIZE_FORMAT " bytes; %u channels take %"
          G_GSIZE_FORMAT, size, info.channels, vector);
      return FALSE;
    }
    shape_set (s, info.type, 2, (int64_t) 1, (int64_t) info.channels);
    return TRUE;
  }
  row = (gsize) info.batch * (8 + vector);
  if (size % row) {
    g_set_error (error, ROBOCACHE_ERROR, ROBOCACHE_ERROR_INVALID,
        "a chunk of %" G_GSIZE_FORMAT " bytes is not a whole number of "
        "samples of %u trajectories (%" G_GSIZE_FORMAT " bytes each)", size,
        info.batch, row);
    return FALSE;
  }
  samples = size / row;
  if (times) {
    if (info.batch > 1)
      shape_set (s, RC_TYPE_FLOAT64, 2, (int64_t) info.batch, samples);
    else
      shape_set (s, RC_TYPE_FLOAT64, 1, samples);
    s->int64 = TRUE;
    return TRUE;
  }
  if (info.batch > 1)
    shape_set (s, info.type, 3, (int64_t) info.batch, samples,
        (int64_t) info.channels);
  else
    shape_set (s, info.type, 2, samples, (int64_t) info.channels);
  s->offset = (gsize) info.batch * samples * 8;
  return TRUE;
}

static const struct
{
  GstVideoFormat format;
  rc_scalar_type type;
  gint channels;
} video_formats[] = {
  {GST_VIDEO_FORMAT_GRAY8, RC_TYPE_UINT8, 1},
#if G_BYTE_ORDER == G_LITTLE_ENDIAN
  {GST_VIDEO_FORMAT_GRAY16_LE, RC_TYPE_UINT16, 1},
#else
  {GST_VIDEO_FORMAT_GRAY16_BE, RC_TYPE_UINT16, 1},
#endif
  {GST_VIDEO_FORMAT_RGB, RC_TYPE_UINT8, 3},
  {GST_VIDEO_FORMAT_BGR, RC_TYPE_UINT8, 3},
  {GST_VIDEO_FORMAT_RGBA, RC_TYPE_UINT8, 4},
  {GST_VIDEO_FORMAT_BGRA, RC_TYPE_UINT8, 4},
  {GST_VIDEO_FORMAT_ARGB, RC_TYPE_UINT8, 4},
  {GST_VIDEO_FORMAT_ABGR, RC_TYPE_UINT8, 4},
  {GST_VIDEO_FORMAT_RGBx, RC_TYPE_UINT8, 4},
  {GST_VIDEO_FORMAT_BGRx, RC_TYPE_UINT8, 4},
  {GST_VIDEO_FORMAT_xRGB, RC_TYPE_UINT8, 4},
  {GST_VIDEO_FORMAT_xBGR, RC_TYPE_UINT8, 4},
};

/* Video: (height, width, channels), rows @stride bytes apart (the
 * buffer's GstVideoMeta, else GstCudaMemory's own layout, else the caps'
 * default stride). */
static gboolean
shape_video (const GstCaps * caps, GstBuffer * buffer, GstMemory * mem,
    ArrayShape * s, GError ** error)
{
  GstVideoInfo info;
  GstVideoMeta *meta = gst_buffer_get_video_meta (buffer);
  gint stride, c = -1, h, w;
  gsize offset, esize, row;
  rc_scalar_type type = RC_TYPE_INVALID;

  if (!gst_video_info_from_caps (&info, caps)) {
    g_set_error (error, ROBOCACHE_ERROR, ROBOCACHE_ERROR_INVALID,
        "video caps without a valid format, width and height");
    return FALSE;
  }
  for (guint i = 0; i < G_N_ELEMENTS (video_formats); i++) {
    if (video_formats[i].format == GST_VIDEO_INFO_FORMAT (&info)) {
      type = video_formats[i].type;
      c = video_formats[i].channels;
    }
  }
  if (c < 0) {
    g_set_error (error, ROBOCACHE_ERROR, ROBOCACHE_ERROR_UNSUPPORTED,
        "video format %s cannot be one array; accepted: GRAY8, GRAY16_LE, "
        "RGB, BGR, RGBA, BGRA, ARGB, ABGR, RGBx, BGRx, xRGB, xBGR (put "
        "videoconvert ! video/x-raw,format=RGB before the sink)",
        GST_VIDEO_INFO_NAME (&info));
    return FALSE;
  }
  w = GST_VIDEO_INFO_WIDTH (&info);
  h = GST_VIDEO_INFO_HEIGHT (&info);
  stride = GST_VIDEO_INFO_PLANE_STRIDE (&info, 0);
  offset = GST_VIDEO_INFO_PLANE_OFFSET (&info, 0);
#ifdef ROBOCACHE_HAVE_CUDA
  if (gst_is_cuda_memory (mem)) {
    stride = GST_VIDEO_INFO_PLANE_STRIDE (&GST_CUDA_MEMORY_CAST (mem)->info, 0);
    offset = GST_VIDEO_INFO_PLANE_OFFSET (&GST_CUDA_MEMORY_CAST (mem)->info, 0);
  }
#endif
  if (meta) {
    stride = meta->stride[0];
    offset = meta->offset[0];
  }
  esize = rc_scalar_type_size (type);
  row = (gsize) w *c * esize;
  if (stride <= 0 || (gsize) stride < row || stride % esize) {
    g_set_error (error, ROBOCACHE_ERROR, ROBOCACHE_ERROR_INVALID,
        "%s rows of %" G_GSIZE_FORMAT " bytes with a stride of %d bytes: "
        "the stride must hold a row and be a multiple of %" G_GSIZE_FORMAT,
        GST_VIDEO_INFO_NAME (&info), row, stride, esize);
    return FALSE;
  }
  shape_set (s, type, 3, (int64_t) h, (int64_t) w, (int64_t) c);
  s->offset = offset;
  s->needed = (gsize) stride *(h - 1) + row;
  if ((gsize) stride != row) {
    s->strided = TRUE;
    s->strides[0] = stride / esize;
    s->strides[1] = c;
    s->strides[2] = 1;
  }
  return TRUE;
}

/* ---- The array --------------------------------------------------------- */

/* The caps' one structure, or NULL and @error when the caps cannot say
 * what the buffer is (or hold no timestamps where @times asks for them). */
static const GstStructure *
array_caps (GstCaps * caps, gboolean times, GError ** error)
{
  const GstStructure *st;
  const gchar *name;

  if (!caps || !GST_IS_CAPS (caps) || gst_caps_get_size (caps) != 1 ||
      !gst_caps_is_fixed (caps)) {
    /* g_set_error formats with GLib's printf, which knows nothing of
     * GST_PTR_FORMAT: the caps go in as text. */
    gchar *text = caps == NULL ? g_strdup ("no caps") : !GST_IS_CAPS (caps)
        ? g_strdup ("something that is not caps") : gst_caps_to_string (caps);

    g_set_error (error, ROBOCACHE_ERROR, ROBOCACHE_ERROR_INVALID,
        "the buffer's caps must be fixed (one structure); got %s", text);
    g_free (text);
    return NULL;
  }
  st = gst_caps_get_structure (caps, 0);
  name = gst_structure_get_name (st);
  if (times && !g_str_equal (name, GST_ROBOCACHE_VECTORS_MEDIA_TYPE)) {
    g_set_error (error, ROBOCACHE_ERROR, ROBOCACHE_ERROR_INVALID,
        "%s buffers carry no timestamp array; vectors of layout chunk do",
        name);
    return NULL;
  }
  return st;
}

/* Maps @buffer for the array: a fused frame's flat vector alone, otherwise
 * the whole buffer, with GST_MAP_CUDA when it is one CUDA memory.  A new
 * hold holding a ref, or NULL and @error. */
static ArrayHold *
hold_map (GstBuffer * buffer, const gchar * name, gboolean fused,
    GstMemory ** mem, gboolean * cuda, GError ** error)
{
  ArrayHold *hold = g_new0 (ArrayHold, 1);

  *cuda = FALSE;
  if (fused) {
    GstRobocacheFusedMeta *meta = gst_buffer_get_robocache_fused_meta (buffer);

    if (!meta || meta->flat_memory_index < 0) {
      g_set_error (error, ROBOCACHE_ERROR, ROBOCACHE_ERROR_UNSUPPORTED,
          "a fused frame without a flat vector cannot be one array (set "
          "flat-output=true on robocachefuse, or read its streams through "
          "gstrobocachefusedmeta.h)");
      g_free (hold);
      return NULL;
    }
    if (!gst_robocache_fused_map_flat (buffer, &hold->map)) {
      g_set_error (error, ROBOCACHE_ERROR, ROBOCACHE_ERROR_INVALID,
          "the fused frame's flat vector (memory %d) cannot be mapped",
          meta->flat_memory_index);
      g_free (hold);
      return NULL;
    }
    hold->memory_map = TRUE;
    *mem = hold->map.memory;
  } else {
    *mem = gst_buffer_n_memory (buffer) ? gst_buffer_peek_memory (buffer, 0)
        : NULL;
    *cuda = gst_buffer_n_memory (buffer) == 1 && is_cuda_memory (*mem);
    if (!gst_buffer_map (buffer, &hold->map,
            GST_MAP_READ | (*cuda ? MAP_CUDA : 0))) {
      g_set_error (error, ROBOCACHE_ERROR, ROBOCACHE_ERROR_INVALID,
          "the %s buffer (%u memories, %s) cannot be mapped for reading",
          name, gst_buffer_n_memory (buffer), *mem && (*mem)->allocator &&
          (*mem)->allocator->mem_type ? (*mem)->allocator->mem_type :
          "no memory");
      g_free (hold);
      return NULL;
    }
  }
  hold->buffer = gst_buffer_ref (buffer);
  return hold;
}

/* The array's shape from the caps, checked against the mapped size. */
static gboolean
array_shape (GstCaps * caps, const GstStructure * st, GstBuffer * buffer,
    GstMemory * mem, const ArrayHold * hold, gboolean fused, gboolean times,
    ArrayShape * shape, GError ** error)
{
  const gchar *name = gst_structure_get_name (st);
  gboolean ok;

  if (fused) {
    shape_set (shape, RC_TYPE_FLOAT32, 1,
        (int64_t) (hold->map.size / sizeof (gfloat)));
    ok = TRUE;
  } else if (g_str_equal (name, GST_ROBOCACHE_VOXELS_MEDIA_TYPE)) {
    ok = shape_voxels (caps, shape, error);
  } else if (g_str_equal (name, GST_ROBOCACHE_POINTS_MEDIA_TYPE)) {
    ok = shape_points (st, hold->map.size, shape, error);
  } else if (g_str_equal (name, GST_ROBOCACHE_VECTORS_MEDIA_TYPE)) {
    ok = shape_vectors (caps, hold->map.size, times, shape, error);
  } else if (g_str_equal (name, "video/x-raw")) {
    ok = shape_video (caps, buffer, mem, shape, error);
  } else if (g_str_equal (name, "image/jpeg") ||
      g_str_equal (name, "image/png")) {
    /* The encoded bytes, as torchvision.io.decode_image takes them. */
    shape_set (shape, RC_TYPE_UINT8, 1, (int64_t) hold->map.size);
    ok = TRUE;
  } else {
    g_set_error (error, ROBOCACHE_ERROR, ROBOCACHE_ERROR_UNSUPPORTED,
        "%s buffers cannot be shaped as an array; accepted: "
        "other/x-robocache-voxels, -points, -vectors, -fused (flat-output), "
        "video/x-raw in a packed format, and image/jpeg and image/png (the "
        "encoded bytes)", name);
    ok = FALSE;
  }
  if (ok && (shape->offset > hold->map.size ||
          hold->map.size - shape->offset < shape->needed)) {
    g_set_error (error, ROBOCACHE_ERROR, ROBOCACHE_ERROR_INVALID,
        "a %s buffer of %" G_GSIZE_FORMAT " bytes; its caps need %"
        G_GSIZE_FORMAT " bytes from byte %" G_GSIZE_FORMAT, name,
        hold->map.size, shape->needed, shape->offset);
    ok = FALSE;
  }
  return ok;
}

/* Wraps the mapped data as the array; the hold is released by its
 * deleter from then on. */
static gboolean
wrap_hold (ArrayHold * hold, const ArrayShape * shape, rc_dl_device device,
    const gchar * name, rc_dl_managed_tensor ** array, GError ** error)
{
  guint8 *data = hold->map.data ? hold->map.data + shape->offset : NULL;
  rc_status ret;

  if (shape->strided)
    memcpy (hold->strides, shape->strides, sizeof (hold->strides));
  ret = rc_array_wrap (data, device, shape->ndim, shape->shape, shape->type,
      hold_release, hold, array);
  if (ret != RC_OK) {
    g_set_error (error, ROBOCACHE_ERROR, ROBOCACHE_ERROR_INVALID,
        "the %s array (%d dimensions, %s) cannot be made: %s", name,
        shape->ndim, rc_scalar_type_to_string (shape->type),
        rc_status_message (ret));
    return FALSE;
  }
  /* DLPack strides live as long as the array: in the hold, released by
   * the deleter after the consumer is done. */
  if (shape->strided)
    (*array)->dl_tensor.strides = hold->strides;
  if (shape->int64) {
    (*array)->dl_tensor.dtype.code = 0;
    (*array)->dl_tensor.dtype.bits = 64;
  }
  return TRUE;
}

static gboolean
buffer_to_array (GstBuffer * buffer, GstCaps * caps, gboolean times,
    rc_dl_managed_tensor ** array, GError ** error)
{
  const GstStructure *st;
  const gchar *name;
  ArrayShape shape;
  ArrayHold *hold;
  GstMemory *mem = NULL;
  rc_dl_device device = { RC_DL_CPU, 0 };
  gboolean cuda, fused;

  g_return_val_if_fail (GST_IS_BUFFER (buffer), FALSE);
  g_return_val_if_fail (array != NULL, FALSE);
  *array = NULL;

  if (!(st = array_caps (caps, times, error)))
    return FALSE;
  name = gst_structure_get_name (st);
  fused = g_str_equal (name, "other/x-robocache-fused");
  if (!(hold = hold_map (buffer, name, fused, &mem, &cuda, error)))
    return FALSE;
  if (!array_shape (caps, st, buffer, mem, hold, fused, times, &shape, error))
    goto fail;
  if (cuda) {
    device.device_type = RC_DL_CUDA;
    if (!cuda_device_of (mem, hold->map.data, &device.device_id, error))
      goto fail;
  }
  if (wrap_hold (hold, &shape, device, name, array, error))
    return TRUE;

fail:
  if (hold->memory_map)
    gst_memory_unmap (hold->map.memory, &hold->map);
  else
    gst_buffer_unmap (buffer, &hold->map);
  gst_buffer_unref (hold->buffer);
  g_free (hold);
  return FALSE;
}

gboolean
robocache_buffer_to_array (GstBuffer * buffer, GstCaps * caps,
    rc_dl_managed_tensor ** array, GError ** error)
{
  return buffer_to_array (buffer, caps, FALSE, array, error);
}

gboolean
robocache_buffer_times_to_array (GstBuffer * buffer, GstCaps * caps,
    rc_dl_managed_tensor ** array, GError ** error)
{
  return buffer_to_array (buffer, caps, TRUE, array, error);
}

gboolean
robocache_sample_array_info (GstSample * sample, RobocacheArrayInfo * info,
    GError ** error)
{
  rc_dl_managed_tensor *array;
  const rc_dl_tensor *t;
  GstBuffer *buffer;

  g_return_val_if_fail (GST_IS_SAMPLE (sample), FALSE);
  g_return_val_if_fail (info != NULL, FALSE);

  buffer = gst_sample_get_buffer (sample);
  if (!buffer) {
    g_set_error (error, ROBOCACHE_ERROR, ROBOCACHE_ERROR_INVALID,
        "the sample holds no buffer");
    return FALSE;
  }
  /* Mapping is what checks the buffer against its caps; a map of either
   * memory costs no copy and no wait. */
  if (!buffer_to_array (buffer, gst_sample_get_caps (sample), FALSE, &array,
          error))
    return FALSE;
  t = &array->dl_tensor;
  memset (info, 0, sizeof (*info));
  info->ndim = MIN (t->ndim, (gint) G_N_ELEMENTS (info->shape));
  memcpy (info->shape, t->shape, info->ndim * sizeof (gint64));
  info->dtype = t->dtype;
  info->device = t->device;
  rc_array_free (array);
  return TRUE;
}

/* ---- The pipeline's CUDA context ---------------------------------------- */

#ifdef ROBOCACHE_HAVE_CUDA
static gboolean
cuda_failed (GError ** error, const gchar * what, CUresult res)
{
  const gchar *text = NULL;

  if (CuGetErrorString (res, &text) != CUDA_SUCCESS || !text)
    text = "unknown CUDA error";
  g_set_error (error, ROBOCACHE_ERROR, ROBOCACHE_ERROR_INVALID,
      "%s failed: %s (%d)", what, text, (gint) res);
  return FALSE;
}

/* The primary context of @device, made current by the CUDA runtime and
 * read off the driver's context stack (popped, then pushed back). */
static gboolean
primary_context (gint device, CUcontext * context, GError ** error)
{
  gint previous = -1;
  rc_status ret;
  CUresult res;

  (void) rc_device_current (&previous);
  ret = rc_device_select (device);
  /* A runtime call that needs the context creates it (before CUDA 12,
   * cudaSetDevice alone does not). */
  if (ret == RC_OK)
    ret = rc_stream_synchronize (NULL);
  if (ret != RC_OK) {
    g_set_error (error, ROBOCACHE_ERROR, ROBOCACHE_ERROR_INVALID,
        "CUDA device %d cannot be made current: %s", device,
        rc_error_detail ());
    return FALSE;
  }
  res = CuCtxPopCurrent (context);
  if (res != CUDA_SUCCESS)
    return cuda_failed (error, "reading the primary CUDA context", res);
  res = CuCtxPushCurrent (*context);
  if (res != CUDA_SUCCESS)
    return cuda_failed (error, "making the primary CUDA context current", res);
  if (previous >= 0 && previous != device)
    (void) rc_device_select (previous);
  return TRUE;
}
#endif

gboolean
robocache_pipeline_use_cuda_device (GstElement * pipeline, gint device,
    GError ** error)
{
#ifdef ROBOCACHE_HAVE_CUDA
  const char *why = NULL;
  CUcontext handle = NULL;
  CUdevice cu_device;
  CUresult res;
  GstCudaContext *cuda;
  GstContext *context;
  gint n;

  g_return_val_if_fail (GST_IS_ELEMENT (pipeline), FALSE);

  if (!gst_cuda_load_library ()) {
    g_set_error (error, ROBOCACHE_ERROR, ROBOCACHE_ERROR_UNSUPPORTED,
        "the CUDA driver library (libcuda.so.1) cannot be loaded");
    return FALSE;
  }
  n = rc_device_count (&why);
  if (n <= 0 || device < 0 || device >= n) {
    g_set_error (error, ROBOCACHE_ERROR, ROBOCACHE_ERROR_INVALID,
        "CUDA device %d cannot be used: %s", device, n <= 0 ?
        (why ? why : "no CUDA device") : "no such device");
    if (n > 0)
      g_prefix_error (error, "(devices 0..%d) ", n - 1);
    return FALSE;
  }
  if (!primary_context (device, &handle, error))
    return FALSE;
  res = CuDeviceGet (&cu_device, device);
  if (res != CUDA_SUCCESS)
    return cuda_failed (error, "cuDeviceGet", res);
  cuda = gst_cuda_context_new_wrapped (handle, cu_device);
  if (!cuda) {
    g_set_error (error, ROBOCACHE_ERROR, ROBOCACHE_ERROR_INVALID,
        "GStreamer cannot wrap the primary CUDA context of device %d", device);
    return FALSE;
  }
  context = gst_context_new_cuda_context (cuda);
  gst_object_unref (cuda);
  /* A bin hands it to its children and to every element added later;
   * robocache's elements take it in set_context (gst_cuda_handle_set_context)
   * and use it instead of creating their own. */
  gst_element_set_context (pipeline, context);
  gst_context_unref (context);
  return TRUE;
#else
  g_return_val_if_fail (GST_IS_ELEMENT (pipeline), FALSE);
  g_set_error (error, ROBOCACHE_ERROR, ROBOCACHE_ERROR_UNSUPPORTED,
      "robocache was built without CUDA: no CUDA device %d (configure with "
      "-Dcuda=enabled where nvcc and gstreamer-cuda-1.0 are found)", device);
  return FALSE;
#endif
}
