/* The MCAP reader's message index, built at open (mcap-reader.h): from
 * the summary's chunk indexes and the message indexes they point to, or by
 * reading the data section record by record.
 *
 * With a summary that has chunk indexes, messages outside chunks are not
 * looked for (the specification says that such files put every message in
 * a chunk), and the data section's CRC is not checked (that would read the
 * whole file at open).  A chunk whose index lists no message index is
 * decompressed at open to find its messages.  Schemas and channels that
 * the summary leaves out are looked for in the data section, as far as
 * the first message that needs them (read_definitions). */
#include "mcap-reader.h"

#include <string.h>

static gboolean read_definitions (McapReader * self, guint64 limit,
    guint32 channel, GError ** error);

static gboolean
add_message (McapReader * self, const McapRecord * record, guint32 chunk,
    GError ** error)
{
  McapMessage message;
  McapEntry entry;
  gint topic;

  if (!mcap_parse_message (record, &message, error))
    return FALSE;
  topic = mcap_reader_channel_topic (self, message.channel_id);
  /* A chunk read at open whose channel only the data section before it
   * defines (nothing there is read when scanning). */
  if (topic < 0 && !read_definitions (self, record->chunk_offset ==
          MCAP_NO_CHUNK ? record->offset : record->chunk_offset,
          message.channel_id, error))
    return FALSE;
  topic = mcap_reader_channel_topic (self, message.channel_id);
  if (topic < 0)
    return mcap_record_fail (record, error, RC_READER_ERROR_FORMAT, "its "
        "channel %u is not defined before it", message.channel_id);
  entry.time = message.log_time;
  entry.offset = record->offset;
  entry.chunk = chunk;
  entry.topic = topic;
  entry.channel = message.channel_id;
  g_array_append_val (self->entries, entry);
  return TRUE;
}

static gboolean
check_data_end (McapReader * self, const McapRecord * record, GError ** error)
{
  guint32 stored, computed;

  if (!mcap_parse_data_end (record, &stored, error))
    return FALSE;
  if (!self->check_crc || stored == 0)
    return TRUE;
  computed = mcap_crc32 (self->data, record->offset);
  if (computed == stored)
    return TRUE;
  return mcap_record_fail (record, error, RC_READER_ERROR_FORMAT, "CRC of "
      "the data section (the %" G_GUINT64_FORMAT " bytes before it) "
      "0x%08x, the record says 0x%08x", record->offset, computed, stored);
}

static gboolean read_chunk_now (McapReader * self, const McapRecord * record,
    GError ** error);

/* A schema or channel record of the data section or of a chunk (other
 * records are left alone). */
static gboolean
read_definition (McapReader * self, const McapRecord * record,
    GError ** error)
{
  McapSchema schema;
  McapChannel channel;

  switch (record->opcode) {
    case MCAP_OP_SCHEMA:
      if (!mcap_parse_schema (record, &schema, error))
        return FALSE;
      mcap_reader_add_schema (self, &schema);
      return TRUE;
    case MCAP_OP_CHANNEL:
      return mcap_parse_channel (record, &channel, error)
          && mcap_reader_add_channel (self, record, &channel, FALSE, error);
    default:
      return TRUE;
  }
}

/* A record of the data section (@chunk MCAP_NOT_CHUNKED) or of chunk
 * @chunk's records.  Records of unknown kinds are skipped, as the
 * specification says, and counted. */
static gboolean
read_record (McapReader * self, const McapRecord * record, guint32 chunk,
    GError ** error)
{
  gboolean in_chunk = chunk != MCAP_NOT_CHUNKED;

  switch (record->opcode) {
    case MCAP_OP_SCHEMA:
    case MCAP_OP_CHANNEL:
      return read_definition (self, record, error);
    case MCAP_OP_MESSAGE:
      return add_message (self, record, chunk, error);
    case MCAP_OP_CHUNK:
      if (in_chunk)
        return mcap_record_fail (record, error, RC_READER_ERROR_FORMAT,
            "a chunk cannot hold a chunk");
      return read_chunk_now (self, record, error);
    case MCAP_OP_ATTACHMENT:
      return in_chunk || mcap_check_attachment (record, self->check_crc, error);
    case MCAP_OP_DATA_END:
      return in_chunk || check_data_end (self, record, error);
    default:
      if (record->opcode == 0 || record->opcode > MCAP_OP_DATA_END)
        self->parent.recovery.n_skipped_records++;
      return TRUE;
  }
}

