/* The MCAP reader through gst/formats/reader.h, over files written by the
 * builder of mcap-builder.c with random payloads: every layout (messages
 * outside chunks, chunks uncompressed, zstd and lz4, with and without
 * summary and message indexes), time order across overlapping chunks,
 * files cut at every offset, CRCs, bad lengths, seeking and topic
 * selection.  GLib only, like the reader.  With ROBOCACHE_MCAP_SEEDS set
 * to a folder, the files are also written there (fuzzing seeds). */
#include <glib.h>
#include <glib/gstdio.h>
#include <string.h>

#include <zstd.h>

#include "formats/mcap-records.h"
#include "formats/reader.h"
#include "mcap-builder.h"

#define SEC G_GUINT64_CONSTANT (1000000000)
#define T0 (1700000000 * SEC)

static const gchar points_schema[] =
    "std_msgs/Header header\nuint32 height\nuint32 width\n";
static const gchar joints_schema[] = "std_msgs/Header header\nstring[] name\n";

/* /points on channels 1 and 3, /joints on channel 2. */
static void
add_channels (McapBuilder * b)
{
  mb_schema (b, 1, "sensor_msgs/msg/PointCloud2", "ros2msg", points_schema);
  mb_schema (b, 2, "sensor_msgs/msg/JointState", "ros2msg", joints_schema);
  mb_channel (b, 1, 1, "/points", "cdr");
  mb_channel (b, 2, 2, "/joints", "cdr");
  mb_channel (b, 3, 1, "/points", "cdr");
}

/* @n messages on random channels at random times from @start on, on a
 * 10 ms grid so that some share a time. */
static void
add_messages (McapBuilder * b, guint n, guint64 start)
{
  for (guint i = 0; i < n; i++)
    mb_message (b, g_test_rand_int_range (1, 4), start +
        g_test_rand_int_range (0, 100) * 10 * 1000000,
        g_test_rand_int_range (1, 300));
}

/* Chunks overlapping in time, the schemas and channels in the first. */
static void
add_chunks (McapBuilder * b, const gchar * compression, guint n_chunks)
{
  for (guint c = 0; c < n_chunks; c++) {
    mb_chunk_begin (b, compression);
    if (c == 0)
      add_channels (b);
    add_messages (b, 12, T0 + c * SEC / 2);
    mb_chunk_end (b);
  }
}

static RcReader *
open_ok (const guint8 * data, gsize size, RcReaderFlags flags)
{
  GError *error = NULL;
  RcReader *reader = rc_reader_open_data_full (data, size, flags, &error);

  g_assert_no_error (error);
  g_assert_nonnull (reader);
  g_assert_cmpstr (rc_reader_format_name (reader), ==, "MCAP");
  return reader;
}

static void
assert_open_fails (const guint8 * data, gsize size, RcReaderFlags flags,
    gint code, const gchar * text)
{
  GError *error = NULL;

  g_assert_null (rc_reader_open_data_full (data, size, flags, &error));
  g_assert_nonnull (error);
  if (!strstr (error->message, text))
    g_error ("\"%s\" is not in \"%s\"", text, error->message);
  g_assert_error (error, RC_READER_ERROR, code);
  g_error_free (error);
}

/* Every message, byte for byte, in @expected's order (time order). */
static void
check_messages (RcReader * reader, GArray * expected)
{
  GError *error = NULL;
  RcMessage msg;

  for (guint i = 0; i < expected->len; i++) {
    const MbMessage *e = &g_array_index (expected, MbMessage, i);
    const RcTopic *topic;
    gsize size;
    const guint8 *data = g_bytes_get_data (e->data, &size);

    g_assert_cmpint (rc_reader_next (reader, &msg, &error), ==, RC_READER_OK);
    g_assert_no_error (error);
    topic = rc_reader_get_topic (reader, msg.topic);
    g_assert_cmpuint (msg.index, ==, i);
    g_assert_cmpuint (msg.time, ==, e->time);
    g_assert_cmpstr (topic->name, ==, e->topic);
    g_assert_true (msg.type == topic->type);
    g_assert_cmpmem (msg.data, msg.size, data, size);
  }
  g_assert_cmpint (rc_reader_next (reader, &msg, &error), ==, RC_READER_END);
  g_assert_no_error (error);
}

/* Each topic's count and time range, against @expected. */
static void
check_topics (RcReader * reader, GArray * expected)
{
  for (guint t = 0; t < rc_reader_n_topics (reader); t++) {
    const RcTopic *topic = rc_reader_get_topic (reader, t);
    guint64 n = 0, first = 0, last = 0;

    for (guint i = 0; i < expected->len; i++) {
      const MbMessage *e = &g_array_index (expected, MbMessage, i);

      if (strcmp (e->topic, topic->name))
        continue;
      if (n++ == 0)
        first = e->time;
      last = e->time;
    }
    g_assert_cmpuint (topic->n_messages, ==, n);
    g_assert_cmpuint (topic->first_time, ==, first);
    g_assert_cmpuint (topic->last_time, ==, last);
    g_assert_cmpstr (topic->encoding, ==, "cdr");
    g_assert_cmpstr (topic->schema_encoding, ==, "ros2msg");
  }
}

/* Opens the whole file @data, checks its topics and every message.  A
 * whole file is never reported recovered, scanned or not: it lost nothing
 * (the cuts below are). */
static void
check_file (const gchar * name, const guint8 * data, gsize size,
    McapBuilder * b)
{
  RcReader *reader = open_ok (data, size, RC_READER_FLAGS_NONE);
  GArray *expected = mb_messages_in_time_order (b);
  RcReaderRecovery recovery;
  const RcTopic *points = rc_reader_find_topic (reader, "/points");

  mb_write_seed (name, data, size);
  g_assert_cmpuint (rc_reader_n_topics (reader), ==, 2);
  g_assert_nonnull (points);
  g_assert_cmpstr (points->type, ==, "sensor_msgs/msg/PointCloud2");
  g_assert_cmpstr (points->schema_name, ==, "sensor_msgs/msg/PointCloud2");
  g_assert_cmpmem (points->schema, points->schema_size, points_schema,
      strlen (points_schema));
  /* Its two channels share one schema: an ordinary topic. */
  g_assert_cmpuint (points->n_definitions, ==, 1);
  g_assert_null (points->definitions);
  check_topics (reader, expected);
  rc_reader_get_recovery (reader, &recovery);
  g_assert_false (recovery.scanned);
  g_assert_null (recovery.reason);
  g_assert_cmpuint (recovery.end_offset, ==, size);
  g_assert_cmpuint (recovery.file_size, ==, size);
  check_messages (reader, expected);
  g_array_unref (expected);
  rc_reader_free (reader);
}

/* Messages outside chunks, with and without a summary: read by scanning
 * either way (a summary without chunk indexes does not index them). */
static void
test_unchunked (void)
{
  for (gint summary = 0; summary < 2; summary++) {
    McapBuilder *b = mb_new ();
    guint8 *data;
    gsize size;

    add_channels (b);
    add_messages (b, 40, T0);
    data = mb_finish (b, summary, &size);
    check_file (summary ? "unchunked-summary" : "unchunked", data, size, b);
    g_free (data);
    mb_free (b);
  }
}

/* Chunks of each compression, overlapping in time: with a summary and
 * message indexes (read through the indexes), with a summary but no
 * message indexes (each chunk read at open), without summary (scanned). */
