/* What the files of the formats-ros2msg test share: random messages of
 * rosmsg.h, their CDR encodings, and each file's tests. */
#ifndef __TESTS_ROS2MSG_TESTS_H__
#define __TESTS_ROS2MSG_TESTS_H__

#include "formats/ros2msg.h"
#include "cdrencoder.h"

extern const gchar extended_cloud_schema[];

gpointer random_bytes (gsize n);
void random_header (RcRosHeader * h, guint frame_len);
void encode_header (CdrEncoder * c, const RcRosHeader * h);

/* Messages of random values (a frame id of @frame_len letters); the data
 * of clouds and images is allocated along. */
void random_cloud (RcPointCloud2 * m, guint frame_len);
void free_cloud (RcPointCloud2 * m);
void random_joints (RcJointState * m, guint frame_len);
void random_image (RcImage * m, guint frame_len);

/* Their encodings, with extended_cloud_schema's extra fields or with the
 * fields of the reordered JointState schema. */
guint8 *encode_cloud (const RcPointCloud2 * m, gboolean big_endian,
    gboolean extended, gsize * size);
guint8 *encode_joints (const RcJointState * m, gboolean big_endian,
    gboolean reordered, gsize * size);
guint8 *encode_image (const RcImage * m, gboolean big_endian, gsize * size);

RcRos2Decoder *new_decoder (const gchar * type, const gchar * schema);

void add_walker_tests (void);   /* ros2msg-walker.c */
void add_schema_tests (void);   /* ros2msg-schema.c */
void add_bad_message_tests (void);      /* ros2msg-bad.c */

#endif