typedef gboolean (*ChunkRecordFunc) (McapReader * self,
    const McapRecord * record, guint32 chunk, GError ** error);

/* Decompresses @chunk, the chunk record at @offset, and calls @func on each
 * of its records, which must be whole, with @index (its place in
 * self->chunks, or MCAP_NOT_CHUNKED). */
static gboolean
walk_chunk (McapReader * self, const McapChunk * chunk, guint64 offset,
    guint32 index, ChunkRecordFunc func, GError ** error)
{
  gsize size = chunk->uncompressed_size;
  const guint8 *records;
  gboolean owned, ok = TRUE;
  McapRecord record;

  if (!mcap_chunk_decompress (chunk, offset, self->check_crc, NULL, &records,
          &owned, error))
    return FALSE;
  for (gsize pos = 0; ok && pos < size;
      pos += MCAP_RECORD_PREFIX + record.length) {
    if (mcap_record_at (records, size, pos, offset, &record)
        != MCAP_RECORD_OK) {
      ok = rc_reader_fail (error, RC_READER_ERROR_FORMAT, "MCAP: chunk at "
          "offset %" G_GUINT64_FORMAT ": the record at offset %" G_GSIZE_FORMAT
          " of its records runs past their end (%" G_GSIZE_FORMAT " bytes)",
          offset, pos, size);
      break;
    }
    ok = func (self, &record, index, error);
  }
  if (owned)
    g_free ((guint8 *) records);
  return ok;
}

/* Adds the chunk record @record to self->chunks (its size and compression
 * checked); its index there in *@chunk. */
static gboolean
add_chunk (McapReader * self, const McapRecord * record, guint32 * chunk,
    GError ** error)
{
  McapChunkInfo info;

  if (!mcap_parse_chunk (record, &info.chunk, error)
      || !mcap_chunk_check (&info.chunk, record->offset, error))
    return FALSE;
  if (self->chunks->len == MCAP_NOT_CHUNKED)
    return mcap_record_fail (record, error, RC_READER_ERROR_TOO_LARGE,
        "more chunks than the reader counts");
  info.offset = record->offset;
  *chunk = self->chunks->len;
  g_array_append_val (self->chunks, info);
  return TRUE;
}

/* A chunk whose messages are found by decompressing it now. */
static gboolean
read_chunk_now (McapReader * self, const McapRecord * record, GError ** error)
{
  McapChunkInfo info;
  guint32 chunk;

  if (!add_chunk (self, record, &chunk, error))
    return FALSE;
  info = g_array_index (self->chunks, McapChunkInfo, chunk);
  return walk_chunk (self, &info.chunk, info.offset, chunk, read_record,
      error);
}

/* read_definitions' @channel to say: until no channel waits. */
#define WAITING_CHANNELS G_MAXUINT32

static gboolean
still_missing (McapReader * self, guint32 channel)
{
  if (channel == WAITING_CHANNELS)
    return self->waiting->len > 0;
  return mcap_reader_channel_topic (self, channel) < 0;
}

/* Fails for channel @channel (any, with WAITING_CHANNELS) if it still
 * waits for its schema. */
static gboolean
check_waiting (McapReader * self, guint32 channel, GError ** error)
{
  for (guint i = 0; i < self->waiting->len; i++) {
    const McapWaitingChannel *waiting = &g_array_index (self->waiting,
        McapWaitingChannel, i);

    if (channel == WAITING_CHANNELS || channel == waiting->channel.id)
      return mcap_record_fail (&waiting->record, error,
          RC_READER_ERROR_FORMAT, "channel %u names schema %u, which the "
          "file does not define", waiting->channel.id,
          waiting->channel.schema_id);
  }
  return TRUE;
}

/* walk_chunk()'s function for the definitions alone. */
static gboolean
chunk_definition (McapReader * self, const McapRecord * record,
    guint32 chunk, GError ** error)
{
  return read_definition (self, record, error);
}

