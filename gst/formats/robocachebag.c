/* ROS 1 bag reader (format 2.0).  The layout, from the rosbag format
 * documentation: "#ROSBAG V2.0\n", then records of
 *   uint32 header_len, header (fields: uint32 len, "name=value"),
 *   uint32 data_len, data.
 * The bag header (op 0x03) gives index_pos; there the connection records
 * (op 0x07) and chunk infos (op 0x06) are found.  Each chunk record (op
 * 0x05) is followed by index data records (op 0x04) listing (time, offset)
 * per connection; the offsets point at message data records (op 0x02) in
 * the decompressed chunk. */
#include "bag-private.h"

#include <bzlib.h>
#include <lz4frame.h>
#include <string.h>

#define VERSION_LINE "#ROSBAG V2.0\n"

/* Reads the record at @pos of @buf (@len bytes); @what names it in
 * errors.  With @partial, its data may be cut off by the end of @buf. */
static gboolean
read_record (const guint8 * buf, gsize len, gsize pos, gboolean partial,
    BagRecord * r, const gchar * what, GError ** error)
{
  gsize left;

  if (pos > len || len - pos < 4)
    return rc_reader_fail (error, RC_READER_ERROR_FORMAT,
        "%s at byte %" G_GSIZE_FORMAT
        ": truncated (no room for its header length)", what, pos);
  left = len - pos - 4;
  r->header_len = rc_get_u32 (buf + pos);
  if (r->header_len > left || left - r->header_len < 4)
    return rc_reader_fail (error, RC_READER_ERROR_FORMAT,
        "%s at byte %" G_GSIZE_FORMAT ": header length %u exceeds the %"
        G_GSIZE_FORMAT " bytes left (truncated or corrupt)", what, pos,
        r->header_len, left);
  r->header = buf + pos + 4;
  left -= r->header_len + 4;
  r->data_len = rc_get_u32 (r->header + r->header_len);
  if (r->data_len > left && !partial)
    return rc_reader_fail (error, RC_READER_ERROR_FORMAT,
        "%s at byte %" G_GSIZE_FORMAT ": data length %u exceeds the %"
        G_GSIZE_FORMAT " bytes left (truncated or corrupt)", what, pos,
        r->data_len, left);
  r->avail = MIN (r->data_len, left);
  r->data = r->header + r->header_len + 4;
  r->next = pos + 8 + (gsize) r->header_len + r->data_len;
  return TRUE;
}

/* Finds field @name in a header (or connection header); the value is not
 * NUL-terminated.  FALSE if absent or if the fields are malformed. */
static gboolean
find_field (const guint8 * h, guint32 len, const gchar * name,
    const guint8 ** value, guint32 * value_len)
{
  gsize name_len = strlen (name);
  gsize pos = 0;

  while (pos < len) {
    guint32 flen;
    const guint8 *f;

    if (len - pos < 4)
      return FALSE;
    flen = rc_get_u32 (h + pos);
    pos += 4;
    if (flen > len - pos)
      return FALSE;
    f = h + pos;
    pos += flen;
    if (flen > name_len && f[name_len] == '=' && !memcmp (f, name, name_len)) {
      *value = f + name_len + 1;
      *value_len = flen - name_len - 1;
      return TRUE;
    }
  }
  return FALSE;
}

gboolean
bag_sized_field (const BagRecord * r, const gchar * name, guint32 size,
    const guint8 ** value, const gchar * what, GError ** error)
{
  guint32 n;

  if (!find_field (r->header, r->header_len, name, value, &n) || n != size)
    return rc_reader_fail (error, RC_READER_ERROR_FORMAT,
        "%s: no %u-byte field %s", what, size, name);
  return TRUE;
}