static void
test_chunked (void)
{
  const gchar *compressions[] = { "", "zstd", "lz4" };
  const gchar *layouts[] = { "indexed", "no-message-index", "no-summary" };

  for (guint c = 0; c < G_N_ELEMENTS (compressions); c++) {
    for (guint l = 0; l < G_N_ELEMENTS (layouts); l++) {
      McapBuilder *b = mb_new ();
      gchar *name = g_strdup_printf ("chunked-%s-%s", *compressions[c] ?
          compressions[c] : "none", layouts[l]);
      guint8 *data;
      gsize size;

      b->message_indexes = l == 0;
      add_chunks (b, compressions[c], 4);
      data = mb_finish (b, l < 2, &size);
      check_file (name, data, size, b);
      g_free (data);
      g_free (name);
      mb_free (b);
    }
  }
}

/* A summary that leaves out the schemas, the channels or both (rosbag2's
 * noRepeatedSchemas and noRepeatedChannels, @mcap/core's repeatSchemas and
 * repeatChannels false): the reader finds them in the data section, for
 * messages outside chunks and in chunks of each kind. */
static void
test_summary_without_definitions (void)
{
  const gchar *layouts[] = { "unchunked", "none", "zstd",
    "lz4-no-message-index"
  };
  const gchar *left_out[] = { "schemas", "channels", "both" };

  for (guint l = 0; l < G_N_ELEMENTS (layouts); l++) {
    for (guint o = 0; o < G_N_ELEMENTS (left_out); o++) {
      McapBuilder *b = mb_new ();
      gchar *name = g_strdup_printf ("summary-without-%s-%s", left_out[o],
          layouts[l]);
      guint8 *data;
      gsize size;

      b->repeat_schemas = o == 1;
      b->repeat_channels = o == 0;
      if (l == 0) {
        add_channels (b);
        add_messages (b, 40, T0);
      } else {
        b->message_indexes = l < 3;
        add_chunks (b, l == 1 ? "" : l == 2 ? "zstd" : "lz4", 4);
      }
      data = mb_finish (b, TRUE, &size);
      check_file (name, data, size, b);
      g_free (data);
      g_free (name);
      mb_free (b);
    }
  }
}

/* The same with the definitions spread over the data section: a chunk
 * defines what the next one uses, and channel 3, outside chunks, is first
 * used by a chunk without message indexes, so that only its messages say
 * the reader needs it. */
static void
test_summary_without_late_definitions (void)
{
  for (gint o = 0; o < 2; o++) {
    McapBuilder *b = mb_new ();
    guint8 *data;
    gsize size;

    b->repeat_schemas = o == 1;
    b->repeat_channels = FALSE;
    mb_chunk_begin (b, "zstd");
    mb_schema (b, 1, "sensor_msgs/msg/PointCloud2", "ros2msg", points_schema);
    mb_channel (b, 1, 1, "/points", "cdr");
    mb_message (b, 1, T0, 10);
    mb_chunk_end (b);
    mb_chunk_begin (b, "zstd");
    mb_schema (b, 2, "sensor_msgs/msg/JointState", "ros2msg", joints_schema);
    mb_channel (b, 2, 2, "/joints", "cdr");
    mb_message (b, 2, T0 + SEC, 10);
    mb_message (b, 1, T0 + SEC, 10);
    mb_chunk_end (b);
    mb_channel (b, 3, 1, "/points", "cdr");
    b->message_indexes = FALSE;
    mb_chunk_begin (b, "lz4");
    add_messages (b, 12, T0 + 2 * SEC);
    mb_chunk_end (b);
    data = mb_finish (b, TRUE, &size);
    check_file (o ? "summary-without-late-channels" :
        "summary-without-late-definitions", data, size, b);
    g_free (data);
    mb_free (b);
  }
}

/* A channel naming a schema that the file defines nowhere is an error
 * whatever the summary leaves out, used by messages or not; so is a
 * message index for a channel defined nowhere. */
static void
test_undefined_schema (void)
{
  for (guint layout = 0; layout < 6; layout++) {
    McapBuilder *b = mb_new ();
    guint8 *data;
    gsize size;

    /* 0, 1: chunks, summary without schemas (1: channel 3 unused);
     * 2: chunks, summary without channels; 3: unchunked; 4: unchunked
     * without summary; 5: every summary record there. */
    b->repeat_schemas = layout == 2 || layout == 5;
    b->repeat_channels = layout != 2;
    if (layout < 3 || layout == 5)
      mb_chunk_begin (b, "zstd");
    mb_schema (b, 1, "sensor_msgs/msg/PointCloud2", "ros2msg", points_schema);
    mb_channel (b, 1, 1, "/points", "cdr");
    mb_channel (b, 3, 9, "/nine", "cdr");
    mb_message (b, 1, T0, 10);
    if (layout != 1)
      mb_message (b, 3, T0 + 1, 10);
    if (layout < 3 || layout == 5)
      mb_chunk_end (b);
    data = mb_finish (b, layout != 4, &size);
    assert_open_fails (data, size, 0, RC_READER_ERROR_FORMAT,
        "channel 3 names schema 9, which the file");
    g_free (data);
    mb_free (b);
  }
  /* Channel 3 only in the summary: its record in the data section made
   * one of an unknown kind (the data section's CRC is then wrong). */
  for (guint layout = 0; layout < 3; layout++) {
    McapBuilder *b = mb_new ();
    guint8 *data;
    gsize size;

    /* 0, 1: chunks (1: channel 3 unused); 2: unchunked. */
    b->repeat_schemas = FALSE;
    mb_channel (b, 3, 9, "/nine", "cdr");
    if (layout < 2)
      mb_chunk_begin (b, "zstd");
    mb_schema (b, 1, "sensor_msgs/msg/PointCloud2", "ros2msg", points_schema);
    mb_channel (b, 1, 1, "/points", "cdr");
    mb_message (b, 1, T0, 10);
    if (layout == 0)
      mb_message (b, 3, T0 + 1, 10);
    if (layout < 2)
      mb_chunk_end (b);
    data = mb_finish (b, TRUE, &size);
    data[g_array_index (b->ends, guint64, 0)] = 0x80;
    assert_open_fails (data, size, RC_READER_FLAG_SKIP_CRC,
        RC_READER_ERROR_FORMAT, "channel 3 names schema 9, which the file "
        "does not define");
    g_free (data);
    mb_free (b);
  }
  for (gint repeat = 0; repeat < 2; repeat++) {
    McapBuilder *b = mb_new ();
    guint8 *data;
    gsize size;

    b->repeat_channels = repeat;
    add_chunks (b, "zstd", 2);
    mb_chunk_begin (b, "zstd");
    mb_message (b, 7, T0, 10);
    mb_chunk_end (b);
    data = mb_finish (b, TRUE, &size);
    assert_open_fails (data, size, 0, RC_READER_ERROR_FORMAT, "it is for "
        "channel 7, which the file does not define");
    g_free (data);
    mb_free (b);
  }
}

/* Records of an unknown opcode in the data section and in a chunk are
 * skipped and counted. */
static void
test_unknown_opcode (void)
{
  McapBuilder *b = mb_new ();
  RcReaderRecovery recovery;
  RcReader *reader;
  guint8 *data;
  gsize size;

  add_channels (b);
  mb_record (b, 0x80, 33);
  add_messages (b, 5, T0);
  mb_chunk_begin (b, "zstd");
  mb_record (b, 0xfe, 10);
  add_messages (b, 5, T0);
  mb_chunk_end (b);
  mb_record (b, 0x7f, 0);
  data = mb_finish (b, FALSE, &size);
  check_file ("unknown-opcode", data, size, b);
  reader = open_ok (data, size, RC_READER_FLAGS_NONE);
  rc_reader_get_recovery (reader, &recovery);
  g_assert_cmpuint (recovery.n_skipped_records, ==, 3);
  rc_reader_free (reader);
  g_free (data);
  mb_free (b);
}

