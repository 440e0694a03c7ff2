/**
 * SECTION:element-robocachebagsrc
 * @title: robocachebagsrc
 *
 * Plays a ROS 1 bag file (format 2.0, as written by rosbag record and
 * python rosbag; chunks uncompressed, bz2 or lz4) as GStreamer streams, one
 * sometimes pad per topic, in record-time order:
 *
 * sensor_msgs/PointCloud2 as other/x-robocache-points (any point-step and
 * fields), sensor_msgs/JointState as float64 other/x-robocache-vectors
 * (positions, then velocities and efforts), sensor_msgs/Image as
 * video/x-raw: gstrobocacherosmsg.h and docs/elements.md say exactly which
 * messages play and which are skipped.
 *
 * A skipped message is warned about once per stream and reason, and counted
 * in #GstRobocacheRecordingSrc:stats.
 *
 * A message laid out otherwise than the previous one sends new caps.
 *
 * Pad src_N carries the N-th topic of #GstRobocacheRecordingSrc:topics, or with
 * topics empty the N-th supported topic in name order; its stream-start
 * stream-id ends with the topic, and a tag event sets the title tag to the
 * topic.  Topics of other types are skipped with a warning.
 *
 * Timestamps come from header.stamp (or, with timestamps=record, the time
 * the message was recorded) and are mapped to running time from the first
 * message played: that message has PTS 0 and earlier stamps are clamped to
 * 0.  A zero header.stamp (unstamped) falls back to the record time.
 *
 * A topic that falls half a second behind the newest buffer played (a
 * drop-out, a slow topic, one that starts late) gets GAP events up to a
 * quarter second behind it, each from where the topic had got to, so that
 * consumers that wait for every stream (queues bounded in time,
 * robocache_merge and the Python loaders, robocachefuse) go on.  A topic
 * not started yet gets its caps first, read ahead from the first of its
 * first 64 messages that plays (none where none does).
 *
 * The element reads the file through gst/formats/reader.h, which tells
 * the format from the first bytes: an MCAP file plays here too, but
 * robocachemcapsrc is the element meant for ROS 2 recordings (it has the
 * MCAP-specific properties); both share everything else
 * (gstrobocacherecordingsrc.h).
 *
 * Not live.  Flush seeks in TIME on any pad, at any positive rate, in
 * PAUSED or PLAYING, restart from the
 * first message recorded at or after the target (found through the bag's
 * index); with timestamps=header, messages whose stamp is before the target
 * are then dropped (this assumes, as rosbag record gives, that a message is
 * recorded after its stamp).  EOS on every pad at the end.
 *
 * Player controls (gstrobocacherecordingplay.c): start-time and stop-time
 * (the first segment, in the recording's time), rate (its rate: synced
 * sinks play that much faster), loop (each pass a new segment, running
 * time continuing) and a file:// URI handler.
 *
 * A recording cut off (rosbag record killed: no index, or an index cut
 * off or past the end) is read by scanning its chunks, as rosbag reindex
 * does: every message whole before the cut plays, a warning says how many
 * were recovered and an element message "robocache-recovered" (messages,
 * end-offset, file-size, reason) says where the usable data ends.  A bag
 * cut inside its bag header, corrupt where its index points, of another
 * version or with length fields larger than the file is an error naming
 * what is wrong; nothing is allocated from an unchecked length.
 *
 * ## Example launch line
 * |[
 * gst-launch-1.0 robocachebagsrc location=run.bag \
 *     topics=/velodyne_points,/joint_states name=b \
 *     b.src_0 ! queue ! robocachevoxelize ! f.sink_0  b.src_1 ! queue ! f.sink_1 \
 *     robocachefuse name=f rate=10/1 ! fakesink
 * ]|
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstrobocachebagsrc.h"
#include "gstrobocacheelements.h"

struct _GstRobocacheBagSrc
{
  GstRobocacheRecordingSrc parent;
};

G_DEFINE_TYPE (GstRobocacheBagSrc, gst_robocache_bag_src,
    GST_TYPE_ROBOCACHE_RECORDING_SRC);
GST_ELEMENT_REGISTER_DEFINE (robocachebagsrc, "robocachebagsrc",
    GST_RANK_NONE, GST_TYPE_ROBOCACHE_BAG_SRC);

static void
gst_robocache_bag_src_class_init (GstRobocacheBagSrcClass * klass)
{
  gst_element_class_set_static_metadata (GST_ELEMENT_CLASS (klass),
      "ROS bag source", "Source/File", "Plays the point clouds, joint "
      "states and images of a ROS 1 bag file", GST_ROBOCACHE_AUTHOR);
}

static void
gst_robocache_bag_src_init (GstRobocacheBagSrc * self)
{
}