gboolean
bag_read_uint_field (const BagRecord * r, const gchar * name, guint32 size,
    gpointer v, const gchar * what, GError ** error)
{
  const guint8 *p;

  if (!bag_sized_field (r, name, size, &p, what, error))
    return FALSE;
  if (size == sizeof (guint64))
    *(guint64 *) v = rc_get_u64 (p);
  else
    *(guint32 *) v = rc_get_u32 (p);
  return TRUE;
}

gboolean
bag_read_record (const guint8 * buf, gsize len, gsize pos, gboolean partial,
    BagRecord * r, guint8 * op, const gchar * what, GError ** error)
{
  const guint8 *p;

  if (!read_record (buf, len, pos, partial, r, what, error) ||
      !bag_sized_field (r, "op", 1, &p, what, error))
    return FALSE;
  *op = p[0];
  return TRUE;
}

static gchar *
dup_field (const guint8 * h, guint32 len, const gchar * name)
{
  const guint8 *p;
  guint32 n;

  if (!find_field (h, len, name, &p, &n))
    return NULL;
  return g_strndup ((const gchar *) p, n);
}

static void
connection_clear (gpointer data)
{
  RcBagConnection *c = data;

  g_free (c->topic);
  g_free (c->type);
  g_free (c->md5sum);
}

gboolean
bag_add_connection (RcBag * bag, const BagRecord * r, GError ** error)
{
  RcBagConnection c = { 0, };
  guint idx;

  if (!bag_field_uint (r, "conn", &c.id, "connection record", error))
    return FALSE;
  /* rosbag repeats each connection record in the chunks and at the
   * index: the index copy is the one read, once per id. */
  if (g_hash_table_contains (bag->connection_ids,
          GUINT_TO_POINTER (c.id + 1)) || c.id == G_MAXUINT32)
    return rc_reader_fail (error, RC_READER_ERROR_FORMAT,
        "connection %u is listed twice", c.id);
  c.topic = dup_field (r->header, r->header_len, "topic");
  c.type = dup_field (r->data, r->data_len, "type");
  c.md5sum = dup_field (r->data, r->data_len, "md5sum");
  if (!c.topic || !c.type) {
    connection_clear (&c);
    return rc_reader_fail (error, RC_READER_ERROR_FORMAT,
        "connection %u has no topic or type", c.id);
  }
  idx = bag->connections->len;
  g_array_append_val (bag->connections, c);
  g_hash_table_insert (bag->connection_ids, GUINT_TO_POINTER (c.id + 1),
      GUINT_TO_POINTER (idx + 1));
  return TRUE;
}

gboolean
bag_parse_chunk (RcBag * bag, const BagRecord * r, guint64 chunk_pos,
    BagChunk * chunk, GError ** error)
{
  const guint8 *p;
  guint32 n;

  if (!bag_field_uint (r, "size", &chunk->size, "chunk", error))
    return FALSE;
  if (!find_field (r->header, r->header_len, "compression", &p, &n))
    return rc_reader_fail (error, RC_READER_ERROR_FORMAT, "chunk at byte %"
        G_GUINT64_FORMAT " has no compression field", chunk_pos);
  if (n == 4 && !memcmp (p, "none", 4))
    chunk->compression = BAG_COMPRESSION_NONE;
  else if (n == 3 && !memcmp (p, "bz2", 3))
    chunk->compression = BAG_COMPRESSION_BZ2;
  else if (n == 3 && !memcmp (p, "lz4", 3))
    chunk->compression = BAG_COMPRESSION_LZ4;
  else
    return rc_reader_fail (error, RC_READER_ERROR_UNSUPPORTED, "chunk at "
        "byte %" G_GUINT64_FORMAT ": compression \"%.*s\" is not supported "
        "(none, bz2 and lz4 are)", chunk_pos, (int) MIN (n, 32), p);
  if (chunk->size > bag->max_chunk_size)
    return rc_reader_fail (error, RC_READER_ERROR_TOO_LARGE, "chunk at byte %"
        G_GUINT64_FORMAT " is %u bytes decompressed, above the limit of %"
        G_GSIZE_FORMAT, chunk_pos, chunk->size, bag->max_chunk_size);
  /* An lz4 sequence of n bytes gives at most 255 n + 19: the claim is
   * checked before the chunk is allocated.  bz2 has no useful bound (runs
   * of a byte expand a million times): there the limit above holds. */
  if (chunk->compression == BAG_COMPRESSION_LZ4 &&
      chunk->size > (guint64) r->data_len * 255 + 64)
    return rc_reader_fail (error, RC_READER_ERROR_FORMAT, "lz4 chunk at byte %"
        G_GUINT64_FORMAT " says %u bytes decompressed, more than lz4 can make "
        "of its %u bytes (255 times as many)", chunk_pos, chunk->size,
        r->data_len);
  if (chunk->compression == BAG_COMPRESSION_NONE && chunk->size != r->data_len)
    return rc_reader_fail (error, RC_READER_ERROR_FORMAT, "uncompressed "
        "chunk at byte %" G_GUINT64_FORMAT " says %u bytes but holds %u",
        chunk_pos, chunk->size, r->data_len);
  chunk->data_pos = r->data - bag->base;
  chunk->data_len = r->data_len;
  return TRUE;
}

