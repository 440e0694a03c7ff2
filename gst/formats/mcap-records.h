/* MCAP records (https://mcap.dev/spec): a record is an opcode (1 byte), a
 * content length (8 bytes, little-endian) and the content.  These parse
 * one record's content into a struct whose strings and byte fields point
 * into the parsed bytes; every length is checked against the bytes left
 * before it is used.  Used by mcap-reader.c. */
#ifndef __ROBOCACHE_MCAP_RECORDS_H__
#define __ROBOCACHE_MCAP_RECORDS_H__

#include "reader-impl.h"

G_BEGIN_DECLS
#define MCAP_MAGIC "\x89MCAP0\r\n"
#define MCAP_MAGIC_SIZE 8
/* Opcode and content length. */
#define MCAP_RECORD_PREFIX 9
/* A footer record is always 20 bytes of content. */
#define MCAP_FOOTER_SIZE (MCAP_RECORD_PREFIX + 20)
/* The largest chunk decompressed: a chunk claiming more is refused
 * (RC_READER_ERROR_TOO_LARGE) before anything is allocated.  The fuzz
 * target builds with a smaller one. */
#ifndef MCAP_MAX_CHUNK_SIZE
#define MCAP_MAX_CHUNK_SIZE (G_GUINT64_CONSTANT (1) << 30)
#endif
    typedef enum
{
  MCAP_OP_HEADER = 0x01,
  MCAP_OP_FOOTER = 0x02,
  MCAP_OP_SCHEMA = 0x03,
  MCAP_OP_CHANNEL = 0x04,
  MCAP_OP_MESSAGE = 0x05,
  MCAP_OP_CHUNK = 0x06,
  MCAP_OP_MESSAGE_INDEX = 0x07,
  MCAP_OP_CHUNK_INDEX = 0x08,
  MCAP_OP_ATTACHMENT = 0x09,
  MCAP_OP_ATTACHMENT_INDEX = 0x0a,
  MCAP_OP_STATISTICS = 0x0b,
  MCAP_OP_METADATA = 0x0c,
  MCAP_OP_METADATA_INDEX = 0x0d,
  MCAP_OP_SUMMARY_OFFSET = 0x0e,
  MCAP_OP_DATA_END = 0x0f
} McapOpcode;

/* A record found in a buffer: the file, or a chunk's decompressed
 * records.  @offset is its place in that buffer; @chunk_offset the file
 * offset of the chunk it is in, or MCAP_NO_CHUNK. */
#define MCAP_NO_CHUNK G_MAXUINT64
typedef struct
{
  guint8 opcode;
  guint64 offset, chunk_offset;
  const guint8 *content;
  guint64 length;
} McapRecord;

typedef enum
{
  MCAP_RECORD_OK,
  MCAP_RECORD_CUT               /* the record runs past the buffer's end */
} McapRecordStatus;

/* The record at @pos of @data (@size bytes), in the chunk at
 * @chunk_offset (or MCAP_NO_CHUNK). */
McapRecordStatus mcap_record_at (const guint8 * data, gsize size, gsize pos,
    guint64 chunk_offset, McapRecord * record);

/* Fails with "MCAP: <the record and where it is>: <format>", e.g. "MCAP:
 * message at offset 56 in the chunk at offset 1234: ...". */
gboolean
mcap_record_fail (const McapRecord * record, GError ** error,
    RcReaderError code, const gchar * format, ...)
G_GNUC_PRINTF (4, 5);

/* A string or byte field: not NUL-terminated. */
     typedef struct
     {
       const guint8 *data;
       gsize size;
     } McapBytes;

     typedef struct
     {
       McapBytes profile, library;
     } McapHeader;

     typedef struct
     {
       guint64 summary_start, summary_offset_start;
       guint32 summary_crc;
     } McapFooter;

     typedef struct
     {
       guint16 id;
       McapBytes name, encoding, data;
     } McapSchema;

     typedef struct
     {
       guint16 id, schema_id;
       McapBytes topic, message_encoding;
     } McapChannel;

     typedef struct
     {
       guint16 channel_id;
       guint32 sequence;
       guint64 log_time, publish_time;
       McapBytes data;
     } McapMessage;

     typedef struct
     {
       guint64 message_start_time, message_end_time;
       guint64 uncompressed_size;
       guint32 uncompressed_crc;
       McapBytes compression, records;
     } McapChunk;

