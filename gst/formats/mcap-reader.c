/* MCAP files behind reader.h.  Its channels become topics (one per topic
 * name, the first channel giving the type, encoding and schema; channels
 * of one name that differ in them make a topic of several definitions,
 * reader.h); at open
 * an index of every message (log time, channel, chunk, offset) is built,
 * from the summary's chunk indexes and the message indexes after each
 * chunk where the file has them (mcap-index.c; schemas and channels the
 * summary does not repeat are taken from the data section), else by
 * scanning the data section, which also reads a file cut off
 * mid-recording up to its last complete record.  Messages are then read
 * in log-time order, each chunk decompressed when a message in it is
 * first needed and kept in a small cache, and a message that rosbag2
 * compressed alone decompressed as it is read.
 *
 * CRCs (0: not written, not checked; none with RC_READER_FLAG_SKIP_CRC):
 * a chunk's is checked whenever it is decompressed, so at open for the
 * chunks that are scanned (no summary or no message index) or read for
 * the schemas and channels the summary leaves out, and otherwise at the
 * first message read from it, which then fails.  The data
 * section's and the attachments' are checked when the data section is
 * scanned; the summary's whenever the summary is used. */
#include "mcap-reader.h"

#include <string.h>

typedef struct
{
  gchar *name, *encoding, *data;
  gsize size;
} McapStoredSchema;

static void
stored_schema_free (gpointer data)
{
  McapStoredSchema *schema = data;

  g_free (schema->name);
  g_free (schema->encoding);
  g_free (schema->data);
  g_free (schema);
}

static gchar *
bytes_to_string (const McapBytes * bytes)
{
  return g_strndup ((const gchar *) bytes->data, bytes->size);
}

void
mcap_reader_add_schema (McapReader * self, const McapSchema * schema)
{
  McapStoredSchema *stored;

  if (schema->id == 0 || g_hash_table_contains (self->schemas,
          GUINT_TO_POINTER (schema->id)))
    return;
  stored = g_new0 (McapStoredSchema, 1);
  stored->name = bytes_to_string (&schema->name);
  stored->encoding = bytes_to_string (&schema->encoding);
  stored->data = g_memdup2 (schema->data.data, schema->data.size);
  stored->size = schema->data.size;
  g_hash_table_insert (self->schemas, GUINT_TO_POINTER (schema->id), stored);
  for (guint i = 0; i < self->waiting->len;) {
    McapWaitingChannel waiting = g_array_index (self->waiting,
        McapWaitingChannel, i);

    if (waiting.channel.schema_id != schema->id) {
      i++;
      continue;
    }
    g_array_remove_index (self->waiting, i);
    /* Cannot fail: its schema is known now. */
    mcap_reader_add_channel (self, &waiting.record, &waiting.channel, FALSE,
        NULL);
  }
}

static guint
add_topic (McapReader * self, const gchar * name,
    const McapChannel * channel, const McapStoredSchema * schema)
{
  RcReader *reader = &self->parent;
  gchar *encoding = bytes_to_string (&channel->message_encoding);
  guint topic = rc_reader_add_topic (reader, name, schema ? schema->name : "",
      encoding);

  g_free (encoding);
  if (schema)
    rc_reader_set_topic_schema (reader, topic, schema->name,
        schema->encoding, (const guint8 *) schema->data, schema->size);
  g_hash_table_insert (self->topic_of_name,
      (gpointer) rc_reader_get_topic (reader, topic)->name,
      GUINT_TO_POINTER (topic + 1));
  return topic;
}

static void
append_field (GByteArray * key, const void *data, gsize size)
{
  guint64 length = size;

  g_byte_array_append (key, (const guint8 *) &length, sizeof (length));
  g_byte_array_append (key, data, size);
}

/* Counts @channel's definition for @topic: its message encoding and
 * schema, which together say how its messages decode. */
static void
add_definition (McapReader * self, guint topic, const McapChannel * channel,
    const McapStoredSchema * schema)
{
  GByteArray *key = g_byte_array_new ();
  gchar *encoding = bytes_to_string (&channel->message_encoding);
  gchar *label;

  append_field (key, encoding, strlen (encoding));
  if (schema) {
    gchar *sum = g_compute_checksum_for_data (G_CHECKSUM_SHA256,
        (const guchar *) schema->data, schema->size);

    append_field (key, schema->name, strlen (schema->name));
    append_field (key, schema->encoding, strlen (schema->encoding));
    append_field (key, schema->data, schema->size);
    /* The checksum tells apart schemas of one name and size. */
    label = g_strdup_printf ("%s (message encoding %s, schema %s of %"
        G_GSIZE_FORMAT " bytes, sha256 %.8s)", schema->name, encoding,
        schema->encoding, schema->size, sum);
    g_free (sum);
  } else {
    label = g_strdup_printf ("no type (message encoding %s, no schema)",
        encoding);
  }
  rc_reader_add_topic_definition (&self->parent, topic, label, key->data,
      key->len);
  g_free (label);
  g_free (encoding);
  g_byte_array_unref (key);
}

