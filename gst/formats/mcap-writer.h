/* An MCAP writer (https://mcap.dev/spec, major version 0), GLib only.
 *
 * The file is: magic, Header, then the data section: Schema and Channel
 * records as they are added, and Chunks of Message records, each chunk
 * followed by its MessageIndex records; on finish DataEnd (with the data
 * section's CRC), the summary (schemas, channels, Statistics, ChunkIndex
 * records), the SummaryOffset records, the Footer and the magic again.
 *
 * A chunk is written with one write, together with its message indexes,
 * once its uncompressed records reach the chunk size, and on finish: a file
 * whose writer died mid-recording holds every chunk closed before, readable
 * by scanning the data section.  Memory is bounded by one chunk (or one
 * message, when a message is larger than the chunk size) plus an index
 * entry per chunk.
 *
 * Every failure is a GError in RC_READER_ERROR (IO for the file system,
 * FORMAT for a misuse such as an unknown channel); after an I/O error the
 * writer refuses everything but rc_mcap_writer_free. */
#ifndef __ROBOCACHE_MCAP_WRITER_H__
#define __ROBOCACHE_MCAP_WRITER_H__

#include <glib.h>

G_BEGIN_DECLS typedef enum
{
  RC_MCAP_COMPRESSION_ZSTD,
  RC_MCAP_COMPRESSION_LZ4,
  RC_MCAP_COMPRESSION_NONE
} RcMcapCompression;

/* 1 MiB of uncompressed records: large enough for zstd to compress well
 * and for few index entries, small enough that a crash loses little. */
#define RC_MCAP_DEFAULT_CHUNK_SIZE (1024 * 1024)

typedef struct _RcMcapWriter RcMcapWriter;

/* Creates (or truncates) @path and writes the magic and the Header
 * (@profile, e.g. "ros2", and library "robocache").  @chunk_size: bytes of
 * uncompressed records after which a chunk is closed (at least 1). */
RcMcapWriter *rc_mcap_writer_new (const gchar * path, const gchar * profile,
    RcMcapCompression compression, gsize chunk_size, GError ** error);

/* Adds a schema (@encoding e.g. "ros2msg", @data its text) and writes its
 * record; *@id gets its id (1, 2, ...). */
gboolean rc_mcap_writer_add_schema (RcMcapWriter * writer,
    const gchar * name, const gchar * encoding, const gchar * data,
    gsize size, guint16 * id, GError ** error);

/* Adds a channel of schema @schema_id (0: none) and writes its record;
 * @metadata: NULL or a NULL-terminated list of key, value pairs.  *@id
 * gets its id (1, 2, ...). */
gboolean rc_mcap_writer_add_channel (RcMcapWriter * writer,
    const gchar * topic, const gchar * message_encoding, guint16 schema_id,
    const gchar * const *metadata, guint16 * id, GError ** error);

/* Appends a message to the current chunk, writing the chunk out when it
 * is full.  Times are ns since the epoch. */
gboolean rc_mcap_writer_write_message (RcMcapWriter * writer,
    guint16 channel_id, guint32 sequence, guint64 log_time,
    guint64 publish_time, const guint8 * data, gsize size, GError ** error);

/* Writes out the current chunk now (nothing if it is empty). */
gboolean rc_mcap_writer_flush (RcMcapWriter * writer, GError ** error);

/* Closes the last chunk and writes DataEnd, the summary, the summary
 * offsets, the Footer and the magic, then closes the file.  Only
 * rc_mcap_writer_free may follow. */
gboolean rc_mcap_writer_finish (RcMcapWriter * writer, GError ** error);

/* What was written, for a rosbag2 metadata.yaml: messages in all, per
 * channel (0 for an unknown id) and the log time range (0, 0 without
 * messages). */
guint64 rc_mcap_writer_message_count (const RcMcapWriter * writer);
guint64 rc_mcap_writer_channel_message_count (const RcMcapWriter * writer,
    guint16 channel_id);
void rc_mcap_writer_time_range (const RcMcapWriter * writer,
    guint64 * start, guint64 * end);

/* Closes the file without finishing it (the chunks written so far stay
 * readable by a scan) and frees the writer.  NULL is accepted. */
void rc_mcap_writer_free (RcMcapWriter * writer);

G_END_DECLS
#endif
