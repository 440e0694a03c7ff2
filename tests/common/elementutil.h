/* Shared by the element tests: points caps and buffers, bus helpers. */
#ifndef ROBOCACHE_ELEMENTUTIL_H
#define ROBOCACHE_ELEMENTUTIL_H

#include <gst/app/gstappsink.h>
#include <gst/check/gstcheck.h>
#include <gst/check/gstharness.h>
#include <gst/gst.h>
#include <string.h>

#include "gstrobocachecaps.h"

#define XYZI_CAPS GST_ROBOCACHE_POINTS_MEDIA_TYPE ", point-step=(int)16, " \
    "fields=(string)\"" GST_ROBOCACHE_FIELDS_XYZI "\""

/* A buffer of @n xyzi points from a flat float array. */
static inline GstBuffer *
xyzi_buffer (const float *xyzi, guint n, GstClockTime pts)
{
  /* An empty sweep has no memory (gst_buffer_new_memdup refuses 0 bytes). */
  GstBuffer *buf = n ? gst_buffer_new_memdup (xyzi, n * 16) :
      gst_buffer_new ();
  GST_BUFFER_PTS (buf) = pts;
  GST_BUFFER_DURATION (buf) = 100 * GST_MSECOND;
  return buf;
}

/* The allocator (a new reference) and its parameters that @h's element
 * proposes for buffers of @caps_str; fails the test when it proposes none. */
static inline GstAllocator *
proposed_allocator (GstHarness * h, const gchar * caps_str,
    GstAllocationParams * params)
{
  GstCaps *caps = gst_caps_from_string (caps_str);
  GstQuery *query = gst_query_new_allocation (caps, TRUE);
  GstAllocator *allocator = NULL;

  fail_unless (gst_pad_peer_query (h->srcpad, query));
  if (gst_query_get_n_allocation_params (query) > 0)
    gst_query_parse_nth_allocation_param (query, 0, &allocator, params);
  gst_query_unref (query);
  gst_caps_unref (caps);
  fail_unless (allocator != NULL, "no allocator proposed for %s", caps_str);
  return allocator;
}

/* Whether @a and @b hold the same bytes. */
static inline gboolean
buffers_equal (GstBuffer * a, GstBuffer * b)
{
  GstMapInfo map;
  gboolean equal;

  if (gst_buffer_get_size (a) != gst_buffer_get_size (b))
    return FALSE;
  fail_unless (gst_buffer_map (b, &map, GST_MAP_READ));
  equal = gst_buffer_memcmp (a, 0, map.data, map.size) == 0;
  gst_buffer_unmap (b, &map);
  return equal;
}

/* A property set at the next ACCEPT_CAPS query a pad receives. */
typedef struct
{
  GObject *object;
  gchar *name, *value;
} PropertyAtQuery;

static inline void
property_at_query_free (gpointer data)
{
  PropertyAtQuery *set = data;

  g_object_unref (set->object);
  g_free (set->name);
  g_free (set->value);
  g_free (set);
}

static inline GstPadProbeReturn
set_property_at_accept_caps (GstPad * pad, GstPadProbeInfo * info,
    gpointer data)
{
  PropertyAtQuery *set = data;

  if (GST_QUERY_TYPE (GST_PAD_PROBE_INFO_QUERY (info)) != GST_QUERY_ACCEPT_CAPS)
    return GST_PAD_PROBE_OK;
  gst_util_set_object_arg (set->object, set->name, set->value);
  return GST_PAD_PROBE_REMOVE;
}

/* Sets @name of @object to @value (as gst-launch would) when @pad next
 * receives an ACCEPT_CAPS query: where GstBaseTransform's renegotiation
 * has made the new caps (transform_caps) and not yet configured them
 * (set_caps), a window an application's set_property from another thread
 * may fall into. */
static inline void
set_at_accept_caps (GstPad * pad, gpointer object, const gchar * name,
    const gchar * value)
{
  PropertyAtQuery *set = g_new0 (PropertyAtQuery, 1);

  set->object = g_object_ref (object);
  set->name = g_strdup (name);
  set->value = g_strdup (value);
  gst_pad_add_probe (pad, GST_PAD_PROBE_TYPE_QUERY_DOWNSTREAM,
      set_property_at_accept_caps, set, property_at_query_free);
}

