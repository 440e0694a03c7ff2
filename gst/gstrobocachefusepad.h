/* Private to robocachefuse: its request pad, the kind of stream each
 * carries and the policies that choose what a stream says at a tick
 * (gstrobocachefusepad.c), used by the element (gstrobocachefuse.c). */
#ifndef __GST_ROBOCACHE_FUSE_PAD_H__
#define __GST_ROBOCACHE_FUSE_PAD_H__

#include "gstrobocachefuse.h"
#include "gstrobocachecaps.h"
#include "gstrobocachefusedmeta.h"
#include "gstrobocachegpu.h"

#include <gst/base/gstqueuearray.h>

G_BEGIN_DECLS

GST_DEBUG_CATEGORY_EXTERN (gst_robocache_fuse_debug);

typedef enum
{
  FUSE_POLICY_AUTO,
  FUSE_POLICY_INTERPOLATE,
  FUSE_POLICY_NEAREST,
  FUSE_POLICY_PREVIOUS
} FusePolicy;

#define GST_TYPE_ROBOCACHE_FUSE_POLICY (gst_robocache_fuse_policy_get_type ())
GType gst_robocache_fuse_policy_get_type (void);

typedef enum
{
  KIND_UNKNOWN,
  KIND_VECTORS,
  KIND_POINTS,
  KIND_VOXELS,
  KIND_SPARSE,
  KIND_VIDEO
} StreamKind;

/* What became of the buffers that arrived on a pad since start. */
typedef struct
{
  guint64 buffers;              /* accepted */
  guint64 dropped_bad_size;
  guint64 dropped_out_of_order;
  guint64 dropped_duplicate;
} FusePadStats;

/* The settings the streaming thread reads, taken at once: the application
 * may change them while playing. */
typedef struct
{
  FusePolicy policy;
  GstClockTime max_age;
  gboolean master;
} FusePadSettings;

struct _GstRobocacheFusePad
{
  GstAggregatorPad parent;

  /* Settings, under the pad's object lock. */
  gchar *stream_name;
  FusePadSettings settings;

  /* Streaming state, in the aggregator's thread. */
  GstCaps *caps;
  StreamKind kind;
  GstRobocacheVectorsInfo vectors;
  GstBuffer *prev;              /* latest buffer at or before the tick */
  GstClockTime prev_rt;
  /* Live: buffers taken from the aggregator's queue ahead of their tick
   * (FuseHeldBuffer), so that a stalled pad, which holds the ticks back
   * to their deadline, does not fill this pad's queue and block its
   * sensor; read before the queue. */
  GstQueueArray *held;
  /* Caps that came after the held buffers, applied once they are used;
   * no buffer is held past them. */
  GstCaps *pending_caps;
  StreamKind pending_kind;
  GstRobocacheVectorsInfo pending_vectors;
  guint32 segment_done_seqnum;  /* of the last SEGMENT_DONE (its seek's) */
  GstClockTime interval;        /* longest gap between buffers, drop-outs
                                 * aside */
  GstClockTime typical_interval;        /* a running mean of the gaps */
  guint dropouts_in_row;
  /* The two samples an interpolation blends, side by side (grown, never
   * shrunk: no allocation a tick); freed at finalize. */
  guint8 *blend;
  gsize blend_size;

  /* Arrival checks (the aggregator's clip, in its thread): the size a
   * buffer must have, from the caps (size_unit 0: any), and what the
   * warning says is accepted. */
  gsize size_unit;
  gboolean size_whole;          /* a whole number of units, else one */
  gboolean size_nonzero;
  gchar *size_rule;
  GSList *pending_warnings;     /* texts, posted outside the pad's lock */
  gboolean warned_size, warned_order;
  GstClockTime last_rt;         /* of the last buffer accepted */

  /* Device memory on the fuse's own device that another device's buffers
   * are copied into (gst_robocache_fuse_pad_copy_target): at most
   * FUSE_PAD_MAX_COPIES of copy_size bytes, each reused once no fused
   * frame holds it; freed at stop. */
  GPtrArray *copies;
  gsize copy_size;
  guint64 copies_unkept;        /* made beyond the bound, not kept */

