/* Parsing MCAP records (mcap-records.h): every field is read through a
 * cursor that refuses to go past the record's content. */
#include "mcap-records.h"

#include <string.h>
#include <libdeflate.h>
#include <zstd.h>
#include <lz4frame.h>

McapRecordStatus
mcap_record_at (const guint8 * data, gsize size, gsize pos,
    guint64 chunk_offset, McapRecord * record)
{
  if (pos > size || size - pos < MCAP_RECORD_PREFIX)
    return MCAP_RECORD_CUT;
  record->opcode = data[pos];
  record->offset = pos;
  record->chunk_offset = chunk_offset;
  record->length = rc_get_u64 (data + pos + 1);
  if (record->length > size - pos - MCAP_RECORD_PREFIX)
    return MCAP_RECORD_CUT;
  record->content = data + pos + MCAP_RECORD_PREFIX;
  return MCAP_RECORD_OK;
}

/* *INDENT-OFF* */
static const gchar *const record_names[] = {
  "invalid (opcode 0)", "header", "footer", "schema", "channel", "message",
  "chunk", "message index", "chunk index", "attachment", "attachment index",
  "statistics", "metadata", "metadata index", "summary offset", "data end",
};
/* *INDENT-ON* */

const gchar *
mcap_record_name (guint8 opcode)
{
  return opcode < G_N_ELEMENTS (record_names) ? record_names[opcode] :
      "unknown";
}

gboolean
mcap_record_fail (const McapRecord * record, GError ** error,
    RcReaderError code, const gchar * format, ...)
{
  const gchar *name = mcap_record_name (record->opcode);
  gchar *what, *place;
  va_list args;

  if (!error)
    return FALSE;
  va_start (args, format);
  what = g_strdup_vprintf (format, args);
  va_end (args);
  if (record->chunk_offset == MCAP_NO_CHUNK)
    place = g_strdup_printf ("%s at offset %" G_GUINT64_FORMAT, name,
        record->offset);
  else
    place = g_strdup_printf ("%s at offset %" G_GUINT64_FORMAT " in the "
        "chunk at offset %" G_GUINT64_FORMAT, name, record->offset,
        record->chunk_offset);
  *error = g_error_new (RC_READER_ERROR, code, "MCAP: %s: %s", place, what);
  g_free (place);
  g_free (what);
  return FALSE;
}

guint32
mcap_crc32_update (guint32 crc, const guint8 * data, gsize size)
{
  return libdeflate_crc32 (crc, data, size);
}

guint32
mcap_crc32 (const guint8 * data, gsize size)
{
  return mcap_crc32_update (0, data, size);
}

/* Reads a record's fields in order; after the first field that does not
 * fit, every read gives zeros and ok is FALSE. */
typedef struct
{
  const McapRecord *record;
  guint64 pos;
  gboolean ok;
} Cursor;

static void
cursor_init (Cursor * c, const McapRecord * record)
{
  c->record = record;
  c->pos = 0;
  c->ok = TRUE;
}

static const guint8 *
take (Cursor * c, guint64 n)
{
  const guint8 *p;

  if (!c->ok || c->record->length - c->pos < n) {
    c->ok = FALSE;
    return NULL;
  }
  p = c->record->content + c->pos;
  c->pos += n;
  return p;
}

static guint16
take_u16 (Cursor * c)
{
  const guint8 *p = take (c, 2);

  return p ? (guint16) (p[0] | (p[1] << 8)) : 0;
}

static guint32
take_u32 (Cursor * c)
{
  const guint8 *p = take (c, 4);

  return p ? rc_get_u32 (p) : 0;
}

static guint64
take_u64 (Cursor * c)
{
  const guint8 *p = take (c, 8);

  return p ? rc_get_u64 (p) : 0;
}

/* A field of @length bytes. */
static McapBytes
take_bytes (Cursor * c, guint64 length)
{
  McapBytes b = { NULL, 0 };

  b.data = take (c, length);
  if (b.data)
    b.size = length;
  return b;
}

/* Strings, byte arrays, arrays and maps: a uint32 length, then that
 * many bytes. */
static McapBytes
take_bytes32 (Cursor * c)
{
  guint32 length = take_u32 (c);

  return take_bytes (c, length);
}

static gboolean
cursor_done (Cursor * c, GError ** error)
{
  if (c->ok)
    return TRUE;
  return mcap_record_fail (c->record, error, RC_READER_ERROR_FORMAT, "its %"
      G_GUINT64_FORMAT " bytes are too few for its fields", c->record->length);
}

gboolean
mcap_parse_header (const McapRecord * record, McapHeader * header,
    GError ** error)
{
  Cursor c;

  cursor_init (&c, record);
  header->profile = take_bytes32 (&c);
  header->library = take_bytes32 (&c);
  return cursor_done (&c, error);
}