/* A pad of @element, borrowed: the element keeps it. */
static inline GstPad *
pad_of (GstElement * element, const gchar * name)
{
  GstPad *pad = gst_element_get_static_pad (element, name);

  fail_unless (pad != NULL, "no pad %s", name);
  gst_object_unref (pad);
  return pad;
}

static inline GstElement *
by_name (GstElement * pipeline, const gchar * name)
{
  GstElement *e = gst_bin_get_by_name (GST_BIN (pipeline), name);

  fail_unless (e != NULL, "no element %s", name);
  gst_object_unref (e);         /* the pipeline keeps it */
  return e;
}

static inline GstMessage *
pop_message (GstBus * bus, GstMessageType type)
{
  return gst_bus_pop_filtered (bus, type);
}

/* Runs @pipeline to EOS, or to the first error or message of @also_fatal
 * (e.g. GST_MESSAGE_WARNING); returns that message, or NULL at EOS. */
static inline GstMessage *
run_to_end_or (GstElement * pipeline, GstClockTime timeout,
    GstMessageType also_fatal)
{
  GstBus *bus = gst_element_get_bus (pipeline);
  GstMessage *msg;

  gst_element_set_state (pipeline, GST_STATE_PLAYING);
  msg = gst_bus_timed_pop_filtered (bus, timeout,
      GST_MESSAGE_EOS | GST_MESSAGE_ERROR | also_fatal);
  gst_element_set_state (pipeline, GST_STATE_NULL);
  gst_object_unref (bus);
  if (msg && GST_MESSAGE_TYPE (msg) == GST_MESSAGE_EOS) {
    gst_message_unref (msg);
    return NULL;
  }
  if (!msg) {
    GError *err = g_error_new (GST_CORE_ERROR, GST_CORE_ERROR_FAILED,
        "no EOS or error before the timeout");
    msg = gst_message_new_error (NULL, err, "timeout");
    g_error_free (err);
  }
  return msg;
}

/* Before caps, a live @factory source reports one period of its rate
 * property as its minimum latency and no maximum: GstBaseSrc's own answer
 * (a maximum of 0) made an aggregator downstream (robocachefuse) warn that
 * it could not configure its latency.  A new rate posts a LATENCY message
 * so that the pipeline asks again. */
static inline void
check_latency_before_caps (const gchar * factory)
{
  GstElement *src = gst_element_factory_make (factory, NULL);
  GstPad *pad = gst_element_get_static_pad (src, "src");
  GstBus *bus = gst_bus_new ();
  GstQuery *query = gst_query_new_latency ();
  gboolean live = FALSE;
  GstClockTime min = 1, max = 0;
  GstMessage *msg;

  gst_element_set_bus (src, bus);
  g_object_set (src, "is-live", TRUE, "rate", 25, 1, NULL);
  gst_element_set_state (src, GST_STATE_READY);
  fail_unless (gst_pad_query (pad, query));
  gst_query_parse_latency (query, &live, &min, &max);
  fail_unless (live);
  fail_unless_equals_clocktime (min, 40 * GST_MSECOND);
  fail_unless_equals_clocktime (max, GST_CLOCK_TIME_NONE);
  fail_if (gst_bus_pop_filtered (bus, GST_MESSAGE_LATENCY));

  g_object_set (src, "rate", 50, 1, NULL);
  msg = gst_bus_pop_filtered (bus, GST_MESSAGE_LATENCY);
  fail_unless (msg != NULL, "no LATENCY message for a new rate");
  gst_message_unref (msg);
  fail_unless (gst_pad_query (pad, query));
  gst_query_parse_latency (query, &live, &min, &max);
  fail_unless_equals_clocktime (min, 20 * GST_MSECOND);
  /* The same rate again: nothing changed, nothing posted. */
  g_object_set (src, "rate", 50, 1, NULL);
  fail_if (gst_bus_pop_filtered (bus, GST_MESSAGE_LATENCY));

  gst_query_unref (query);
  gst_element_set_state (src, GST_STATE_NULL);
  gst_element_set_bus (src, NULL);
  gst_object_unref (bus);
  gst_object_unref (pad);
  gst_object_unref (src);
}

