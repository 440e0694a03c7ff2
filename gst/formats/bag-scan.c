/* Recovery of a ROS 1 bag whose index cannot be used (bag-private.h):
 * what rosbag reindex does, without writing to the file.
 *
 * A recording cut off (rosbag record killed) has index_pos 0 in its bag
 * header, then its chunks, each followed by its index data records, and
 * last the chunk being written: its header says 0 bytes (the writer fills
 * the sizes in when it closes the chunk), then, uncompressed, the records
 * written so far, or, compressed, part of a compressed stream.  A whole
 * bag cut later ends inside a chunk or inside the index.
 *
 * The scan reads the records from the first after the bag header: the
 * connection and message records of each chunk (decompressed with the
 * checks and size limit of the indexed path) and those of an uncompressed
 * chunk being written; index data and chunk infos are not needed.  It
 * stops at the first record cut off or corrupt.  A compressed chunk counts
 * whole or not at all (part of a compressed stream is not read, as rosbag
 * reindex does not); an uncompressed one up to its last whole record. */
#include "bag-private.h"

typedef enum
{
  SCAN_NEXT,                    /* go on after the record */
  SCAN_STOP,                    /* the usable data ends here */
  SCAN_FAILED                   /* an error a scan cannot pass */
} ScanResult;

typedef struct
{
  RcBag *bag;
  gsize end;                    /* of the usable data so far */
  gint64 loose;                 /* the chunk gathering message records
                                 * found outside a chunk record, or -1 */
  GError *stop;                 /* why the scan stopped */
} Scan;

static ScanResult
stop (Scan * s, GError * why)
{
  s->stop = why;
  return SCAN_STOP;
}

/* rosbag writes a connection record in each chunk that uses it and again
 * in the index: the first of each id counts. */
static gboolean
scan_connection (RcBag * bag, const BagRecord * r, GError ** error)
{
  guint32 id;

  if (!bag_field_uint (r, "conn", &id, "connection record", error))
    return FALSE;
  if (id != G_MAXUINT32 && g_hash_table_contains (bag->connection_ids,
          GUINT_TO_POINTER (id + 1)))
    return TRUE;
  return bag_add_connection (bag, r, error);
}

/* The message record @r, at @offset of chunk @chunk, into the index. */
static gboolean
scan_message (RcBag * bag, const BagRecord * r, guint32 chunk, gsize offset,
    GError ** error)
{
  RcBagEntry entry;
  const guint8 *time;
  guint32 conn;
  gpointer idx;

  if (!bag_field_uint (r, "conn", &conn, "message", error) ||
      !bag_sized_field (r, "time", 8, &time, "message", error))
    return FALSE;
  idx = g_hash_table_lookup (bag->connection_ids, GUINT_TO_POINTER (conn + 1));
  if (!idx)
    return rc_reader_fail (error, RC_READER_ERROR_FORMAT, "a message of "
        "connection %u, which no connection record before it defines", conn);
  entry.time = rc_time_ns (rc_get_u32 (time), rc_get_u32 (time + 4));
  entry.connection = GPOINTER_TO_UINT (idx) - 1;
  entry.chunk = chunk;
  entry.offset = offset;
  g_array_append_val (bag->entries, entry);
  return TRUE;
}

/* The records of chunk @chunk (@len bytes at @buf) into the index; the
 * end of the last whole one.  Stops at the first one cut off or corrupt,
 * saying why in @error. */
static gsize
scan_records (RcBag * bag, const guint8 * buf, gsize len, guint32 chunk,
    GError ** error)
{
  gsize pos = 0;
  gboolean ok = TRUE;
  BagRecord r;
  guint8 op;

  while (ok && pos < len) {
    ok = bag_read_record (buf, len, pos, FALSE, &r, &op, "record", error);
    if (ok && op == BAG_OP_CONNECTION)
      ok = scan_connection (bag, &r, error);
    else if (ok && op == BAG_OP_MSG_DATA)
      ok = scan_message (bag, &r, chunk, pos, error);
    else if (ok)
      bag->recovery.n_skipped_records++;
    if (ok)
      pos = r.next;
  }
  return pos;
}