/* The schemas and channels of the chunk @record. */
static gboolean
read_chunk_definitions (McapReader * self, const McapRecord * record,
    GError ** error)
{
  McapChunk chunk;

  return mcap_parse_chunk (record, &chunk, error)
      && mcap_chunk_check (&chunk, record->offset, error)
      && walk_chunk (self, &chunk, record->offset, MCAP_NOT_CHUNKED,
      chunk_definition, error);
}

/* Where the summary leaves out schemas or channels (rosbag2's
 * noRepeatedSchemas and noRepeatedChannels, @mcap/core's repeatSchemas and
 * repeatChannels false), they are only in the data section.  This reads
 * its schema and channel records (decompressing chunks) from defs_pos on,
 * the records that start before @limit, and stops as soon as channel
 * @channel is known (WAITING_CHANNELS: no channel waits for its schema).
 * The specification puts each definition before what uses it, so a file
 * that repeats little is read only as far as its first uses: usually its
 * first chunk. */
static gboolean
read_definitions (McapReader * self, guint64 limit, guint32 channel,
    GError ** error)
{
  McapRecord record;

  limit = MIN (limit, self->defs_end);
  while (self->defs_pos < limit && still_missing (self, channel)) {
    if (mcap_record_at (self->data, self->defs_end, self->defs_pos,
            MCAP_NO_CHUNK, &record) != MCAP_RECORD_OK)
      return rc_reader_fail (error, RC_READER_ERROR_FORMAT, "MCAP: the "
          "record at offset %" G_GSIZE_FORMAT " runs past the data "
          "section's end at offset %" G_GSIZE_FORMAT, self->defs_pos,
          self->defs_end);
    self->defs_pos += MCAP_RECORD_PREFIX + record.length;
    if (record.opcode == MCAP_OP_CHUNK
        ? !read_chunk_definitions (self, &record, error)
        : !read_definition (self, &record, error))
      return FALSE;
  }
  return TRUE;
}

/* Why a scan that did not reach the footer and closing magic stopped at
 * @pos, for the recovery's reason. */
static gchar *
scan_stop (McapReader * self, gsize pos, gboolean footer)
{
  McapRecord record;

  if (footer)
    return g_strdup_printf ("the footer ending at byte %" G_GSIZE_FORMAT
        " is not followed by the closing magic", pos);
  if (pos == self->size)
    return g_strdup ("to its end, where no footer is");
  if (self->size - pos < MCAP_RECORD_PREFIX)
    return g_strdup_printf ("up to byte %" G_GSIZE_FORMAT ": the file ends "
        "inside the next record's opcode and length", pos);
  if (mcap_record_at (self->data, self->size, pos, MCAP_NO_CHUNK,
          &record) == MCAP_RECORD_OK)
    return g_strdup_printf ("up to byte %" G_GSIZE_FORMAT ": zeros from "
        "there (space the recorder reserved and never wrote)", pos);
  return g_strdup_printf ("up to byte %" G_GSIZE_FORMAT ": the %s record "
      "there (%" G_GUINT64_FORMAT " bytes) runs past the file's end at byte %"
      G_GSIZE_FORMAT, pos, mcap_record_name (record.opcode), record.length,
      self->size);
}

