/* The test MCAP writer (mcap-builder.h): records are assembled in byte
 * arrays, little-endian field by field; chunks are compressed with libzstd
 * and liblz4's frame API; CRCs are zlib's. */
#include "mcap-builder.h"

#include <string.h>
#include <zlib.h>
#include <zstd.h>
#include <lz4frame.h>

#define MAGIC "\x89MCAP0\r\n"

static void
put_u8 (GByteArray * out, guint8 v)
{
  g_byte_array_append (out, &v, 1);
}

static void
put_u16 (GByteArray * out, guint16 v)
{
  guint8 b[2] = { v & 0xff, v >> 8 };

  g_byte_array_append (out, b, 2);
}

static void
put_u32 (GByteArray * out, guint32 v)
{
  guint32 le = GUINT32_TO_LE (v);

  g_byte_array_append (out, (const guint8 *) &le, 4);
}

static void
put_u64 (GByteArray * out, guint64 v)
{
  guint64 le = GUINT64_TO_LE (v);

  g_byte_array_append (out, (const guint8 *) &le, 8);
}

static void
put_bytes32 (GByteArray * out, const void *data, gsize size)
{
  put_u32 (out, size);
  g_byte_array_append (out, data, size);
}

static void
put_string (GByteArray * out, const gchar * s)
{
  put_bytes32 (out, s, strlen (s));
}

/* Appends a record to @out; returns its offset there. */
static guint64
put_record (GByteArray * out, guint8 opcode, GByteArray * content)
{
  guint64 offset = out->len;

  put_u8 (out, opcode);
  put_u64 (out, content->len);
  g_byte_array_append (out, content->data, content->len);
  g_byte_array_unref (content);
  return offset;
}

/* A record into the open chunk or the file, and into @copy if not NULL. */
static guint64
add_record (McapBuilder * b, guint8 opcode, GByteArray * content,
    GByteArray * copy)
{
  guint64 offset, end;

  if (copy) {
    put_u8 (copy, opcode);
    put_u64 (copy, content->len);
    g_byte_array_append (copy, content->data, content->len);
  }
  if (b->chunk)
    return put_record (b->chunk, opcode, content);
  offset = put_record (b->file, opcode, content);
  end = b->file->len;
  g_array_append_val (b->ends, end);
  return offset;
}

static void
random_bytes (guint8 * data, gsize size)
{
  for (gsize i = 0; i < size; i++)
    data[i] = g_test_rand_int_range (0, 256);
  if (size)
    data[0] = g_test_rand_int_range (1, 256);
}

McapBuilder *
mb_new (void)
{
  McapBuilder *b = g_new0 (McapBuilder, 1);
  GByteArray *header = g_byte_array_new ();

  b->file = g_byte_array_new ();
  b->chunk_indexes = g_byte_array_new ();
  b->schemas = g_byte_array_new ();
  b->channels = g_byte_array_new ();
  b->topics = g_hash_table_new_full (g_direct_hash, g_direct_equal, NULL,
      g_free);
  b->messages = g_array_new (FALSE, TRUE, sizeof (MbMessage));
  b->ends = g_array_new (FALSE, FALSE, sizeof (guint64));
  b->chunk_offsets = g_array_new (FALSE, FALSE, sizeof (guint64));
  b->message_indexes = TRUE;
  b->repeat_schemas = b->repeat_channels = TRUE;
  g_byte_array_append (b->file, (const guint8 *) MAGIC, 8);
  put_string (header, "ros2");
  put_string (header, "robocache test builder");
  add_record (b, 0x01, header, NULL);
  return b;
}

void
mb_free (McapBuilder * b)
{
  for (guint i = 0; i < b->messages->len; i++)
    g_bytes_unref (g_array_index (b->messages, MbMessage, i).data);
  g_byte_array_unref (b->file);
  g_byte_array_unref (b->chunk_indexes);
  g_byte_array_unref (b->schemas);
  g_byte_array_unref (b->channels);
  g_hash_table_unref (b->topics);
  g_array_unref (b->messages);
  g_array_unref (b->ends);
  g_array_unref (b->chunk_offsets);
  g_free (b);
}

