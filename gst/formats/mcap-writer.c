/* The MCAP writer of mcap-writer.h. */
#include "mcap-writer.h"
#include "mcap-records.h"
#include "reader.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include <glib/gstdio.h>
#include <lz4frame.h>
#include <zstd.h>

static const guint8 mcap_magic[8] = { 0x89, 'M', 'C', 'A', 'P', '0', '\r',
  '\n'
};

enum
{
  OP_HEADER = 0x01,
  OP_FOOTER = 0x02,
  OP_SCHEMA = 0x03,
  OP_CHANNEL = 0x04,
  OP_MESSAGE = 0x05,
  OP_CHUNK = 0x06,
  OP_MESSAGE_INDEX = 0x07,
  OP_CHUNK_INDEX = 0x08,
  OP_STATISTICS = 0x0B,
  OP_SUMMARY_OFFSET = 0x0E,
  OP_DATA_END = 0x0F
};

/* summary_start, summary_offset_start, summary_crc */
#define FOOTER_LENGTH (8 + 8 + 4)

typedef struct
{
  guint16 id;
  gchar *name;
  gchar *encoding;
  GBytes *data;
} Schema;

/* (log_time, offset in the uncompressed chunk) of one message. */
typedef struct
{
  guint64 log_time;
  guint64 offset;
} IndexEntry;

typedef struct
{
  guint16 id;
  guint16 schema_id;
  gchar *topic;
  gchar *message_encoding;
  gchar **metadata;             /* key, value, ..., NULL */
  guint64 message_count;
  GArray *index;                /* IndexEntry, of the open chunk */
} Channel;

/* The ChunkIndex record of a written chunk, in its fields' order. */
typedef struct
{
  guint64 start_time, end_time;
  guint64 chunk_offset, chunk_length;
  GArray *index_offsets;        /* (guint16 channel, guint64 offset) pairs */
  guint64 index_length;
  guint64 compressed_size, uncompressed_size;
} ChunkInfo;

typedef struct
{
  guint16 channel;
  guint64 offset;
} IndexOffset;

struct _RcMcapWriter
{
  gchar *path;
  gint fd;
  gboolean failed;              /* an I/O error: nothing more is written */
  gboolean finished;
  guint64 offset;               /* bytes written */
  guint32 data_crc;             /* of every byte written before DataEnd */
  RcMcapCompression compression;
  gsize chunk_size;

  GPtrArray *schemas;           /* Schema, id = index + 1 */
  GPtrArray *channels;          /* Channel, id = index + 1 */
  GArray *chunks;               /* ChunkInfo */

  /* The open chunk. */
  GByteArray *records;
  guint64 chunk_start, chunk_end;
  guint chunk_messages;
  GByteArray *out;              /* the chunk record and its indexes */

  guint64 message_count, start_time, end_time;
};

/* ------------------------------------------------------------------ */
/* Little-endian fields                                                */
/* ------------------------------------------------------------------ */

static void
put_u8 (GByteArray * b, guint8 v)
{
  g_byte_array_append (b, &v, 1);
}

static void
put_u16 (GByteArray * b, guint16 v)
{
  v = GUINT16_TO_LE (v);
  g_byte_array_append (b, (const guint8 *) &v, 2);
}

static void
put_u32 (GByteArray * b, guint32 v)
{
  v = GUINT32_TO_LE (v);
  g_byte_array_append (b, (const guint8 *) &v, 4);
}

static void
put_u64 (GByteArray * b, guint64 v)
{
  v = GUINT64_TO_LE (v);
  g_byte_array_append (b, (const guint8 *) &v, 8);
}

static void
set_u64 (GByteArray * b, gsize at, guint64 v)
{
  v = GUINT64_TO_LE (v);
  memcpy (b->data + at, &v, 8);
}

static void
set_u32 (GByteArray * b, gsize at, guint32 v)
{
  v = GUINT32_TO_LE (v);
  memcpy (b->data + at, &v, 4);
}

/* A string: uint32 length, then the bytes. */
static void
put_string (GByteArray * b, const gchar * s)
{
  gsize len = strlen (s);

  put_u32 (b, len);
  g_byte_array_append (b, (const guint8 *) s, len);
}