gboolean
mcap_index_by_scanning (McapReader * self, const gchar * why, GError ** error)
{
  RcReaderRecovery *recovery = &self->parent.recovery;
  gsize pos = self->data_start;
  gboolean in_data = TRUE, whole = FALSE, footer = FALSE;
  McapRecord record;

  /* Every definition is read in its place, before what uses it. */
  self->defs_end = 0;
  recovery->end_offset = pos;
  /* Opcode 0 is never written: zeros are where a recorder preallocated
   * the file and stopped. */
  while (mcap_record_at (self->data, self->size, pos, MCAP_NO_CHUNK,
          &record) == MCAP_RECORD_OK && record.opcode != 0) {
    pos += MCAP_RECORD_PREFIX + record.length;
    if (in_data && !read_record (self, &record, MCAP_NOT_CHUNKED, error))
      return FALSE;
    in_data = in_data && record.opcode != MCAP_OP_DATA_END;
    recovery->end_offset = pos;
    if (record.opcode == MCAP_OP_FOOTER) {
      footer = TRUE;
      whole = self->size - pos == MCAP_MAGIC_SIZE
          && !memcmp (self->data + pos, MCAP_MAGIC, MCAP_MAGIC_SIZE);
      if (whole)
        recovery->end_offset = self->size;
      break;
    }
  }
  /* A whole file (footer and closing magic) written without indexes
   * lost nothing: only a file that ends early is reported recovered. */
  recovery->scanned = !whole;
  recovery->n_messages = self->entries->len;
  if (!whole) {
    gchar *stop = scan_stop (self, pos, footer);

    self->reason = g_strdup_printf ("%s; read by scanning, %s", why, stop);
    recovery->reason = self->reason;
    g_free (stop);
  }
  return check_waiting (self, WAITING_CHANNELS, error);
}

/* The message index record at @offset for @channel's messages in chunk
 * @chunk, into self->entries. */
static gboolean
load_message_index (McapReader * self, guint32 chunk, guint16 channel,
    guint64 offset, gsize data_end, GError ** error)
{
  const McapChunkInfo *info = &g_array_index (self->chunks, McapChunkInfo,
      chunk);
  guint64 size = info->chunk.uncompressed_size;
  McapRecord record;
  McapMessageIndex index;
  McapEntry entry = { 0, };
  gint topic;

  if (offset > data_end || mcap_record_at (self->data, data_end, offset,
          MCAP_NO_CHUNK, &record) != MCAP_RECORD_OK
      || record.opcode != MCAP_OP_MESSAGE_INDEX)
    return rc_reader_fail (error, RC_READER_ERROR_FORMAT, "MCAP: the chunk "
        "index of the chunk at offset %" G_GUINT64_FORMAT " puts a message "
        "index at offset %" G_GUINT64_FORMAT ", where the data section has "
        "none", info->offset, offset);
  if (!mcap_parse_message_index (&record, &index, error))
    return FALSE;
  if (index.channel_id != channel)
    return mcap_record_fail (&record, error, RC_READER_ERROR_FORMAT, "it is "
        "for channel %u, the chunk index says channel %u", index.channel_id,
        channel);
  /* Defined at the latest in the chunk, before its first message; the
   * rest of the data section is read only for a file out of that order,
   * or to say what is missing. */
  if (!read_definitions (self, info->offset + 1, channel, error)
      || !read_definitions (self, self->defs_end, channel, error)
      || !check_waiting (self, channel, error))
    return FALSE;
  topic = mcap_reader_channel_topic (self, channel);
  if (topic < 0)
    return mcap_record_fail (&record, error, RC_READER_ERROR_FORMAT, "it is "
        "for channel %u, which the file does not define", channel);
  entry.chunk = chunk;
  entry.topic = topic;
  entry.channel = channel;
  for (gsize i = 0; i < index.n_entries; i++) {
    entry.time = mcap_message_index_time (&index, i);
    entry.offset = mcap_message_index_offset (&index, i);
    if (size < MCAP_RECORD_PREFIX || entry.offset > size - MCAP_RECORD_PREFIX)
      return mcap_record_fail (&record, error, RC_READER_ERROR_FORMAT,
          "entry %" G_GSIZE_FORMAT " is at offset %" G_GUINT64_FORMAT
          ", past the chunk's %" G_GUINT64_FORMAT " bytes of records", i,
          entry.offset, size);
    g_array_append_val (self->entries, entry);
  }
  return TRUE;
}

static gint
compare_offsets (gconstpointer a, gconstpointer b, gpointer unused)
{
  const McapEntry *x = a, *y = b;

  return x->offset < y->offset ? -1 : x->offset > y->offset;
}

/* Puts a chunk's entries from @first in file order; no two may share a
 * message. */
