/* Shared by the element tests: points caps and buffers, bus helpers. */
#ifndef ROBOCACHE_ELEMENTUTIL_H
#define ROBOCACHE_ELEMENTUTIL_H

#include <gst/gst.h>
#include <string.h>

#include "gstrobocachecaps.h"

#define XYZI_CAPS GST_ROBOCACHE_POINTS_MEDIA_TYPE ", point-step=(int)16, " \
    "fields=(string)\"" GST_ROBOCACHE_FIELDS_XYZI "\""

/* A buffer of @n xyzi points from a flat float array. */
static inline GstBuffer *
xyzi_buffer (const float *xyzi, guint n, GstClockTime pts)
{
  GstBuffer *buf = gst_buffer_new_memdup (xyzi, n * 16);
  GST_BUFFER_PTS (buf) = pts;
  GST_BUFFER_DURATION (buf) = 100 * GST_MSECOND;
  return buf;
}

/* Pops the first message of @type from @bus (NULL if none is queued). */
static inline GstMessage *
pop_message (GstBus * bus, GstMessageType type)
{
  return gst_bus_pop_filtered (bus, type);
}

/* Runs @pipeline to EOS or error; returns the error message, or NULL. */
static inline GstMessage *
run_to_end (GstElement * pipeline, GstClockTime timeout)
{
  GstBus *bus = gst_element_get_bus (pipeline);
  GstMessage *msg;

  gst_element_set_state (pipeline, GST_STATE_PLAYING);
  msg = gst_bus_timed_pop_filtered (bus, timeout,
      GST_MESSAGE_EOS | GST_MESSAGE_ERROR);
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

#endif
