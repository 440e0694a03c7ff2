/**
 * SECTION:element-robocachemcapsrc
 * @title: robocachemcapsrc
 *
 * Plays an MCAP file as rosbag2 (ROS 2, Iron and later by default) and
 * Foxglove write it: profile "ros2", schemas "ros2msg", messages "cdr";
 * chunked or not, chunks compressed with zstd or lz4 or not at all.  One
 * sometimes pad per topic, in log-time order, with the same caps and
 * stream names as robocachebagsrc gives for the same message types:
 * sensor_msgs/msg/PointCloud2 as other/x-robocache-points (any point-step
 * and fields), sensor_msgs/msg/JointState as float64
 * other/x-robocache-vectors, sensor_msgs/msg/Image as video/x-raw.  The
 * messages are decoded through the schema the file stores (nested types,
 * arrays, strings, both CDR byte orders), not fixed offsets.  Topics of
 * other types are skipped with a warning; a message that does not match
 * its schema is an error naming it.
 *
 * Timestamps come from header.stamp or, with timestamps=log-time, from
 * the message's log_time, mapped to running time from the first message
 * as robocachebagsrc does.  Flush seeks in TIME restart at the first
 * message logged at or after the target, found through the chunk index
 * when the file has one.
 *
 * A file without a summary or index (a recording cut off when the
 * recorder was killed) is read by scanning it: every complete message is
 * played, and a warning and an element message named "robocache-recovered"
 * (fields location, format, messages, end-offset, file-size,
 * skipped-records) say how much was recovered.  CRCs are checked unless
 * #GstRobocacheMcapSrc:check-crc is off; a mismatch is an error naming the
 * offset.
 *
 * rosbag2's SQLite storage (a .db3 file, or a rosbag2 folder of them: ROS
 * 2's default up to Humble) plays the same way, its messages in receive
 * time order.  A file that rosbag2 compressed whole (--compression-mode
 * file: run_0.mcap.zstd, run_0.db3.zstd) is decompressed into a temporary
 * file in $TMPDIR and plays as the file inside.
 *
 * robocachebagsrc plays ROS 1 bags; both elements read every format
 * (found from the first bytes), this one has the MCAP properties.
 *
 * ## Example launch line
 * Plays the rosbag2 folder that robocachemcapsink's example records (its
 * default topic names: /points, /joints).
 * |[
 * gst-launch-1.0 robocachemcapsrc location=run topics=/points,/joints \
 *     name=m \
 *     m.src_0 ! queue ! robocachevoxelize ! f.sink_0  m.src_1 ! queue ! f.sink_1 \
 *     robocachefuse name=f rate=10/1 ! fakesink
 * ]|
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstrobocachemcapsrc.h"
#include "gstrobocacheelements.h"
#include "gstrobocachefields.h"

#define DEFAULT_CHECK_CRC TRUE

enum
{
  PROP_0,
  PROP_CHECK_CRC
};

struct _GstRobocacheMcapSrc
{
  GstRobocacheRecordingSrc parent;

  gboolean check_crc;           /* under the object lock */
};

G_DEFINE_TYPE (GstRobocacheMcapSrc, gst_robocache_mcap_src,
    GST_TYPE_ROBOCACHE_RECORDING_SRC);
GST_ELEMENT_REGISTER_DEFINE (robocachemcapsrc, "robocachemcapsrc",
    GST_RANK_NONE, GST_TYPE_ROBOCACHE_MCAP_SRC);

static const GstRobocacheField fields[] = {
  GST_ROBOCACHE_FIELD (PROP_CHECK_CRC, GstRobocacheMcapSrc, check_crc),
  {0}
};

static RcReaderFlags
gst_robocache_mcap_src_reader_flags (GstRobocacheRecordingSrc * src)
{
  return GST_ROBOCACHE_MCAP_SRC (src)->check_crc ? RC_READER_FLAGS_NONE :
      RC_READER_FLAG_SKIP_CRC;
}

static void
gst_robocache_mcap_src_class_init (GstRobocacheMcapSrcClass * klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  GstRobocacheRecordingSrcClass *recording_class =
      GST_ROBOCACHE_RECORDING_SRC_CLASS (klass);

  gst_robocache_fields_class_init (gobject_class, fields);
  recording_class->reader_flags = gst_robocache_mcap_src_reader_flags;

  /**
   * GstRobocacheMcapSrc:check-crc:
   *
   * Check the CRCs the file stores (chunks, data section, summary); a
   * mismatch is an error.  Off reads a file whose checksums were written
   * wrongly.  A CRC of 0 means "not written" and is never checked.
   */
  g_object_class_install_property (gobject_class, PROP_CHECK_CRC,
      g_param_spec_boolean ("check-crc", "Check CRC",
          "Check the CRCs the file stores", DEFAULT_CHECK_CRC,
          G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
          GST_PARAM_MUTABLE_READY));

  gst_element_class_set_static_metadata (GST_ELEMENT_CLASS (klass),
      "MCAP source", "Source/File", "Plays the point clouds, joint states "
      "and images of an MCAP file (ROS 2 rosbag2 recordings)",
      GST_ROBOCACHE_AUTHOR);
}

static void
gst_robocache_mcap_src_init (GstRobocacheMcapSrc * self)
{
  self->check_crc = DEFAULT_CHECK_CRC;
}