/* @object's property @name as gst-launch writes it, to be freed. */
static inline gchar *
property_string (GObject * object, const gchar * name)
{
  GParamSpec *pspec = g_object_class_find_property (G_OBJECT_GET_CLASS
      (object), name);
  GValue value = G_VALUE_INIT;
  gchar *text;

  fail_unless (pspec != NULL, "no property %s", name);
  g_value_init (&value, pspec->value_type);
  g_object_get_property (object, name, &value);
  text = gst_value_serialize (&value);
  g_value_unset (&value);
  /* A NULL string serializes to NULL. */
  return text ? text : g_strdup ("NULL");
}

/* @value, a string gst-launch takes for @object's property @name, as
 * property_string() writes it back. */
static inline gchar *
property_value_string (GObject * object, const gchar * name,
    const gchar * value)
{
  GParamSpec *pspec = g_object_class_find_property (G_OBJECT_GET_CLASS
      (object), name);
  GValue parsed = G_VALUE_INIT;
  gchar *text;

  g_value_init (&parsed, pspec->value_type);
  fail_unless (gst_value_deserialize_with_pspec (&parsed, value, pspec),
      "%s is no value of %s", value, name);
  text = gst_value_serialize (&parsed);
  g_value_unset (&parsed);
  return text ? text : g_strdup ("NULL");
}

/* Sets @object's property @name, which gst-inspect says is changeable only
 * in NULL or READY, to @value while its element (a pad's parent) is past
 * READY: the change is refused with a warning, and the property keeps the
 * value it had, the one running. */
static inline void
check_set_refused (GObject * object, const gchar * name, const gchar * value)
{
  GParamSpec *pspec = g_object_class_find_property (G_OBJECT_GET_CLASS
      (object), name);
  gchar *before, *wanted, *after;

  fail_unless (pspec && (pspec->flags & GST_PARAM_MUTABLE_READY),
      "%s is not flagged changeable only in NULL or READY", name);
  before = property_string (object, name);
  wanted = property_value_string (object, name, value);
  fail_if (g_str_equal (before, wanted), "%s is %s already", name, wanted);
  ASSERT_WARNING (gst_util_set_object_arg (object, name, value));
  after = property_string (object, name);
  fail_unless_equals_string (after, before);
  g_free (before);
  g_free (wanted);
  g_free (after);
}

/* Sets @object's property @name to @value where it may change: taken.
 * Past READY gst-inspect must say so (changeable in PLAYING state). */
static inline void
check_set_taken (GObject * object, const gchar * name, const gchar * value)
{
  GParamSpec *pspec = g_object_class_find_property (G_OBJECT_GET_CLASS
      (object), name);
  GstElement *element = GST_IS_PAD (object) ?
      gst_pad_get_parent_element (GST_PAD (object)) :
      GST_ELEMENT (gst_object_ref (object));
  gchar *wanted = property_value_string (object, name, value), *after;

  if (element && GST_STATE (element) > GST_STATE_READY)
    fail_unless (pspec->flags & GST_PARAM_MUTABLE_PLAYING, "%s is set in "
        "%s but not flagged changeable while playing", name,
        gst_element_state_get_name (GST_STATE (element)));
  gst_clear_object (&element);
  gst_util_set_object_arg (object, name, value);
  after = property_string (object, name);
  fail_unless_equals_string (after, wanted);
  g_free (wanted);
  g_free (after);
}

/* Stops @element (READY: where a property read at start may change), then
 * sets @object's property @name to @value: taken. */
static inline void
check_set_taken_stopped (GstElement * element, GObject * object,
    const gchar * name, const gchar * value)
{
  fail_unless_equals_int (gst_element_set_state (element, GST_STATE_READY),
      GST_STATE_CHANGE_SUCCESS);
  check_set_taken (object, name, value);
}

/* Runs @pipeline to EOS or error; returns the error message, or NULL. */
static inline GstMessage *
run_to_end (GstElement * pipeline, GstClockTime timeout)
{
  return run_to_end_or (pipeline, timeout, 0);
}

/* Plays @pipeline (taken) to EOS (TRUE) or an error (FALSE). */
static inline gboolean
play_to_end (GstElement * pipeline)
{
  GstBus *bus = gst_element_get_bus (pipeline);
  GstMessage *msg;
  gboolean eos;

  gst_element_set_state (pipeline, GST_STATE_PLAYING);
  msg = gst_bus_timed_pop_filtered (bus, 60 * GST_SECOND,
      GST_MESSAGE_EOS | GST_MESSAGE_ERROR);
  fail_unless (msg != NULL, "neither EOS nor error");
  eos = GST_MESSAGE_TYPE (msg) == GST_MESSAGE_EOS;
  gst_message_unref (msg);
  gst_element_set_state (pipeline, GST_STATE_NULL);
  gst_object_unref (bus);
  gst_object_unref (pipeline);
  return eos;
}

