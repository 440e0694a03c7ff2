/* A reader of recorded robot data files, whatever their format: the topics
 * with their message types, then the serialized messages in time order.
 * GLib only, no GStreamer, so that it can be fuzzed and tested alone.
 *
 * The format is found from the file's first bytes: ROS 1 bags (format 2.0,
 * bag-reader.c), MCAP (mcap-reader.c) and rosbag2's SQLite storage
 * (sqlite-reader.c).  A format adds itself through
 * reader-impl.h.  Decoding the message bytes is not the reader's work: the
 * topic's type, encoding and schema say which decoder fits (ros1msg.h for
 * "ros1", ros2msg.h for "cdr").
 *
 * Every failure is a GError in RC_READER_ERROR saying what is wrong, with
 * the byte offset where one is known, never an abort. */
#ifndef __ROBOCACHE_READER_H__
#define __ROBOCACHE_READER_H__

#include <glib.h>

G_BEGIN_DECLS
#define RC_READER_ERROR (rc_reader_error_quark ())
    GQuark rc_reader_error_quark (void);

typedef enum
{
  RC_READER_ERROR_IO,           /* the file cannot be opened or mapped */
  RC_READER_ERROR_UNKNOWN_FORMAT,       /* no reader knows the file */
  RC_READER_ERROR_FORMAT,       /* truncated, corrupt or inconsistent */
  RC_READER_ERROR_UNSUPPORTED,  /* a version, compression or feature the
                                 * reader does not implement */
  RC_READER_ERROR_TOO_LARGE     /* above a size limit, or out of memory */
} RcReaderError;

typedef struct _RcReader RcReader;

/* One topic of the file.  A topic with several publishers (ROS bag
 * connections, MCAP channels) is listed once. */
typedef struct
{
  const gchar *name;            /* e.g. "/velodyne_points" */
  const gchar *type;            /* e.g. "sensor_msgs/PointCloud2" */
  const gchar *encoding;        /* of the message bytes, e.g. "ros1" */
  guint64 n_messages;
  guint64 first_time, last_time;        /* ns; 0 without messages */
  /* The message definition the file stores, NUL-terminated (NULL when it
   * has none): its name (e.g. "sensor_msgs/msg/PointCloud2"), encoding
   * (e.g. "ros2msg", "ros1msg") and text with its dependencies. */
  const gchar *schema_name;
  const gchar *schema_encoding;
  const gchar *schema;
  gsize schema_size;
  /* How many different definitions its publishers have: what decodes a
   * message (an MCAP channel's message encoding, schema name, encoding
   * and bytes; a ROS bag connection's type and md5sum).  1, unless the
   * file records the topic with several (one publisher's message changed
   * in between, or another message sent on the same name): the type,
   * encoding and schema above are then those of one of them only, and
   * would decode the others' messages wrongly, so such a topic is not to
   * be decoded.  @definitions then names each ("TYPE (...)", "; " between)
   * for messages; NULL when there is one. */
  guint n_definitions;
  const gchar *definitions;
} RcTopic;

/* How a file was read, for those who report it (an element message). */
typedef struct
{
  /* The file ends before its end (a recording cut off by a crash: an
   * MCAP file without its footer, a ROS bag without a usable index) and
   * was read by scanning it from the start.  A whole MCAP file read by
   * scanning because it has no index lost nothing: FALSE. */
  gboolean scanned;
  /* Messages found by that scan. */
  guint64 n_messages;
  /* Where the readable data ends (the file size when it is whole), and
   * the file size. */
  guint64 end_offset, file_size;
  /* Records skipped as the format allows (unknown record kinds). */
  guint64 n_skipped_records;
  /* Why the file was scanned and why the scan stopped where it did, or
   * NULL; owned by the reader. */
  const gchar *reason;
} RcReaderRecovery;

typedef enum
{
  RC_READER_FLAGS_NONE = 0,
  /* Do not check the CRCs the format stores (a file whose checksums were
   * written wrongly can still be read). */
  RC_READER_FLAG_SKIP_CRC = 1 << 0
} RcReaderFlags;

/* One message.  The strings and bytes belong to the reader and stay valid
 * until the next rc_reader_next, rc_reader_seek or rc_reader_free. */
