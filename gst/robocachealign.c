/* Aligned samples from the appsinks of one pipeline: each buffer of a lead
 * stream (the voxel grid of a sweep) with the vectors around its time (the
 * joint states of a window) and the frame nearest it (robocache.h,
 * docs/python.md).  The streams come merged in PTS order (robocachemerge.c)
 * and are aligned here, in C, so that a Python loop sees one call per lead
 * buffer instead of one per message: RecordingDataset and the dataset
 * builder spent most of their Python time on the hundreds of joint states
 * between two sweeps. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "robocache.h"

#include <gst/app/gstappsink.h>
#include <string.h>

typedef enum
{
  INPUT_LEAD,
  INPUT_VECTORS,
  INPUT_FRAMES,
  N_INPUTS
} AlignInput;

typedef struct
{
  GstClockTime time;
  GstSample *sample;
} TimedSample;

struct _RobocacheAlign
{
  RobocacheMerge *merge;        /* over the streams given, in input order */
  AlignInput merged_as[N_INPUTS];       /* what each merged stream is */
  gint merge_index[N_INPUTS];   /* and back; -1 where not given */
  GstClockTimeDiff before;
  GstClockTimeDiff after;

  GQueue leads;                 /* TimedSample *, waiting for their context */
  GQueue frames;                /* TimedSample *, those a lead may need */

  /* The vectors kept, from index vectors_first on. */
  GArray *vector_times;         /* gint64 */
  GArray *vector_values;        /* gdouble, channels per vector */
  GArray *row;                  /* gdouble: the vector being added */
  guint vectors_first;
  guint channels;               /* 0 until the first vector */
  gchar *channel_names;         /* the first vector's, or NULL */
  GstCaps *vector_caps;         /* the caps last checked */
  rc_scalar_type vector_type;
  guint64 other_channels;       /* vectors skipped: not those channels */

  /* The time of the lead last handed out: what it needed is dropped at the
   * next call, once the caller has read it. */
  gboolean handed_out;
  GstClockTime handed_time;

  /* How far past a lead's window the streams may go before the lead is
   * handed out with what came (a drop-out), and how far they went. */
  GstClockTime patience;
  gboolean merged_any;
  GstClockTime merged_pts;

  guint64 untimed;

  /* robocache_align_write's: the resampled vectors in float64, then
   * float32 for a copy to the device. */
  GArray *resampled;
  GArray *rounded;
};

static void
timed_sample_free (gpointer data)
{
  TimedSample *timed = data;

  gst_sample_unref (timed->sample);
  g_free (timed);
}

static gboolean
is_appsink (GstElement * element)
{
  return element == NULL || GST_IS_APP_SINK (element);
}

RobocacheAlign *
robocache_align_new (GstElement * lead, GstElement * vectors,
    GstElement * frames, GstClockTimeDiff before, GstClockTimeDiff after)
{
  GstElement *given[N_INPUTS] = { lead, vectors, frames };
  GstElement *sinks[N_INPUTS];
  RobocacheAlign *align;
  guint i, n = 0;

  g_return_val_if_fail (lead != NULL, NULL);
  g_return_val_if_fail (is_appsink (lead) && is_appsink (vectors)
      && is_appsink (frames), NULL);
  g_return_val_if_fail (before <= after, NULL);

  align = g_new0 (RobocacheAlign, 1);
  for (i = 0; i < N_INPUTS; i++) {
    align->merge_index[i] = given[i] ? (gint) n : -1;
    if (given[i]) {
      align->merged_as[n] = i;
      sinks[n++] = given[i];
    }
  }
  align->merge = robocache_merge_new (sinks, n);
  align->before = before;
  align->after = after;
  align->patience = GST_SECOND;
  g_queue_init (&align->leads);
  g_queue_init (&align->frames);
  align->vector_times = g_array_new (FALSE, FALSE, sizeof (gint64));
  align->vector_values = g_array_new (FALSE, FALSE, sizeof (gdouble));
  align->row = g_array_new (FALSE, FALSE, sizeof (gdouble));
  align->resampled = g_array_new (FALSE, FALSE, sizeof (gdouble));
  align->rounded = g_array_new (FALSE, FALSE, sizeof (gfloat));
  return align;
}