/* Every pipeline a test tracked, stopped by stop_tracked_pipelines (a
 * checked fixture's teardown) also when the test failed: without fork
 * (CUDA tests), a pipeline left playing would keep its threads, which
 * gst-check waits for, forever. */
static GPtrArray *tracked_pipelines;

static inline GstElement *
tracked (GstElement * pipeline)
{
  if (!tracked_pipelines)
    tracked_pipelines = g_ptr_array_new_with_free_func (gst_object_unref);
  g_ptr_array_add (tracked_pipelines, gst_object_ref (pipeline));
  return pipeline;
}

/* Stops tracking @pipeline, which the caller has set to NULL.  A stopped
 * pipeline keeps the persistent GstContexts set on it and its elements,
 * and so their CUDA contexts: those then go with the caller's reference
 * instead of living on to the end of the test beside the next pipeline's
 * (where compute-sanitizer's initcheck no longer sees copies between
 * devices write: docs/bench/run207/README.md). */
static inline void
untrack (GstElement * pipeline)
{
  if (tracked_pipelines)
    g_ptr_array_remove_fast (tracked_pipelines, pipeline);
}

static inline void
stop_tracked_pipelines (void)
{
  for (guint i = 0; tracked_pipelines && i < tracked_pipelines->len; i++)
    gst_element_set_state (tracked_pipelines->pdata[i], GST_STATE_NULL);
  if (tracked_pipelines)
    g_ptr_array_set_size (tracked_pipelines, 0);
}

/* The bytes of the first buffer that @launch's appsink "s" gets, and its
 * caps in @caps (may be NULL; the caller unrefs them). */
static inline GBytes *
first_buffer_bytes (const gchar * launch, GstCaps ** caps)
{
  GstElement *p = gst_parse_launch (launch, NULL);
  GstElement *sink;
  GstSample *sample;
  GstMapInfo map;
  GBytes *bytes;

  fail_unless (p != NULL, "%s", launch);
  sink = gst_bin_get_by_name (GST_BIN (p), "s");
  fail_unless (sink != NULL, "%s: no appsink named s", launch);
  gst_element_set_state (p, GST_STATE_PLAYING);
  sample = gst_app_sink_try_pull_sample (GST_APP_SINK (sink), 20 * GST_SECOND);
  fail_unless (sample != NULL, "%s", launch);
  fail_unless (gst_buffer_map (gst_sample_get_buffer (sample), &map,
          GST_MAP_READ));
  bytes = g_bytes_new (map.data, map.size);
  gst_buffer_unmap (gst_sample_get_buffer (sample), &map);
  if (caps)
    *caps = gst_caps_ref (gst_sample_get_caps (sample));
  gst_sample_unref (sample);
  gst_object_unref (sink);
  gst_element_set_state (p, GST_STATE_NULL);
  gst_object_unref (p);
  return bytes;
}

/* Plays @pipeline, whose appsink "sink" holds one buffer at a time, to
 * EOS and returns every buffer's bytes (host copies); fails, naming
 * @what, on an error or without EOS.  The pipeline is left in NULL. */
