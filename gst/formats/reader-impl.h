/* For the formats behind reader.h, not for its users: the reader base a
 * format extends, and the byte and error helpers the format parsers
 * (robocachebag.c, ros1msg.c) share. */
#ifndef __ROBOCACHE_READER_IMPL_H__
#define __ROBOCACHE_READER_IMPL_H__

#include "reader.h"

G_BEGIN_DECLS
/* What a format does; the topic list and selection are kept by reader.c. */
typedef struct
{
  RcReaderResult (*next) (RcReader * reader, RcMessage * message,
      GError ** error);
  void (*seek) (RcReader * reader, guint64 time);
  /* Frees what the format added to the reader, not the reader itself. */
  void (*clear) (RcReader * reader);
  /* Optional: told of rc_reader_select_topic, after it (a reader of other
   * readers passes it on). */
  void (*select) (RcReader * reader, guint topic, gboolean selected);
  /* Optional: rc_reader_reopen for a reader that is not one mapped file. */
  RcReader *(*reopen) (const RcReader * reader, RcReaderFlags flags,
      GError ** error);
} RcReaderFuncs;

/* A format's reader struct starts with this. */
struct _RcReader
{
  const RcReaderFuncs *funcs;
  GArray *topics;               /* RcTopic, strings owned */
  GArray *selected;             /* gboolean per topic */
  GMappedFile *mapped;          /* the file, for rc_reader_open */
  gboolean mapped_shareable;    /* private and writable (reader.c) */
  const gchar *format_name;     /* set by reader.c */
  RcReaderRecovery recovery;    /* filled in by the format */
  /* Per topic, the definitions of its publishers (reader.c). */
  GPtrArray *definitions;
};

/* Sets up the base of a newly allocated (zeroed) format reader. */
void rc_reader_init (RcReader * reader, const RcReaderFuncs * funcs);

/* Adds a topic (strings copied) and returns its index. */
guint rc_reader_add_topic (RcReader * reader, const gchar * name,
    const gchar * type, const gchar * encoding);

/* Copies a schema into the topic (see RcTopic). */
void rc_reader_set_topic_schema (RcReader * reader, guint topic,
    const gchar * name, const gchar * encoding, const guint8 * data,
    gsize size);

/* Counts a publisher of @topic (an MCAP channel, a ROS bag connection)
 * with its definition: @key, @key_size bytes equal exactly when two
 * publishers' messages decode the same way, and @label, what names it in
 * RcTopic.definitions.  Call it for every publisher, the first too. */
void rc_reader_add_topic_definition (RcReader * reader, guint topic,
    const gchar * label, gconstpointer key, gsize key_size);

/* Adds @from's topics to @reader, as they are (counts, times, schemas
 * and definitions), all selected: a reader of the same files, made
 * without reading them again. */
void rc_reader_copy_topics (RcReader * reader, const RcReader * from);

/* The topic, for its format to fill in its counts and times. */
RcTopic *rc_reader_topic (RcReader * reader, guint topic);

gboolean rc_reader_topic_is_selected (const RcReader * reader, guint topic);

/* The index of the first of @entries, sorted by the guint64 time at
 * @time_offset in each, whose time is not before @time (their count if
 * none): where a seek to @time starts. */
gsize rc_entries_lower_bound (GArray * entries, gsize time_offset,
    guint64 time);

/* The entry at *@next of @entries or after it whose topic (the guint32 at
 * @topic_offset) is selected, *@next moved past it and @message's topic
 * and index set; NULL at the end. */
gconstpointer rc_entries_next_selected (const RcReader * reader,
    GArray * entries, gsize topic_offset, gsize * next, RcMessage * message);

/* rosbag2 compresses each message alone where it is asked to (`ros2 bag
 * record --compression-mode message`), in MCAP and SQLite storage alike:
 * its bytes are then one zstd frame.  A CDR message never starts with
 * zstd's magic (the first byte of its encapsulation header is zero), so on
 * a cdr topic that magic says so: @message then points into *@buffer (of
 * *@capacity bytes, grown as needed; g_free it), decompressed. */
gboolean rc_reader_inflate_rosbag2_message (const RcReader * reader,
    RcMessage * message, guint8 ** buffer, gsize * capacity,
    GError ** error);

/* The formats, each opening a file from memory (@data outlives the
 * reader); reader.c picks one by the file's first bytes. */
RcReader *rc_bag_reader_open (const guint8 * data, gsize size,
    RcReaderFlags flags, GError ** error);
RcReader *rc_mcap_reader_open (const guint8 * data, gsize size,
    RcReaderFlags flags, GError ** error);
RcReader *rc_sqlite_reader_open (const guint8 * data, gsize size,
    RcReaderFlags flags, GError ** error);
/* rosbag2's SQLite storage opens its file itself (sqlite-reader.c); @data
 * is its mapping, for the header, valid during the call only.  A file
 * decompressed (whole-file.c) it reads in place instead: @data, a private
 * writable mapping that outlives the reader, its header patched there. */
RcReader *rc_sqlite_reader_open_private (guint8 * data, gsize size,
    RcReaderFlags flags, GError ** error);
RcReader *rc_sqlite_reader_open_file (const gchar * path,
    const guint8 * data, gsize size, RcReaderFlags flags, GError ** error);

/* A recording file compressed whole by zstd (rosbag2's
 * --compression-mode file), decompressed into a new file in the temporary
 * folder (whole-file.c), unlinked at once: @data, @size bytes, is the file
 * at @path.  The file's descriptor (close it), or -1 with @error where the
 * frames are damaged or cut off, or would not fit the folder's free space.
 * Between rc_whole_file_keep and the last rc_whole_file_release, the last
 * files decompressed are kept, and a file opened again is not
 * decompressed again. */
gint rc_whole_file_inflate (const gchar * path, const guint8 * data,
    gsize size, GError ** error);
/* Whether @data starts as zstd's frames do. */
gboolean rc_whole_file_is_compressed (const guint8 * data, gsize size);
void rc_whole_file_keep (void);
void rc_whole_file_release (void);

/* Sets @error (if not NULL) in RC_READER_ERROR; returns FALSE, so that a
 * parser can write `return rc_reader_fail (...)`. */
gboolean rc_reader_fail (GError ** error, RcReaderError code,
    const gchar * format, ...) G_GNUC_PRINTF (3, 4);

/* Little-endian integers, as ROS 1 and MCAP write them. */
     static inline guint32 rc_get_u32 (const guint8 * p)
{
  return (guint32) p[0] | ((guint32) p[1] << 8) | ((guint32) p[2] << 16) |
      ((guint32) p[3] << 24);
}

static inline guint64
rc_get_u64 (const guint8 * p)
{
  return (guint64) rc_get_u32 (p) | ((guint64) rc_get_u32 (p + 4) << 32);
}

/* A ROS time (seconds, nanoseconds) in ns. */
static inline guint64
rc_time_ns (guint32 sec, guint32 nsec)
{
  return (guint64) sec *G_GUINT64_CONSTANT (1000000000) + nsec;
}

G_END_DECLS
#endif