/* Adds the (time, offset) entries of the index data record @r to the
 * index, as messages of chunk @chunk_index. */
static gboolean
add_index_data (RcBag * bag, const BagRecord * r, guint32 chunk_index,
    GError ** error)
{
  guint32 ver, conn, count;
  gpointer idx;

  if (!bag_field_uint (r, "ver", &ver, "index data", error) ||
      !bag_field_uint (r, "conn", &conn, "index data", error) ||
      !bag_field_uint (r, "count", &count, "index data", error))
    return FALSE;
  if (ver != 1)
    return rc_reader_fail (error, RC_READER_ERROR_UNSUPPORTED,
        "index data version %u (only 1 is known)", ver);
  if ((guint64) count * 12 != r->data_len)
    return rc_reader_fail (error, RC_READER_ERROR_FORMAT, "index data of "
        "connection %u says %u entries but holds %u bytes", conn, count,
        r->data_len);
  /* BagChunk records can be made to overlap so that several share index
   * records; the file holds at most size / 12 distinct entries, which
   * bounds the memory of the index whatever the records claim. */
  if ((guint64) bag->entries->len + count > bag->size / 12)
    return rc_reader_fail (error, RC_READER_ERROR_FORMAT, "the index lists "
        "more messages than the file can hold (chunks sharing index "
        "records)");
  idx = g_hash_table_lookup (bag->connection_ids, GUINT_TO_POINTER (conn + 1));
  if (!idx)
    return rc_reader_fail (error, RC_READER_ERROR_FORMAT, "index data of "
        "unknown connection %u", conn);
  for (guint32 i = 0; i < count; i++) {
    const guint8 *e = r->data + i * 12;
    RcBagEntry entry;

    entry.time = rc_time_ns (rc_get_u32 (e), rc_get_u32 (e + 4));
    entry.connection = GPOINTER_TO_UINT (idx) - 1;
    entry.chunk = chunk_index;
    entry.offset = rc_get_u32 (e + 8);
    g_array_append_val (bag->entries, entry);
  }
  return TRUE;
}

/* Reads the chunk record at @chunk_pos and the index data records after
 * it. */
