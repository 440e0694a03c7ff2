/* The base of the sources that play recordings (robocachebagsrc,
 * robocachemcapsrc): a file opened through gst/formats/reader.h, one
 * sometimes pad per topic, ROS messages made buffers by
 * gstrobocacherosmsg.h, seeking, timestamps and statistics.  A subclass
 * names the element and adds the properties of its format. */
#ifndef __GST_ROBOCACHE_RECORDING_SRC_H__
#define __GST_ROBOCACHE_RECORDING_SRC_H__

#include <gst/gst.h>

#include "formats/reader.h"

G_BEGIN_DECLS

/* Where buffer times come from. */
typedef enum
{
  GST_ROBOCACHE_BAG_TIMESTAMPS_HEADER,
  GST_ROBOCACHE_BAG_TIMESTAMPS_RECORD
} GstRobocacheBagTimestamps;

#define GST_TYPE_ROBOCACHE_BAG_TIMESTAMPS \
    (gst_robocache_bag_timestamps_get_type ())
GType gst_robocache_bag_timestamps_get_type (void);

#define GST_TYPE_ROBOCACHE_RECORDING_SRC \
    (gst_robocache_recording_src_get_type ())
#define GST_ROBOCACHE_RECORDING_SRC(obj) (G_TYPE_CHECK_INSTANCE_CAST ((obj), \
    GST_TYPE_ROBOCACHE_RECORDING_SRC, GstRobocacheRecordingSrc))
#define GST_ROBOCACHE_RECORDING_SRC_CLASS(klass) \
    (G_TYPE_CHECK_CLASS_CAST ((klass), GST_TYPE_ROBOCACHE_RECORDING_SRC, \
    GstRobocacheRecordingSrcClass))
#define GST_ROBOCACHE_RECORDING_SRC_GET_CLASS(obj) \
    (G_TYPE_INSTANCE_GET_CLASS ((obj), GST_TYPE_ROBOCACHE_RECORDING_SRC, \
    GstRobocacheRecordingSrcClass))
GType gst_robocache_recording_src_get_type (void);

typedef struct _GstRobocacheRecordingSrc GstRobocacheRecordingSrc;
typedef struct _GstRobocacheRecordingSrcClass GstRobocacheRecordingSrcClass;
typedef struct _GstRobocacheRecordingSrcPrivate GstRobocacheRecordingSrcPrivate;

struct _GstRobocacheRecordingSrc
{
  GstElement parent;

  /*< private >*/
  /* Property values, under the object lock (fields, not private data, for
   * gstrobocachefields.h). */
  gchar *location;
  gchar *topics;
  GstRobocacheBagTimestamps timestamps;
  /* The player controls (gstrobocacherecordingplay.h). */
  guint64 start_time;
  guint64 stop_time;
  gdouble rate;
  gboolean loop;

  GstRobocacheRecordingSrcPrivate *priv;
};

G_DEFINE_AUTOPTR_CLEANUP_FUNC (GstRobocacheRecordingSrc, gst_object_unref);

struct _GstRobocacheRecordingSrcClass
{
  GstElementClass parent_class;

  /* The flags the file is opened with, from the subclass's properties
   * (none when not set); called under the object lock. */
  RcReaderFlags (*reader_flags) (GstRobocacheRecordingSrc * src);
};


G_END_DECLS
#endif