typedef struct
{
  guint topic;                  /* index for rc_reader_get_topic */
  const gchar *type;            /* the topic's type */
  guint64 time;                 /* ns since the epoch: when it was recorded */
  guint64 index;                /* its place in the file's time order, all
                                 * topics counted */
  const guint8 *data;           /* the serialized message */
  gsize size;
  /* The file it was read from, where its bytes may lie and may be shared
   * (rc_reader_get_mapped_file of that file's reader), or NULL. */
  GMappedFile *mapped;
} RcMessage;

typedef enum
{
  RC_READER_OK,                 /* the message is filled in */
  RC_READER_END,                /* no message of a selected topic is left */
  RC_READER_FAILED              /* see the error; the message's topic and
                                 * index name the one that failed */
} RcReaderResult;

/* Opens the file at @path, in the format its first bytes say; a file
 * compressed whole by zstd (rosbag2's --compression-mode file) as the file
 * inside, decompressed into the temporary folder (whole-file.c).  NULL
 * with @error set if it cannot be read; free the reader with
 * rc_reader_free. */
RcReader *rc_reader_open (const gchar * path, GError ** error);

/* The files of one recording split into several (rosbag2's
 * --max-bag-size, rosbag's --split), NULL-terminated, in their order: one
 * reader of all their topics (merged by name; a name of different types
 * or schemas in different files is a topic of several definitions) and
 * all their messages, by record time (ties in file order).  Each file is
 * mapped only while its messages are read, so the reader maps no file
 * (rc_reader_get_mapped_file: NULL): each message names the mapping it
 * may lie in (RcMessage.mapped).  RcMessage.index counts the files'
 * messages one file after the other.  With one path, rc_reader_open_full. */
RcReader *rc_reader_open_files (const gchar * const *paths,
    RcReaderFlags flags, GError ** error);

/* Another reader of what @reader reads, at its start, all topics selected
 * (a look ahead that leaves @reader's position alone); NULL with @error
 * for a reader opened from memory. */
RcReader *rc_reader_reopen (const RcReader * reader, RcReaderFlags flags,
    GError ** error);

/* The same from memory; @data must outlive the reader. */
RcReader *rc_reader_open_data (const guint8 * data, gsize size,
    GError ** error);

/* rc_reader_open and rc_reader_open_data with @flags. */
RcReader *rc_reader_open_full (const gchar * path, RcReaderFlags flags,
    GError ** error);
RcReader *rc_reader_open_data_full (const guint8 * data, gsize size,
    RcReaderFlags flags, GError ** error);

/* The file the reader reads (rc_reader_open), mapped private and
 * writable; NULL for one opened from memory, or mapped read-only where a
 * writable mapping was refused.  Message bytes that lie in
 * it (those of uncompressed chunks) stay valid while it is referenced, so
 * that they can be handed on without a copy. */
GMappedFile *rc_reader_get_mapped_file (const RcReader * reader);

/* The format's name: "ROS bag", "MCAP" or "rosbag2 SQLite". */
const gchar *rc_reader_format_name (const RcReader * reader);

/* How the file was read (all zero but the sizes for a whole file). */
void rc_reader_get_recovery (const RcReader * reader,
    RcReaderRecovery * recovery);

/* Frees the reader and everything it handed out. */
void rc_reader_free (RcReader * reader);

/* The topics, in the order the file lists them; the reader owns them. */
guint rc_reader_n_topics (const RcReader * reader);
const RcTopic *rc_reader_get_topic (const RcReader * reader, guint topic);
/* The topic named @name, or NULL. */
const RcTopic *rc_reader_find_topic (const RcReader * reader,
    const gchar * name);

/* Whether rc_reader_next returns the messages of @topic (all are
 * selected after opening).  Messages of other topics are skipped without
 * being read. */
void rc_reader_select_topic (RcReader * reader, guint topic, gboolean selected);

/* The next message of a selected topic, by record time (ties in file
 * order), into @message. */
RcReaderResult rc_reader_next (RcReader * reader, RcMessage * message,
    GError ** error);

/* Makes the next message the first one recorded at or after @time (ns). */
void rc_reader_seek (RcReader * reader, guint64 time);

G_END_DECLS
#endif