gboolean
mcap_reader_add_channel (McapReader * self, const McapRecord * record,
    const McapChannel * channel, gboolean can_wait, GError ** error)
{
  McapStoredSchema *schema = NULL;
  gchar *name;
  guint topic;

  if (g_hash_table_contains (self->channel_topics,
          GUINT_TO_POINTER (channel->id)))
    return TRUE;
  if (channel->schema_id != 0) {
    schema = g_hash_table_lookup (self->schemas,
        GUINT_TO_POINTER (channel->schema_id));
    if (!schema && can_wait) {
      McapWaitingChannel waiting = { *record, *channel };

      g_array_append_val (self->waiting, waiting);
      return TRUE;
    }
    if (!schema)
      return mcap_record_fail (record, error, RC_READER_ERROR_FORMAT,
          "channel %u names schema %u, which the file has not defined",
          channel->id, channel->schema_id);
  }
  name = bytes_to_string (&channel->topic);
  topic = GPOINTER_TO_UINT (g_hash_table_lookup (self->topic_of_name, name));
  if (topic == 0)
    topic = add_topic (self, name, channel, schema) + 1;
  add_definition (self, topic - 1, channel, schema);
  g_free (name);
  g_hash_table_insert (self->channel_topics, GUINT_TO_POINTER (channel->id),
      GUINT_TO_POINTER (topic));
  return TRUE;
}

gint
mcap_reader_channel_topic (McapReader * self, guint16 channel)
{
  return (gint) GPOINTER_TO_UINT (g_hash_table_lookup (self->channel_topics,
          GUINT_TO_POINTER (channel))) - 1;
}

/* The bytes of the message @entry points to, checked against it. */
static gboolean
read_message (McapReader * self, const McapEntry * entry,
    const guint8 ** data, gsize * size, GError ** error)
{
  const guint8 *buffer = self->data;
  gsize buffer_size = self->size;
  guint64 chunk_offset = MCAP_NO_CHUNK;
  McapRecord record;
  McapMessage message;

  if (entry->chunk != MCAP_NOT_CHUNKED) {
    const McapChunkInfo *info = &g_array_index (self->chunks, McapChunkInfo,
        entry->chunk);

    buffer = mcap_reader_get_chunk (self, entry->chunk, error);
    if (!buffer)
      return FALSE;
    buffer_size = info->chunk.uncompressed_size;
    chunk_offset = info->offset;
  }
  if (mcap_record_at (buffer, buffer_size, entry->offset, chunk_offset,
          &record) != MCAP_RECORD_OK || record.opcode != MCAP_OP_MESSAGE)
    return rc_reader_fail (error, RC_READER_ERROR_FORMAT, "MCAP: the message "
        "index points to offset %" G_GUINT64_FORMAT " in the chunk at offset %"
        G_GUINT64_FORMAT ", where no message record is", entry->offset,
        chunk_offset);
  if (!mcap_parse_message (&record, &message, error))
    return FALSE;
  if (message.channel_id != entry->channel || message.log_time != entry->time)
    return mcap_record_fail (&record, error, RC_READER_ERROR_FORMAT,
        "channel %u, log time %" G_GUINT64_FORMAT ", but its message index "
        "says channel %u, log time %" G_GUINT64_FORMAT, message.channel_id,
        message.log_time, entry->channel, entry->time);
  *data = message.data.data;
  *size = message.data.size;
  return TRUE;
}

static RcReaderResult
mcap_reader_next (RcReader * reader, RcMessage * message, GError ** error)
{
  McapReader *self = (McapReader *) reader;
  const McapEntry *entry = rc_entries_next_selected (reader, self->entries,
      G_STRUCT_OFFSET (McapEntry, topic), &self->next, message);

  if (!entry)
    return RC_READER_END;
  message->type = rc_reader_get_topic (reader, message->topic)->type;
  message->time = entry->time;
  if (!read_message (self, entry, &message->data, &message->size, error)
      || !rc_reader_inflate_rosbag2_message (reader, message,
          &self->inflated, &self->inflated_capacity, error))
    return RC_READER_FAILED;
  return RC_READER_OK;
}

static void
mcap_reader_seek (RcReader * reader, guint64 time)
{
  McapReader *self = (McapReader *) reader;

  self->next = rc_entries_lower_bound (self->entries,
      G_STRUCT_OFFSET (McapEntry, time), time);
}

static void
mcap_reader_clear (RcReader * reader)
{
  McapReader *self = (McapReader *) reader;

  mcap_reader_clear_chunks (self);
  g_hash_table_unref (self->schemas);
  g_hash_table_unref (self->channel_topics);
  g_hash_table_unref (self->topic_of_name);
  g_array_unref (self->waiting);
  g_array_unref (self->chunks);
  g_array_unref (self->entries);
  g_free (self->inflated);
  g_free (self->reason);
}