/* The end of the last top-level record wholly before @cut. */
static guint64
last_end_before (McapBuilder * b, gsize cut)
{
  guint64 last = 0;

  for (guint i = 0; i < b->ends->len; i++) {
    if (g_array_index (b->ends, guint64, i) <= cut)
      last = g_array_index (b->ends, guint64, i);
  }
  return last;
}

static guint64
get_u64_at (const guint8 * p)
{
  guint64 le;

  memcpy (&le, p, 8);
  return GUINT64_FROM_LE (le);
}

/* The reason a file cut at @cut (of a whole file of @size bytes) gives:
 * why it was scanned, then where and why the scan stopped, at @end. */
static void
check_cut_reason (const RcReaderRecovery * recovery, const guint8 * data,
    gsize cut, gsize size, guint64 end)
{
  gchar *stop;

  g_assert_nonnull (recovery->reason);
  g_assert_true (g_str_has_prefix (recovery->reason, "the file does not end "
          "with a footer and the closing magic (its recording was cut "
          "off?); read by scanning, "));
  if (end == size - 8)
    stop = g_strdup_printf ("the footer ending at byte %" G_GUINT64_FORMAT
        " is not followed by the closing magic", end);
  else if (end == cut)
    stop = g_strdup ("to its end, where no footer is");
  else if (cut - end < 9)
    stop = g_strdup_printf ("up to byte %" G_GUINT64_FORMAT ": the file ends "
        "inside the next record's opcode and length", end);
  else
    stop = g_strdup_printf ("up to byte %" G_GUINT64_FORMAT ": the %s record "
        "there (%" G_GUINT64_FORMAT " bytes) runs past the file's end at byte "
        "%" G_GSIZE_FORMAT, end, mcap_record_name (data[end]),
        get_u64_at (data + end + 1), cut);
  g_assert_true (g_str_has_suffix (recovery->reason, stop));
  g_free (stop);
}

/* The file cut at @cut: every message wholly before the cut, in order. */
static void
check_cut (const guint8 * data, gsize cut, gsize size, McapBuilder * b,
    GArray * all)
{
  guint8 *head = g_memdup2 (data, MAX (cut, 1));
  GArray *expected = g_array_new (FALSE, FALSE, sizeof (MbMessage));
  guint64 header_end = g_array_index (b->ends, guint64, 0);
  RcReaderRecovery recovery;
  RcReader *reader;

  if (cut < 8) {
    assert_open_fails (head, cut, 0, RC_READER_ERROR_UNKNOWN_FORMAT, "MCAP");
  } else if (cut < header_end) {
    assert_open_fails (head, cut, 0, RC_READER_ERROR_FORMAT,
        "MCAP: the header record at offset 8 is cut off");
  } else {
    for (guint i = 0; i < all->len; i++) {
      if (g_array_index (all, MbMessage, i).end <= cut)
        g_array_append_val (expected, g_array_index (all, MbMessage, i));
    }
    reader = open_ok (head, cut, RC_READER_FLAGS_NONE);
    rc_reader_get_recovery (reader, &recovery);
    g_assert_true (recovery.scanned);
    g_assert_cmpuint (recovery.n_messages, ==, expected->len);
    g_assert_cmpuint (recovery.end_offset, ==, last_end_before (b, cut));
    g_assert_cmpuint (recovery.file_size, ==, cut);
    check_cut_reason (&recovery, data, cut, size, recovery.end_offset);
    check_messages (reader, expected);
    rc_reader_free (reader);
  }
  g_array_unref (expected);
  g_free (head);
}

/* A recording killed mid-write: every cut of a file with messages outside
 * and inside chunks, with a summary. */
static void
test_cut (void)
{
  McapBuilder *b = mb_new ();
  GArray *all;
  guint8 *data;
  gsize size;

  add_channels (b);
  add_messages (b, 6, T0);
  mb_chunk_begin (b, "lz4");
  add_messages (b, 6, T0);
  mb_chunk_end (b);
  mb_chunk_begin (b, "zstd");
  add_messages (b, 6, T0 + SEC);
  mb_chunk_end (b);
  add_messages (b, 6, T0 + SEC / 2);
  data = mb_finish (b, TRUE, &size);
  mb_write_seed ("cut", data, size);
  all = mb_messages_in_time_order (b);
  /* The whole file has a summary with chunk indexes, which leave out the
   * messages outside chunks: check every shorter one. */
  for (gsize cut = 0; cut < size; cut++)
    check_cut (data, cut, size, b, all);
  g_array_unref (all);
  g_free (data);
  mb_free (b);
}

static void
put_u64_at (guint8 * data, gsize at, guint64 v)
{
  guint64 le = GUINT64_TO_LE (v);

  memcpy (data + at, &le, 8);
}

/* A recorder that reserved the file's space and stopped leaves zeros
 * after its last record: the messages before them, and a reason that
 * says so. */
static void
test_zero_filled (void)
{
  McapBuilder *b = mb_new ();
  GArray *all, *expected = g_array_new (FALSE, FALSE, sizeof (MbMessage));
  guint8 *data, *reserved;
  gsize size, written;
  RcReaderRecovery recovery;
  RcReader *reader;
  gchar *stop;

  add_channels (b);
  add_messages (b, 5, T0);
  mb_chunk_begin (b, "zstd");
  add_messages (b, 5, T0 + SEC);
  mb_chunk_end (b);
  data = mb_finish (b, TRUE, &size);
  all = mb_messages_in_time_order (b);
  /* Up to the end of the fifth message record (in the file: outside
   * chunks); the chunk after it is zeros. */
  written = g_array_index (b->messages, MbMessage, 4).end;
  reserved = g_malloc0 (size + 4096);
  memcpy (reserved, data, written);
  for (guint i = 0; i < all->len; i++)
    if (g_array_index (all, MbMessage, i).end <= written)
      g_array_append_val (expected, g_array_index (all, MbMessage, i));
  g_assert_cmpuint (expected->len, ==, 5);
  reader = open_ok (reserved, size + 4096, 0);
  rc_reader_get_recovery (reader, &recovery);
  g_assert_true (recovery.scanned);
  g_assert_cmpuint (recovery.n_messages, ==, 5);
  g_assert_cmpuint (recovery.end_offset, ==, written);
  stop = g_strdup_printf ("read by scanning, up to byte %" G_GSIZE_FORMAT
      ": zeros from there (space the recorder reserved and never wrote)",
      written);
  g_assert_true (g_str_has_suffix (recovery.reason, stop));
  check_messages (reader, expected);
  rc_reader_free (reader);
  g_free (stop);
  g_free (reserved);
  g_array_unref (expected);
  g_array_unref (all);
  g_free (data);
  mb_free (b);
}