/* Starts a record; returns where its length goes (end_record fills it). */
static gsize
begin_record (GByteArray * b, guint8 opcode)
{
  put_u8 (b, opcode);
  put_u64 (b, 0);
  return b->len - 8;
}

static void
end_record (GByteArray * b, gsize length_at)
{
  set_u64 (b, length_at, b->len - length_at - 8);
}

/* Starts a map or array prefixed with its uint32 byte length. */
static gsize
begin_u32_block (GByteArray * b)
{
  put_u32 (b, 0);
  return b->len - 4;
}

static void
end_u32_block (GByteArray * b, gsize length_at)
{
  set_u32 (b, length_at, b->len - length_at - 4);
}

/* ------------------------------------------------------------------ */
/* File output                                                         */
/* ------------------------------------------------------------------ */

static gboolean
fail_io (RcMcapWriter * w, const gchar * what, gint errsv, GError ** error)
{
  w->failed = TRUE;
  g_set_error (error, RC_READER_ERROR, RC_READER_ERROR_IO,
      "%s: %s at byte offset %" G_GUINT64_FORMAT ": %s", w->path, what,
      w->offset, g_strerror (errsv));
  return FALSE;
}

static gboolean
check_usable (RcMcapWriter * w, GError ** error)
{
  if (w->failed || w->finished) {
    g_set_error (error, RC_READER_ERROR, RC_READER_ERROR_IO,
        "%s: the MCAP writer is %s", w->path, w->failed ? "broken by an "
        "earlier write error" : "finished");
    return FALSE;
  }
  return TRUE;
}

/* Writes @size bytes at the end of the file (retrying short writes), and
 * adds them to the data section's CRC unless @summary. */
static gboolean
write_all (RcMcapWriter * w, const guint8 * data, gsize size,
    gboolean summary, GError ** error)
{
  gsize done = 0;

  while (done < size) {
    gssize n = write (w->fd, data + done, size - done);

    if (n < 0 && errno == EINTR)
      continue;
    if (n < 0)
      return fail_io (w, "write failed", errno, error);
    done += n;
    w->offset += n;
  }
  if (!summary)
    w->data_crc = mcap_crc32_update (w->data_crc, data, size);
  return TRUE;
}

static gboolean
write_bytes (RcMcapWriter * w, GByteArray * b, GError ** error)
{
  return write_all (w, b->data, b->len, FALSE, error);
}

/* ------------------------------------------------------------------ */
/* Creation, schemas and channels                                      */
/* ------------------------------------------------------------------ */

static void
schema_free (gpointer data)
{
  Schema *s = data;

  g_free (s->name);
  g_free (s->encoding);
  g_bytes_unref (s->data);
  g_free (s);
}

static void
channel_free (gpointer data)
{
  Channel *c = data;

  g_free (c->topic);
  g_free (c->message_encoding);
  g_strfreev (c->metadata);
  g_array_unref (c->index);
  g_free (c);
}

static void
chunk_info_clear (gpointer data)
{
  ChunkInfo *ci = data;

  g_array_unref (ci->index_offsets);
}

RcMcapWriter *
rc_mcap_writer_new (const gchar * path, const gchar * profile,
    RcMcapCompression compression, gsize chunk_size, GError ** error)
{
  RcMcapWriter *w = g_new0 (RcMcapWriter, 1);
  GByteArray *b = g_byte_array_new ();
  gsize at;

  w->path = g_strdup (path);
  w->compression = compression;
  w->chunk_size = MAX (chunk_size, 1);
  w->data_crc = 0;
  w->schemas = g_ptr_array_new_with_free_func (schema_free);
  w->channels = g_ptr_array_new_with_free_func (channel_free);
  w->chunks = g_array_new (FALSE, TRUE, sizeof (ChunkInfo));
  g_array_set_clear_func (w->chunks, chunk_info_clear);
  w->records = g_byte_array_new ();
  w->out = g_byte_array_new ();
  w->fd = g_open (path, O_WRONLY | O_CREAT | O_TRUNC, 0666);
  if (w->fd < 0) {
    fail_io (w, "cannot create the file", errno, error);
    goto fail;
  }
  g_byte_array_append (b, mcap_magic, sizeof (mcap_magic));
  at = begin_record (b, OP_HEADER);
  put_string (b, profile);
  put_string (b, "robocache");
  end_record (b, at);
  if (!write_bytes (w, b, error))
    goto fail;
  g_byte_array_unref (b);
  return w;
fail:
  g_byte_array_unref (b);
  rc_mcap_writer_free (w);
  return NULL;
}