void
mb_schema (McapBuilder * b, guint16 id, const gchar * name,
    const gchar * encoding, const gchar * text)
{
  GByteArray *c = g_byte_array_new ();

  put_u16 (c, id);
  put_string (c, name);
  put_string (c, encoding);
  put_bytes32 (c, text, strlen (text));
  add_record (b, 0x03, c, b->schemas);
}

void
mb_channel (McapBuilder * b, guint16 id, guint16 schema_id,
    const gchar * topic, const gchar * encoding)
{
  GByteArray *c = g_byte_array_new ();

  put_u16 (c, id);
  put_u16 (c, schema_id);
  put_string (c, topic);
  put_string (c, encoding);
  /* metadata: one pair */
  put_u32 (c, 4 + 5 + 4 + 2);
  put_string (c, "qos_x");
  put_string (c, "ok");
  add_record (b, 0x04, c, b->channels);
  g_hash_table_insert (b->topics, GUINT_TO_POINTER (id), g_strdup (topic));
}

/* The open chunk's message index entry for a message at @offset. */
static void
index_message (McapBuilder * b, guint16 channel, guint64 time, guint64 offset)
{
  GArray *entries = g_hash_table_lookup (b->chunk_index,
      GUINT_TO_POINTER (channel));
  guint64 pair[2] = { time, offset };

  if (!entries) {
    entries = g_array_new (FALSE, FALSE, sizeof (pair));
    g_hash_table_insert (b->chunk_index, GUINT_TO_POINTER (channel), entries);
  }
  g_array_append_val (entries, pair);
  if (b->chunk_start_time == 0 || time < b->chunk_start_time)
    b->chunk_start_time = time;
  b->chunk_end_time = MAX (b->chunk_end_time, time);
}

void
mb_message (McapBuilder * b, guint16 channel, guint64 time, gsize size)
{
  guint8 *payload = g_malloc (size);

  random_bytes (payload, size);
  mb_message_take (b, channel, time, payload, size);
}

void
mb_message_take (McapBuilder * b, guint16 channel, guint64 time,
    guint8 * payload, gsize size)
{
  GByteArray *c = g_byte_array_new ();
  MbMessage m = { 0, };
  guint64 offset;

  put_u16 (c, channel);
  put_u32 (c, b->messages->len);
  put_u64 (c, time);
  put_u64 (c, time + 7);
  g_byte_array_append (c, payload, size);
  offset = add_record (b, 0x05, c, NULL);
  m.time = time;
  m.channel = channel;
  m.topic = g_hash_table_lookup (b->topics, GUINT_TO_POINTER (channel));
  m.data = g_bytes_new_take (payload, size);
  m.end = b->file->len;
  g_array_append_val (b->messages, m);
  if (b->chunk)
    index_message (b, channel, time, offset);
}

void
mb_record (McapBuilder * b, guint8 opcode, gsize size)
{
  GByteArray *c = g_byte_array_sized_new (size);

  g_byte_array_set_size (c, size);
  random_bytes (c->data, size);
  add_record (b, opcode, c, NULL);
}

static void
free_entries (gpointer data)
{
  g_array_unref (data);
}

void
mb_chunk_begin (McapBuilder * b, const gchar * compression)
{
  g_assert_null (b->chunk);
  b->chunk = g_byte_array_new ();
  b->compression = g_strdup (compression);
  b->chunk_start_time = b->chunk_end_time = 0;
  b->chunk_index = g_hash_table_new_full (g_direct_hash, g_direct_equal,
      NULL, free_entries);
  b->chunk_first_message = b->messages->len;
}

/* The open chunk's records compressed as its compression says. */
static GBytes *
compress_records (McapBuilder * b)
{
  const guint8 *in = b->chunk->data;
  gsize n = b->chunk->len, made;
  guint8 *out;

  if (!strcmp (b->compression, "zstd")) {
    out = g_malloc (ZSTD_compressBound (n));
    made = ZSTD_compress (out, ZSTD_compressBound (n), in, n, 3);
    g_assert_false (ZSTD_isError (made));
  } else if (!strcmp (b->compression, "lz4")) {
    out = g_malloc (LZ4F_compressFrameBound (n, NULL));
    made = LZ4F_compressFrame (out, LZ4F_compressFrameBound (n, NULL), in, n,
        NULL);
    g_assert_false (LZ4F_isError (made));
  } else {
    out = g_memdup2 (in, n);
    made = n;
  }
  return g_bytes_new_take (out, made);
}