static void
test_bad_magic (void)
{
  McapBuilder *b = mb_new ();
  guint8 *data;
  gsize size;

  add_channels (b);
  add_messages (b, 3, T0);
  data = mb_finish (b, FALSE, &size);
  data[5] = '1';
  assert_open_fails (data, size, 0, RC_READER_ERROR_UNKNOWN_FORMAT,
      "not a ROS bag, MCAP or rosbag2 SQLite");
  data[5] = '0';
  /* The header record's opcode. */
  data[8] = 0x04;
  assert_open_fails (data, size, 0, RC_READER_ERROR_FORMAT,
      "must start with a header record");
  data[8] = 0x01;
  /* The trailing magic: the file reads as cut after its footer. */
  data[size - 1] = 'x';
  {
    RcReader *reader = open_ok (data, size, 0);
    RcReaderRecovery recovery;

    rc_reader_get_recovery (reader, &recovery);
    g_assert_true (recovery.scanned);
    g_assert_cmpuint (recovery.n_messages, ==, 3);
    g_assert_cmpuint (recovery.end_offset, ==, size - 8);
    check_cut_reason (&recovery, data, size, size, size - 8);
    rc_reader_free (reader);
  }
  g_free (data);
  mb_free (b);
}

/* @size random bytes (the first not zero, as CDR's header) as one zstd
 * frame; with @sized, the frame gives its decompressed size, as rosbag2's
 * do (ZSTD_compress), else not (a streaming compressor's). */
static guint8 *
zstd_frame (const guint8 * data, gsize size, gboolean sized, gsize * made)
{
  ZSTD_CCtx *cctx = ZSTD_createCCtx ();
  guint8 *out = g_malloc (ZSTD_compressBound (size));

  ZSTD_CCtx_setParameter (cctx, ZSTD_c_contentSizeFlag, sized);
  *made = ZSTD_compress2 (cctx, out, ZSTD_compressBound (size), data, size);
  g_assert_false (ZSTD_isError (*made));
  ZSTD_freeCCtx (cctx);
  return out;
}

/* One cdr message of @payload (taken) on /points: reading it must fail
 * with @code, naming rosbag2's compression and @text. */
static void
assert_message_fails (guint8 * payload, gsize size, gint code,
    const gchar * text)
{
  McapBuilder *b = mb_new ();
  GError *error = NULL;
  RcMessage msg;
  RcReader *reader;
  guint8 *data;
  gsize file_size;

  add_channels (b);
  mb_message_take (b, 1, T0, payload, size);
  data = mb_finish (b, TRUE, &file_size);
  reader = open_ok (data, file_size, RC_READER_FLAGS_NONE);
  g_assert_cmpint (rc_reader_next (reader, &msg, &error), ==, RC_READER_FAILED);
  g_assert_error (error, RC_READER_ERROR, code);
  if (!strstr (error->message, "compressed alone by rosbag2")
      || !strstr (error->message, text))
    g_error ("\"%s\" is not in \"%s\"", text, error->message);
  g_error_free (error);
  rc_reader_free (reader);
  g_free (data);
  mb_free (b);
}

/* A file of 30 messages, each one zstd frame of random bytes, outside
 * chunks (@layout NULL) or in one chunk of @layout's compression; a third
 * of them on /json, a topic of encoding "json".  @want: what each must
 * read as, in time order. */
static guint8 *
frames_file (const gchar * layout, GPtrArray * want, gsize * size)
{
  McapBuilder *b = mb_new ();
  guint8 *data;

  add_channels (b);
  mb_schema (b, 4, "std_msgs/msg/String", "jsonschema", "{}");
  mb_channel (b, 4, 4, "/json", "json");
  if (layout)
    mb_chunk_begin (b, layout);
  for (guint i = 0; i < 30; i++) {
    gsize n = g_test_rand_int_range (1, 5000), made;
    guint8 *bytes = g_malloc (n), *frame;
    guint16 channel = i % 3 == 2 ? 4 : 1 + i % 2;

    for (gsize k = 0; k < n; k++)
      bytes[k] = k == 0 ? g_test_rand_int_range (1, 256) :
          g_test_rand_int_range (0, 4);
    frame = zstd_frame (bytes, n, TRUE, &made);
    g_ptr_array_add (want, channel == 4 ? g_bytes_new (frame, made) :
        g_bytes_new_take (bytes, n));
    if (channel == 4)
      g_free (bytes);
    mb_message_take (b, channel, T0 + i * SEC / 10, frame, made);
  }
  if (layout)
    mb_chunk_end (b);
  data = mb_finish (b, TRUE, size);
  mb_free (b);
  return data;
}

/* rosbag2's message compression (`ros2 bag record --compression-mode
 * message`): a message of a cdr topic that is one zstd frame is read
 * decompressed, in and out of chunks; on a topic of another encoding the
 * same bytes are left as they are.  A truncated frame, one that does not
 * give its size and one that claims more than the limit are errors naming
 * the message, the last without allocating what it claims. */
static void
test_rosbag2_message_compression (void)
{
  static const gchar *layouts[] = { NULL, "", "zstd" };
  static const guint8 huge[] = { 0x28, 0xb5, 0x2f, 0xfd, 0xe0,
    0, 0, 0, 0, 0, 1, 0, 0, 1, 2, 3, 4
  };
  guint8 *frame, *data;
  gsize size, made;
  GError *error = NULL;

  for (guint l = 0; l < G_N_ELEMENTS (layouts); l++) {
    GPtrArray *want = g_ptr_array_new_with_free_func ((GDestroyNotify)
        g_bytes_unref);
    RcReader *reader;
    RcMessage msg;

    data = frames_file (layouts[l], want, &size);
    mb_write_seed (layouts[l] == NULL ? "message-frames" : layouts[l][0] ?
        "message-frames-zstd" : "message-frames-chunked", data, size);
    reader = open_ok (data, size, RC_READER_FLAGS_NONE);
    for (guint i = 0; i < want->len; i++) {
      g_assert_cmpint (rc_reader_next (reader, &msg, &error), ==, RC_READER_OK);
      g_assert_no_error (error);
      g_assert_cmpmem (msg.data, msg.size, g_bytes_get_data (want->pdata[i],
              NULL), g_bytes_get_size (want->pdata[i]));
    }
    g_assert_cmpint (rc_reader_next (reader, &msg, &error), ==, RC_READER_END);
    rc_reader_free (reader);
    g_free (data);
    g_ptr_array_unref (want);
  }

  data = g_malloc (600);
  for (guint k = 0; k < 600; k++)
    data[k] = 1 + k % 7;
  frame = zstd_frame (data, 600, TRUE, &made);
  assert_message_fails (frame, made - 3, RC_READER_ERROR_FORMAT,
      "its zstd frame");
  frame = zstd_frame (data, 600, FALSE, &made);
  assert_message_fails (frame, made, RC_READER_ERROR_UNSUPPORTED,
      "does not give its decompressed size");
  assert_message_fails (g_memdup2 (huge, sizeof (huge)), sizeof (huge),
      RC_READER_ERROR_TOO_LARGE, "above the limit");
  g_free (data);
}

/* One file of a split recording, written to @dir/@name: /points and
 * /joints from @start on for @span, and with @extra a topic of its own. */
static gchar *
split_part (const gchar * dir, const gchar * name, guint64 start,
    guint64 span, gboolean extra, GArray * all, guint part)
{
  McapBuilder *b = mb_new ();
  gchar *path = g_build_filename (dir, name, NULL);
  GArray *sorted;
  guint8 *data;
  gsize size;

  add_channels (b);
  if (extra) {
    mb_schema (b, 4, "std_msgs/msg/String", "ros2msg", "string data\n");
    mb_channel (b, 4, 4, "/extra", "cdr");
  }
  mb_chunk_begin (b, "zstd");
  for (guint i = 0; i < 40; i++)
    mb_message (b, extra && i % 4 == 0 ? 4 : g_test_rand_int_range (1, 4),
        start + g_test_rand_int_range (0, span / 1000000) * 1000000,
        g_test_rand_int_range (1, 300));
  mb_chunk_end (b);
  data = mb_finish (b, TRUE, &size);
  g_assert_true (g_file_set_contents (path, (const gchar *) data, size, NULL));
  sorted = mb_messages_in_time_order (b);
  for (guint i = 0; i < sorted->len; i++) {
    MbMessage m = g_array_index (sorted, MbMessage, i);

    /* The file's number in the end field: the merge's tie order. */
    m.data = g_bytes_ref (m.data);
    m.topic = g_intern_string (m.topic);
    m.end = part;
    g_array_append_val (all, m);
  }
  g_array_unref (sorted);
  g_free (data);
  mb_free (b);
  return path;
}