static void
put_schema (GByteArray * b, const Schema * s)
{
  gsize at = begin_record (b, OP_SCHEMA);
  gsize size;
  const guint8 *data = g_bytes_get_data (s->data, &size);

  put_u16 (b, s->id);
  put_string (b, s->name);
  put_string (b, s->encoding);
  put_u32 (b, size);
  g_byte_array_append (b, data, size);
  end_record (b, at);
}

static void
put_channel (GByteArray * b, const Channel * c)
{
  gsize at = begin_record (b, OP_CHANNEL);
  gsize map_at;

  put_u16 (b, c->id);
  put_u16 (b, c->schema_id);
  put_string (b, c->topic);
  put_string (b, c->message_encoding);
  map_at = begin_u32_block (b);
  for (guint i = 0; c->metadata[i] && c->metadata[i + 1]; i += 2) {
    put_string (b, c->metadata[i]);
    put_string (b, c->metadata[i + 1]);
  }
  end_u32_block (b, map_at);
  end_record (b, at);
}

/* Writes the record(s) built in @b (@summary: after the data section, as
 * for write_all()) and frees @b. */
static gboolean
write_record (RcMcapWriter * w, GByteArray * b, gboolean summary,
    GError ** error)
{
  gboolean ok = write_all (w, b->data, b->len, summary, error);

  g_byte_array_unref (b);
  return ok;
}

gboolean
rc_mcap_writer_add_schema (RcMcapWriter * w, const gchar * name,
    const gchar * encoding, const gchar * data, gsize size, guint16 * id,
    GError ** error)
{
  Schema *s;
  GByteArray *b;

  if (!check_usable (w, error))
    return FALSE;
  if (w->schemas->len >= G_MAXUINT16) {
    g_set_error (error, RC_READER_ERROR, RC_READER_ERROR_TOO_LARGE,
        "%s: more than %u schemas", w->path, G_MAXUINT16);
    return FALSE;
  }
  s = g_new0 (Schema, 1);
  s->id = w->schemas->len + 1;
  s->name = g_strdup (name);
  s->encoding = g_strdup (encoding);
  s->data = g_bytes_new (data, size);
  g_ptr_array_add (w->schemas, s);
  *id = s->id;
  b = g_byte_array_new ();
  put_schema (b, s);
  return write_record (w, b, FALSE, error);
}

gboolean
rc_mcap_writer_add_channel (RcMcapWriter * w, const gchar * topic,
    const gchar * message_encoding, guint16 schema_id,
    const gchar * const *metadata, guint16 * id, GError ** error)
{
  Channel *c;
  GByteArray *b;

  if (!check_usable (w, error))
    return FALSE;
  if (schema_id > w->schemas->len || w->channels->len >= G_MAXUINT16) {
    g_set_error (error, RC_READER_ERROR, RC_READER_ERROR_FORMAT,
        "%s: channel %s: %s", w->path, topic, schema_id > w->schemas->len ?
        "unknown schema id" : "too many channels");
    return FALSE;
  }
  c = g_new0 (Channel, 1);
  c->id = w->channels->len + 1;
  c->schema_id = schema_id;
  c->topic = g_strdup (topic);
  c->message_encoding = g_strdup (message_encoding);
  c->metadata = metadata ? g_strdupv ((gchar **) metadata) : g_new0 (gchar *,
      1);
  c->index = g_array_new (FALSE, FALSE, sizeof (IndexEntry));
  g_ptr_array_add (w->channels, c);
  *id = c->id;
  b = g_byte_array_new ();
  put_channel (b, c);
  return write_record (w, b, FALSE, error);
}

/* ------------------------------------------------------------------ */
/* Chunks                                                              */
/* ------------------------------------------------------------------ */

static const gchar *
compression_name (RcMcapCompression compression)
{
  switch (compression) {
    case RC_MCAP_COMPRESSION_ZSTD:
      return "zstd";
    case RC_MCAP_COMPRESSION_LZ4:
      return "lz4";
    default:
      return "";
  }
}

/* Appends the chunk's records, compressed, to w->out; returns their size,
 * 0 with @error set on a codec failure. */
