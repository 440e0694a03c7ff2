/* Private to the recording sources (gstrobocacherecordingsrc.h): the
 * instance's streams and playback state, shared by the streaming loop
 * (gstrobocacherecordingsrc.c) and the ends of a pass and seeks
 * (gstrobocacherecordingseek.c). */
#ifndef __GST_ROBOCACHE_RECORDING_SRC_PRIVATE_H__
#define __GST_ROBOCACHE_RECORDING_SRC_PRIVATE_H__

#include "gstrobocacherecordingsrc.h"
#include "gstrobocacherecordingplay.h"
#include "gstrobocacherosmsg.h"
#include "formats/reader.h"

#include <gst/base/gstflowcombiner.h>

G_BEGIN_DECLS

/* A topic that falls this far behind the newest message played gets a GAP
 * event up to half of it, so that queues bounded in time and consumers
 * that order the streams by time (robocache_merge, robocachefuse) go on
 * through its drop-outs instead of waiting for it. */
#define GAP_LAG (GST_SECOND / 2)

GST_DEBUG_CATEGORY_EXTERN (gst_robocache_recording_src_debug);

typedef struct
{
  GstPad *pad;
  gchar *topic;
  GstCaps *caps;                /* last sent */
  /* What downstream proposed for these caps (NULL: system memory). */
  GstAllocator *allocator;
  GstAllocationParams params;
  gboolean need_start;
  gboolean need_segment;
  gboolean warned[GST_ROBOCACHE_ROS_SKIP_KINDS];
  guint reader_topic;           /* its topic's index in the reader */
  /* Where the stream is known to have reached: its last buffer's PTS or
   * its last GAP's end. */
  GstClockTime position;
  gboolean peeked;              /* caps looked up ahead of its messages */
} Stream;

/* Since start, under the object lock. */
typedef struct
{
  guint64 messages;             /* pushed */
  guint64 skipped[GST_ROBOCACHE_ROS_SKIP_KINDS];
  guint64 skipped_other_types;  /* messages of topics not played */
  guint64 loops;                /* passes restarted by loop */
} Totals;

/* Built in READY->PAUSED, dropped in PAUSED->READY; the streaming task
 * and seeks use it under the stream lock of the first pad. */
typedef struct
{
  RcReader *reader;
  GPtrArray *streams;           /* Stream */
  gint *stream_of;              /* per topic: stream index or -1 */
  GstRobocacheRosDecoder **decoders;    /* per topic, NULL if not played */
  /* The file whose bytes the decoders share (the last message's: a split
   * recording's changes); the decoders hold it. */
  GMappedFile *shared;
  GstFlowCombiner *combiner;
  GstRobocacheBagTimestamps timestamps;
  guint64 base;                 /* ns: the stamp of the first message */
  /* timestamps=header: how far the played topics' stamps run ahead of
   * and behind their record times, at most (their first messages'): the
   * reader seeks and stops by record time. */
  GstClockTime stamp_lead, stamp_lag;
  /* Per topic: its first message's record time less its stamp; NULL
   * with timestamps=record. */
  gint64 *stamp_trails;
  /* How much more one topic's stamps trail than another's, and which. */
  GstClockTime stamp_spread;
  guint least_trailing, most_trailing;
  GstClockTime duration;
  GstSegment segment;
  guint32 seqnum;
  guint32 seek_seqnum;          /* of the last seek handled */
  gboolean seek_taken;          /* whether it was taken (its other pads'
                                 * copies answer the same) */
  guint group_id;               /* one group: the streams of one bag */
  gchar *location;
  gchar *stream_id_prefix;
  GstRobocachePlaySettings play;
  guint64 pass_pushed;          /* buffers pushed since the pass began */
  GstClockTime newest;          /* the latest PTS pushed in this segment */
} State;

struct _GstRobocacheRecordingSrcPrivate
{
  State state;
  Totals totals;
  /* The seqnum of an EOS sent to the element (gst-launch-1.0 -e, an
   * application ending a recording), 0 if none: the loop ends every
   * stream with it before its next message.  Atomic. */
  guint eos_seqnum;
  /* A non-flushing seek sent while the task ran, for the task to apply
   * before its next message (recording_apply_pending_seek); under the
   * object lock. */
  GstEvent *pending_seek;
  /* The pads of the last run, in order, kept on the element after it
   * stopped (referenced): the next start plays through them, so the links
   * a pipeline made (gst-launch's delayed links are made once) stay. */
  GPtrArray *kept_pads;
};

/* The streaming loop's (gstrobocacherecordingsrc.c); the task runs on the
 * first pad, seeks and the loop hold its stream lock. */
GstPad *recording_first_pad (GstRobocacheRecordingSrc * self);
/* Pushes @event (taken), numbered @seqnum, on every pad. */
void recording_push_event_all (GstRobocacheRecordingSrc * self,
    GstEvent * event, guint32 seqnum);
/* Stops the task and ends every stream with EOS. */
void recording_pause_with_eos (GstRobocacheRecordingSrc * self, GstPad * pad);
/* Reads from the segment's start again; every stream gets the new
 * segment before its next buffer or GAP. */
void recording_restart_streams (State * st);
void recording_start_task (GstRobocacheRecordingSrc * self);
/* Stream-start, caps (unless @caps is NULL) and segment, as far as they
 * are due. */
void recording_prepare_stream (GstRobocacheRecordingSrc * self, Stream * s,
    GstCaps * caps);

/* gstrobocacherecordingseek.c: the end of a pass (EOS, the next pass of
 * a loop, or SEGMENT_DONE), and the source pads' events and queries. */
void recording_end_of_pass (GstRobocacheRecordingSrc * self, GstPad * pad);
/* Applies the non-flushing seek left for the task, if any (the stream
 * lock held); TRUE if there was one. */
gboolean recording_apply_pending_seek (GstRobocacheRecordingSrc * self);
gboolean recording_src_event (GstPad * pad, GstObject * parent,
    GstEvent * event);
gboolean recording_src_query (GstPad * pad, GstObject * parent,
    GstQuery * query);

/* The origin of running time and the duration of @st's recording (its
 * played topics), and how far their stamps lie from their record times;
 * FALSE with @error if a first message cannot be read
 * (gstrobocacherecordingtime.c). */
gboolean recording_find_time_origin (State * st, GError ** error);
/* A warning when two played topics are stamped apart from their record
 * times by more than GAP_LAG more one than the other. */
void recording_warn_stamp_spread (GstRobocacheRecordingSrc * self);

G_END_DECLS
#endif /* __GST_ROBOCACHE_RECORDING_SRC_PRIVATE_H__ */