/* @dir/other.mcap: /extra as std_msgs/msg/Int32, which split_part's
 * @extra writes as a String. */
static gchar *
other_extra_part (const gchar * dir)
{
  McapBuilder *b = mb_new ();
  gchar *path = g_build_filename (dir, "other.mcap", NULL);
  guint8 *data;
  gsize size;

  mb_schema (b, 1, "std_msgs/msg/Int32", "ros2msg", "int32 data\n");
  mb_channel (b, 1, 1, "/extra", "cdr");
  mb_chunk_begin (b, "zstd");
  mb_message (b, 1, T0, 8);
  mb_chunk_end (b);
  data = mb_finish (b, TRUE, &size);
  g_assert_true (g_file_set_contents (path, (const gchar *) data, size, NULL));
  g_free (data);
  mb_free (b);
  return path;
}

static gint
compare_time_then_part (gconstpointer a, gconstpointer b)
{
  const MbMessage *x = a, *y = b;

  if (x->time != y->time)
    return x->time < y->time ? -1 : 1;
  return x->end < y->end ? -1 : x->end > y->end;
}

/* The next @n messages of @reader are @want's from @from on. */
static void
check_chain (RcReader * reader, GArray * want, guint from, guint n)
{
  GError *error = NULL;
  RcMessage msg;

  for (guint i = from; i < from + n; i++) {
    const MbMessage *e = &g_array_index (want, MbMessage, i);
    gsize size;
    const guint8 *data = g_bytes_get_data (e->data, &size);

    g_assert_cmpint (rc_reader_next (reader, &msg, &error), ==, RC_READER_OK);
    g_assert_no_error (error);
    g_assert_cmpuint (msg.time, ==, e->time);
    g_assert_cmpstr (rc_reader_get_topic (reader, msg.topic)->name, ==,
        e->topic);
    g_assert_cmpmem (msg.data, msg.size, data, size);
  }
}

/* @b's topics are @a's, field for field. */
static void
assert_same_topics (RcReader * a, RcReader * b)
{
  g_assert_cmpuint (rc_reader_n_topics (a), ==, rc_reader_n_topics (b));
  for (guint i = 0; i < rc_reader_n_topics (a); i++) {
    const RcTopic *x = rc_reader_get_topic (a, i);
    const RcTopic *y = rc_reader_get_topic (b, i);

    g_assert_cmpstr (x->name, ==, y->name);
    g_assert_cmpstr (x->type, ==, y->type);
    g_assert_cmpstr (x->encoding, ==, y->encoding);
    g_assert_cmpuint (x->n_messages, ==, y->n_messages);
    g_assert_cmpuint (x->first_time, ==, y->first_time);
    g_assert_cmpuint (x->last_time, ==, y->last_time);
    g_assert_cmpstr (x->schema_name, ==, y->schema_name);
    g_assert_cmpstr (x->schema_encoding, ==, y->schema_encoding);
    g_assert_cmpmem (x->schema, x->schema_size, y->schema, y->schema_size);
    g_assert_cmpuint (x->n_definitions, ==, y->n_definitions);
    g_assert_cmpstr (x->definitions, ==, y->definitions);
  }
}

/* A recording split into three files (rosbag2's --max-bag-size): read as
 * one, topics merged by name (one only in the second file), messages in
 * time order across files whose times overlap at the seams (ties in file
 * order); a seek, a topic selection and a second reader (rc_reader_reopen,
 * which reads no file at its start) on the way; a missing or broken file
 * is an error naming it. */