static gboolean
add_chunk (RcBag * bag, guint64 chunk_pos, GError ** error)
{
  BagRecord r;
  guint8 op;
  BagChunk chunk = { 0, };
  guint32 chunk_index = bag->chunks->len;

  if (chunk_pos < BAG_VERSION_LEN || chunk_pos >= bag->size)
    return rc_reader_fail (error, RC_READER_ERROR_FORMAT, "chunk position %"
        G_GUINT64_FORMAT " is outside the file (%" G_GSIZE_FORMAT " bytes)",
        chunk_pos, bag->size);
  if (!bag_read_record (bag->base, bag->size, chunk_pos, FALSE, &r, &op,
          "chunk", error))
    return FALSE;
  if (op != BAG_OP_CHUNK)
    return rc_reader_fail (error, RC_READER_ERROR_FORMAT, "chunk info points "
        "at byte %" G_GUINT64_FORMAT ", a record of op 0x%02x, not a chunk "
        "(0x05)", chunk_pos, op);
  if (!bag_parse_chunk (bag, &r, chunk_pos, &chunk, error))
    return FALSE;
  g_array_append_val (bag->chunks, chunk);

  /* Index data records follow until the next chunk or the index. */
  for (gsize pos = r.next; pos < bag->size; pos = r.next) {
    if (!bag_read_record (bag->base, bag->size, pos, FALSE, &r, &op,
            "index data", error))
      return FALSE;
    if (op != BAG_OP_INDEX_DATA)
      break;
    if (!add_index_data (bag, &r, chunk_index, error))
      return FALSE;
  }
  return TRUE;
}

static gint
compare_entries (gconstpointer a, gconstpointer b)
{
  const RcBagEntry *x = a, *y = b;

  if (x->time != y->time)
    return x->time < y->time ? -1 : 1;
  if (x->chunk != y->chunk)
    return x->chunk < y->chunk ? -1 : 1;
  if (x->offset != y->offset)
    return x->offset < y->offset ? -1 : 1;
  return 0;
}

static gint
compare_u64 (gconstpointer a, gconstpointer b)
{
  guint64 x = *(const guint64 *) a, y = *(const guint64 *) b;

  return x < y ? -1 : x > y;
}

/* The file's bytes @p, quoted in an error: printable ASCII as it is, the
 * rest (NUL included) as C octal escapes. */
static gchar *
escape_bytes (const guint8 * p, gsize n)
{
  GString *out = g_string_new (NULL);

  for (gsize i = 0; i < n; i++) {
    if (p[i] >= 0x20 && p[i] < 0x7f && p[i] != '"' && p[i] != '\\')
      g_string_append_c (out, p[i]);
    else
      g_string_append_printf (out, "\\%03o", p[i]);
  }
  return g_string_free (out, FALSE);
}

/* Of what follows "#ROSBAG V", this much is quoted in errors. */
#define VERSION_SHOWN 16

static gboolean
check_version_line (const RcBag * bag, GError ** error)
{
  const guint8 *v = bag->base + 9;
  const guint8 *end;
  gsize n;
  gchar *shown;

  if (bag->size >= BAG_VERSION_LEN &&
      !memcmp (bag->base, VERSION_LINE, BAG_VERSION_LEN))
    return TRUE;
  if (bag->size < 9 || memcmp (bag->base, "#ROSBAG V", 9) != 0)
    return rc_reader_fail (error, RC_READER_ERROR_UNKNOWN_FORMAT, "not a ROS "
        "bag: the file does not start with \"#ROSBAG V2.0\"");
  end = memchr (v, '\n', MIN (bag->size - 9, VERSION_SHOWN));
  /* A line cut by the end of the file: what it says is not a version. */
  if (!end && bag->size < 9 + VERSION_SHOWN)
    return rc_reader_fail (error, RC_READER_ERROR_UNKNOWN_FORMAT, "not a ROS "
        "bag: the file is %" G_GSIZE_FORMAT " bytes, too short for the "
        "version line \"#ROSBAG V2.0\\n\" and a bag header", bag->size);
  n = end ? (gsize) (end - v) : VERSION_SHOWN;
  shown = escape_bytes (v, n);
  rc_reader_fail (error, RC_READER_ERROR_UNSUPPORTED, "bag format version "
      "\"%s\"%s is not supported (only 2.0 is: the file must start with "
      "\"#ROSBAG V2.0\\n\")", shown, end ? "" : "...");
  g_free (shown);
  return FALSE;
}

