/* The player controls of the recording sources (gstrobocacherecordingsrc.h):
 * start-time, stop-time, rate and loop, and the file:// URI handler.  The
 * base class keeps the property values in its instance; this file installs
 * the properties, checks them, and turns them into the segment played and
 * the segment of the next pass of a loop. */
#ifndef __GST_ROBOCACHE_RECORDING_PLAY_H__
#define __GST_ROBOCACHE_RECORDING_PLAY_H__

#include <gst/gst.h>

#include "formats/reader.h"

G_BEGIN_DECLS

#define GST_ROBOCACHE_RECORDING_DEFAULT_START_TIME 0
#define GST_ROBOCACHE_RECORDING_DEFAULT_STOP_TIME GST_CLOCK_TIME_NONE
#define GST_ROBOCACHE_RECORDING_DEFAULT_RATE 1.0
#define GST_ROBOCACHE_RECORDING_DEFAULT_LOOP FALSE

/* The player settings, copied from the properties at start. */
typedef struct
{
  GstClockTime start_time;
  GstClockTime stop_time;       /* GST_CLOCK_TIME_NONE: to the end */
  gdouble rate;
  gboolean loop;
} GstRobocachePlaySettings;

/* Installs start-time, stop-time, rate and loop as the properties
 * @first_id to @first_id + 3, in that order. */
void gst_robocache_recording_play_install_properties (GObjectClass * klass,
    guint first_id);

/* The GstURIHandler interface (file:// URIs, the location property). */
void gst_robocache_recording_src_uri_handler_init (gpointer g_iface,
    gpointer iface_data);

/* FALSE, with an element error naming what is wrong and what is accepted,
 * if @settings cannot be played. */
gboolean gst_robocache_recording_play_check (GstElement * element,
    const GstRobocachePlaySettings * settings);

/* @segment (TIME, as gst_segment_init left it) made the first segment
 * played, over the whole range of the properties; set its duration after
 * this (a start-time beyond the end must play nothing, not be clamped to
 * the end as gst_segment_do_seek would). */
void gst_robocache_recording_play_segment (GstSegment * segment,
    const GstRobocachePlaySettings * settings);

/* Where one pass of a loop ends, in stream time: one period of the
 * slowest played topic after its last message (so that the next pass
 * starts one period later, as the recording would have gone on), or the
 * stop of @segment when that is earlier.  A topic is played where
 * @stream_of is >= 0; @base is the stamp of the first message (time 0);
 * @trails, per topic, how far its stamps trail its record times (NULL
 * where the messages play at their record times). */
GstClockTime gst_robocache_recording_play_pass_end (RcReader * reader,
    const gint * stream_of, const gint64 * trails, guint64 base,
    const GstSegment * segment);

/* The mean interval between messages of the played topic that comes
 * most often; 0 where none has two messages.  Where the last message
 * pushed ends, for a non-flushing seek's segment to go on after it. */
GstClockTime gst_robocache_recording_play_shortest_period (RcReader * reader,
    const gint * stream_of);

/* @segment made the segment of the next pass: the same start, stop and
 * rate, its base moved to the running time of @pass_end, so that running
 * times keep growing while the buffer times restart. */
void gst_robocache_recording_play_next_pass (GstSegment * segment,
    GstClockTime pass_end);

G_END_DECLS
#endif
