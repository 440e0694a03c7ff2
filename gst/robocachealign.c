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
  GstCaps *vector_caps;         /* the caps last checked */
  rc_scalar_type vector_type;

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
  gst_clear_caps (&align->vector_caps);
  g_free (align);
}

void
robocache_align_set_patience (RobocacheAlign * align, GstClockTime patience)
{
  align->patience = patience;
}

guint64
robocache_align_get_untimed (const RobocacheAlign * align)
{
  return align->untimed;
}

/* ---- the streams' contexts ------------------------------------------ */

static gboolean
check_vector_caps (RobocacheAlign * align, GstCaps * caps, GError ** error)
{
  GstRobocacheVectorsInfo info;
  GError *parse_error = NULL;

  if (caps == align->vector_caps)
    return TRUE;
  if (caps == NULL || gst_robocache_caps_is_cuda (caps)
      || !gst_robocache_vectors_caps_parse (caps, &info, &parse_error)
      || info.layout != GST_ROBOCACHE_VECTORS_LAYOUT_SAMPLE
      || (info.type != RC_TYPE_FLOAT32 && info.type != RC_TYPE_FLOAT64)) {
    gchar *text = caps ? gst_caps_to_string (caps) : g_strdup ("no caps");

    g_set_error (error, ROBOCACHE_ERROR, ROBOCACHE_ERROR_UNSUPPORTED,
        "the vectors stream has %s%s%s; accepted: %s in system memory, "
        "layout sample, format float32 or float64", text,
        parse_error ? ": " : "", parse_error ? parse_error->message : "",
        GST_ROBOCACHE_VECTORS_MEDIA_TYPE);
    g_free (text);
    g_clear_error (&parse_error);
    return FALSE;
  }
  if (align->channels != 0 && info.channels != align->channels) {
    g_set_error (error, ROBOCACHE_ERROR, ROBOCACHE_ERROR_UNSUPPORTED,
        "the vectors stream changed from %u to %u channels; accepted: "
        "the same channels throughout", align->channels, info.channels);
    return FALSE;
  }
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

  if (!check_vector_caps (align, gst_sample_get_caps (sample), error))
    return FALSE;
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
      if (g_queue_is_empty (&align->leads))
        return ROBOCACHE_ALIGN_END;
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