static void
test_split_recording (void)
{
  gchar *dir = g_dir_make_tmp ("robocache-split-XXXXXX", NULL);
  GArray *all = g_array_new (FALSE, FALSE, sizeof (MbMessage)), *joints;
  gchar *paths[5] = { NULL };
  GError *error = NULL;
  RcReader *reader, *again, *two;
  RcMessage msg;
  guint middle, n_before;
  gchar *moved, *other[3] = { NULL };

  paths[0] = split_part (dir, "rec_0.mcap", T0, SEC, FALSE, all, 0);
  paths[1] = split_part (dir, "rec_1.mcap", T0 + SEC - SEC / 20, SEC, TRUE,
      all, 1);
  paths[2] = split_part (dir, "rec_2.mcap", T0 + 2 * SEC, SEC, FALSE, all, 2);
  g_array_sort (all, compare_time_then_part);
  reader = rc_reader_open_files ((const gchar * const *) paths, 0, &error);
  g_assert_no_error (error);
  g_assert_null (rc_reader_get_mapped_file (reader));
  g_assert_cmpstr (rc_reader_format_name (reader), ==, "MCAP");
  g_assert_cmpuint (rc_reader_n_topics (reader), ==, 3);
  g_assert_cmpuint (rc_reader_find_topic (reader, "/points")->n_messages +
      rc_reader_find_topic (reader, "/joints")->n_messages +
      rc_reader_find_topic (reader, "/extra")->n_messages, ==, all->len);
  g_assert_cmpuint (rc_reader_find_topic (reader, "/extra")->n_definitions,
      ==, 1);
  check_chain (reader, all, 0, all->len);
  g_assert_cmpint (rc_reader_next (reader, &msg, &error), ==, RC_READER_END);

  /* A seek into the second file, then a look ahead from the start. */
  middle = all->len / 2;
  while (middle > 0 && g_array_index (all, MbMessage, middle - 1).time ==
      g_array_index (all, MbMessage, middle).time)
    middle--;
  rc_reader_seek (reader, g_array_index (all, MbMessage, middle).time);
  check_chain (reader, all, middle, 5);
  again = rc_reader_reopen (reader, 0, &error);
  g_assert_no_error (error);
  assert_same_topics (reader, again);
  check_chain (again, all, 0, all->len);
  check_chain (reader, all, middle + 5, all->len - middle - 5);
  rc_reader_free (again);

  /* The look ahead reads a file only when it reaches it: made while the
   * last file is away, it reads the first two, then names the third. */
  moved = g_strconcat (paths[2], ".away", NULL);
  g_assert_cmpint (g_rename (paths[2], moved), ==, 0);
  again = rc_reader_reopen (reader, 0, &error);
  g_assert_no_error (error);
  for (n_before = 0; n_before < all->len; n_before++) {
    if (g_array_index (all, MbMessage, n_before).end == 2)
      break;
  }
  check_chain (again, all, 0, n_before);
  g_assert_cmpint (rc_reader_next (again, &msg, &error), ==, RC_READER_FAILED);
  g_assert_error (error, RC_READER_ERROR, RC_READER_ERROR_IO);
  g_assert_nonnull (strstr (error->message, "rec_2.mcap"));
  g_clear_error (&error);
  rc_reader_free (again);
  g_assert_cmpint (g_rename (moved, paths[2]), ==, 0);
  g_free (moved);

  /* A name of two types in two files is one topic of two definitions, in
   * the look ahead too. */
  other[0] = paths[1];
  other[1] = other_extra_part (dir);
  two = rc_reader_open_files ((const gchar * const *) other, 0, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (rc_reader_find_topic (two, "/extra")->n_definitions, ==, 2);
  g_assert_nonnull (strstr (rc_reader_find_topic (two, "/extra")->definitions,
          "std_msgs/msg/Int32"));
  again = rc_reader_reopen (two, 0, &error);
  g_assert_no_error (error);
  assert_same_topics (two, again);
  rc_reader_free (two);
  rc_reader_free (again);
  g_unlink (other[1]);
  g_free (other[1]);

  /* /joints alone. */
  joints = g_array_new (FALSE, FALSE, sizeof (MbMessage));
  for (guint i = 0; i < all->len; i++) {
    if (!strcmp (g_array_index (all, MbMessage, i).topic, "/joints"))
      g_array_append_val (joints, g_array_index (all, MbMessage, i));
  }
  for (guint t = 0; t < rc_reader_n_topics (reader); t++)
    rc_reader_select_topic (reader, t, !strcmp (rc_reader_get_topic (reader,
                t)->name, "/joints"));
  rc_reader_seek (reader, 0);
  check_chain (reader, joints, 0, joints->len);
  g_assert_cmpint (rc_reader_next (reader, &msg, &error), ==, RC_READER_END);
  rc_reader_free (reader);
  g_array_unref (joints);

  /* A missing file, and a file that is not a recording. */
  paths[3] = g_build_filename (dir, "rec_3.mcap", NULL);
  g_assert_null (rc_reader_open_files ((const gchar * const *) paths, 0,
          &error));
  g_assert_error (error, RC_READER_ERROR, RC_READER_ERROR_IO);
  g_assert_nonnull (strstr (error->message, "rec_3.mcap"));
  g_clear_error (&error);
  g_assert_true (g_file_set_contents (paths[3], "not a recording", -1, NULL));
  g_assert_null (rc_reader_open_files ((const gchar * const *) paths, 0,
          &error));
  g_assert_error (error, RC_READER_ERROR, RC_READER_ERROR_UNKNOWN_FORMAT);
  g_assert_true (g_str_has_prefix (error->message, paths[3]));
  g_clear_error (&error);

  for (guint k = 0; k < 4; k++) {
    g_unlink (paths[k]);
    g_free (paths[k]);
  }
  g_rmdir (dir);
  g_free (dir);
  for (guint i = 0; i < all->len; i++)
    g_bytes_unref (g_array_index (all, MbMessage, i).data);
  g_array_unref (all);
}

/* Reads every message; the first failure's message, or NULL. */
static gchar *
read_all (RcReader * reader, guint * n)
{
  GError *error = NULL;
  RcMessage msg;
  RcReaderResult result;
  gchar *text;

  *n = 0;
  while ((result = rc_reader_next (reader, &msg, &error)) == RC_READER_OK)
    (*n)++;
  if (result == RC_READER_END)
    return NULL;
  g_assert_error (error, RC_READER_ERROR, RC_READER_ERROR_FORMAT);
  text = g_strdup (error->message);
  g_error_free (error);
  return text;
}

/* A chunk whose stored CRC is wrong: with a summary the open succeeds and
 * the first message of the chunk fails; without one the open fails; with
 * RC_READER_FLAG_SKIP_CRC all is read. */
static void
test_chunk_crc (void)
{
  for (gint summary = 0; summary < 2; summary++) {
    McapBuilder *b = mb_new ();
    guint8 *data;
    gsize size;
    guint64 chunk;
    gchar *text, *where;
    RcReader *reader;
    guint n;

    add_chunks (b, "zstd", 3);
    data = mb_finish (b, summary, &size);
    chunk = g_array_index (b->chunk_offsets, guint64, 1);
    data[chunk + 9 + 24] ^= 0x10;
    where = g_strdup_printf ("MCAP: chunk at offset %" G_GUINT64_FORMAT
        ": CRC of its records", chunk);
    if (summary) {
      reader = open_ok (data, size, 0);
      text = read_all (reader, &n);
      g_assert_nonnull (text);
      g_assert_nonnull (strstr (text, where));
      g_assert_cmpuint (n, <, b->messages->len);
      g_free (text);
      rc_reader_free (reader);
    } else {
      assert_open_fails (data, size, 0, RC_READER_ERROR_FORMAT, where);
    }
    reader = open_ok (data, size, RC_READER_FLAG_SKIP_CRC);
    g_assert_null (read_all (reader, &n));
    g_assert_cmpuint (n, ==, b->messages->len);
    rc_reader_free (reader);
    g_free (where);
    g_free (data);
    mb_free (b);
  }
}

/* A payload byte changed: the uncompressed chunk's CRC, or the data
 * section's for a message outside chunks; the summary's CRC. */
static void
test_data_crc (void)
{
  McapBuilder *b = mb_new ();
  guint8 *data;
  gsize size;
  gchar *text;
  const MbMessage *m;
  RcReader *reader;
  guint n;

  add_channels (b);
  add_messages (b, 8, T0);
  data = mb_finish (b, TRUE, &size);
  m = &g_array_index (b->messages, MbMessage, 4);
  data[m->end - 1] ^= 0x55;
  text = g_strdup_printf ("MCAP: data end at offset %" G_GUINT64_FORMAT
      ": CRC of the data section", b->data_end);
  assert_open_fails (data, size, 0, RC_READER_ERROR_FORMAT, text);
  g_free (text);
  reader = open_ok (data, size, RC_READER_FLAG_SKIP_CRC);
  g_assert_null (read_all (reader, &n));
  g_assert_cmpuint (n, ==, 8);
  rc_reader_free (reader);
  data[m->end - 1] ^= 0x55;
  /* The footer's summary CRC. */
  data[size - 8 - 4] ^= 0x01;
  assert_open_fails (data, size, 0, RC_READER_ERROR_FORMAT, "MCAP: summary "
      "at offset");
  rc_reader_free (open_ok (data, size, RC_READER_FLAG_SKIP_CRC));
  g_free (data);
  mb_free (b);
}

/* Lengths of 2^62: a record in a scanned file ends the readable data
 * there; a chunk that a chunk index points to, or the header, fails. */
static void
test_huge_length (void)
{
  McapBuilder *b = mb_new ();
  const guint64 huge = G_GUINT64_CONSTANT (1) << 62;
  const MbMessage *m;
  guint8 *data;
  gsize size, at;
  RcReader *reader;
  RcReaderRecovery recovery;

  add_channels (b);
  add_messages (b, 10, T0);
  add_chunks (b, "lz4", 2);
  data = mb_finish (b, TRUE, &size);
  /* The 6th message record, outside chunks. */
  m = &g_array_index (b->messages, MbMessage, 5);
  at = m->end - g_bytes_get_size (m->data) - 22 - 9;
  put_u64_at (data, at + 1, huge);
  reader = open_ok (data, at + 200, 0);
  rc_reader_get_recovery (reader, &recovery);
  g_assert_true (recovery.scanned);
  g_assert_cmpuint (recovery.n_messages, ==, 5);
  g_assert_cmpuint (recovery.end_offset, ==, at);
  check_cut_reason (&recovery, data, at + 200, size, at);
  rc_reader_free (reader);
  /* The whole file is read through its summary, which does not need that
   * record. */
  rc_reader_free (open_ok (data, size, 0));
  at = g_array_index (b->chunk_offsets, guint64, 1);
  put_u64_at (data, at + 1, huge);
  assert_open_fails (data, size, 0, RC_READER_ERROR_FORMAT, "MCAP: a chunk "
      "index puts a chunk record of");
  put_u64_at (data, 9, huge);
  assert_open_fails (data, size, 0, RC_READER_ERROR_FORMAT, "MCAP: the "
      "header record at offset 8 is cut off");
  g_free (data);
  mb_free (b);
}

/* A chunk claiming 2^40 bytes decompressed, or an unknown compression,
 * fails at open, before anything is allocated, indexed or scanned. */
static void
test_chunk_size (void)
{
  for (gint summary = 0; summary < 2; summary++) {
    McapBuilder *b = mb_new ();
    guint8 *data;
    gsize size;
    guint64 chunk;
    gchar *text;

    add_chunks (b, "zstd", 2);
    data = mb_finish (b, summary, &size);
    chunk = g_array_index (b->chunk_offsets, guint64, 1);
    put_u64_at (data, chunk + 9 + 16, G_GUINT64_CONSTANT (1) << 40);
    text = g_strdup_printf ("MCAP: chunk at offset %" G_GUINT64_FORMAT ": "
        "1099511627776 bytes decompressed is above the limit of 1073741824",
        chunk);
    assert_open_fails (data, size, 0, RC_READER_ERROR_TOO_LARGE, text);
    g_free (text);
    /* The uncompressed size back, then the compression's name. */
    put_u64_at (data, chunk + 9 + 16, 0);
    memcpy (data + chunk + 9 + 28 + 4, "zst2", 4);
    assert_open_fails (data, size, 0, RC_READER_ERROR_UNSUPPORTED,
        "compression \"zst2\" is not supported");
    g_free (data);
    mb_free (b);
  }
}

/* The first message at or after a time, with the chunk index and by
 * scanning. */
static void
test_seek (void)
{
  for (gint summary = 0; summary < 2; summary++) {
    McapBuilder *b = mb_new ();
    GArray *all;
    RcReader *reader;
    RcMessage msg;
    guint8 *data;
    gsize size;

    add_chunks (b, "zstd", 3);
    data = mb_finish (b, summary, &size);
    all = mb_messages_in_time_order (b);
    reader = open_ok (data, size, 0);
    for (guint k = 0; k < 10; k++) {
      guint i = g_test_rand_int_range (0, all->len);
      guint64 t = g_array_index (all, MbMessage, i).time;

      /* The first of the messages at that time. */
      while (i > 0 && g_array_index (all, MbMessage, i - 1).time == t)
        i--;
      rc_reader_seek (reader, t - (k % 2));
      if (k % 2 && i > 0 && g_array_index (all, MbMessage, i - 1).time == t - 1)
        i--;
      g_assert_cmpint (rc_reader_next (reader, &msg, NULL), ==, RC_READER_OK);
      g_assert_cmpuint (msg.index, ==, i);
      g_assert_cmpuint (msg.time, ==, t);
    }
    rc_reader_seek (reader, 0);
    g_assert_cmpint (rc_reader_next (reader, &msg, NULL), ==, RC_READER_OK);
    g_assert_cmpuint (msg.index, ==, 0);
    rc_reader_seek (reader, g_array_index (all, MbMessage, all->len - 1).time
        + 1);
    g_assert_cmpint (rc_reader_next (reader, &msg, NULL), ==, RC_READER_END);
    rc_reader_free (reader);
    g_array_unref (all);
    g_free (data);
    mb_free (b);
  }
}

/* Only /joints selected: its messages, with their places in the whole
 * order. */
static void
test_select (void)
{
  McapBuilder *b = mb_new ();
  GArray *all;
  RcReader *reader;
  RcMessage msg;
  guint8 *data;
  gsize size;
  guint n = 0, joints;

  add_chunks (b, "lz4", 3);
  data = mb_finish (b, TRUE, &size);
  all = mb_messages_in_time_order (b);
  reader = open_ok (data, size, 0);
  joints = rc_reader_find_topic (reader, "/joints") -
      rc_reader_get_topic (reader, 0);
  for (guint t = 0; t < rc_reader_n_topics (reader); t++)
    rc_reader_select_topic (reader, t, t == joints);
  for (guint i = 0; i < all->len; i++) {
    const MbMessage *e = &g_array_index (all, MbMessage, i);

    if (strcmp (e->topic, "/joints"))
      continue;
    g_assert_cmpint (rc_reader_next (reader, &msg, NULL), ==, RC_READER_OK);
    g_assert_cmpuint (msg.topic, ==, joints);
    g_assert_cmpuint (msg.index, ==, i);
    g_assert_cmpmem (msg.data, msg.size, g_bytes_get_data (e->data, NULL),
        g_bytes_get_size (e->data));
    n++;
  }
  g_assert_cmpint (rc_reader_next (reader, &msg, NULL), ==, RC_READER_END);
  g_assert_cmpuint (n, >, 0);
  rc_reader_free (reader);
  g_array_unref (all);
  g_free (data);
  mb_free (b);
}

/* One topic on several channels: /same's agree (one topic of one
 * definition, as rosbag2 writes a channel per publisher QoS); each other
 * topic has a second channel that differs from its first in one of what
 * decodes a message, and is marked with both definitions, named.  Its
 * messages are still read, all under the one topic: refusing them is for
 * whoever decodes (robocachemcapsrc, rosdump). */
static void
test_mixed_definitions (void)
{
  static const gchar joints_v2[] =
      "std_msgs/Header header\nuint8 mode\nstring[] name\n";
  const struct
  {
    const gchar *topic;
    guint n_definitions;
    const gchar *second;        /* in the second definition's label */
  } expected[] = {
    {"/same", 1, NULL},
    {"/schema-bytes", 2, "schema ros2msg of 48 bytes"},
    {"/schema-name", 2, "sensor_msgs/msg/PointCloud2 (message"},
    {"/schema-encoding", 2, "schema ros2idl"},
    {"/message-encoding", 2, "message encoding json"},
    {"/no-schema", 2, "no type (message encoding cdr, no schema)"},
  };

  for (gint summary = 0; summary < 2; summary++) {
    McapBuilder *b = mb_new ();
    GArray *all;
    RcReader *reader;
    guint8 *data;
    gsize size;

    mb_chunk_begin (b, "zstd");
    mb_schema (b, 1, "sensor_msgs/msg/JointState", "ros2msg", joints_schema);
    mb_schema (b, 2, "sensor_msgs/msg/JointState", "ros2msg", joints_v2);
    mb_schema (b, 3, "sensor_msgs/msg/PointCloud2", "ros2msg", joints_schema);
    mb_schema (b, 4, "sensor_msgs/msg/JointState", "ros2idl", joints_schema);
    /* Channel 2t + 1 is each topic's first, on schema 1. */
    mb_channel (b, 1, 1, "/same", "cdr");
    mb_channel (b, 2, 1, "/same", "cdr");
    mb_channel (b, 3, 1, "/schema-bytes", "cdr");
    mb_channel (b, 4, 2, "/schema-bytes", "cdr");
    mb_channel (b, 5, 1, "/schema-name", "cdr");
    mb_channel (b, 6, 3, "/schema-name", "cdr");
    mb_channel (b, 7, 1, "/schema-encoding", "cdr");
    mb_channel (b, 8, 4, "/schema-encoding", "cdr");
    mb_channel (b, 9, 1, "/message-encoding", "cdr");
    mb_channel (b, 10, 1, "/message-encoding", "json");
    mb_channel (b, 11, 1, "/no-schema", "cdr");
    mb_channel (b, 12, 0, "/no-schema", "cdr");
    for (guint i = 0; i < 48; i++)
      mb_message (b, 1 + i % 12, T0 + i * 10 * 1000000, 16);
    mb_chunk_end (b);
    data = mb_finish (b, summary, &size);
    mb_write_seed (summary ? "mixed-definitions" : "mixed-definitions-scan",
        data, size);
    reader = open_ok (data, size, 0);
    g_assert_cmpuint (rc_reader_n_topics (reader), ==, G_N_ELEMENTS (expected));
    for (guint t = 0; t < G_N_ELEMENTS (expected); t++) {
      const RcTopic *topic = rc_reader_find_topic (reader, expected[t].topic);

      g_assert_nonnull (topic);
      g_assert_cmpuint (topic->n_messages, ==, 8);
      g_assert_cmpuint (topic->n_definitions, ==, expected[t].n_definitions);
      /* The first channel still gives the type, encoding and schema. */
      g_assert_cmpstr (topic->type, ==, "sensor_msgs/msg/JointState");
      g_assert_cmpstr (topic->encoding, ==, "cdr");
      g_assert_cmpmem (topic->schema, topic->schema_size, joints_schema,
          strlen (joints_schema));
      if (!expected[t].second) {
        g_assert_null (topic->definitions);
        continue;
      }
      g_assert_nonnull (topic->definitions);
      if (!g_str_has_prefix (topic->definitions, "sensor_msgs/msg/JointState "
              "(message encoding cdr, schema ros2msg of 37 bytes, sha256 ")
          || !strstr (topic->definitions, "; ")
          || !strstr (strstr (topic->definitions, "; "), expected[t].second))
        g_error ("%s: definitions \"%s\"", topic->name, topic->definitions);
    }
    all = mb_messages_in_time_order (b);
    check_messages (reader, all);
    g_array_unref (all);
    rc_reader_free (reader);
    g_free (data);
    mb_free (b);
  }
}

/* <name>.mcap of @dir read as "time topic hex" lines, against
 * <name>.txt; both files are removed. */
static void
check_third_party_file (const gchar * dir, const gchar * name)
{
  gchar *base = g_build_filename (dir, name, NULL);
  gchar *mcap = g_strconcat (base, ".mcap", NULL);
  gchar *txt = g_strconcat (base, ".txt", NULL);
  gchar *expected;
  GString *got = g_string_new (NULL);
  GError *error = NULL;
  RcReader *reader = rc_reader_open (mcap, &error);
  RcMessage msg;

  g_assert_no_error (error);
  g_assert_true (g_file_get_contents (txt, &expected, NULL, NULL));
  while (rc_reader_next (reader, &msg, &error) == RC_READER_OK) {
    g_string_append_printf (got, "%" G_GUINT64_FORMAT " %s ", msg.time,
        rc_reader_get_topic (reader, msg.topic)->name);
    for (gsize k = 0; k < msg.size; k++)
      g_string_append_printf (got, "%02x", msg.data[k]);
    g_string_append_c (got, '\n');
  }
  g_assert_no_error (error);
  g_assert_cmpstr (got->str, ==, expected);
  g_assert_cmpstr (rc_reader_get_topic (reader, 0)->type, ==,
      "sensor_msgs/msg/JointState");
  rc_reader_free (reader);
  g_unlink (mcap);
  g_unlink (txt);
  g_string_free (got, TRUE);
  g_free (expected);
  g_free (txt);
  g_free (mcap);
  g_free (base);
}

/* A message index that disagrees with its chunk: a time (found when the
 * message is read) and an offset past the chunk (found at open). */
static void
test_bad_message_index (void)
{
  McapBuilder *b = mb_new ();
  guint8 *data;
  gsize size, entry;
  RcReader *reader;
  gchar *text;
  guint n;

  add_chunks (b, "zstd", 2);
  data = mb_finish (b, TRUE, &size);
  /* The first message index follows the first chunk: opcode, length,
   * channel, array length, then (time, offset) pairs. */
  entry = g_array_index (b->messages, MbMessage, 0).end + 9 + 2 + 4;
  put_u64_at (data, entry, get_u64_at (data + entry) + 1);
  reader = open_ok (data, size, 0);
  text = read_all (reader, &n);
  g_assert_nonnull (text);
  g_assert_nonnull (strstr (text, "but its message index says"));
  g_free (text);
  rc_reader_free (reader);
  put_u64_at (data, entry + 8, G_GUINT64_CONSTANT (1) << 40);
  assert_open_fails (data, size, 0, RC_READER_ERROR_FORMAT, "entry 0 is at "
      "offset 1099511627776, past the chunk's");
  g_free (data);
  mb_free (b);
}

/* Files written by @mcap/core's McapWriter (tests/mcap/write_mcap.js, run
 * with node where ROBOCACHE_MCAP_JS names tests/mcap and its npm packages
 * are installed, see pipelines/setup.sh), read message for message. */
static void
test_third_party (void)
{
  const gchar *js_dir = g_getenv ("ROBOCACHE_MCAP_JS");
  const gchar *names[] = { "js-zstd", "js-none", "js-unchunked" };
  gchar *core, *dir;
  gchar *argv[] = { (gchar *) "node", (gchar *) "write_mcap.js", NULL, NULL };
  gint status;

  core = js_dir ? g_build_filename (js_dir, "node_modules", "@mcap", "core",
      NULL) : NULL;
  if (!core || !g_file_test (core, G_FILE_TEST_IS_DIR)) {
    g_test_skip ("no ROBOCACHE_MCAP_JS or no npm packages in tests/mcap");
    g_free (core);
    return;
  }
  dir = g_dir_make_tmp ("robocache-mcap-XXXXXX", NULL);
  argv[2] = dir;
  g_assert_true (g_spawn_sync (js_dir, argv, NULL, G_SPAWN_SEARCH_PATH, NULL,
          NULL, NULL, NULL, &status, NULL));
  g_assert_true (g_spawn_check_wait_status (status, NULL));
  for (guint i = 0; i < G_N_ELEMENTS (names); i++)
    check_third_party_file (dir, names[i]);
  g_rmdir (dir);
  g_free (dir);
  g_free (core);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/mcap/unchunked", test_unchunked);
  g_test_add_func ("/mcap/chunked", test_chunked);
  g_test_add_func ("/mcap/summary-without-definitions",
      test_summary_without_definitions);
  g_test_add_func ("/mcap/summary-without-late-definitions",
      test_summary_without_late_definitions);
  g_test_add_func ("/mcap/undefined-schema", test_undefined_schema);
  g_test_add_func ("/mcap/unknown-opcode", test_unknown_opcode);
  g_test_add_func ("/mcap/cut", test_cut);
  g_test_add_func ("/mcap/zero-filled", test_zero_filled);
  g_test_add_func ("/mcap/bad-magic", test_bad_magic);
  g_test_add_func ("/mcap/chunk-crc", test_chunk_crc);
  g_test_add_func ("/mcap/data-crc", test_data_crc);
  g_test_add_func ("/mcap/huge-length", test_huge_length);
  g_test_add_func ("/mcap/chunk-size", test_chunk_size);
  g_test_add_func ("/mcap/seek", test_seek);
  g_test_add_func ("/mcap/select", test_select);
  g_test_add_func ("/mcap/mixed-definitions", test_mixed_definitions);
  g_test_add_func ("/mcap/bad-message-index", test_bad_message_index);
  g_test_add_func ("/mcap/third-party", test_third_party);
  g_test_add_func ("/mcap/rosbag2-message-compression",
      test_rosbag2_message_compression);
  g_test_add_func ("/mcap/split-recording", test_split_recording);
  return g_test_run ();
}