static guint32
append_chunk (RcBag * bag, const BagChunk * chunk)
{
  g_array_append_vals (bag->chunks, chunk, 1);
  return bag->chunks->len - 1;
}

/* Forgets the last chunk and its entries from @first_entry on. */
static void
drop_last_chunk (RcBag * bag, guint first_entry)
{
  g_array_set_size (bag->entries, first_entry);
  g_array_set_size (bag->chunks, bag->chunks->len - 1);
  bag->cached_chunk = -1;
}

/* An uncompressed chunk: its records up to the first one cut off or
 * corrupt.  The chunk being written (data length 0) is empty: its records
 * follow it outside. */
static ScanResult
scan_plain_chunk (Scan * s, gsize pos, const BagRecord * r,
    const BagChunk * chunk)
{
  GError *error = NULL;
  guint32 index;
  BagChunk *c;
  gsize used;

  if (r->data_len == 0)
    return SCAN_NEXT;
  index = append_chunk (s->bag, chunk);
  used = scan_records (s->bag, r->data, r->avail, index, &error);
  c = &g_array_index (s->bag->chunks, BagChunk, index);
  c->size = c->data_len = used;
  if (used == r->data_len)
    return SCAN_NEXT;
  s->end = c->data_pos + used;
  if (!error)
    return stop (s, g_error_new (RC_READER_ERROR, RC_READER_ERROR_FORMAT,
            "the chunk at byte %" G_GSIZE_FORMAT " is cut off: %u of its %u "
            "bytes are in the file", pos, r->avail, r->data_len));
  g_prefix_error (&error, "chunk at byte %" G_GSIZE_FORMAT ", in its "
      "records: ", pos);
  return stop (s, error);
}

/* A compressed chunk, whole or not at all. */
static ScanResult
scan_packed_chunk (Scan * s, gsize pos, const BagRecord * r,
    const BagChunk * chunk, GError ** error)
{
  RcBag *bag = s->bag;
  guint first = bag->entries->len;
  const guint8 *data;
  gsize size;
  GError *err = NULL;

  if (r->data_len == 0)
    return stop (s, g_error_new (RC_READER_ERROR, RC_READER_ERROR_FORMAT,
            "the compressed chunk at byte %" G_GSIZE_FORMAT " was being "
            "written (its sizes are still 0): its part of a compressed "
            "stream cannot be read", pos));
  if (r->avail < r->data_len)
    return stop (s, g_error_new (RC_READER_ERROR, RC_READER_ERROR_FORMAT,
            "the compressed chunk at byte %" G_GSIZE_FORMAT " is cut off: "
            "%u of its %u bytes are in the file", pos, r->avail, r->data_len));
  append_chunk (bag, chunk);
  if (!bag_load_chunk (bag, bag->chunks->len - 1, &data, &size, &err)) {
    drop_last_chunk (bag, first);
    if (err->code == RC_READER_ERROR_FORMAT)
      return stop (s, err);
    g_propagate_error (error, err);
    return SCAN_FAILED;
  }
  if (scan_records (bag, data, size, bag->chunks->len - 1, &err) == size)
    return SCAN_NEXT;
  drop_last_chunk (bag, first);
  g_prefix_error (&err, "chunk at byte %" G_GSIZE_FORMAT ", in its "
      "decompressed records: ", pos);
  return stop (s, err);
}

static ScanResult
scan_chunk (Scan * s, gsize pos, const BagRecord * r, GError ** error)
{
  BagChunk chunk;
  GError *err = NULL;

  if (!bag_parse_chunk (s->bag, r, pos, &chunk, &err)) {
    if (err->code == RC_READER_ERROR_FORMAT)
      return stop (s, err);
    /* An unsupported compression or a chunk above the limit: the scan
     * would end there saying less than the error does. */
    g_propagate_error (error, err);
    return SCAN_FAILED;
  }
  if (chunk.compression == BAG_COMPRESSION_NONE)
    return scan_plain_chunk (s, pos, r, &chunk);
  return scan_packed_chunk (s, pos, r, &chunk, error);
}

/* A message record outside any chunk record: one of the uncompressed
 * chunk being written when the recording was cut off.  Such records are
 * gathered into chunks of their own, each under 4 GiB (the offsets of
 * the index are 32 bits). */
