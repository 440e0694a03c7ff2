/* Private to robocachemcapsink: its request pad (gstrobocachemcapsinkpad.c)
 * and what a pad's caps say and how its buffers become ROS 2 messages
 * (gstrobocachemcapsinkconvert.c), used by the element
 * (gstrobocachemcapsink.c). */
#ifndef __GST_ROBOCACHE_MCAP_SINK_PRIVATE_H__
#define __GST_ROBOCACHE_MCAP_SINK_PRIVATE_H__

#include "gstrobocachemcapsink.h"
#include "gstrobocachecaps.h"
#include "formats/rosmsg.h"

#include <gst/video/video.h>

G_BEGIN_DECLS GST_DEBUG_CATEGORY_EXTERN (gst_robocache_mcap_sink_debug);

typedef enum
{
  MCAP_KIND_NONE,
  MCAP_KIND_POINTS,
  MCAP_KIND_VOXELS,
  MCAP_KIND_VECTORS,
  MCAP_KIND_IMAGE,
  MCAP_KIND_SPARSE,
  MCAP_N_KINDS
} McapKind;

/* What a pad's caps say, as the messages need it. */
typedef struct
{
  McapKind kind;
  gchar *frame_id;              /* the caps' frame-id field, or NULL */
  /* Points: the fields as PointCloud2 has them. */
  guint n_fields;
  RcPointField *fields;
  guint32 point_step;
  /* Voxels. */
  rc_voxel_grid grid;
  guint n_features;
  gchar **feature_names;
  /* Sparse voxels or pillars. */
  GstRobocacheSparseInfo sparse;
  /* Vectors: joint names, and how many of the channels are positions,
   * velocities and efforts (in that order). */
  GstRobocacheVectorsInfo vectors;
  gchar **names;
  guint n_joints;
  gboolean has_velocity, has_effort;
  /* Images. */
  GstVideoInfo video;
  const gchar *encoding;
  guint bytes_per_pixel;
} McapFormat;

/* Parses @caps into @format (cleared first); FALSE with @error saying what
 * is wrong and what is accepted. */
gboolean mcap_format_from_caps (McapFormat * format, const GstCaps * caps,
    GError ** error);
void mcap_format_clear (McapFormat * format);

/* The ROS 2 type of the messages and the topic a pad gets by default. */
const gchar *mcap_kind_type (McapKind kind);
const gchar *mcap_kind_topic (McapKind kind);

/* Takes a message: its header.stamp (ns) and its CDR bytes. */
typedef gboolean (*McapEmitFunc) (gpointer user_data, guint64 stamp,
    GByteArray * cdr, GError ** error);

/* How a pad's buffer times become message stamps. */
typedef struct
{
  const GstSegment *segment;
  guint64 base;                 /* ns added to the running time */
  GstClockTime fallback;        /* running time for a buffer without PTS */
  const gchar *frame_id;
} McapStamp;

/* Encodes @buf as one message (or one per sample of a vectors chunk) and
 * hands each to @emit, with @scratch as the CDR buffer.  FALSE with
 * @error (a size that does not fit the caps, or @emit's error). */
gboolean mcap_format_encode (const McapFormat * format, GstBuffer * buf,
    const McapStamp * stamp, GByteArray * scratch, McapEmitFunc emit,
    gpointer user_data, GError ** error);

struct _GstRobocacheMcapSinkPad
{
  GstPad parent;

  /* Properties, under the object lock. */
  gchar *topic;
  gchar *frame_id;

  /* Streaming state, in the pad's streaming thread. */
  McapFormat format;
  GstSegment segment;
  GByteArray *scratch;
  GstClockTime last_running_time;
  gboolean warned_caps;
  gboolean warned_segment;

  /* Under the gate's lock (gstrobocachemcapsinkgate.c). */
  gboolean flushing;
  /* Under the pad's object lock: the stream time last written. */
  GstClockTime position;

  /* Under the element's write lock. */
  guint16 channel_id;           /* 0: none yet */
  McapKind channel_kind;
  gboolean eos;
};

/* What holds buffers back while the element is PAUSED
 * (gstrobocachemcapsinkgate.c). */
typedef struct
{
  GMutex lock;
  GCond cond;
  gboolean playing;
  gboolean closed;              /* going down to READY: no wait */
} McapGate;

void mcap_gate_init (McapGate * gate);
void mcap_gate_clear (McapGate * gate);
void mcap_gate_set (McapGate * gate, gboolean playing, gboolean closed);
void mcap_gate_flush (McapGate * gate, GstRobocacheMcapSinkPad * pad,
    gboolean flushing);
GstFlowReturn mcap_gate_wait (McapGate * gate, GstRobocacheMcapSinkPad * pad);

/* The name of a pad requested as @name, NULL for a name taken
 * (gstrobocachemcapsinkpad.c). */
gchar *mcap_sink_pad_name (GstElement * element, guint * next_pad,
    const gchar * name);

/* The element's send_event and query. */
gboolean mcap_sink_send_event (GstElement * element, GstEvent * event);
gboolean mcap_sink_query (GstElement * element, GstQuery * query);

G_END_DECLS
#endif
