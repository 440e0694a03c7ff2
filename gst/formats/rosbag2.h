/* The metadata.yaml of a rosbag2 directory: written as rosbag2 writes it
 * (format version 5, read by ROS 2 Humble and later): storage "mcap", one
 * file recorded in one piece, topics with their message counts and an
 * empty offered_qos_profiles (readers then use their defaults); and read
 * for the list of the recording's files, the one field a reader needs. */
#ifndef __ROBOCACHE_ROSBAG2_H__
#define __ROBOCACHE_ROSBAG2_H__

#include <glib.h>

G_BEGIN_DECLS typedef struct
{
  const gchar *name;
  const gchar *type;            /* "pkg/msg/Name" */
  guint64 message_count;
} RcRosbag2Topic;

/* Writes @dir/metadata.yaml for the single file @file_name (relative to
 * @dir): @start (ns since the epoch) and @duration (ns) of the messages,
 * @message_count in all.  FALSE with @error (RC_READER_ERROR_IO) if the
 * file cannot be written. */
gboolean rc_rosbag2_write_metadata (const gchar * dir,
    const gchar * file_name, guint64 start, guint64 duration,
    guint64 message_count, const RcRosbag2Topic * topics, guint n_topics,
    GError ** error);

/* The files of the rosbag2 recording in folder @dir, as its metadata.yaml
 * lists them (relative_file_paths, in their order; as block or flow
 * sequence, plain or quoted names), NULL-terminated; NULL where there is
 * no metadata.yaml or it lists no file (a recording cut off before
 * rosbag2 wrote it: the caller finds the files itself). */
gchar **rc_rosbag2_read_file_list (const gchar * dir);

G_END_DECLS
#endif