/* The bag header record: where the index is and what it holds, and
 * where the records after it start (*@header_end). */
static gboolean
read_bag_header (const RcBag * bag, gsize * header_end, guint64 * index_pos,
    guint32 * conn_count, guint32 * chunk_count, GError ** error)
{
  BagRecord r;
  const guint8 *p;
  guint32 n;
  guint8 op;

  if (!bag_read_record (bag->base, bag->size, BAG_VERSION_LEN, FALSE, &r,
          &op, "bag header", error))
    return FALSE;
  if (op != BAG_OP_BAG_HEADER)
    return rc_reader_fail (error, RC_READER_ERROR_FORMAT, "the first record "
        "is op 0x%02x, not the bag header (0x03)", op);
  if (!bag_field_uint (&r, "index_pos", index_pos, "bag header", error) ||
      !bag_field_uint (&r, "conn_count", conn_count, "bag header", error) ||
      !bag_field_uint (&r, "chunk_count", chunk_count, "bag header", error))
    return FALSE;
  /* rosbag's encryption (`rosbag record --encrypt`, Bag.set_encryptor)
   * names its encryptor here; its chunks and connections would otherwise
   * read as a corrupt or cut-off file. */
  if (find_field (r.header, r.header_len, "encryptor", &p, &n) && n > 0 &&
      !(n == 18 && !memcmp (p, "rosbag/NoEncryptor", 18)))
    return rc_reader_fail (error, RC_READER_ERROR_UNSUPPORTED, "the bag is "
        "encrypted (encryptor \"%.*s\"), which is not supported: decrypt "
        "it first (rosbag decrypt, with the key it was encrypted for)",
        (int) MIN (n, 64), p);
  *header_end = r.next;
  return TRUE;
}

/* Whether the bag header's index_pos can be where the index is. */
static gboolean
check_index_pos (const RcBag * bag, guint64 index_pos, gsize header_end,
    GError ** error)
{
  if (index_pos == 0)
    return rc_reader_fail (error, RC_READER_ERROR_FORMAT, "the bag header "
        "says the bag has no index (index_pos 0: its recording was cut off)");
  if (index_pos < header_end)
    return rc_reader_fail (error, RC_READER_ERROR_FORMAT, "index position %"
        G_GUINT64_FORMAT " is inside the bag header record (bytes %d to %"
        G_GSIZE_FORMAT "); the index starts after it", index_pos,
        BAG_VERSION_LEN, header_end - 1);
  if (index_pos > bag->size)
    return rc_reader_fail (error, RC_READER_ERROR_FORMAT, "index position %"
        G_GUINT64_FORMAT " is beyond the end of the file (%" G_GSIZE_FORMAT
        " bytes)", index_pos, bag->size);
  /* At the very end, the index is empty (a bag without messages). */
  if (index_pos < bag->size && bag->size - index_pos < 8)
    return rc_reader_fail (error, RC_READER_ERROR_FORMAT, "index position %"
        G_GUINT64_FORMAT " leaves %" G_GUINT64_FORMAT " bytes of the file (%"
        G_GSIZE_FORMAT " bytes), less than the 8 a record needs", index_pos,
        bag->size - index_pos, bag->size);
  return TRUE;
}

static gboolean
add_chunk_info (const BagRecord * r, GArray * chunk_pos, GError ** error)
{
  guint32 ver;
  guint64 pos;

  if (!bag_field_uint (r, "ver", &ver, "chunk info", error) ||
      !bag_field_uint (r, "chunk_pos", &pos, "chunk info", error))
    return FALSE;
  if (ver != 1)
    return rc_reader_fail (error, RC_READER_ERROR_UNSUPPORTED, "chunk info "
        "version %u (only 1 is known)", ver);
  g_array_append_val (chunk_pos, pos);
  return TRUE;
}