void
robocache_align_free (RobocacheAlign * align)
{
  if (align == NULL)
    return;
  robocache_merge_free (align->merge);
  g_queue_clear_full (&align->leads, timed_sample_free);
  g_queue_clear_full (&align->frames, timed_sample_free);
  g_array_unref (align->vector_times);
  g_array_unref (align->vector_values);
  g_array_unref (align->row);
  g_array_unref (align->resampled);
  g_array_unref (align->rounded);
  gst_clear_caps (&align->vector_caps);
  g_free (align->channel_names);
  g_free (align);
}

void
robocache_align_set_patience (RobocacheAlign * align, GstClockTime patience)
{
  g_return_if_fail (align != NULL);
  align->patience = patience;
}

guint64
robocache_align_get_untimed (const RobocacheAlign * align)
{
  g_return_val_if_fail (align != NULL, 0);
  return align->untimed;
}

guint64
robocache_align_get_other_channels (const RobocacheAlign * align)
{
  g_return_val_if_fail (align != NULL, 0);
  return align->other_channels;
}

/* ---- the streams' contexts ------------------------------------------ */

/* Whether vectors of @caps can be kept: an error for caps the aligner
 * cannot read; *other for vectors of other channels than the first
 * vector's (a JointState naming other joints), which are skipped and
 * counted: their values would land under the first ones' names. */
static gboolean
check_vector_caps (RobocacheAlign * align, GstCaps * caps, gboolean * other,
    GError ** error)
{
  GstRobocacheVectorsInfo info;
  GError *parse_error = NULL;
  const gchar *names;

  *other = FALSE;
  if (caps == align->vector_caps)
    return TRUE;
  if (caps == NULL || gst_robocache_caps_is_cuda (caps)
      || !gst_robocache_vectors_caps_parse (caps, &info, &parse_error)
      || info.layout != GST_ROBOCACHE_VECTORS_LAYOUT_SAMPLE
      || (info.type != RC_TYPE_FLOAT32 && info.type != RC_TYPE_FLOAT64)) {
    gchar *text = caps ? gst_caps_to_string (caps) : g_strdup ("no caps");

    /* The parse error names the caps itself. */
    g_set_error (error, ROBOCACHE_ERROR, ROBOCACHE_ERROR_UNSUPPORTED,
        "the vectors stream%s%s; accepted: %s in system memory, layout "
        "sample, format float32 or float64", parse_error ? ": " : " has ",
        parse_error ? parse_error->message : text,
        GST_ROBOCACHE_VECTORS_MEDIA_TYPE);
    g_free (text);
    g_clear_error (&parse_error);
    return FALSE;
  }
  names = gst_structure_get_string (gst_caps_get_structure (caps, 0),
      "names");
  if (align->channels != 0 && (info.channels != align->channels ||
          g_strcmp0 (names, align->channel_names) != 0)) {
    *other = TRUE;
    return TRUE;
  }
  if (align->channels == 0)
    align->channel_names = g_strdup (names);
  align->channels = info.channels;
  align->vector_type = info.type;
  gst_caps_replace (&align->vector_caps, caps);
  return TRUE;
}

static guint vectors_kept (const RobocacheAlign * align);
static guint vectors_search (const RobocacheAlign * align, gint64 time,
    gboolean right);

/* Adds the vector of @sample (layout sample) to those kept, in time order:
 * a late one (a driver's stamp behind the one before) goes into its
 * place. */