  /* Under the object lock. */
  FusePadStats stats;
};

void gst_robocache_fuse_pad_apply_pending_caps (GstRobocacheFusePad * pad);

/* Forgets the pad's data: on flush and stop. */
static inline void
fuse_pad_reset (GstRobocacheFusePad * pad)
{
  gst_clear_buffer (&pad->prev);
  pad->prev_rt = GST_CLOCK_TIME_NONE;
  gst_queue_array_clear (pad->held);
  gst_robocache_fuse_pad_apply_pending_caps (pad);
  pad->interval = 0;
  pad->typical_interval = 0;
  pad->dropouts_in_row = 0;
  /* After a flush, time may go back. */
  pad->last_rt = GST_CLOCK_TIME_NONE;
}

/* The copies a pad keeps: room for the fused frames a queue and a GPU
 * consumer downstream hold at once; a tick that finds every one held
 * makes a copy it does not keep. */
#define FUSE_PAD_MAX_COPIES (2 * GST_ROBOCACHE_MAX_DEPTH)

/* A device memory of @size bytes from @gpu's allocator for a copy of this
 * pad's buffer (the context current); NULL with an error posted on
 * @element when it cannot be had. */
GstMemory *gst_robocache_fuse_pad_copy_target (GstRobocacheFusePad * pad,
    GstRobocacheGpu * gpu, GstElement * element, gsize size);
void gst_robocache_fuse_pad_free_copies (GstRobocacheFusePad * pad);

/* Forgets the counters and the warnings given: at start. */
void gst_robocache_fuse_pad_reset_stats (GstRobocacheFusePad * pad);
FusePadStats gst_robocache_fuse_pad_get_stats (GstRobocacheFusePad * pad);
GstBuffer *gst_robocache_fuse_pad_check_arrival (GstRobocacheFusePad * pad,
    GstBuffer * buf);
void gst_robocache_fuse_pad_post_warnings (GstRobocacheFusePad * pad,
    GstElement * element);

gchar *gst_robocache_fuse_pad_stream_name (GstRobocacheFusePad * pad);
FusePadSettings gst_robocache_fuse_pad_get_settings (GstRobocacheFusePad *
    pad);
gboolean gst_robocache_fuse_pad_is_flat_vector (GstRobocacheFusePad * pad);
/* The aggregator's stand-in for a GAP event: no data, no sample; the
 * stream says only that it has none before the gap's end. */
gboolean gst_robocache_fuse_pad_is_gap (GstBuffer * buf);

GstClockTime gst_robocache_fuse_pad_running_time (GstAggregatorPad * pad,
    GstBuffer * buf);
/* The pad's buffers in order, held ones first: the next with its running
 * time (NULL when there is none), taking it, and whether the stream has
 * ended with nothing left. */
GstBuffer *gst_robocache_fuse_pad_peek (GstRobocacheFusePad * pad,
    GstClockTime * rt);
GstBuffer *gst_robocache_fuse_pad_pop (GstRobocacheFusePad * pad);
gboolean gst_robocache_fuse_pad_ended (GstRobocacheFusePad * pad);
/* Live: takes the queued buffers up to @horizon (running time) out of the
 * aggregator's queue into the pad's own, and whether the queue's next
 * buffer is one it would take. */
void gst_robocache_fuse_pad_hold (GstRobocacheFusePad * pad,
    GstClockTime horizon);
gboolean gst_robocache_fuse_pad_can_hold (GstRobocacheFusePad * pad,
    GstClockTime horizon);
/* The host memory the element allocates for one fused frame from this
 * pad's caps (interpolated vectors and their flat copy; other streams are
 * referenced, not copied). */
guint64 gst_robocache_fuse_pad_frame_bytes (GstRobocacheFusePad * pad);
gboolean gst_robocache_fuse_pad_set_caps (GstRobocacheFusePad * pad,
    GstElement * element, GstCaps * caps);
GstMemory *gst_robocache_fuse_pad_sample (GstRobocacheFusePad * pad,
    GstElement * element, GstClockTime tick,
    GstRobocacheFusedStream * stream);

G_END_DECLS
#endif