static gboolean
scan_loose_message (Scan * s, gsize pos, const BagRecord * r, GError ** error)
{
  RcBag *bag = s->bag;
  BagChunk *chunk = NULL;

  if (r->next - pos > G_MAXUINT32)
    return rc_reader_fail (error, RC_READER_ERROR_FORMAT, "a message record "
        "of %" G_GSIZE_FORMAT " bytes, more than a chunk holds", r->next - pos);
  if (s->loose >= 0)
    chunk = &g_array_index (bag->chunks, BagChunk, s->loose);
  if (!chunk || r->next - chunk->data_pos > G_MAXUINT32) {
    BagChunk fresh = { pos, 0, 0, BAG_COMPRESSION_NONE };

    s->loose = append_chunk (bag, &fresh);
    chunk = &g_array_index (bag->chunks, BagChunk, s->loose);
  }
  if (!scan_message (bag, r, s->loose, pos - chunk->data_pos, error))
    return FALSE;
  chunk->size = chunk->data_len = r->next - chunk->data_pos;
  return TRUE;
}

/* A connection or message record outside any chunk record. */
static gboolean
scan_loose_record (Scan * s, gsize pos, const BagRecord * r, guint8 op,
    GError ** error)
{
  gboolean ok = op == BAG_OP_CONNECTION ? scan_connection (s->bag, r, error)
      : scan_loose_message (s, pos, r, error);

  if (!ok)
    g_prefix_error (error, "record at byte %" G_GSIZE_FORMAT ": ", pos);
  return ok;
}

/* The record at @pos of the file. */
static ScanResult
scan_record (Scan * s, gsize pos, GError ** error)
{
  ScanResult result = SCAN_NEXT;
  GError *err = NULL;
  BagRecord r;
  guint8 op;

  /* A chunk's data may be cut off: its whole records before the cut
   * count. */
  if (!bag_read_record (s->bag->base, s->bag->size, pos, TRUE, &r, &op,
          "record", &err))
    return stop (s, err);
  if (op != BAG_OP_CONNECTION && op != BAG_OP_MSG_DATA)
    s->loose = -1;
  if (op == BAG_OP_CHUNK)
    result = scan_chunk (s, pos, &r, error);
  else if (r.avail < r.data_len)
    return stop (s, g_error_new (RC_READER_ERROR, RC_READER_ERROR_FORMAT,
            "the record at byte %" G_GSIZE_FORMAT " (op 0x%02x) is cut off: "
            "%u of its %u bytes of data are in the file", pos, op, r.avail,
            r.data_len));
  else if (op == BAG_OP_CONNECTION || op == BAG_OP_MSG_DATA) {
    if (!scan_loose_record (s, pos, &r, op, &err))
      return stop (s, err);
  } else if (op != BAG_OP_INDEX_DATA && op != BAG_OP_CHUNK_INFO) {
    /* Index data and chunk infos are rebuilt from the messages; records
     * of other kinds are skipped, as rosbag reindex does. */
    s->bag->recovery.n_skipped_records++;
  }
  if (result == SCAN_NEXT)
    s->end = r.next;
  return result;
}

gboolean
bag_scan (RcBag * bag, gsize start, const gchar * why, GError ** error)
{
  Scan s = { bag, start, -1, NULL };
  ScanResult result = SCAN_NEXT;

  while (s.end < bag->size && result == SCAN_NEXT)
    result = scan_record (&s, s.end, error);
  if (result == SCAN_FAILED) {
    g_clear_error (&s.stop);
    return FALSE;
  }
  bag->recovery.scanned = TRUE;
  bag->recovery.n_messages = bag->entries->len;
  bag->recovery.end_offset = s.end;
  if (s.stop)
    bag->reason = g_strdup_printf ("%s; read by scanning, up to byte %"
        G_GSIZE_FORMAT ": %s", why, s.end, s.stop->message);
  else
    bag->reason = g_strdup_printf ("%s; read by scanning, to its end", why);
  bag->recovery.reason = bag->reason;
  g_clear_error (&s.stop);
  return TRUE;
}