gboolean
mcap_parse_footer (const McapRecord * record, McapFooter * footer,
    GError ** error)
{
  Cursor c;

  cursor_init (&c, record);
  footer->summary_start = take_u64 (&c);
  footer->summary_offset_start = take_u64 (&c);
  footer->summary_crc = take_u32 (&c);
  return cursor_done (&c, error);
}

gboolean
mcap_parse_schema (const McapRecord * record, McapSchema * schema,
    GError ** error)
{
  Cursor c;

  cursor_init (&c, record);
  schema->id = take_u16 (&c);
  schema->name = take_bytes32 (&c);
  schema->encoding = take_bytes32 (&c);
  schema->data = take_bytes32 (&c);
  return cursor_done (&c, error);
}

/* The channel's metadata map is read past but not kept. */
gboolean
mcap_parse_channel (const McapRecord * record, McapChannel * channel,
    GError ** error)
{
  Cursor c;

  cursor_init (&c, record);
  channel->id = take_u16 (&c);
  channel->schema_id = take_u16 (&c);
  channel->topic = take_bytes32 (&c);
  channel->message_encoding = take_bytes32 (&c);
  (void) take_bytes32 (&c);
  return cursor_done (&c, error);
}

gboolean
mcap_parse_message (const McapRecord * record, McapMessage * message,
    GError ** error)
{
  Cursor c;

  cursor_init (&c, record);
  message->channel_id = take_u16 (&c);
  message->sequence = take_u32 (&c);
  message->log_time = take_u64 (&c);
  message->publish_time = take_u64 (&c);
  if (!cursor_done (&c, error))
    return FALSE;
  message->data = take_bytes (&c, record->length - c.pos);
  return TRUE;
}

gboolean
mcap_parse_chunk (const McapRecord * record, McapChunk * chunk, GError ** error)
{
  Cursor c;

  cursor_init (&c, record);
  chunk->message_start_time = take_u64 (&c);
  chunk->message_end_time = take_u64 (&c);
  chunk->uncompressed_size = take_u64 (&c);
  chunk->uncompressed_crc = take_u32 (&c);
  chunk->compression = take_bytes32 (&c);
  chunk->records = take_bytes (&c, take_u64 (&c));
  return cursor_done (&c, error);
}

/* An array's or map's bytes, which must be a whole number of
 * @entry_size entries. */
static gboolean
take_entries (Cursor * c, gsize entry_size, const guint8 ** entries,
    gsize * n_entries, GError ** error)
{
  McapBytes b = take_bytes32 (c);

  *entries = b.data;
  *n_entries = b.size / entry_size;
  if (!c->ok || b.size % entry_size == 0)
    return TRUE;
  return mcap_record_fail (c->record, error, RC_READER_ERROR_FORMAT, "its "
      "array of %" G_GSIZE_FORMAT " bytes is not a whole number of %"
      G_GSIZE_FORMAT "-byte entries", b.size, entry_size);
}

gboolean
mcap_parse_message_index (const McapRecord * record,
    McapMessageIndex * index, GError ** error)
{
  Cursor c;

  cursor_init (&c, record);
  index->channel_id = take_u16 (&c);
  if (!take_entries (&c, 16, &index->entries, &index->n_entries, error))
    return FALSE;
  return cursor_done (&c, error);
}

gboolean
mcap_parse_chunk_index (const McapRecord * record, McapChunkIndex * index,
    GError ** error)
{
  Cursor c;

  cursor_init (&c, record);
  index->message_start_time = take_u64 (&c);
  index->message_end_time = take_u64 (&c);
  index->chunk_start_offset = take_u64 (&c);
  index->chunk_length = take_u64 (&c);
  if (!take_entries (&c, 10, &index->index_offsets, &index->n_index_offsets,
          error))
    return FALSE;
  index->message_index_length = take_u64 (&c);
  index->compression = take_bytes32 (&c);
  index->compressed_size = take_u64 (&c);
  index->uncompressed_size = take_u64 (&c);
  return cursor_done (&c, error);
}

gboolean
mcap_parse_statistics (const McapRecord * record,
    McapStatistics * statistics, GError ** error)
{
  Cursor c;

  cursor_init (&c, record);
  statistics->message_count = take_u64 (&c);
  /* schema, channel, attachment, metadata and chunk counts */
  (void) take (&c, 2 + 4 * 4);
  statistics->message_start_time = take_u64 (&c);
  statistics->message_end_time = take_u64 (&c);
  (void) take_bytes32 (&c);
  return cursor_done (&c, error);
}