static gsize
append_compressed (RcMcapWriter * w, GError ** error)
{
  const guint8 *src = w->records->data;
  gsize size = w->records->len, bound, n;
  guint start = w->out->len;

  switch (w->compression) {
    case RC_MCAP_COMPRESSION_ZSTD:
      bound = ZSTD_compressBound (size);
      g_byte_array_set_size (w->out, start + bound);
      n = ZSTD_compress (w->out->data + start, bound, src, size,
          ZSTD_CLEVEL_DEFAULT);
      if (ZSTD_isError (n))
        goto codec_error;
      break;
    case RC_MCAP_COMPRESSION_LZ4:
      bound = LZ4F_compressFrameBound (size, NULL);
      g_byte_array_set_size (w->out, start + bound);
      n = LZ4F_compressFrame (w->out->data + start, bound, src, size, NULL);
      if (LZ4F_isError (n))
        goto codec_error;
      break;
    default:
      g_byte_array_append (w->out, src, size);
      return size;
  }
  g_byte_array_set_size (w->out, start + n);
  return n;
codec_error:
  g_byte_array_set_size (w->out, start);
  g_set_error (error, RC_READER_ERROR, RC_READER_ERROR_FORMAT,
      "%s: %s compression of a chunk of %" G_GSIZE_FORMAT " bytes failed",
      w->path, compression_name (w->compression), size);
  return 0;
}

/* Appends the chunk record to w->out and fills @ci's chunk fields. */
static gboolean
append_chunk (RcMcapWriter * w, ChunkInfo * ci, GError ** error)
{
  guint32 crc = mcap_crc32 (w->records->data, w->records->len);
  gsize at, size_at;

  g_byte_array_set_size (w->out, 0);
  at = begin_record (w->out, OP_CHUNK);
  put_u64 (w->out, w->chunk_start);
  put_u64 (w->out, w->chunk_end);
  put_u64 (w->out, w->records->len);
  put_u32 (w->out, crc);
  put_string (w->out, compression_name (w->compression));
  put_u64 (w->out, 0);
  size_at = w->out->len - 8;
  ci->compressed_size = append_compressed (w, error);
  if (ci->compressed_size == 0 && w->records->len > 0)
    return FALSE;
  set_u64 (w->out, size_at, ci->compressed_size);
  end_record (w->out, at);
  ci->start_time = w->chunk_start;
  ci->end_time = w->chunk_end;
  ci->chunk_offset = w->offset;
  ci->chunk_length = w->out->len;
  ci->uncompressed_size = w->records->len;
  return TRUE;
}

/* Appends the MessageIndex records of the chunk (one per channel with
 * messages in it, by channel id) to w->out, and empties the indexes. */
static void
append_message_indexes (RcMcapWriter * w, ChunkInfo * ci)
{
  ci->index_offsets = g_array_new (FALSE, FALSE, sizeof (IndexOffset));
  for (guint i = 0; i < w->channels->len; i++) {
    Channel *c = g_ptr_array_index (w->channels, i);
    IndexOffset io = { c->id, w->offset + w->out->len };
    gsize at, array_at;

    if (c->index->len == 0)
      continue;
    at = begin_record (w->out, OP_MESSAGE_INDEX);
    put_u16 (w->out, c->id);
    array_at = begin_u32_block (w->out);
    for (guint e = 0; e < c->index->len; e++) {
      IndexEntry *ie = &g_array_index (c->index, IndexEntry, e);
      put_u64 (w->out, ie->log_time);
      put_u64 (w->out, ie->offset);
    }
    end_u32_block (w->out, array_at);
    end_record (w->out, at);
    g_array_append_val (ci->index_offsets, io);
    g_array_set_size (c->index, 0);
  }
  ci->index_length = w->out->len - ci->chunk_length;
}

gboolean
rc_mcap_writer_flush (RcMcapWriter * w, GError ** error)
{
  ChunkInfo ci = { 0, };

  if (!check_usable (w, error))
    return FALSE;
  if (w->chunk_messages == 0)
    return TRUE;
  if (!append_chunk (w, &ci, error))
    return FALSE;
  append_message_indexes (w, &ci);
  /* The chunk and its indexes in one write: a reader scanning a file cut
   * short finds whole chunks. */
  if (!write_bytes (w, w->out, error)) {
    chunk_info_clear (&ci);
    return FALSE;
  }
  g_array_append_val (w->chunks, ci);
  g_byte_array_set_size (w->records, 0);
  w->chunk_messages = 0;
  /* Give back what an unusually large message made the buffers grow to. */
  if (w->out->len > 2 * w->chunk_size + 4096) {
    g_byte_array_unref (w->out);
    w->out = g_byte_array_new ();
  }
  return TRUE;
}

