/* The samples of several appsinks in PTS order (robocache.h): what
 * robocache.Pipeline iterates and what robocache_align builds on.  A
 * sample can only be known to come next once every stream that has not
 * ended has one waiting, so each appsink's next sample is held here until
 * its turn. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "robocache.h"

#include <gst/app/gstappsink.h>

typedef struct
{
  GstAppSink *sink;
  GstSample *head;
  GstClockTime head_pts;        /* GST_CLOCK_TIME_NONE: untimed */
  gboolean eos;
} MergeInput;

struct _RobocacheMerge
{
  MergeInput *inputs;
  guint n_inputs;
};

RobocacheMerge *
robocache_merge_new (GstElement * const *appsinks, guint n_appsinks)
{
  RobocacheMerge *merge;
  guint i;

  g_return_val_if_fail (appsinks != NULL || n_appsinks == 0, NULL);
  for (i = 0; i < n_appsinks; i++)
    g_return_val_if_fail (GST_IS_APP_SINK (appsinks[i]), NULL);

  merge = g_new0 (RobocacheMerge, 1);
  merge->inputs = g_new0 (MergeInput, n_appsinks);
  merge->n_inputs = n_appsinks;
  for (i = 0; i < n_appsinks; i++)
    merge->inputs[i].sink = GST_APP_SINK (gst_object_ref (appsinks[i]));
  return merge;
}

void
robocache_merge_free (RobocacheMerge * merge)
{
  guint i;

  if (merge == NULL)
    return;
  for (i = 0; i < merge->n_inputs; i++) {
    if (merge->inputs[i].head)
      gst_sample_unref (merge->inputs[i].head);
    gst_object_unref (merge->inputs[i].sink);
  }
  g_free (merge->inputs);
  g_free (merge);
}

gboolean
robocache_merge_ended (const RobocacheMerge * merge, guint index)
{
  g_return_val_if_fail (merge != NULL && index < merge->n_inputs, TRUE);
  return merge->inputs[index].eos;
}

static void
input_pull (MergeInput * input, GstClockTime timeout)
{
  GstSample *sample = gst_app_sink_try_pull_sample (input->sink, timeout);
  GstBuffer *buffer;

  if (sample == NULL) {
    input->eos = gst_app_sink_is_eos (input->sink);
    return;
  }
  buffer = gst_sample_get_buffer (sample);
  input->head = sample;
  input->head_pts = buffer ? GST_BUFFER_PTS (buffer) : GST_CLOCK_TIME_NONE;
}

static RobocacheMergeResult
take (RobocacheMerge * merge, guint index, GstSample ** sample, guint * out)
{
  *sample = merge->inputs[index].head;
  merge->inputs[index].head = NULL;
  *out = index;
  return ROBOCACHE_MERGE_SAMPLE;
}

RobocacheMergeResult
robocache_merge_next (RobocacheMerge * merge, GstClockTime timeout,
    GstSample ** sample, guint * index)
{
  gint64 deadline = -1;

  g_return_val_if_fail (merge != NULL && sample != NULL && index != NULL,
      ROBOCACHE_MERGE_END);

  if (timeout != GST_CLOCK_TIME_NONE)
    deadline = g_get_monotonic_time () + (gint64) MIN (timeout / GST_USECOND,
        G_MAXINT64 / 4);
  for (;;) {
    MergeInput *waiting = NULL;
    gint earliest = -1;
    gint64 now;
    guint i;

    for (i = 0; i < merge->n_inputs; i++) {
      MergeInput *input = &merge->inputs[i];

      if (input->eos)
        continue;
      if (input->head == NULL)
        input_pull (input, 0);
      if (input->head == NULL) {
        if (!input->eos && waiting == NULL)
          waiting = input;
        continue;
      }
      /* Without a time it has no place in the order: as it comes. */
      if (input->head_pts == GST_CLOCK_TIME_NONE)
        return take (merge, i, sample, index);
      if (earliest < 0 || input->head_pts < merge->inputs[earliest].head_pts)
        earliest = i;
    }
    if (waiting == NULL)
      return earliest < 0 ? ROBOCACHE_MERGE_END :
          take (merge, earliest, sample, index);
    if (deadline < 0) {
      input_pull (waiting, GST_CLOCK_TIME_NONE);
      continue;
    }
    now = g_get_monotonic_time ();
    if (now >= deadline)
      return ROBOCACHE_MERGE_WAITING;
    input_pull (waiting, (deadline - now) * GST_USECOND);
  }
}