static gboolean
order_chunk_entries (McapReader * self, gsize first, GError ** error)
{
  McapEntry *entries = &g_array_index (self->entries, McapEntry, first);
  gsize n = self->entries->len - first;

  g_qsort_with_data (entries, n, sizeof (McapEntry), compare_offsets, NULL);
  for (gsize i = 1; i < n; i++) {
    if (entries[i].offset == entries[i - 1].offset)
      return rc_reader_fail (error, RC_READER_ERROR_FORMAT, "MCAP: chunk at "
          "offset %" G_GUINT64_FORMAT ": its message indexes list the message "
          "at offset %" G_GUINT64_FORMAT " twice", g_array_index (self->chunks,
              McapChunkInfo, entries[i].chunk).offset, entries[i].offset);
  }
  return TRUE;
}

/* The chunk @index points to, before @data_end, and its messages. */
static gboolean
load_chunk (McapReader * self, const McapChunkIndex * index, gsize data_end,
    GError ** error)
{
  McapRecord record;
  gsize first = self->entries->len;
  guint32 chunk;

  if (index->chunk_start_offset > data_end
      || mcap_record_at (self->data, data_end, index->chunk_start_offset,
          MCAP_NO_CHUNK, &record) != MCAP_RECORD_OK
      || record.opcode != MCAP_OP_CHUNK
      || MCAP_RECORD_PREFIX + record.length != index->chunk_length)
    return rc_reader_fail (error, RC_READER_ERROR_FORMAT, "MCAP: a chunk "
        "index puts a chunk record of %" G_GUINT64_FORMAT " bytes at offset %"
        G_GUINT64_FORMAT ", where the data section (up to offset %"
        G_GSIZE_FORMAT ") has none", index->chunk_length,
        index->chunk_start_offset, data_end);
  if (index->n_index_offsets == 0)
    return read_chunk_now (self, &record, error);
  if (!add_chunk (self, &record, &chunk, error))
    return FALSE;
  for (gsize i = 0; i < index->n_index_offsets; i++) {
    const guint8 *pair = index->index_offsets + 10 * i;

    if (!load_message_index (self, chunk, pair[0] | (pair[1] << 8),
            rc_get_u64 (pair + 2), data_end, error))
      return FALSE;
  }
  return order_chunk_entries (self, first, error);
}

static gint
compare_chunk_starts (gconstpointer a, gconstpointer b)
{
  const McapChunkIndex *x = a, *y = b;

  return x->chunk_start_offset < y->chunk_start_offset ? -1 :
      x->chunk_start_offset > y->chunk_start_offset;
}

/* The chunks of the chunk indexes, in file order, none overlapping. */
static gboolean
load_chunks (McapReader * self, GArray * indexes, gsize data_end,
    GError ** error)
{
  guint64 end = self->data_start;

  g_array_sort (indexes, compare_chunk_starts);
  for (guint i = 0; i < indexes->len; i++) {
    const McapChunkIndex *index = &g_array_index (indexes, McapChunkIndex, i);

    if (index->chunk_start_offset < end)
      return rc_reader_fail (error, RC_READER_ERROR_FORMAT, "MCAP: a chunk "
          "index puts a chunk at offset %" G_GUINT64_FORMAT ", inside the "
          "header or the chunk before (which ends at offset %" G_GUINT64_FORMAT
          ")", index->chunk_start_offset, end);
    if (!load_chunk (self, index, data_end, error))
      return FALSE;
    end = index->chunk_start_offset + index->chunk_length;
  }
  return TRUE;
}

typedef gboolean (*SummaryFunc) (McapReader * self, const McapRecord * record,
    GArray * indexes, GError ** error);

/* Calls @func on each record from @start to @end, all of which must be
 * whole. */
static gboolean
walk_summary (McapReader * self, gsize start, gsize end, SummaryFunc func,
    GArray * indexes, GError ** error)
{
  McapRecord record;

  for (gsize pos = start; pos < end;
      pos += MCAP_RECORD_PREFIX + record.length) {
    if (mcap_record_at (self->data, end, pos, MCAP_NO_CHUNK, &record)
        != MCAP_RECORD_OK)
      return rc_reader_fail (error, RC_READER_ERROR_FORMAT, "MCAP: the "
          "summary record at offset %" G_GSIZE_FORMAT " runs past the "
          "summary's end at offset %" G_GSIZE_FORMAT, pos, end);
    if (!func (self, &record, indexes, error))
      return FALSE;
  }
  return TRUE;
}