/* Makes [*start, *end], the log times of @count messages so far, take in
 * @log_time. */
static void
widen_time_range (guint64 * start, guint64 * end, guint64 count,
    guint64 log_time)
{
  *start = count ? MIN (*start, log_time) : log_time;
  *end = count ? MAX (*end, log_time) : log_time;
}

gboolean
rc_mcap_writer_write_message (RcMcapWriter * w, guint16 channel_id,
    guint32 sequence, guint64 log_time, guint64 publish_time,
    const guint8 * data, gsize size, GError ** error)
{
  Channel *c;
  IndexEntry ie;
  gsize at;

  if (!check_usable (w, error))
    return FALSE;
  if (channel_id == 0 || channel_id > w->channels->len) {
    g_set_error (error, RC_READER_ERROR, RC_READER_ERROR_FORMAT,
        "%s: message on unknown channel %u", w->path, channel_id);
    return FALSE;
  }
  c = g_ptr_array_index (w->channels, channel_id - 1);
  ie.log_time = log_time;
  ie.offset = w->records->len;
  g_array_append_val (c->index, ie);
  at = begin_record (w->records, OP_MESSAGE);
  put_u16 (w->records, channel_id);
  put_u32 (w->records, sequence);
  put_u64 (w->records, log_time);
  put_u64 (w->records, publish_time);
  g_byte_array_append (w->records, data, size);
  end_record (w->records, at);

  widen_time_range (&w->chunk_start, &w->chunk_end, w->chunk_messages,
      log_time);
  widen_time_range (&w->start_time, &w->end_time, w->message_count, log_time);
  w->chunk_messages++;
  w->message_count++;
  c->message_count++;
  if (w->records->len >= w->chunk_size)
    return rc_mcap_writer_flush (w, error);
  return TRUE;
}

/* ------------------------------------------------------------------ */
/* Summary                                                             */
/* ------------------------------------------------------------------ */

static void
put_statistics (GByteArray * b, const RcMcapWriter * w)
{
  gsize at = begin_record (b, OP_STATISTICS);
  gsize map_at;

  put_u64 (b, w->message_count);
  put_u16 (b, w->schemas->len);
  put_u32 (b, w->channels->len);
  put_u32 (b, 0);               /* attachments */
  put_u32 (b, 0);               /* metadata */
  put_u32 (b, w->chunks->len);
  put_u64 (b, w->start_time);
  put_u64 (b, w->end_time);
  map_at = begin_u32_block (b);
  for (guint i = 0; i < w->channels->len; i++) {
    const Channel *c = g_ptr_array_index (w->channels, i);

    put_u16 (b, c->id);
    put_u64 (b, c->message_count);
  }
  end_u32_block (b, map_at);
  end_record (b, at);
}

static void
put_chunk_index (GByteArray * b, const ChunkInfo * ci,
    RcMcapCompression compression)
{
  gsize at = begin_record (b, OP_CHUNK_INDEX);
  gsize map_at;

  put_u64 (b, ci->start_time);
  put_u64 (b, ci->end_time);
  put_u64 (b, ci->chunk_offset);
  put_u64 (b, ci->chunk_length);
  map_at = begin_u32_block (b);
  for (guint i = 0; i < ci->index_offsets->len; i++) {
    const IndexOffset *io = &g_array_index (ci->index_offsets, IndexOffset,
        i);

    put_u16 (b, io->channel);
    put_u64 (b, io->offset);
  }
  end_u32_block (b, map_at);
  put_u64 (b, ci->index_length);
  put_string (b, compression_name (compression));
  put_u64 (b, ci->compressed_size);
  put_u64 (b, ci->uncompressed_size);
  end_record (b, at);
}

/* One SummaryOffset record for the group of @opcode that starts at @start
 * (relative to the summary, which starts at file offset @base) and ends
 * where @b is now; nothing for an empty group. */