static gboolean
keep_vector (RobocacheAlign * align, GstSample * sample, GstClockTime pts,
    GError ** error)
{
  GstBuffer *buffer = gst_sample_get_buffer (sample);
  gsize value_size;
  GstMapInfo map;
  gint64 time = pts;
  guint c, first;
  gboolean other;

  if (!check_vector_caps (align, gst_sample_get_caps (sample), &other, error))
    return FALSE;
  if (other) {
    align->other_channels++;
    return TRUE;
  }
  value_size = rc_scalar_type_size (align->vector_type);
  if (!gst_buffer_map (buffer, &map, GST_MAP_READ)) {
    g_set_error (error, ROBOCACHE_ERROR, ROBOCACHE_ERROR_INVALID,
        "a buffer of the vectors stream cannot be mapped for reading");
    return FALSE;
  }
  if (map.size != align->channels * value_size) {
    g_set_error (error, ROBOCACHE_ERROR, ROBOCACHE_ERROR_INVALID,
        "a buffer of the vectors stream holds %" G_GSIZE_FORMAT " bytes; "
        "accepted: one vector of %u %s values (%" G_GSIZE_FORMAT " bytes)",
        map.size, align->channels, rc_scalar_type_to_string
        (align->vector_type), align->channels * value_size);
    gst_buffer_unmap (buffer, &map);
    return FALSE;
  }
  first = align->vector_times->len;
  if (vectors_kept (align) > 0
      && time < g_array_index (align->vector_times, gint64, first - 1))
    first = align->vectors_first + vectors_search (align, time, TRUE);
  g_array_set_size (align->row, align->channels);
  for (c = 0; c < align->channels; c++) {
    gdouble *out = &g_array_index (align->row, gdouble, c);

    if (align->vector_type == RC_TYPE_FLOAT64) {
      memcpy (out, map.data + c * sizeof (gdouble), sizeof (gdouble));
    } else {
      gfloat value;

      memcpy (&value, map.data + c * sizeof (gfloat), sizeof (gfloat));
      *out = value;
    }
  }
  gst_buffer_unmap (buffer, &map);
  g_array_insert_val (align->vector_times, first, time);
  g_array_insert_vals (align->vector_values, first * align->channels,
      align->row->data, align->channels);
  return TRUE;
}

static guint
vectors_kept (const RobocacheAlign * align)
{
  return align->vector_times->len - align->vectors_first;
}

static gint64
vector_time (const RobocacheAlign * align, guint kept_index)
{
  return g_array_index (align->vector_times, gint64,
      align->vectors_first + kept_index);
}

static gboolean
input_done (const RobocacheAlign * align, AlignInput input)
{
  return align->merge_index[input] < 0
      || robocache_merge_ended (align->merge, align->merge_index[input]);
}

/* Whether the first waiting lead has all it can get: vectors up to the
 * window's end and a frame at or after its time, or the end of the
 * stream that would bring them. */
static gboolean
lead_ready (RobocacheAlign * align)
{
  TimedSample *lead = g_queue_peek_head (&align->leads);
  TimedSample *last_frame;
  gint64 time = lead->time;
  guint n = vectors_kept (align);

  /* Whatever comes now is too late for this lead: hand it out rather than
   * hold it (and the leads after it) through a long drop-out. */
  if (align->merged_any && align->patience != GST_CLOCK_TIME_NONE
      && (gint64) align->merged_pts > time + align->after
      + (gint64) MIN (align->patience, G_MAXINT64 / 4))
    return TRUE;
  if (!input_done (align, INPUT_VECTORS)
      && (n == 0 || vector_time (align, n - 1) < time + align->after))
    return FALSE;
  last_frame = g_queue_peek_tail (&align->frames);
  return input_done (align, INPUT_FRAMES)
      || (last_frame && (gint64) last_frame->time >= time);
}

/* Drops what no later lead needs: leads come in time order, so vectors
 * before the last handed-out window's start are not needed again, but the
 * one just before it is; the same for frames and the lead's time. */
static void
drop_passed (RobocacheAlign * align)
{
  gint64 time = align->handed_time;
  TimedSample *next;

  if (!align->handed_out)
    return;
  align->handed_out = FALSE;
  while (vectors_kept (align) > 1
      && vector_time (align, 1) <= time + align->before)
    align->vectors_first++;
  while ((next = g_queue_peek_nth (&align->frames, 1))
      && (gint64) next->time <= time)
    timed_sample_free (g_queue_pop_head (&align->frames));

  /* Keep the arrays from growing with the recording. */
  if (align->vectors_first > 4096
      && align->vectors_first * 2 > align->vector_times->len) {
    g_array_remove_range (align->vector_times, 0, align->vectors_first);
    g_array_remove_range (align->vector_values, 0,
        align->vectors_first * align->channels);
    align->vectors_first = 0;
  }
}