/* First pass: the schemas, which the channels name whatever the order of
 * the summary's groups. */
static gboolean
summary_schema (McapReader * self, const McapRecord * record,
    GArray * indexes, GError ** error)
{
  McapSchema schema;

  if (record->opcode != MCAP_OP_SCHEMA)
    return TRUE;
  if (!mcap_parse_schema (record, &schema, error))
    return FALSE;
  mcap_reader_add_schema (self, &schema);
  return TRUE;
}

/* Second pass: channels, chunk indexes (into @indexes) and the message
 * count, to size the index. */
static gboolean
summary_record (McapReader * self, const McapRecord * record,
    GArray * indexes, GError ** error)
{
  McapChannel channel;
  McapChunkIndex index;
  McapStatistics statistics;

  switch (record->opcode) {
    case MCAP_OP_CHANNEL:
      return mcap_parse_channel (record, &channel, error)
          && mcap_reader_add_channel (self, record, &channel, TRUE, error);
    case MCAP_OP_CHUNK_INDEX:
      if (!mcap_parse_chunk_index (record, &index, error))
        return FALSE;
      g_array_append_val (indexes, index);
      return TRUE;
    case MCAP_OP_STATISTICS:
      if (!mcap_parse_statistics (record, &statistics, error))
        return FALSE;
      /* A message index entry takes 16 bytes of the file. */
      if (statistics.message_count <= self->size / 16) {
        g_array_set_size (self->entries, statistics.message_count);
        g_array_set_size (self->entries, 0);
      }
      return TRUE;
    default:
      return TRUE;
  }
}

/* Where the summary ends (*@end), after checking the footer's offsets
 * and the summary's CRC. */
static gboolean
check_summary (McapReader * self, const McapFooter * footer,
    gsize footer_offset, gsize * end, GError ** error)
{
  guint64 start = footer->summary_start;
  guint32 crc;

  *end = footer->summary_offset_start ? footer->summary_offset_start :
      footer_offset;
  if (start < self->data_start || start > footer_offset
      || *end < start || *end > footer_offset)
    return rc_reader_fail (error, RC_READER_ERROR_FORMAT, "MCAP: footer at "
        "offset %" G_GSIZE_FORMAT ": the summary from offset %"
        G_GUINT64_FORMAT " to %" G_GUINT64_FORMAT " is not between the "
        "header (ending at %" G_GSIZE_FORMAT ") and the footer", footer_offset,
        start, footer->summary_offset_start, self->data_start);
  if (!self->check_crc || footer->summary_crc == 0)
    return TRUE;
  /* Up to the footer's summary_crc field. */
  crc = mcap_crc32 (self->data + start,
      footer_offset + MCAP_RECORD_PREFIX + 16 - start);
  if (crc == footer->summary_crc)
    return TRUE;
  return rc_reader_fail (error, RC_READER_ERROR_FORMAT, "MCAP: summary at "
      "offset %" G_GUINT64_FORMAT ": CRC 0x%08x, the footer says 0x%08x",
      start, crc, footer->summary_crc);
}

gboolean
mcap_index_from_summary (McapReader * self, const McapFooter * footer,
    gsize footer_offset, gboolean * indexed, GError ** error)
{
  GArray *indexes = g_array_new (FALSE, FALSE, sizeof (McapChunkIndex));
  gsize end;
  gboolean ok;

  ok = check_summary (self, footer, footer_offset, &end, error)
      && walk_summary (self, footer->summary_start, end, summary_schema,
      indexes, error)
      && walk_summary (self, footer->summary_start, end, summary_record,
      indexes, error);
  self->defs_pos = self->data_start;
  self->defs_end = footer->summary_start;
  ok = ok && load_chunks (self, indexes, footer->summary_start, error);
  *indexed = indexes->len > 0;
  /* The schemas of channels that no message index needed (a topic
   * without messages), wherever they are. */
  if (ok && *indexed)
    ok = read_definitions (self, self->defs_end, WAITING_CHANNELS, error)
        && check_waiting (self, WAITING_CHANNELS, error);
  g_array_unref (indexes);
  return ok;
}