static gint
compare_channels (gconstpointer a, gconstpointer b)
{
  return (gint) GPOINTER_TO_UINT (a) - (gint) GPOINTER_TO_UINT (b);
}

/* The message index records after a chunk, in channel order; their
 * offsets into @offsets (channel, offset pairs as a chunk index maps
 * them). */
static void
put_message_indexes (McapBuilder * b, GByteArray * offsets)
{
  GList *channels = g_list_sort (g_hash_table_get_keys (b->chunk_index),
      compare_channels);

  for (GList * l = channels; l; l = l->next) {
    guint16 channel = GPOINTER_TO_UINT (l->data);
    GArray *entries = g_hash_table_lookup (b->chunk_index, l->data);
    GByteArray *c = g_byte_array_new ();
    guint64 offset;

    put_u16 (c, channel);
    put_u32 (c, entries->len * 16);
    for (guint i = 0; i < entries->len; i++) {
      put_u64 (c, g_array_index (entries, guint64, 2 * i));
      put_u64 (c, g_array_index (entries, guint64, 2 * i + 1));
    }
    offset = add_record (b, 0x07, c, NULL);
    put_u16 (offsets, channel);
    put_u64 (offsets, offset);
  }
  g_list_free (channels);
}

static void
put_chunk_index (McapBuilder * b, guint64 offset, guint64 length,
    GByteArray * index_offsets, guint64 index_length, gsize compressed,
    gsize uncompressed)
{
  GByteArray *c = g_byte_array_new ();

  put_u64 (c, b->chunk_start_time);
  put_u64 (c, b->chunk_end_time);
  put_u64 (c, offset);
  put_u64 (c, length);
  put_bytes32 (c, index_offsets->data, index_offsets->len);
  put_u64 (c, index_length);
  put_string (c, b->compression);
  put_u64 (c, compressed);
  put_u64 (c, uncompressed);
  put_record (b->chunk_indexes, 0x08, c);
}

void
mb_chunk_end (McapBuilder * b)
{
  GByteArray *c = g_byte_array_new (), *records = b->chunk;
  GByteArray *index_offsets = g_byte_array_new ();
  GBytes *compressed = compress_records (b);
  guint64 offset, end;
  gsize size;
  const guint8 *data = g_bytes_get_data (compressed, &size);

  put_u64 (c, b->chunk_start_time);
  put_u64 (c, b->chunk_end_time);
  put_u64 (c, records->len);
  put_u32 (c, crc32 (0, records->data, records->len));
  put_string (c, b->compression);
  put_u64 (c, size);
  g_byte_array_append (c, data, size);
  b->chunk = NULL;
  offset = add_record (b, 0x06, c, NULL);
  end = b->file->len;
  g_array_append_val (b->chunk_offsets, offset);
  for (guint i = b->chunk_first_message; i < b->messages->len; i++)
    g_array_index (b->messages, MbMessage, i).end = end;
  if (b->message_indexes)
    put_message_indexes (b, index_offsets);
  put_chunk_index (b, offset, end - offset, index_offsets, b->file->len - end,
      size, records->len);
  b->n_chunks++;
  g_byte_array_unref (index_offsets);
  g_byte_array_unref (records);
  g_bytes_unref (compressed);
  g_hash_table_unref (b->chunk_index);
  g_free (b->compression);
}

static void
put_statistics (McapBuilder * b, GByteArray * out)
{
  GByteArray *c = g_byte_array_new ();
  guint64 first = G_MAXUINT64, last = 0;

  for (guint i = 0; i < b->messages->len; i++) {
    first = MIN (first, g_array_index (b->messages, MbMessage, i).time);
    last = MAX (last, g_array_index (b->messages, MbMessage, i).time);
  }
  put_u64 (c, b->messages->len);
  put_u16 (c, 0);
  put_u32 (c, g_hash_table_size (b->topics));
  put_u32 (c, 0);
  put_u32 (c, 0);
  put_u32 (c, b->n_chunks);
  put_u64 (c, b->messages->len ? first : 0);
  put_u64 (c, last);
  put_u32 (c, 0);
  put_record (out, 0x0b, c);
}