gboolean
mcap_parse_data_end (const McapRecord * record, guint32 * crc, GError ** error)
{
  Cursor c;

  cursor_init (&c, record);
  *crc = take_u32 (&c);
  return cursor_done (&c, error);
}

gboolean
mcap_check_attachment (const McapRecord * record, gboolean check_crc,
    GError ** error)
{
  Cursor c;
  guint32 stored, computed;
  guint64 crc_pos;

  cursor_init (&c, record);
  (void) take (&c, 16);         /* log and create times */
  (void) take_bytes32 (&c);     /* name */
  (void) take_bytes32 (&c);     /* media type */
  (void) take_bytes (&c, take_u64 (&c));
  crc_pos = c.pos;
  stored = take_u32 (&c);
  if (!cursor_done (&c, error))
    return FALSE;
  if (!check_crc || stored == 0)
    return TRUE;
  computed = mcap_crc32 (record->content, crc_pos);
  if (computed == stored)
    return TRUE;
  return mcap_record_fail (record, error, RC_READER_ERROR_FORMAT, "CRC "
      "0x%08x, the record says 0x%08x", computed, stored);
}

typedef enum
{
  COMPRESSION_NONE,
  COMPRESSION_ZSTD,
  COMPRESSION_LZ4,
  COMPRESSION_UNKNOWN
} Compression;

static Compression
compression_of (const McapBytes * name)
{
  if (name->size == 0)
    return COMPRESSION_NONE;
  if (name->size == 4 && !memcmp (name->data, "zstd", 4))
    return COMPRESSION_ZSTD;
  if (name->size == 3 && !memcmp (name->data, "lz4", 3))
    return COMPRESSION_LZ4;
  return COMPRESSION_UNKNOWN;
}

gboolean
mcap_chunk_check (const McapChunk * chunk, guint64 offset, GError ** error)
{
  Compression compression = compression_of (&chunk->compression);

  if (compression == COMPRESSION_UNKNOWN) {
    gchar *raw = g_strndup ((const gchar *) chunk->compression.data,
        MIN (chunk->compression.size, 32));
    gchar *name = g_strescape (raw, NULL);

    g_free (raw);
    rc_reader_fail (error, RC_READER_ERROR_UNSUPPORTED, "MCAP: chunk at "
        "offset %" G_GUINT64_FORMAT ": compression \"%s\" is not supported "
        "(only \"\", \"zstd\" and \"lz4\" are)", offset, name);
    g_free (name);
    return FALSE;
  }
  if (chunk->uncompressed_size > MCAP_MAX_CHUNK_SIZE)
    return rc_reader_fail (error, RC_READER_ERROR_TOO_LARGE, "MCAP: chunk at "
        "offset %" G_GUINT64_FORMAT ": %" G_GUINT64_FORMAT " bytes "
        "decompressed is above the limit of %" G_GUINT64_FORMAT, offset,
        chunk->uncompressed_size, (guint64) MCAP_MAX_CHUNK_SIZE);
  if (compression == COMPRESSION_NONE
      && chunk->records.size != chunk->uncompressed_size)
    return rc_reader_fail (error, RC_READER_ERROR_FORMAT, "MCAP: chunk at "
        "offset %" G_GUINT64_FORMAT ": uncompressed, its %" G_GSIZE_FORMAT
        " bytes of records differ from its uncompressed size %"
        G_GUINT64_FORMAT, offset, chunk->records.size,
        chunk->uncompressed_size);
  return TRUE;
}

/* Zstandard frames (one or more) into exactly @size bytes; FALSE when they
 * are corrupt or make another size. */
static gboolean
decompress_zstd (const McapBytes * in, guint8 * out, gsize size,
    const gchar ** why)
{
  size_t made = ZSTD_decompress (out, size, in->data, in->size);

  if (ZSTD_isError (made)) {
    *why = ZSTD_getErrorName (made);
    return FALSE;
  }
  if (made != size) {
    *why = "fewer bytes decompressed than its uncompressed size";
    return FALSE;
  }
  return TRUE;
}

gboolean
mcap_is_zstd_frame (const guint8 * data, gsize size)
{
  return size >= 4 && rc_get_u32 (data) == ZSTD_MAGICNUMBER;
}