/* The index at @index_pos: connections first, then chunk infos (both
 * counted by the bag header; each record takes at least 8 bytes, so the
 * loop is bounded by the file).  The chunk positions go to @chunk_pos. */
static gboolean
read_index (RcBag * bag, guint64 index_pos, GArray * chunk_pos, GError ** error)
{
  BagRecord r;
  guint8 op;

  for (gsize pos = index_pos; pos < bag->size; pos = r.next) {
    if (!bag_read_record (bag->base, bag->size, pos, FALSE, &r, &op,
            "index record", error))
      return FALSE;
    if (op == BAG_OP_CONNECTION) {
      if (!bag_add_connection (bag, &r, error))
        return FALSE;
    } else if (op == BAG_OP_CHUNK_INFO) {
      if (!add_chunk_info (&r, chunk_pos, error))
        return FALSE;
    } else {
      return rc_reader_fail (error, RC_READER_ERROR_FORMAT, "unexpected "
          "record op 0x%02x in the index at byte %" G_GSIZE_FORMAT, op, pos);
    }
  }
  return TRUE;
}

/* Every chunk, in file order, with its index data. */
static gboolean
add_chunks (RcBag * bag, GArray * chunk_pos, GError ** error)
{
  g_array_sort (chunk_pos, compare_u64);
  for (guint i = 0; i < chunk_pos->len; i++) {
    guint64 pos = g_array_index (chunk_pos, guint64, i);

    if (i > 0 && pos == g_array_index (chunk_pos, guint64, i - 1))
      return rc_reader_fail (error, RC_READER_ERROR_FORMAT, "two chunk infos "
          "point at byte %" G_GUINT64_FORMAT, pos);
    if (!add_chunk (bag, pos, error))
      return FALSE;
  }
  return TRUE;
}

/* The index at @index_pos, holding what the bag header announces; the
 * chunk positions go to @chunk_pos. */
static gboolean
read_whole_index (RcBag * bag, guint64 index_pos, guint32 conn_count,
    guint32 chunk_count, GArray * chunk_pos, GError ** error)
{
  if (!read_index (bag, index_pos, chunk_pos, error))
    return FALSE;
  if (bag->connections->len != conn_count || chunk_pos->len != chunk_count)
    return rc_reader_fail (error, RC_READER_ERROR_FORMAT, "the bag header "
        "announces %u connections and %u chunks, the index holds %u and %u",
        conn_count, chunk_count, bag->connections->len, chunk_pos->len);
  return TRUE;
}

/* Through the index; a bag whose index cannot be used (a recording cut
 * off: none, or one cut off or past the end) is read by scanning it. */
static gboolean
parse (RcBag * bag, GError ** error)
{
  guint64 index_pos;
  guint32 conn_count, chunk_count;
  gsize header_end = 0;
  GArray *chunk_pos;
  GError *why = NULL;
  gboolean ok;

  if (!check_version_line (bag, error) || !read_bag_header (bag, &header_end,
          &index_pos, &conn_count, &chunk_count, error))
    return FALSE;
  chunk_pos = g_array_new (FALSE, FALSE, sizeof (guint64));
  if (check_index_pos (bag, index_pos, header_end, &why) &&
      read_whole_index (bag, index_pos, conn_count, chunk_count, chunk_pos,
          &why)) {
    ok = add_chunks (bag, chunk_pos, error);
  } else {
    g_array_set_size (bag->connections, 0);
    g_hash_table_remove_all (bag->connection_ids);
    ok = bag_scan (bag, header_end, why->message, error);
    g_error_free (why);
  }
  if (ok)
    g_array_sort (bag->entries, compare_entries);
  g_array_unref (chunk_pos);
  return ok;
}

