/* Encoders of the ROS 2 messages robocache writes, from the structs of
 * rosmsg.h to CDR as rmw writes it (encoding "cdr" in MCAP): the 4-byte
 * encapsulation header 00 01 00 00 (plain CDR, little-endian), then the
 * fields, each primitive aligned to its own size counted from after that
 * header (XCDR1); a string is a uint32 length including its NUL, the
 * bytes and the NUL; a sequence a uint32 count and the elements.
 *
 * Each function replaces the contents of @out with the message. */
#ifndef __ROBOCACHE_ROS2ENC_H__
#define __ROBOCACHE_ROS2ENC_H__

#include "rosmsg.h"

G_BEGIN_DECLS
    void rc_ros2_encode_point_cloud2 (GByteArray * out,
    const RcPointCloud2 * msg);
void rc_ros2_encode_joint_state (GByteArray * out, const RcJointState * msg);
void rc_ros2_encode_image (GByteArray * out, const RcImage * msg);
void rc_ros2_encode_compressed_image (GByteArray * out,
    const RcCompressedImage * msg);

G_END_DECLS
#endif