static const RcReaderFuncs mcap_reader_funcs = {
  mcap_reader_next,
  mcap_reader_seek,
  mcap_reader_clear,
};

/* The header record, right after the leading magic; sets data_start. */
static gboolean
read_header (McapReader * self, GError ** error)
{
  McapRecord record;
  McapHeader header;

  if (mcap_record_at (self->data, self->size, MCAP_MAGIC_SIZE, MCAP_NO_CHUNK,
          &record) != MCAP_RECORD_OK)
    return rc_reader_fail (error, RC_READER_ERROR_FORMAT, "MCAP: the header "
        "record at offset %d is cut off: the file is %" G_GSIZE_FORMAT
        " bytes", MCAP_MAGIC_SIZE, self->size);
  if (record.opcode != MCAP_OP_HEADER)
    return mcap_record_fail (&record, error, RC_READER_ERROR_FORMAT, "the "
        "file must start with a header record (opcode 1), not opcode %u",
        record.opcode);
  if (!mcap_parse_header (&record, &header, error))
    return FALSE;
  self->data_start = MCAP_MAGIC_SIZE + MCAP_RECORD_PREFIX + record.length;
  return TRUE;
}

/* The footer and trailing magic of a whole file; FALSE (no error) when
 * the file does not end with them, e.g. when it is cut off. */
static gboolean
find_footer (McapReader * self, McapFooter * footer, gsize * footer_offset)
{
  McapRecord record;
  gsize at;

  if (self->size < self->data_start + MCAP_FOOTER_SIZE + MCAP_MAGIC_SIZE)
    return FALSE;
  at = self->size - MCAP_MAGIC_SIZE - MCAP_FOOTER_SIZE;
  if (memcmp (self->data + self->size - MCAP_MAGIC_SIZE, MCAP_MAGIC,
          MCAP_MAGIC_SIZE))
    return FALSE;
  if (mcap_record_at (self->data, self->size - MCAP_MAGIC_SIZE, at,
          MCAP_NO_CHUNK, &record) != MCAP_RECORD_OK
      || record.opcode != MCAP_OP_FOOTER)
    return FALSE;
  *footer_offset = at;
  return mcap_parse_footer (&record, footer, NULL);
}

/* Sorts the index by log time, file order kept among equal times (GLib's
 * qsort is a stable merge sort), and counts each topic's messages. */
static gint
compare_entries (gconstpointer a, gconstpointer b, gpointer unused)
{
  const McapEntry *x = a, *y = b;

  return x->time < y->time ? -1 : x->time > y->time;
}

static void
sort_and_count (McapReader * self)
{
  g_qsort_with_data (self->entries->data, self->entries->len,
      sizeof (McapEntry), compare_entries, NULL);
  for (guint i = 0; i < self->entries->len; i++) {
    const McapEntry *e = &g_array_index (self->entries, McapEntry, i);
    RcTopic *t = rc_reader_topic (&self->parent, e->topic);

    if (t->n_messages++ == 0)
      t->first_time = e->time;
    t->last_time = e->time;
  }
}

static McapReader *
mcap_reader_new (const guint8 * data, gsize size, RcReaderFlags flags)
{
  McapReader *self = g_new0 (McapReader, 1);

  rc_reader_init (&self->parent, &mcap_reader_funcs);
  self->data = data;
  self->size = size;
  self->check_crc = !(flags & RC_READER_FLAG_SKIP_CRC);
  self->schemas = g_hash_table_new_full (g_direct_hash, g_direct_equal, NULL,
      stored_schema_free);
  self->channel_topics = g_hash_table_new (g_direct_hash, g_direct_equal);
  self->topic_of_name = g_hash_table_new (g_str_hash, g_str_equal);
  self->waiting = g_array_new (FALSE, FALSE, sizeof (McapWaitingChannel));
  self->chunks = g_array_new (FALSE, FALSE, sizeof (McapChunkInfo));
  self->entries = g_array_new (FALSE, FALSE, sizeof (McapEntry));
  return self;
}

RcReader *
rc_mcap_reader_open (const guint8 * data, gsize size, RcReaderFlags flags,
    GError ** error)
{
  McapReader *self = mcap_reader_new (data, size, flags);
  McapFooter footer;
  gsize footer_offset;
  gboolean indexed = FALSE, ok, have_footer;

  ok = read_header (self, error);
  have_footer = ok && find_footer (self, &footer, &footer_offset);
  if (have_footer && footer.summary_start != 0)
    ok = mcap_index_from_summary (self, &footer, footer_offset, &indexed,
        error);
  if (ok && !indexed)
    ok = mcap_index_by_scanning (self, !have_footer ? "the file does not "
        "end with a footer and the closing magic (its recording was cut "
        "off?)" : footer.summary_start == 0 ? "the file has no summary" :
        "the file's summary has no chunk index", error);
  if (!ok) {
    rc_reader_free (&self->parent);
    return NULL;
  }
  sort_and_count (self);
  return &self->parent;
}