/* First kept index whose time is > @time (@right) or >= @time. */
static guint
vectors_search (const RobocacheAlign * align, gint64 time, gboolean right)
{
  guint lo = 0, hi = vectors_kept (align);

  while (lo < hi) {
    guint mid = lo + (hi - lo) / 2;
    gint64 t = vector_time (align, mid);

    if (t < time || (right && t == time))
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo;
}

static void
hand_out (RobocacheAlign * align, RobocacheAligned * out)
{
  TimedSample *lead = g_queue_pop_head (&align->leads);
  gint64 time = lead->time;
  guint n = vectors_kept (align), first, last;
  GList *l;

  memset (out, 0, sizeof (*out));
  out->lead = lead->sample;
  out->time = lead->time;
  g_free (lead);

  /* The vectors that a resampling of [time + before, time + after]
   * reads: from the last at or before its start to the first at or after
   * its end. */
  out->channels = align->channels;
  if (n > 0) {
    first = vectors_search (align, time + align->before, TRUE);
    first = first > 0 ? first - 1 : 0;
    last = MIN (vectors_search (align, time + align->after, FALSE) + 1, n);
    out->n_vectors = last - first;
    out->vector_times = &g_array_index (align->vector_times, gint64,
        align->vectors_first + first);
    out->vector_values = &g_array_index (align->vector_values, gdouble,
        (align->vectors_first + first) * align->channels);
  }

  out->frame_time = GST_CLOCK_TIME_NONE;
  for (l = align->frames.head; l; l = l->next) {
    TimedSample *frame = l->data;
    gint64 distance = ABS ((gint64) frame->time - time);

    if (out->frame == NULL
        || distance < ABS ((gint64) out->frame_time - time)) {
      out->frame = frame->sample;
      out->frame_time = frame->time;
    }
  }
  if (out->frame)
    gst_sample_ref (out->frame);

  align->handed_out = TRUE;
  align->handed_time = time;
}

/* Drops what was kept of a run that ended: a restarted pipeline's
 * streams begin again at their start, and none of it belongs with
 * them. */
static void
forget_run (RobocacheAlign * align)
{
  g_queue_clear_full (&align->frames, timed_sample_free);
  g_array_set_size (align->vector_times, 0);
  g_array_set_size (align->vector_values, 0);
  align->vectors_first = 0;
  align->channels = 0;
  g_clear_pointer (&align->channel_names, g_free);
  gst_caps_replace (&align->vector_caps, NULL);
  align->handed_out = FALSE;
  align->merged_any = FALSE;
  align->merged_pts = GST_CLOCK_TIME_NONE;
}

RobocacheAlignResult
robocache_align_next (RobocacheAlign * align, GstClockTime timeout,
    RobocacheAligned * out, GError ** error)
{
  gint64 deadline;

  g_return_val_if_fail (align != NULL && out != NULL, ROBOCACHE_ALIGN_ERROR);

  drop_passed (align);
  deadline = timeout == GST_CLOCK_TIME_NONE ? -1 :
      g_get_monotonic_time () + (gint64) MIN (timeout / GST_USECOND,
      G_MAXINT64 / 4);
  for (;;) {
    RobocacheMergeResult merged;
    GstClockTime wait = GST_CLOCK_TIME_NONE, pts;
    GstSample *sample;
    GstBuffer *buffer;
    AlignInput input;
    TimedSample *timed;
    guint index;

    if (!g_queue_is_empty (&align->leads) && lead_ready (align)) {
      hand_out (align, out);
      return ROBOCACHE_ALIGN_ITEM;
    }
    if (deadline >= 0)
      wait = MAX (deadline - g_get_monotonic_time (), 0) * GST_USECOND;
    merged = robocache_merge_next (align->merge, wait, &sample, &index);
    if (merged == ROBOCACHE_MERGE_WAITING)
      return ROBOCACHE_ALIGN_WAITING;
    if (merged == ROBOCACHE_MERGE_END) {
      /* Every stream ended: the leads still waiting get what there is. */
      if (g_queue_is_empty (&align->leads)) {
        forget_run (align);
        return ROBOCACHE_ALIGN_END;
      }
      hand_out (align, out);
      return ROBOCACHE_ALIGN_ITEM;
    }

    buffer = gst_sample_get_buffer (sample);
    pts = buffer ? GST_BUFFER_PTS (buffer) : GST_CLOCK_TIME_NONE;
    if (pts == GST_CLOCK_TIME_NONE) {
      /* No place on the timeline. */
      align->untimed++;
      gst_sample_unref (sample);
      continue;
    }
    align->merged_any = TRUE;
    align->merged_pts = pts;
    input = align->merged_as[index];
    if (input == INPUT_VECTORS) {
      gboolean kept = keep_vector (align, sample, pts, error);

      gst_sample_unref (sample);
      if (!kept)
        return ROBOCACHE_ALIGN_ERROR;
      continue;
    }
    timed = g_new (TimedSample, 1);
    timed->time = pts;
    timed->sample = sample;
    g_queue_push_tail (input == INPUT_LEAD ? &align->leads : &align->frames,
        timed);
  }
}

/* ---- an item as training tensors ------------------------------------- */

static gboolean
write_failed (GError ** error, const gchar * what, rc_status ret)
{
  const gchar *detail = rc_error_detail ();

  g_set_error (error, ROBOCACHE_ERROR, ROBOCACHE_ERROR_INVALID,
      "%s failed: %s%s%s%s", what, rc_status_message (ret),
      *detail ? " (" : "", detail, *detail ? ")" : "");
  return FALSE;
}

static rc_scalar_type
scalar_type_of (rc_dl_dtype dtype)
{
  rc_scalar_type type;
  rc_dl_dtype known;

  for (type = 0; type < RC_TYPE_INVALID; type++)
    if (rc_dl_dtype_from_scalar (type, &known) && known.code == dtype.code
        && known.bits == dtype.bits && dtype.lanes == 1)
      return type;
  return RC_TYPE_INVALID;
}

/* @sample's buffer as an array, or NULL and @error naming @what. */
static rc_dl_managed_tensor *
sample_array (GstSample * sample, const gchar * what, GError ** error)
{
  rc_dl_managed_tensor *array = NULL;

  if (!robocache_buffer_to_array (gst_sample_get_buffer (sample),
          gst_sample_get_caps (sample), &array, error)) {
    g_prefix_error (error, "the %s: ", what);
    return NULL;
  }
  return array;
}

/* Whether @out can take the lead array @t; @error if not. */
static gboolean
check_lead (const rc_dl_tensor * t, const RobocacheAlignOutput * out,
    guint64 * count, GError ** error)
{
  gboolean cuda = t->device.device_type == RC_DL_CUDA;
  gint i;

  *count = 1;
  for (i = 0; i < t->ndim; i++)
    *count *= t->shape[i];
  if (t->strides || scalar_type_of (t->dtype) == RC_TYPE_INVALID) {
    g_set_error (error, ROBOCACHE_ERROR, ROBOCACHE_ERROR_UNSUPPORTED,
        "the lead is %s; accepted: a contiguous array of a robocache "
        "scalar type (a voxel grid)", t->strides ? "strided" : "of int64");
  } else if (*count != out->lead_count) {
    g_set_error (error, ROBOCACHE_ERROR, ROBOCACHE_ERROR_INVALID,
        "the lead holds %" G_GUINT64_FORMAT " values; the output has room "
        "for %" G_GSIZE_FORMAT, *count, out->lead_count);
  } else if (cuda ? t->device.device_id != out->device : out->device >= 0) {
    g_set_error (error, ROBOCACHE_ERROR, ROBOCACHE_ERROR_UNSUPPORTED,
        "the lead is in %s memory and the outputs on %s; accepted: outputs "
        "where the lead is", cuda ? "CUDA" : "system", out->device >= 0 ?
        "a CUDA device" : "the host");
  } else {
    return TRUE;
  }
  return FALSE;
}

static gboolean
write_lead (const rc_dl_tensor * t, guint64 count,
    const RobocacheAlignOutput * out, GError ** error)
{
  rc_scalar_type type = scalar_type_of (t->dtype);
  rc_status ret = out->device >= 0 ?
      rc_to_float32_cuda (type, t->data, count, out->lead, out->stream) :
      rc_to_float32_cpu (type, t->data, count, out->lead);

  return ret == RC_OK || write_failed (error, "converting the lead to "
      "float32", ret);
}

/* Whether @out's resampling request can be met, said before anything is
 * written: the kernel's check would only say "invalid argument". */
static gboolean
check_targets (const RobocacheAlignOutput * out, GError ** error)
{
  if ((guint) out->method > RC_INTERP_CUBIC) {
    g_set_error (error, ROBOCACHE_ERROR, ROBOCACHE_ERROR_INVALID,
        "interpolation method %d is unknown; accepted: %d (RC_INTERP_LINEAR), "
        "%d (RC_INTERP_NEAREST), %d (RC_INTERP_PREVIOUS), %d "
        "(RC_INTERP_CUBIC)", out->method, RC_INTERP_LINEAR, RC_INTERP_NEAREST,
        RC_INTERP_PREVIOUS, RC_INTERP_CUBIC);
    return FALSE;
  }
  if (out->n_targets == 0 || out->targets == NULL) {
    g_set_error (error, ROBOCACHE_ERROR, ROBOCACHE_ERROR_INVALID,
        "the vectors are asked for with %s; accepted: targets holding "
        "n_targets >= 1 times (ns, host memory), or vectors = NULL",
        out->targets == NULL ? "targets = NULL" : "n_targets = 0");
    return FALSE;
  }
  return TRUE;
}

static gboolean
write_vectors (RobocacheAlign * align, const RobocacheAligned * item,
    const RobocacheAlignOutput * out, GError ** error)
{
  rc_resample_params params = { 0 };
  gsize n = (gsize) out->n_targets * item->channels;
  gfloat *rounded = out->vectors;
  rc_status ret;

  if (item->n_vectors == 0) {
    g_set_error (error, ROBOCACHE_ERROR, ROBOCACHE_ERROR_INVALID,
        "the item has no vectors to resample; accepted: vectors = NULL "
        "where n_vectors is 0");
    return FALSE;
  }
  params.batch = 1;
  params.n_source = item->n_vectors;
  params.n_target = out->n_targets;
  params.channels = item->channels;
  params.type = RC_TYPE_FLOAT64;
  params.method = out->method;
  params.edge = RC_EDGE_HOLD;
  ret = rc_resample_check (&params);
  if (ret != RC_OK)
    return write_failed (error, "resampling the vectors", ret);
  g_array_set_size (align->resampled, n);
  ret = rc_resample_cpu (&params, item->vector_times, item->vector_values,
      out->targets, align->resampled->data);
  if (ret != RC_OK)
    return write_failed (error, "resampling the vectors", ret);
  if (out->device >= 0) {
    g_array_set_size (align->rounded, n);
    rounded = (gfloat *) align->rounded->data;
  }
  rc_to_float32_cpu (RC_TYPE_FLOAT64, align->resampled->data, n, rounded);
  /* From pageable memory: staged before the call returns, so the scratch
   * may be written again at the next item. */
  ret = out->device >= 0 ? rc_device_copy_async (out->vectors, rounded,
      n * sizeof (gfloat), RC_COPY_HOST_TO_DEVICE, out->stream) : RC_OK;
  return ret == RC_OK || write_failed (error, "copying the vectors", ret);
}

/* The rows of an array whose last dimensions are packed (a frame with
 * padded rows has a row stride only). */
static gboolean
array_rows (const rc_dl_tensor * t, gsize * rows, gsize * row_size,
    gsize * pitch)
{
  gsize value = t->dtype.bits / 8;
  gint64 packed = 1;
  gint i;

  if (t->ndim < 1)
    return FALSE;
  for (i = t->ndim - 1; i >= 1; i--) {
    if (t->strides && t->strides[i] != packed)
      return FALSE;
    packed *= t->shape[i];
  }
  *rows = t->shape[0];
  *row_size = packed * value;
  *pitch = (t->strides ? t->strides[0] : packed) * value;
  return TRUE;
}

static gboolean
write_frame (const RobocacheAligned * item, const RobocacheAlignOutput * out,
    GError ** error)
{
  rc_dl_managed_tensor *array = sample_array (item->frame, "frame", error);
  const rc_dl_tensor *t;
  gsize rows, row_size, pitch;
  gboolean cuda;
  rc_copy_kind kind;
  rc_status ret = RC_ERROR_INVALID_ARGUMENT;

  if (!array)
    return FALSE;
  t = &array->dl_tensor;
  cuda = t->device.device_type == RC_DL_CUDA;
  if (!array_rows (t, &rows, &row_size, &pitch)) {
    g_set_error (error, ROBOCACHE_ERROR, ROBOCACHE_ERROR_UNSUPPORTED,
        "the frame's pixels are not packed within a row; accepted: packed "
        "formats (RGB, RGBA, GRAY8, ...)");
  } else if (rows * row_size != out->frame_size) {
    g_set_error (error, ROBOCACHE_ERROR, ROBOCACHE_ERROR_INVALID,
        "the frame holds %" G_GSIZE_FORMAT " bytes; the output has room "
        "for %" G_GSIZE_FORMAT, rows * row_size, out->frame_size);
  } else if (!cuda && out->device < 0) {
    gsize r;

    for (r = 0; r < rows; r++)
      memcpy (out->frame + r * row_size, (const guint8 *) t->data + r * pitch,
          row_size);
    ret = RC_OK;
  } else {
    if (!cuda)
      kind = RC_COPY_HOST_TO_DEVICE;
    else if (out->device < 0)
      kind = RC_COPY_DEVICE_TO_HOST;
    else if (t->device.device_id == out->device)
      kind = RC_COPY_DEVICE_TO_DEVICE;
    else
      kind = RC_COPY_BETWEEN_DEVICES;
    ret = pitch == row_size ? rc_device_copy_async (out->frame, t->data,
        out->frame_size, kind, out->stream) :
        rc_device_copy_2d_async (out->frame, row_size, t->data, pitch,
        row_size, rows, kind, out->stream);
    if (ret != RC_OK)
      write_failed (error, "copying the frame", ret);
  }
  rc_array_free (array);
  return ret == RC_OK;
}

gboolean
robocache_align_write (RobocacheAlign * align, const RobocacheAligned * item,
    const RobocacheAlignOutput * out, GError ** error)
{
  rc_dl_managed_tensor *lead = NULL;
  guint64 count = 0;
  gboolean ok;
  rc_status ret;

  g_return_val_if_fail (align != NULL && item != NULL && out != NULL, FALSE);
  g_return_val_if_fail (GST_IS_SAMPLE (item->lead), FALSE);

  if (out->frame && !item->frame) {
    g_set_error (error, ROBOCACHE_ERROR, ROBOCACHE_ERROR_INVALID,
        "the item has no frame; accepted: frame = NULL where it has none");
    return FALSE;
  }
  if (out->vectors && !check_targets (out, error))
    return FALSE;
  if (out->lead && (!(lead = sample_array (item->lead, "lead", error))
          || !check_lead (&lead->dl_tensor, out, &count, error))) {
    rc_array_free (lead);
    return FALSE;
  }
  if (out->device >= 0 && (ret = rc_device_select (out->device)) != RC_OK) {
    rc_array_free (lead);
    return write_failed (error, "selecting the outputs' CUDA device", ret);
  }
  /* The copies from pageable memory wait for the stream's earlier work,
   * so they go first and the lead's conversion, a launch, last. */
  ok = (!out->frame || write_frame (item, out, error))
      && (!out->vectors || write_vectors (align, item, out, error))
      && (!lead || write_lead (&lead->dl_tensor, count, out, error));
  rc_array_free (lead);
  return ok;
}