gboolean
mcap_inflate_frame (const guint8 * data, gsize size, guint8 ** buffer,
    gsize * capacity, gsize * made, GError ** error)
{
  unsigned long long n = ZSTD_getFrameContentSize (data, size);
  McapBytes in = { data, size };
  const gchar *why;

  if (n == ZSTD_CONTENTSIZE_ERROR)
    return rc_reader_fail (error, RC_READER_ERROR_FORMAT, "its zstd frame "
        "header is corrupt");
  if (n == ZSTD_CONTENTSIZE_UNKNOWN)
    return rc_reader_fail (error, RC_READER_ERROR_UNSUPPORTED, "its zstd "
        "frame does not give its decompressed size (rosbag2's do)");
  if (n > MCAP_MAX_CHUNK_SIZE)
    return rc_reader_fail (error, RC_READER_ERROR_TOO_LARGE, "%llu bytes "
        "decompressed is above the limit of %" G_GUINT64_FORMAT, n,
        (guint64) MCAP_MAX_CHUNK_SIZE);
  if (n > *capacity || !*buffer) {
    guint8 *grown = g_try_realloc (*buffer, MAX (n, 1));

    if (!grown)
      return rc_reader_fail (error, RC_READER_ERROR_TOO_LARGE, "no memory "
          "for its %llu bytes decompressed", n);
    *buffer = grown;
    *capacity = MAX (n, 1);
  }
  if (!decompress_zstd (&in, *buffer, n, &why))
    return rc_reader_fail (error, RC_READER_ERROR_FORMAT, "its zstd frame: "
        "%s", why);
  *made = n;
  return TRUE;
}

/* LZ4 frames (one or more) into exactly @size bytes. */
static gboolean
decompress_lz4 (const McapBytes * in, guint8 * out, gsize size,
    const gchar ** why)
{
  LZ4F_dctx *dctx;
  gsize used = 0, made = 0;
  size_t hint = 1;

  if (LZ4F_isError (LZ4F_createDecompressionContext (&dctx, LZ4F_VERSION))) {
    *why = "no memory for an lz4 context";
    return FALSE;
  }
  *why = NULL;
  while (used < in->size) {
    size_t out_size = size - made, in_size = in->size - used;

    hint = LZ4F_decompress (dctx, out + made, &out_size, in->data + used,
        &in_size, NULL);
    if (LZ4F_isError (hint)) {
      *why = LZ4F_getErrorName (hint);
      break;
    }
    made += out_size;
    used += in_size;
    if (out_size == 0 && in_size == 0) {
      *why = "more bytes decompressed than its uncompressed size";
      break;
    }
  }
  LZ4F_freeDecompressionContext (dctx);
  if (!*why && hint != 0)
    *why = "its last lz4 frame is cut off";
  if (!*why && made != size)
    *why = "fewer bytes decompressed than its uncompressed size";
  return *why == NULL;
}

static gboolean
check_chunk_crc (const McapChunk * chunk, guint64 offset,
    const guint8 * records, GError ** error)
{
  guint32 crc;

  if (chunk->uncompressed_crc == 0)
    return TRUE;
  crc = mcap_crc32 (records, chunk->uncompressed_size);
  if (crc == chunk->uncompressed_crc)
    return TRUE;
  return rc_reader_fail (error, RC_READER_ERROR_FORMAT, "MCAP: chunk at "
      "offset %" G_GUINT64_FORMAT ": CRC of its records 0x%08x, the chunk "
      "says 0x%08x", offset, crc, chunk->uncompressed_crc);
}

gboolean
mcap_chunk_decompress (const McapChunk * chunk, guint64 offset,
    gboolean check_crc, guint8 * buffer, const guint8 ** records,
    gboolean * owned, GError ** error)
{
  Compression compression = compression_of (&chunk->compression);
  const gchar *why = NULL;
  guint8 *out;
  gboolean ok;

  if (!mcap_chunk_check (chunk, offset, error))
    return FALSE;
  if (compression == COMPRESSION_NONE) {
    *records = chunk->records.data;
    *owned = FALSE;
    return !check_crc || check_chunk_crc (chunk, offset, *records, error);
  }
  out = buffer ? buffer : g_try_malloc (MAX (chunk->uncompressed_size, 1));
  if (!out)
    return rc_reader_fail (error, RC_READER_ERROR_TOO_LARGE, "MCAP: chunk at "
        "offset %" G_GUINT64_FORMAT ": no memory for its %" G_GUINT64_FORMAT
        " bytes decompressed", offset, chunk->uncompressed_size);
  if (compression == COMPRESSION_ZSTD)
    ok = decompress_zstd (&chunk->records, out, chunk->uncompressed_size, &why);
  else
    ok = decompress_lz4 (&chunk->records, out, chunk->uncompressed_size, &why);
  if (!ok)
    rc_reader_fail (error, RC_READER_ERROR_FORMAT, "MCAP: chunk at offset %"
        G_GUINT64_FORMAT ": its %.*s records: %s", offset,
        (int) chunk->compression.size, chunk->compression.data, why);
  else if (check_crc)
    ok = check_chunk_crc (chunk, offset, out, error);
  if (!ok) {
    if (!buffer)
      g_free (out);
    return FALSE;
  }
  *records = out;
  *owned = TRUE;
  return TRUE;
}
