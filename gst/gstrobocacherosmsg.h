/* ROS messages as robocache buffers and caps, for the recording sources,
 * whatever file holds them: ROS 1 messages (encoding "ros1", ros1msg.h)
 * and ROS 2 messages (encoding "cdr", decoded through the schema the file
 * stores, ros2msg.h) give the same buffers and caps:
 *
 * - sensor_msgs/PointCloud2: other/x-robocache-points with the message's
 *   own point-step and fields (ring, time and any other field kept).  A
 *   field with count > 1 is expanded into "name_0", "name_1", ...  Row
 *   padding is dropped.  A cloud whose layout the caps cannot describe is
 *   skipped: point_step 0 or above 65535, a field of unknown datatype, of
 *   count 0, ending beyond point_step or overlapping another, or x, y or z
 *   missing or of count > 1.  Big-endian clouds are skipped too.
 * - sensor_msgs/JointState: other/x-robocache-vectors, format float64,
 *   layout sample, names = the joint names: the positions, then the
 *   velocities ("name.velocity") and efforts ("name.effort") where the
 *   message has one per joint.
 * - sensor_msgs/Image: video/x-raw (rgb8, bgr8, rgba8, bgra8, mono8,
 *   mono16, 8UC1, 16UC1); other encodings are skipped.
 * - sensor_msgs/CompressedImage: image/jpeg or image/png, the encoded
 *   bytes (image_transport's compressed); compressedDepth and other
 *   codecs are skipped. */
#ifndef __GST_ROBOCACHE_ROSMSG_H__
#define __GST_ROBOCACHE_ROSMSG_H__

#include <gst/gst.h>
#include <gst/video/video.h>

#include "formats/reader.h"

G_BEGIN_DECLS

/* The types played, for messages that list them. */
#define GST_ROBOCACHE_ROS_TYPES_PLAYED "sensor_msgs/PointCloud2, " \
    "sensor_msgs/JointState, sensor_msgs/Image and sensor_msgs/CompressedImage " \
    "(ROS 1 or ROS 2)"

/* Why a well formed message cannot be played. */
typedef enum
{
  GST_ROBOCACHE_ROS_SKIP_NONE,
  /* A PointCloud2 whose point_step or fields points caps cannot describe
   * (gstrobocacherosmsg.c: points_layout_problem). */
  GST_ROBOCACHE_ROS_SKIP_POINT_LAYOUT,
  /* Big-endian clouds, other image encodings, a JointState without one
   * position per name. */
  GST_ROBOCACHE_ROS_SKIP_UNSUPPORTED,
  /* Stamped before the recording's time 0 (a clock that went back after
   * the first messages): no running time to play it at
   * (gstrobocacherecordingsrc.c). */
  GST_ROBOCACHE_ROS_SKIP_BEFORE_ORIGIN,
  GST_ROBOCACHE_ROS_SKIP_KINDS
} GstRobocacheRosSkipKind;

typedef struct
{
  GstRobocacheRosSkipKind kind;
  gchar *reason;                /* what is wrong and what is accepted */
} GstRobocacheRosSkip;

/* Turns the messages of one topic into buffers. */
typedef struct _GstRobocacheRosDecoder GstRobocacheRosDecoder;

/* Whether the messages of @topic are of a type and encoding played, all
 * of one definition (RcTopic.n_definitions). */
gboolean gst_robocache_ros_topic_is_playable (const RcTopic * topic);

/* A decoder for the messages of @topic (playable); NULL with @error set
 * when its stored schema cannot be used. */
GstRobocacheRosDecoder *gst_robocache_ros_decoder_new (const RcTopic * topic,
    GError ** error);
void gst_robocache_ros_decoder_free (GstRobocacheRosDecoder * decoder);

/* The header.stamp (ns, 0 if unstamped) of the message @data. */
gboolean gst_robocache_ros_decoder_stamp (const GstRobocacheRosDecoder *
    decoder, const guint8 * data, gsize size, guint64 * stamp,
    GError ** error);

/* The buffer (no timestamps set) and caps of the message @data; @stamp
 * gets its header.stamp (ns, 0 if unstamped).  NULL either with @error set
 * (malformed: a length or layout that does not fit) or with @skip filled
 * in (a well formed message that cannot be played: free its reason).  The
 * caller owns the buffer and caps. */
GstBuffer *gst_robocache_ros_decoder_buffer_new (const GstRobocacheRosDecoder
    * decoder, const guint8 * data, gsize size, guint64 * stamp,
    GstCaps ** caps, GstRobocacheRosSkip * skip, GError ** error);

/* Makes the buffers of @decoder come from @allocator with @params (what
 * downstream proposed for the stream; NULL: system memory), so that they
 * are written once, straight into memory the consumer wants (page-locked
 * memory for robocache's GPU elements). */
void gst_robocache_ros_decoder_set_allocator (GstRobocacheRosDecoder *
    decoder, GstAllocator * allocator, const GstAllocationParams * params);

/* @file (a reference is taken; NULL: none) holds the whole file the
 * messages are read from: clouds and frames whose bytes lie in it, laid
 * out as their caps say, are shared from it without a copy (read-only
 * memory) where downstream asked for no memory of its own. */
void gst_robocache_ros_decoder_set_file (GstRobocacheRosDecoder * decoder,
    GstMemory * file);

/* The ROS image encoding (e.g. "rgb8") of the little-endian video
 * @format, with its bytes per pixel; NULL for a format no encoding is.
 * The reverse of what the sources play, for writers. */
const gchar *gst_robocache_ros_image_encoding (GstVideoFormat format,
    guint * bpp);

G_END_DECLS
#endif