static RcBag *
bag_new (gsize max_chunk_size)
{
  RcBag *bag = g_new0 (RcBag, 1);

  bag->max_chunk_size = max_chunk_size ? max_chunk_size :
      RC_BAG_DEFAULT_MAX_CHUNK_SIZE;
  bag->connections = g_array_new (FALSE, TRUE, sizeof (RcBagConnection));
  g_array_set_clear_func (bag->connections, connection_clear);
  bag->connection_ids = g_hash_table_new (NULL, NULL);
  bag->chunks = g_array_new (FALSE, FALSE, sizeof (BagChunk));
  bag->entries = g_array_new (FALSE, FALSE, sizeof (RcBagEntry));
  bag->cached_chunk = -1;
  return bag;
}

RcBag *
rc_bag_open_data (const guint8 * data, gsize size, gsize max_chunk_size,
    GError ** error)
{
  RcBag *bag = bag_new (max_chunk_size);

  bag->base = data;
  bag->size = size;
  if (!parse (bag, error)) {
    rc_bag_free (bag);
    return NULL;
  }
  return bag;
}

void
rc_bag_free (RcBag * bag)
{
  if (!bag)
    return;
  g_array_unref (bag->connections);
  g_hash_table_unref (bag->connection_ids);
  g_array_unref (bag->chunks);
  g_array_unref (bag->entries);
  g_free (bag->cache);
  g_free (bag->reason);
  if (bag->lz4)
    LZ4F_freeDecompressionContext (bag->lz4);
  g_free (bag);
}

guint
rc_bag_n_connections (const RcBag * bag)
{
  return bag->connections->len;
}

const RcBagConnection *
rc_bag_get_connection (const RcBag * bag, guint i)
{
  g_return_val_if_fail (i < bag->connections->len, NULL);
  return &g_array_index (bag->connections, RcBagConnection, i);
}

gsize
rc_bag_n_entries (const RcBag * bag)
{
  return bag->entries->len;
}

const RcBagEntry *
rc_bag_get_entry (const RcBag * bag, gsize i)
{
  g_return_val_if_fail (i < bag->entries->len, NULL);
  return &g_array_index (bag->entries, RcBagEntry, i);
}

const RcReaderRecovery *
rc_bag_get_recovery (const RcBag * bag)
{
  return &bag->recovery;
}

gsize
rc_bag_lower_bound (const RcBag * bag, guint64 time)
{
  return rc_entries_lower_bound (bag->entries,
      G_STRUCT_OFFSET (RcBagEntry, time), time);
}

/* Into @dst, through the bag's lz4 context: made once, as it holds
 * buffers of megabytes that a context per chunk would allocate again. */
static gboolean
decompress_lz4 (RcBag * bag, const guint8 * src, gsize src_len, guint8 * dst,
    gsize dst_len, GError ** error)
{
  LZ4F_dctx *ctx = bag->lz4;
  gsize in_pos = 0, out_pos = 0;
  size_t ret = 1;
  gboolean ok = FALSE;

  if (!ctx && LZ4F_isError (LZ4F_createDecompressionContext (&ctx,
              LZ4F_VERSION)))
    return rc_reader_fail (error, RC_READER_ERROR_IO,
        "cannot create an lz4 context");
  bag->lz4 = ctx;
  /* Loop until the frame ends (ret == 0); every call consumes input or
   * produces output, or the data is wrong. */
  while (ret != 0) {
    size_t in_size = src_len - in_pos, out_size = dst_len - out_pos;

    ret = LZ4F_decompress (ctx, dst + out_pos, &out_size, src + in_pos,
        &in_size, NULL);
    if (LZ4F_isError (ret)) {
      rc_reader_fail (error, RC_READER_ERROR_FORMAT, "corrupt lz4 chunk: %s",
          LZ4F_getErrorName (ret));
      goto out;
    }
    in_pos += in_size;
    out_pos += out_size;
    if (ret != 0 && in_size == 0 && out_size == 0) {
      rc_reader_fail (error, RC_READER_ERROR_FORMAT, "corrupt lz4 chunk: %s",
          in_pos == src_len ? "truncated frame" :
          "more data than the chunk's size field says");
      goto out;
    }
  }
  if (out_pos != dst_len) {
    rc_reader_fail (error, RC_READER_ERROR_FORMAT, "lz4 chunk decompresses to %"
        G_GSIZE_FORMAT " bytes, its size field says %" G_GSIZE_FORMAT,
        out_pos, dst_len);
    goto out;
  }
  ok = TRUE;
out:
  if (!ok)
    LZ4F_resetDecompressionContext (ctx);
  return ok;
}