/* A group of summary records and the summary offset record for it. */
static void
put_group (McapBuilder * b, guint8 opcode, GByteArray * records,
    GByteArray * offsets)
{
  GByteArray *c;

  if (records->len == 0)
    return;
  c = g_byte_array_new ();
  put_u8 (c, opcode);
  put_u64 (c, b->file->len);
  put_u64 (c, records->len);
  put_record (offsets, 0x0e, c);
  g_byte_array_append (b->file, records->data, records->len);
}

static void
put_summary (McapBuilder * b, guint64 * summary_start, guint64 * offsets_start)
{
  GByteArray *offsets = g_byte_array_new (), *statistics = g_byte_array_new ();

  *summary_start = b->file->len;
  if (b->repeat_schemas)
    put_group (b, 0x03, b->schemas, offsets);
  if (b->repeat_channels)
    put_group (b, 0x04, b->channels, offsets);
  put_group (b, 0x08, b->chunk_indexes, offsets);
  put_statistics (b, statistics);
  put_group (b, 0x0b, statistics, offsets);
  *offsets_start = b->file->len;
  g_byte_array_append (b->file, offsets->data, offsets->len);
  g_byte_array_unref (offsets);
  g_byte_array_unref (statistics);
  /* Each summary record's end. */
  for (guint64 at = *summary_start; at < b->file->len;) {
    guint64 length;

    memcpy (&length, b->file->data + at + 1, 8);
    at += 9 + GUINT64_FROM_LE (length);
    g_array_append_val (b->ends, at);
  }
}

guint8 *
mb_finish (McapBuilder * b, gboolean summary, gsize * size)
{
  GByteArray *c = g_byte_array_new ();
  guint64 summary_start = 0, offsets_start = 0, end;

  put_u32 (c, crc32 (0, b->file->data, b->file->len));
  b->data_end = add_record (b, 0x0f, c, NULL);
  if (summary)
    put_summary (b, &summary_start, &offsets_start);
  c = g_byte_array_new ();
  put_u64 (c, summary_start);
  put_u64 (c, offsets_start);
  /* The footer's CRC covers the summary and the footer up to it. */
  put_u8 (b->file, 0x02);
  put_u64 (b->file, 20);
  g_byte_array_append (b->file, c->data, c->len);
  put_u32 (b->file, summary ? crc32 (0, b->file->data + summary_start,
          b->file->len - summary_start) : 0);
  g_byte_array_unref (c);
  end = b->file->len;
  g_array_append_val (b->ends, end);
  g_byte_array_append (b->file, (const guint8 *) MAGIC, 8);
  end = b->file->len;
  g_array_append_val (b->ends, end);
  *size = b->file->len;
  return g_memdup2 (b->file->data, b->file->len);
}

static gint
compare_times (gconstpointer a, gconstpointer b, gpointer unused)
{
  const MbMessage *x = a, *y = b;

  return x->time < y->time ? -1 : x->time > y->time;
}

GArray *
mb_messages_in_time_order (McapBuilder * b)
{
  GArray *sorted = g_array_new (FALSE, FALSE, sizeof (MbMessage));

  g_array_append_vals (sorted, b->messages->data, b->messages->len);
  g_qsort_with_data (sorted->data, sorted->len, sizeof (MbMessage),
      compare_times, NULL);
  return sorted;
}

void
mb_write_seed (const gchar * name, const guint8 * data, gsize size)
{
  const gchar *dir = g_getenv ("ROBOCACHE_MCAP_SEEDS");
  gchar *file, *path;

  if (!dir)
    return;
  file = g_strdup_printf ("%s.mcap", name);
  path = g_build_filename (dir, file, NULL);
  g_assert_true (g_file_set_contents (path, (const gchar *) data, size, NULL));
  g_free (path);
  g_free (file);
}