static void
put_summary_offset (GByteArray * offsets, guint8 opcode, guint64 base,
    gsize start, gsize end)
{
  gsize at;

  if (end == start)
    return;
  at = begin_record (offsets, OP_SUMMARY_OFFSET);
  put_u8 (offsets, opcode);
  put_u64 (offsets, base + start);
  put_u64 (offsets, end - start);
  end_record (offsets, at);
}

/* The summary and summary offset sections and the footer, as they follow
 * DataEnd at file offset @summary_start. */
static GByteArray *
build_summary (RcMcapWriter * w, guint64 summary_start)
{
  GByteArray *b = g_byte_array_new ();
  GByteArray *offsets = g_byte_array_new ();
  gsize group = 0, offsets_start;
  guint32 crc;

  for (guint i = 0; i < w->schemas->len; i++)
    put_schema (b, g_ptr_array_index (w->schemas, i));
  put_summary_offset (offsets, OP_SCHEMA, summary_start, group, b->len);
  group = b->len;
  for (guint i = 0; i < w->channels->len; i++)
    put_channel (b, g_ptr_array_index (w->channels, i));
  put_summary_offset (offsets, OP_CHANNEL, summary_start, group, b->len);
  group = b->len;
  put_statistics (b, w);
  put_summary_offset (offsets, OP_STATISTICS, summary_start, group, b->len);
  group = b->len;
  for (guint i = 0; i < w->chunks->len; i++)
    put_chunk_index (b, &g_array_index (w->chunks, ChunkInfo, i),
        w->compression);
  put_summary_offset (offsets, OP_CHUNK_INDEX, summary_start, group, b->len);

  offsets_start = b->len;
  g_byte_array_append (b, offsets->data, offsets->len);
  g_byte_array_unref (offsets);
  /* The footer's length is known beforehand: the CRC covers it. */
  put_u8 (b, OP_FOOTER);
  put_u64 (b, FOOTER_LENGTH);
  put_u64 (b, summary_start);
  put_u64 (b, summary_start + offsets_start);
  /* The CRC runs from the summary through summary_offset_start. */
  crc = mcap_crc32 (b->data, b->len);
  put_u32 (b, crc);
  g_byte_array_append (b, mcap_magic, sizeof (mcap_magic));
  return b;
}

gboolean
rc_mcap_writer_finish (RcMcapWriter * w, GError ** error)
{
  GByteArray *b;
  gsize at;

  if (!rc_mcap_writer_flush (w, error))
    return FALSE;
  b = g_byte_array_new ();
  at = begin_record (b, OP_DATA_END);
  put_u32 (b, w->data_crc);
  end_record (b, at);
  if (!write_record (w, b, TRUE, error))
    return FALSE;
  /* The summary starts where DataEnd, now written, ends. */
  if (!write_record (w, build_summary (w, w->offset), TRUE, error))
    return FALSE;
  w->finished = TRUE;
  if (close (w->fd) != 0) {
    w->fd = -1;
    return fail_io (w, "close failed", errno, error);
  }
  w->fd = -1;
  return TRUE;
}

/* ------------------------------------------------------------------ */
/* Totals and freeing                                                  */
/* ------------------------------------------------------------------ */

guint64
rc_mcap_writer_message_count (const RcMcapWriter * w)
{
  return w->message_count;
}

guint64
rc_mcap_writer_channel_message_count (const RcMcapWriter * w,
    guint16 channel_id)
{
  if (channel_id == 0 || channel_id > w->channels->len)
    return 0;
  return ((Channel *) g_ptr_array_index (w->channels,
          channel_id - 1))->message_count;
}

void
rc_mcap_writer_time_range (const RcMcapWriter * w, guint64 * start,
    guint64 * end)
{
  *start = w->message_count ? w->start_time : 0;
  *end = w->message_count ? w->end_time : 0;
}

void
rc_mcap_writer_free (RcMcapWriter * w)
{
  if (!w)
    return;
  if (w->fd >= 0)
    close (w->fd);
  g_ptr_array_unref (w->schemas);
  g_ptr_array_unref (w->channels);
  g_array_unref (w->chunks);
  g_byte_array_unref (w->records);
  g_byte_array_unref (w->out);
  g_free (w->path);
  g_free (w);
}