/* (log time, offset in the chunk's records) pairs, 16 bytes each. */
     typedef struct
     {
       guint16 channel_id;
       const guint8 *entries;
       gsize n_entries;
     } McapMessageIndex;

     static inline guint64
         mcap_message_index_time (const McapMessageIndex * index, gsize i)
{
  return rc_get_u64 (index->entries + 16 * i);
}

static inline guint64
mcap_message_index_offset (const McapMessageIndex * index, gsize i)
{
  return rc_get_u64 (index->entries + 16 * i + 8);
}

/* (channel id, file offset of its message index) pairs, 10 bytes each. */
typedef struct
{
  guint64 message_start_time, message_end_time;
  guint64 chunk_start_offset, chunk_length;
  const guint8 *index_offsets;
  gsize n_index_offsets;
  guint64 message_index_length;
  McapBytes compression;
  guint64 compressed_size, uncompressed_size;
} McapChunkIndex;

typedef struct
{
  guint64 message_count;
  guint64 message_start_time, message_end_time;
} McapStatistics;

/* Each parser reads @record's content; FALSE with @error naming the
 * record's kind and offset when the content is shorter than its fields
 * say. */
/* Whether @data starts as a zstd frame does. */
gboolean mcap_is_zstd_frame (const guint8 * data, gsize size);
/* One zstd frame of @size bytes, whose header gives its decompressed size
 * (at most MCAP_MAX_CHUNK_SIZE), into *@buffer of *@capacity bytes, grown
 * as needed (g_free it); the size made into @made. */
gboolean mcap_inflate_frame (const guint8 * data, gsize size,
    guint8 ** buffer, gsize * capacity, gsize * made, GError ** error);

gboolean mcap_parse_header (const McapRecord * record, McapHeader * header,
    GError ** error);
gboolean mcap_parse_footer (const McapRecord * record, McapFooter * footer,
    GError ** error);
gboolean mcap_parse_schema (const McapRecord * record, McapSchema * schema,
    GError ** error);
gboolean mcap_parse_channel (const McapRecord * record,
    McapChannel * channel, GError ** error);
gboolean mcap_parse_message (const McapRecord * record,
    McapMessage * message, GError ** error);
gboolean mcap_parse_chunk (const McapRecord * record, McapChunk * chunk,
    GError ** error);
gboolean mcap_parse_message_index (const McapRecord * record,
    McapMessageIndex * index, GError ** error);
gboolean mcap_parse_chunk_index (const McapRecord * record,
    McapChunkIndex * index, GError ** error);
gboolean mcap_parse_statistics (const McapRecord * record,
    McapStatistics * statistics, GError ** error);
gboolean mcap_parse_data_end (const McapRecord * record, guint32 * crc,
    GError ** error);
/* Checks an attachment's CRC (of the fields before it) unless it is 0 or
 * @check_crc is FALSE. */
gboolean mcap_check_attachment (const McapRecord * record,
    gboolean check_crc, GError ** error);

/* The record kind in errors, e.g. "chunk". */
const gchar *mcap_record_name (guint8 opcode);

/* CRC-32 (zlib's polynomial, as MCAP uses) of @size bytes, computed by
 * libdeflate: with carry-less multiplication where the CPU has it, five
 * times zlib's speed, which made the CRC most of an uncompressed
 * recording's read time. */
guint32 mcap_crc32 (const guint8 * data, gsize size);

/* @crc (0 to start) continued over @size more bytes. */
guint32 mcap_crc32_update (guint32 crc, const guint8 * data, gsize size);

/* Decompresses a chunk's records into @buffer (at least its uncompressed
 * size; the caller's, kept on failure) or, when NULL, a new buffer of
 * exactly that size, or returns them in place when uncompressed
 * (*@owned FALSE), checking the size limit, the size and, with
 * @check_crc, the CRC.  @offset is the chunk record's, for errors. */
gboolean mcap_chunk_decompress (const McapChunk * chunk, guint64 offset,
    gboolean check_crc, guint8 * buffer, const guint8 ** records,
    gboolean * owned, GError ** error);

/* Whether the chunk's size and compression can be read, without reading
 * it: the size limit and the known compressions. */
gboolean mcap_chunk_check (const McapChunk * chunk, guint64 offset,
    GError ** error);

G_END_DECLS
#endif