static inline GPtrArray *
pull_all_bytes (GstElement * pipeline, const gchar * what)
{
  GstElement *sink = gst_bin_get_by_name (GST_BIN (pipeline), "sink");
  GPtrArray *out = g_ptr_array_new_with_free_func ((GDestroyNotify)
      g_bytes_unref);
  GstBus *bus = gst_element_get_bus (pipeline);
  GstSample *sample;
  GstMessage *msg;
  gboolean eos;

  fail_unless (sink != NULL, "%s: no appsink named sink", what);
  gst_element_set_state (pipeline, GST_STATE_PLAYING);
  while ((sample = gst_app_sink_try_pull_sample (GST_APP_SINK (sink),
              60 * GST_SECOND))) {
    GstMapInfo map;

    fail_unless (gst_buffer_map (gst_sample_get_buffer (sample), &map,
            GST_MAP_READ));
    g_ptr_array_add (out, g_bytes_new (map.data, map.size));
    gst_buffer_unmap (gst_sample_get_buffer (sample), &map);
    gst_sample_unref (sample);
  }
  msg = gst_bus_pop_filtered (bus, GST_MESSAGE_ERROR);
  eos = gst_app_sink_is_eos (GST_APP_SINK (sink));
  /* Stopped before any failure: without fork (CUDA tests), a pipeline left
   * playing keeps its threads, which gst-check waits for at exit. */
  fail_unless_equals_int (gst_element_set_state (pipeline, GST_STATE_NULL),
      GST_STATE_CHANGE_SUCCESS);
  if (msg) {
    GError *err = NULL;

    gst_message_parse_error (msg, &err, NULL);
    fail ("%s: %s", what, err->message);
  }
  fail_unless (eos, "%s: no EOS", what);
  gst_object_unref (bus);
  gst_object_unref (sink);
  return out;
}

/* Parses @description (which must parse and link) and plays it. */
static inline gboolean
run_pipeline (const gchar * description)
{
  GError *error = NULL;
  GstElement *pipeline = gst_parse_launch (description, &error);

  /* Parsing fails without GStreamer's core elements (fakesink). */
  fail_unless (error == NULL, "%s: %s", description,
      error ? error->message : "");
  fail_unless (GST_IS_PIPELINE (pipeline));
  return play_to_end (pipeline);
}

/* Parses and plays @launch to EOS (NULL) or its first error, whose text
 * it returns (the caller frees it), checking that the error is a memory
 * refusal when @memory. */
static inline gchar *
launch_error (const gchar * launch, gboolean memory)
{
  GstElement *pipeline = gst_parse_launch (launch, NULL);
  GstMessage *msg;
  GError *err = NULL;
  gchar *text;

  fail_unless (pipeline != NULL, "cannot parse %s", launch);
  msg = run_to_end (pipeline, 60 * GST_SECOND);
  gst_object_unref (pipeline);
  if (!msg)
    return NULL;
  gst_message_parse_error (msg, &err, NULL);
  if (memory)
    fail_unless (g_error_matches (err, GST_RESOURCE_ERROR,
            GST_RESOURCE_ERROR_NO_SPACE_LEFT), "%s: %s", launch, err->message);
  text = g_strdup (err->message);
  g_error_free (err);
  gst_message_unref (msg);
  return text;
}

/* The memory limit checks (gst/gstrobocachememory.h) of the element in
 * @launch_format, whose one %s takes its max-memory property: at 100
 * bytes it is refused, saying how much it needs ("set its max-memory
 * property to at least N"); raised to each amount named (negotiation's
 * first, then, where a sweep's scratch grows with its points, what its
 * first buffer needs), it plays to EOS at the last, and one byte below
 * that it is refused again.  Returns how many refusals it took to get
 * there. */
static inline guint
check_max_memory (const gchar * launch_format)
{
  const gchar *key = "set its max-memory property to at least ";
  guint64 max = 100, need;
  guint refusals = 0;
  gchar *launch, *text, *set;
  const gchar *at;

  for (;;) {
    set = g_strdup_printf ("max-memory=%" G_GUINT64_FORMAT, max);
    launch = g_strdup_printf (launch_format, set);
    text = launch_error (launch, TRUE);
    g_free (set);
    if (!text) {
      g_free (launch);
      break;
    }
    at = strstr (text, key);
    fail_unless (at != NULL, "%s: %s", launch, text);
    fail_unless (refusals > 0 || strstr (text,
            "above the 100 the element is allowed"), "%s", text);
    need = g_ascii_strtoull (at + strlen (key), NULL, 10);
    fail_unless (need > max, "%s: %s", launch, text);
    fail_unless (++refusals < 4, "%s: refused again: %s", launch, text);
    max = need;
    g_free (text);
    g_free (launch);
  }
  fail_unless (refusals > 0);
  set = g_strdup_printf ("max-memory=%" G_GUINT64_FORMAT, max - 1);
  launch = g_strdup_printf (launch_format, set);
  text = launch_error (launch, TRUE);
  fail_unless (text && strstr (text, key), "%s: %s", launch, text);
  g_free (text);
  g_free (launch);
  g_free (set);
  return refusals;
}

#endif