gboolean
bag_load_chunk (RcBag * bag, guint32 index, const guint8 ** data, gsize * size,
    GError ** error)
{
  const BagChunk *c = &g_array_index (bag->chunks, BagChunk, index);
  const guint8 *src = bag->base + c->data_pos;

  if (c->compression == BAG_COMPRESSION_NONE) {
    *data = src;
    *size = c->size;
    return TRUE;
  }
  if (bag->cached_chunk != index) {
    bag->cached_chunk = -1;
    if (bag->cache_size < c->size || !bag->cache) {
      g_free (bag->cache);
      bag->cache = g_try_malloc (MAX (c->size, 1));
      bag->cache_size = bag->cache ? c->size : 0;
      if (!bag->cache)
        return rc_reader_fail (error, RC_READER_ERROR_TOO_LARGE,
            "cannot allocate %u bytes for a chunk", c->size);
    }
    if (c->compression == BAG_COMPRESSION_BZ2) {
      unsigned int out_len = c->size;
      int ret = BZ2_bzBuffToBuffDecompress ((char *) bag->cache, &out_len,
          (char *) src, c->data_len, 0, 0);

      if (ret != BZ_OK)
        return rc_reader_fail (error, RC_READER_ERROR_FORMAT,
            "corrupt bz2 chunk: %s",
            ret == BZ_OUTBUFF_FULL ? "larger than its size field says" : ret ==
            BZ_UNEXPECTED_EOF ? "truncated stream" : ret ==
            BZ_DATA_ERROR_MAGIC ? "no bz2 stream magic" : ret ==
            BZ_DATA_ERROR ? "bad data or checksum" : "libbz2 error");
      if (out_len != c->size)
        return rc_reader_fail (error, RC_READER_ERROR_FORMAT,
            "bz2 chunk decompresses to %u bytes, its size field says %u",
            out_len, c->size);
    } else if (!decompress_lz4 (bag, src, c->data_len, bag->cache, c->size,
            error)) {
      return FALSE;
    }
    bag->cached_chunk = index;
  }
  *data = bag->cache;
  *size = c->size;
  return TRUE;
}

gboolean
rc_bag_read (RcBag * bag, const RcBagEntry * entry, const guint8 ** data,
    gsize * size, GError ** error)
{
  const guint8 *chunk = NULL;
  gsize chunk_size = 0;
  BagRecord r;
  guint8 op;
  guint32 conn;
  const RcBagConnection *c;

  g_return_val_if_fail (entry->chunk < bag->chunks->len, FALSE);
  if (!bag_load_chunk (bag, entry->chunk, &chunk, &chunk_size, error) ||
      !bag_read_record (chunk, chunk_size, entry->offset, FALSE, &r, &op,
          "message", error))
    return FALSE;
  if (op != BAG_OP_MSG_DATA)
    return rc_reader_fail (error, RC_READER_ERROR_FORMAT,
        "the index points at a record of op 0x%02x, not a message (0x02)", op);
  if (!bag_field_uint (&r, "conn", &conn, "message", error))
    return FALSE;
  c = rc_bag_get_connection (bag, entry->connection);
  if (conn != c->id)
    return rc_reader_fail (error, RC_READER_ERROR_FORMAT,
        "the index lists a message of "
        "connection %u, the chunk holds one of %u", c->id, conn);
  *data = r.data;
  *size = r.data_len;
  return TRUE;
}
