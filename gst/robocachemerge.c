/* The samples of several appsinks in PTS order (robocache.h): what
 * robocache.Pipeline iterates and what robocache_align builds on.  A
 * sample can only be known to come next once every stream that has not
 * ended has one waiting, or has said with a GAP event that it has nothing
 * before it (the recording sources do so for topics that fall behind), so
 * each appsink's next sample is held here until its turn.
 *
 * gst_app_sink_is_eos () is also TRUE for an appsink that is not started
 * (before the pipeline leaves READY, or after it went back), so an input
 * counts as ended when its appsink runs and says EOS, or when it stops
 * after it ran (its stream is over: a node stopping its pipeline from
 * another thread ends a wait without a timeout); one not started yet is
 * waited for.  An ended input stays ended until its appsink runs a new
 * stream (the pipeline restarted, or a flushing seek), and then takes
 * part again. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "robocache.h"

#include <gst/app/gstappsink.h>

/* How often a wait for an appsink that is not started looks again. */
#define POLL_US 5000

typedef struct
{
  GstAppSink *sink;
  GstSample *head;
  GstClockTime head_pts;        /* GST_CLOCK_TIME_NONE: untimed */
  /* The end of the last GAP: no buffer before it is to come. */
  GstClockTime reached;
  gboolean eos;
  gboolean ran;                 /* its appsink ran since it last stopped */
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
  for (i = 0; i < n_appsinks; i++) {
    merge->inputs[i].sink = GST_APP_SINK (gst_object_ref (appsinks[i]));
    merge->inputs[i].reached = GST_CLOCK_TIME_NONE;
  }
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

typedef enum
{
  SINK_STOPPED,                 /* below PAUSED, or on its way down there */
  SINK_STARTING,                /* on its way up to PAUSED */
  SINK_RUNNING                  /* PAUSED or PLAYING */
} SinkRun;

static SinkRun
sink_run (GstAppSink * sink)
{
  GstState current, pending;

  GST_OBJECT_LOCK (sink);
  current = GST_STATE (sink);
  pending = GST_STATE_PENDING (sink);
  GST_OBJECT_UNLOCK (sink);
  if (pending != GST_STATE_VOID_PENDING && pending < GST_STATE_PAUSED)
    return SINK_STOPPED;
  if (current >= GST_STATE_PAUSED)
    return SINK_RUNNING;
  return pending != GST_STATE_VOID_PENDING ? SINK_STARTING : SINK_STOPPED;
}

/* Whether @sink's stream reached EOS with its queue drained: is_eos while
 * the sink runs, before and after, so that an appsink stopped or not yet
 * started (is_eos TRUE as well) is not taken for one that ended. */
static gboolean
sink_ended (GstAppSink * sink)
{
  return sink_run (sink) == SINK_RUNNING && gst_app_sink_is_eos (sink)
      && sink_run (sink) == SINK_RUNNING;
}

/* Follows the appsink's restarts: a stopped appsink flushed its stream, so
 * what is held of it goes too, and one that ran has ended; an ended input
 * whose appsink runs a new stream takes part again. */
static void
input_follow (MergeInput * input)
{
  SinkRun run = sink_run (input->sink);

  if (run == SINK_STOPPED) {
    /* An ended input stays ended while stopped: END until a restart. */
    if (!input->eos) {
      g_clear_pointer (&input->head, gst_sample_unref);
      input->reached = GST_CLOCK_TIME_NONE;
      input->eos = input->ran;
    }
    input->ran = FALSE;
    return;
  }
  if (run == SINK_RUNNING)
    input->ran = TRUE;
  if (input->eos && (run == SINK_STARTING
          || !gst_app_sink_is_eos (input->sink))) {
    input->eos = FALSE;
    input->reached = GST_CLOCK_TIME_NONE;
  }
}

/* Takes the appsink's next sample as the head, or the GAP events and
 * other serialized events before it, waiting up to @timeout for the
 * first. */
static void
input_pull (MergeInput * input, GstClockTime timeout)
{
  for (;;) {
    GstMiniObject *object = gst_app_sink_try_pull_object (input->sink,
        timeout);
    GstClockTime start, duration;
    GstBuffer *buffer;

    if (object == NULL) {
      input->eos = sink_ended (input->sink);
      return;
    }
    if (GST_IS_SAMPLE (object)) {
      buffer = gst_sample_get_buffer (GST_SAMPLE (object));
      input->head = GST_SAMPLE (object);
      input->head_pts = buffer ? GST_BUFFER_PTS (buffer) : GST_CLOCK_TIME_NONE;
      return;
    }
    if (GST_IS_EVENT (object) && GST_EVENT_TYPE (object) == GST_EVENT_GAP) {
      gst_event_parse_gap (GST_EVENT (object), &start, &duration);
      if (GST_CLOCK_TIME_IS_VALID (start))
        input->reached = start + (GST_CLOCK_TIME_IS_VALID (duration) ?
            duration : 0);
    }
    gst_mini_object_unref (object);
    /* What came with it, but no more waiting. */
    timeout = 0;
  }
}

/* Whether @input, which has no sample waiting, may still bring one before
 * @pts. */
static gboolean
may_come_before (const MergeInput * input, GstClockTime pts)
{
  return !GST_CLOCK_TIME_IS_VALID (input->reached) || input->reached <= pts;
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

      input_follow (input);
      if (input->eos)
        continue;
      if (input->head == NULL)
        input_pull (input, 0);
      if (input->head == NULL)
        continue;
      /* Without a time it has no place in the order: as it comes. */
      if (input->head_pts == GST_CLOCK_TIME_NONE)
        return take (merge, i, sample, index);
      if (earliest < 0 || input->head_pts < merge->inputs[earliest].head_pts)
        earliest = i;
    }
    for (i = 0; i < merge->n_inputs && waiting == NULL; i++) {
      MergeInput *input = &merge->inputs[i];

      if (!input->eos && input->head == NULL && (earliest < 0
              || may_come_before (input, merge->inputs[earliest].head_pts)))
        waiting = input;
    }
    if (waiting == NULL)
      return earliest < 0 ? ROBOCACHE_MERGE_END :
          take (merge, earliest, sample, index);
    now = g_get_monotonic_time ();
    if (deadline >= 0 && now >= deadline)
      return ROBOCACHE_MERGE_WAITING;
    if (sink_run (waiting->sink) != SINK_RUNNING) {
      /* A stopped or starting appsink returns from a pull at once: poll
       * until it runs. */
      g_usleep (deadline < 0 ? POLL_US : MIN (POLL_US, deadline - now));
      continue;
    }
    input_pull (waiting, deadline < 0 ? GST_CLOCK_TIME_NONE :
        (GstClockTime) (deadline - now) * GST_USECOND);
  }
}
