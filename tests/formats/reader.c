/* The reader interface (gst/formats/reader.h) over the bags of
 * tests/bag/make_bags.py: topics, message order, topic selection, seeking,
 * the error codes, and the recovery of bags cut off at every offset or
 * left by a killed writer.  GLib only, like the reader. */
#define _GNU_SOURCE             /* memmem */
#include <glib.h>
#include <glib/gstdio.h>
#include <string.h>

#include "formats/reader.h"
#include "testutil.h"

#define SKIP 77
#define N_MSGS 10
#define SEC G_GUINT64_CONSTANT (1000000000)
#define MSEC G_GUINT64_CONSTANT (1000000)
/* "#ROSBAG V2.0\n" and rosbag's bag header record (4096 bytes of data). */
#define BAG_HEADER_END 4117

static gchar *bag_dir;

/* make_bags.py's record time of message @i of the topic on @line. */
static guint64
record_time (guint i, guint line)
{
  return 1000 * SEC + i * 100 * MSEC + 20 * MSEC + 5 * MSEC * line;
}

static gchar *
read_bag (const gchar * name, gsize * size)
{
  gchar *path = g_build_filename (bag_dir, name, NULL);
  gchar *data;

  g_assert_true (g_file_get_contents (path, &data, size, NULL));
  g_free (path);
  return data;
}

static RcReader *
open_bag (const gchar * name)
{
  gchar *path = g_build_filename (bag_dir, name, NULL);
  GError *error = NULL;
  RcReader *reader = rc_reader_open (path, &error);

  g_assert_no_error (error);
  g_free (path);
  return reader;
}

static guint
find_topic (RcReader * reader, const gchar * name)
{
  for (guint t = 0; t < rc_reader_n_topics (reader); t++) {
    if (!strcmp (rc_reader_get_topic (reader, t)->name, name))
      return t;
  }
  g_assert_not_reached ();
}

static void
test_topics (void)
{
  RcReader *reader = open_bag ("all-lz4.bag");
  const RcTopic *t;

  g_assert_cmpuint (rc_reader_n_topics (reader), ==, 6);
  t = rc_reader_get_topic (reader, find_topic (reader, "/joint_states"));
  g_assert_cmpstr (t->type, ==, "sensor_msgs/JointState");
  g_assert_cmpstr (t->encoding, ==, "ros1");
  g_assert_cmpuint (t->n_messages, ==, N_MSGS);
  g_assert_cmpuint (t->first_time, ==, record_time (0, 2));
  g_assert_cmpuint (t->last_time, ==, record_time (N_MSGS - 1, 2));
  g_assert_cmpuint (t->n_definitions, ==, 1);
  g_assert_null (t->definitions);
  rc_reader_free (reader);
}

/* Topics on two connections (make_bags.py's mixed-connections.bag):
 * /joint_states's agree and it is an ordinary topic; /mixed's differ in
 * type, /stale_md5's in md5sum, and both are marked with the two
 * definitions named.  Every message is still read under its topic. */
static void
test_mixed_connections (void)
{
  RcReader *reader = open_bag ("mixed-connections.bag");
  const RcTopic *t;
  GError *error = NULL;
  RcMessage msg;
  guint n = 0;

  g_assert_cmpuint (rc_reader_n_topics (reader), ==, 4);
  t = rc_reader_find_topic (reader, "/joint_states");
  g_assert_cmpuint (t->n_messages, ==, N_MSGS);
  g_assert_cmpuint (t->n_definitions, ==, 1);
  g_assert_null (t->definitions);
  t = rc_reader_find_topic (reader, "/velodyne_points");
  g_assert_cmpuint (t->n_definitions, ==, 1);
  t = rc_reader_find_topic (reader, "/mixed");
  g_assert_cmpuint (t->n_messages, ==, N_MSGS);
  g_assert_cmpuint (t->n_definitions, ==, 2);
  g_assert_cmpstr (t->definitions, ==, "sensor_msgs/JointState (md5sum "
      "3066dcd76a6cfaef579bd0f34173e9fd); sensor_msgs/PointCloud2 (md5sum "
      "1158d486dd51d683ce2f1be655c3c181)");
  t = rc_reader_find_topic (reader, "/stale_md5");
  g_assert_cmpuint (t->n_definitions, ==, 2);
  g_assert_cmpstr (t->definitions, ==, "sensor_msgs/JointState (md5sum "
      "3066dcd76a6cfaef579bd0f34173e9fd); sensor_msgs/JointState (md5sum "
      "00000000000000000000000000000000)");
  while (rc_reader_next (reader, &msg, &error) == RC_READER_OK)
    n++;
  g_assert_no_error (error);
  g_assert_cmpuint (n, ==, 4 * N_MSGS);
  rc_reader_free (reader);
}

/* Every message of every compression, in record-time order. */
static void
test_all_messages (void)
{
  const gchar *files[] = { "all-none.bag", "all-bz2.bag", "all-lz4.bag" };

  for (guint f = 0; f < G_N_ELEMENTS (files); f++) {
    RcReader *reader = open_bag (files[f]);
    GError *error = NULL;
    RcMessage msg;
    guint n = 0;

    while (rc_reader_next (reader, &msg, &error) == RC_READER_OK) {
      const RcTopic *t = rc_reader_get_topic (reader, msg.topic);

      g_assert_cmpstr (msg.type, ==, t->type);
      g_assert_cmpuint (msg.index, ==, n);
      g_assert_cmpuint (msg.time, ==, record_time (n / 6, n % 6));
      g_assert_true (msg.size > 0);
      n++;
    }
    g_assert_no_error (error);
    g_assert_cmpuint (n, ==, 6 * N_MSGS);
    rc_reader_free (reader);
  }
}

/* One topic selected, then a seek to a message's exact record time. */
static void
test_select_and_seek (void)
{
  RcReader *reader = open_bag ("all-bz2.bag");
  guint joints = find_topic (reader, "/joint_states");
  GError *error = NULL;
  RcMessage msg;
  guint n = 0;

  for (guint t = 0; t < rc_reader_n_topics (reader); t++)
    rc_reader_select_topic (reader, t, t == joints);
  while (rc_reader_next (reader, &msg, &error) == RC_READER_OK) {
    g_assert_cmpuint (msg.topic, ==, joints);
    g_assert_cmpuint (msg.time, ==, record_time (n, 2));
    n++;
  }
  g_assert_no_error (error);
  g_assert_cmpuint (n, ==, N_MSGS);

  rc_reader_seek (reader, record_time (5, 2));
  g_assert_cmpint (rc_reader_next (reader, &msg, &error), ==, RC_READER_OK);
  g_assert_cmpuint (msg.time, ==, record_time (5, 2));
  rc_reader_seek (reader, record_time (N_MSGS, 0));
  g_assert_cmpint (rc_reader_next (reader, &msg, &error), ==, RC_READER_END);
  g_assert_no_error (error);
  rc_reader_free (reader);
}

static void
assert_open_fails (const gchar * data, gsize size, gint code,
    const gchar * text)
{
  GError *error = NULL;

  g_assert_null (rc_reader_open_data ((const guint8 *) data, size, &error));
  g_assert_nonnull (error);
  if (!strstr (error->message, text))
    g_error ("\"%s\" is not in \"%s\"", text, error->message);
  g_assert_error (error, RC_READER_ERROR, code);
  g_error_free (error);
}

static void
test_errors (void)
{
  GError *error = NULL;
  gsize size;
  gchar *data = read_bag ("all-lz4.bag", &size);
  gchar *at;

  g_assert_null (rc_reader_open ("/nonexistent/x.bag", &error));
  g_assert_error (error, RC_READER_ERROR, RC_READER_ERROR_IO);
  g_clear_error (&error);
  assert_open_fails ("hello world", 11, RC_READER_ERROR_UNKNOWN_FORMAT,
      "not a ROS bag");
  /* rosbag2's file compression: a zstd frame, read from a file only
   * (tests/formats/whole-file.c). */
  assert_open_fails ("\x28\xb5\x2f\xfd\x04\x58", 6,
      RC_READER_ERROR_UNKNOWN_FORMAT, "read from its file, not from memory");
  assert_open_fails (data, BAG_HEADER_END - 1, RC_READER_ERROR_FORMAT,
      "bag header at byte 13: data length 4027 exceeds the 4026 bytes left");
  /* A chunk's decompressed size: 2 GiB. */
  at = memmem (data, size, "size=", 5);
  g_assert_nonnull (at);
  memcpy (at + 5, "\xff\xff\xff\x7f", 4);
  assert_open_fails (data, size, RC_READER_ERROR_TOO_LARGE, "above the limit");
  memcpy (data + 9, "1.2", 3);
  assert_open_fails (data, size, RC_READER_ERROR_UNSUPPORTED, "1.2");
  g_free (data);
}

/* The version line: what was found and what is accepted. */
static void
test_version_errors (void)
{
  assert_open_fails ("#ROSBAG V2.0", 12, RC_READER_ERROR_UNKNOWN_FORMAT,
      "not a ROS bag: the file is 12 bytes, too short for the version line "
      "\"#ROSBAG V2.0\\n\"");
  assert_open_fails ("#ROSBAG V1.2\nxxxxxxxx", 21,
      RC_READER_ERROR_UNSUPPORTED,
      "bag format version \"1.2\" is not supported (only 2.0 is");
  assert_open_fails ("#ROSBAG V\001\377\nxxxxxxxx", 20,
      RC_READER_ERROR_UNSUPPORTED, "version \"\\001\\377\" is not");
  assert_open_fails ("#ROSBAG V2.0 and no end of line", 31,
      RC_READER_ERROR_UNSUPPORTED, "version \"2.0 and no end o\"... is not");
}

/* A bag opened from memory that was read by scanning, its reason
 * holding @why; the caller frees it. */
static RcReader *
open_scanned (const guint8 * data, gsize size, const gchar * why)
{
  GError *error = NULL;
  RcReader *reader = rc_reader_open_data (data, size, &error);
  RcReaderRecovery recovery;

  g_assert_no_error (error);
  rc_reader_get_recovery (reader, &recovery);
  g_assert_true (recovery.scanned);
  g_assert_cmpuint (recovery.file_size, ==, size);
  g_assert_nonnull (recovery.reason);
  if (why && !strstr (recovery.reason, why))
    g_error ("\"%s\" is not in \"%s\"", why, recovery.reason);
  return reader;
}

static guint
count_messages (RcReader * reader)
{
  GError *error = NULL;
  RcMessage msg;
  guint n = 0;

  while (rc_reader_next (reader, &msg, &error) == RC_READER_OK)
    n++;
  g_assert_no_error (error);
  return n;
}

/* The bag header's index_pos inside the header, past the end, or too
 * close to the end for a record: the index cannot be used, the bag is
 * scanned and every message plays. */
static void
test_index_pos_scanned (void)
{
  gsize size;
  gchar *data = read_bag ("all-none.bag", &size);
  gchar *at = memmem (data, size, "index_pos=", 10);
  guint64 bad[] = { 13, size + 1, size - 5 };
  const gchar *why[] = { "index position 13 is inside the bag header "
        "record (bytes 13 to 4116); the index starts after it",
    "is beyond the end of the file", "less than the 8 a record needs"
  };

  g_assert_nonnull (at);
  for (guint i = 0; i < G_N_ELEMENTS (bad); i++) {
    guint64 pos = GUINT64_TO_LE (bad[i]);
    RcReader *reader;

    memcpy (at + 10, &pos, 8);
    reader = open_scanned ((const guint8 *) data, size, why[i]);
    g_assert_cmpuint (count_messages (reader), ==, 6 * N_MSGS);
    rc_reader_free (reader);
  }
  g_free (data);
}

/* A chunk's decompressed size is bounded by what its compressed bytes can
 * give before anything is allocated: lz4 expands at most 255 times. */
static void
test_chunk_size_errors (void)
{
  gsize size;
  gchar *data = read_bag ("all-lz4.bag", &size);
  gchar *at = memmem (data, size, "size=", 5);

  g_assert_nonnull (at);
  /* 100 MiB, below the 1 GiB limit. */
  memcpy (at + 5, "\x00\x00\x40\x06", 4);
  assert_open_fails (data, size, RC_READER_ERROR_FORMAT, "says 104857600 "
      "bytes decompressed, more than lz4 can make of its");
  g_free (data);
}

/* A message of a whole bag, which a recovered one must equal. */
typedef struct
{
  guint64 time;
  gchar *topic;
  GBytes *bytes;
  guint64 end;                  /* where it is whole in the file (.ends) */
} Whole;

static void
whole_clear (gpointer data)
{
  Whole *w = data;

  g_free (w->topic);
  g_bytes_unref (w->bytes);
}

/* make_bags.py's NAME.ends: the end of the message recorded at @time. */
static guint64
end_of (gchar ** lines, guint64 time)
{
  for (guint i = 0; lines[i] && lines[i][0]; i++) {
    gchar *rest;

    if (g_ascii_strtoull (lines[i], &rest, 10) == time)
      return g_ascii_strtoull (rest, NULL, 10);
  }
  g_error ("no message recorded at %" G_GUINT64_FORMAT " in .ends", time);
}

/* Every message of the whole bag @name, in order, with its end. */
static GArray *
whole_messages (const gchar * name)
{
  gchar *ends_name = g_strconcat (name, ".ends", NULL);
  gsize len;
  gchar *text = read_bag (ends_name, &len);
  gchar **lines = g_strsplit (text, "\n", -1);
  GArray *whole = g_array_new (FALSE, TRUE, sizeof (Whole));
  RcReader *reader = open_bag (name);
  GError *error = NULL;
  RcMessage msg;

  g_array_set_clear_func (whole, whole_clear);
  while (rc_reader_next (reader, &msg, &error) == RC_READER_OK) {
    Whole w;

    w.time = msg.time;
    w.topic = g_strdup (rc_reader_get_topic (reader, msg.topic)->name);
    w.bytes = g_bytes_new (msg.data, msg.size);
    w.end = end_of (lines, msg.time);
    g_array_append_val (whole, w);
  }
  g_assert_no_error (error);
  g_assert_cmpuint (whole->len, ==, 6 * N_MSGS);
  rc_reader_free (reader);
  g_strfreev (lines);
  g_free (text);
  g_free (ends_name);
  return whole;
}

/* The messages @reader plays are those of @whole that are whole before
 * byte @cut, byte for byte and in order; their count. */
static guint
check_recovered (RcReader * reader, GArray * whole, gsize cut)
{
  GError *error = NULL;
  RcMessage msg;
  guint n = 0;

  for (guint i = 0; i < whole->len; i++) {
    const Whole *w = &g_array_index (whole, Whole, i);
    gsize size;
    const guint8 *bytes = g_bytes_get_data (w->bytes, &size);

    if (w->end > cut)
      continue;
    if (rc_reader_next (reader, &msg, &error) != RC_READER_OK)
      g_error ("cut at %" G_GSIZE_FORMAT ": message %u (%s at %"
          G_GUINT64_FORMAT ", whole at byte %" G_GUINT64_FORMAT ") is "
          "missing: %s", cut, i, w->topic, w->time, w->end,
          error ? error->message : "the end");
    g_assert_cmpuint (msg.time, ==, w->time);
    g_assert_cmpstr (rc_reader_get_topic (reader, msg.topic)->name, ==,
        w->topic);
    g_assert_cmpmem (msg.data, msg.size, bytes, size);
    n++;
  }
  if (rc_reader_next (reader, &msg, &error) != RC_READER_END)
    g_error ("cut at %" G_GSIZE_FORMAT ": a message recorded at %"
        G_GUINT64_FORMAT " plays, which is not whole before the cut", cut,
        msg.time);
  g_assert_no_error (error);
  return n;
}

/* The bag @data cut at @cut (a copy of exactly that size, so that a read
 * past the cut is caught by the sanitizers and valgrind). */
static void
check_cut (const gchar * data, gsize cut, GArray * whole)
{
  guint8 *head = g_memdup2 (data, MAX (cut, 1));
  GError *error = NULL;
  RcReaderRecovery recovery;
  RcReader *reader;
  guint64 last_end = BAG_HEADER_END;

  if (cut < BAG_HEADER_END) {
    g_assert_null (rc_reader_open_data (head, cut, &error));
    g_assert_nonnull (error);
    g_clear_error (&error);
    g_free (head);
    return;
  }
  reader = open_scanned (head, cut, NULL);
  rc_reader_get_recovery (reader, &recovery);
  g_assert_cmpuint (check_recovered (reader, whole, cut), ==,
      recovery.n_messages);
  for (guint i = 0; i < whole->len; i++) {
    guint64 end = g_array_index (whole, Whole, i).end;

    if (end <= cut)
      last_end = MAX (last_end, end);
  }
  g_assert_cmpuint (recovery.end_offset, >=, last_end);
  g_assert_cmpuint (recovery.end_offset, <=, cut);
  rc_reader_free (reader);
  g_free (head);
}

/* Whether to cut at @cut: every offset with @stride 1, else every
 * @stride-th and those near where a message becomes whole. */
static gboolean
wanted_cut (gsize cut, guint stride, GArray * whole)
{
  if (cut % stride == 0)
    return TRUE;
  for (guint i = 0; i < whole->len; i++) {
    guint64 end = g_array_index (whole, Whole, i).end;

    if (cut + 40 >= end && cut <= end + 40)
      return TRUE;
  }
  return FALSE;
}

/* Every bag cut at every offset: inside a chunk, a record's header or
 * data, a message, the index data after a chunk, the connection records
 * and chunk infos of the index at the end, and just before the index.
 * bz2, slow to decompress, at every offset near a chunk's end and every
 * 13th elsewhere; ROBOCACHE_CUT_STRIDE=N (set under valgrind) takes every
 * N-th offset of each bag instead, and those near a message's end. */
static void
test_cut (void)
{
  const gchar *files[] = { "all-none.bag", "all-lz4.bag", "all-bz2.bag" };
  const gchar *env = g_getenv ("ROBOCACHE_CUT_STRIDE");
  guint stride[] = { 1, 1, 13 };

  for (guint f = 0; env && f < G_N_ELEMENTS (stride); f++)
    stride[f] = MAX (1, g_ascii_strtoull (env, NULL, 10));

  for (guint f = 0; f < G_N_ELEMENTS (files); f++) {
    GArray *whole = whole_messages (files[f]);
    gsize size;
    gchar *data = read_bag (files[f], &size);

    for (gsize cut = 0; cut < size; cut++) {
      if (wanted_cut (cut, stride[f], whole))
        check_cut (data, cut, whole);
    }
    g_array_unref (whole);
    g_free (data);
  }
}

/* What a killed rosbag writer leaves (index_pos 0, the last chunk open,
 * make_bags.py's killed-*.bag): every message of a closed chunk plays,
 * and uncompressed, those of the open chunk too. */
static void
test_killed (void)
{
  const gchar *names[] = { "none", "bz2", "lz4" };

  for (guint f = 0; f < G_N_ELEMENTS (names); f++) {
    gchar *all = g_strdup_printf ("all-%s.bag", names[f]);
    gchar *killed = g_strdup_printf ("killed-%s.bag", names[f]);
    GArray *whole = whole_messages (all);
    gsize size;
    gchar *data = read_bag (killed, &size);
    RcReader *reader = open_scanned ((const guint8 *) data, size,
        "index_pos 0");
    guint n = check_recovered (reader, whole, size);

    /* make_bags.py's KILLED_AT: the open chunk holds some of them. */
    if (f == 0) {
      g_assert_cmpuint (n, ==, 33);
    } else {
      g_assert_cmpuint (n, >, 0);
      g_assert_cmpuint (n, <, 33);
    }
    rc_reader_free (reader);
    g_array_unref (whole);
    g_free (data);
    g_free (killed);
    g_free (all);
  }
}

/* @data's index_pos set to 0, as a killed writer leaves it. */
static void
clear_index_pos (gchar * data, gsize size)
{
  gchar *at = memmem (data, size, "index_pos=", 10);

  g_assert_nonnull (at);
  memset (at + 10, 0, 8);
}

/* A corrupt compressed chunk ends the scan there: the chunks before it
 * play, it and those after it do not. */
static void
test_scan_stops_at_corrupt_chunk (void)
{
  GArray *whole = whole_messages ("all-bz2.bag");
  gsize size;
  gchar *data = read_bag ("all-bz2.bag", &size);
  gchar *magic = data;
  RcReaderRecovery recovery;
  RcReader *reader;

  for (guint i = 0; i < 3; i++) {
    magic = memmem (magic + 1, size - (magic + 1 - data), "BZh", 3);
    g_assert_nonnull (magic);
  }
  memset (magic + 12, 0xff, 40);
  clear_index_pos (data, size);
  reader = open_scanned ((const guint8 *) data, size, "corrupt bz2 chunk");
  /* Compressed, a message is whole where its chunk ends. */
  g_assert_cmpuint (check_recovered (reader, whole, magic - data), >, 0);
  rc_reader_get_recovery (reader, &recovery);
  g_assert_cmpuint (recovery.end_offset, <, magic - data);
  rc_reader_free (reader);
  g_array_unref (whole);
  g_free (data);
}

/* What a scan cannot pass is an error, as with an index. */
static void
test_scan_errors (void)
{
  gsize size;
  gchar *data = read_bag ("all-lz4.bag", &size);
  gchar *at = memmem (data, size, "compression=lz4", 15);

  g_assert_nonnull (at);
  at[14] = '5';
  assert_open_fails (data, size, RC_READER_ERROR_UNSUPPORTED,
      "compression \"lz5\" is not supported (none, bz2 and lz4 are)");
  clear_index_pos (data, size);
  assert_open_fails (data, size, RC_READER_ERROR_UNSUPPORTED,
      "compression \"lz5\" is not supported (none, bz2 and lz4 are)");
  g_free (data);
}

/* make_bags.py into a temporary folder; FALSE if python has no rosbag
 * (Debian's python3-rosbag is for /usr/bin/python3, whatever is first in
 * PATH). */
static gboolean
make_bags (void)
{
  const gchar *script = g_getenv ("ROBOCACHE_MAKE_BAGS");
  const gchar *python = g_file_test ("/usr/bin/python3",
      G_FILE_TEST_IS_EXECUTABLE) ? "/usr/bin/python3" : "python3";
  gchar *argv[] = { (gchar *) python, (gchar *) script, NULL, NULL };
  gint status;

  if (!script)
    return FALSE;
  bag_dir = g_dir_make_tmp ("robocache-reader-XXXXXX", NULL);
  argv[2] = bag_dir;
  return g_spawn_sync (NULL, argv, NULL, G_SPAWN_SEARCH_PATH |
      G_SPAWN_STDERR_TO_DEV_NULL, NULL, NULL, NULL, NULL, &status, NULL) &&
      g_spawn_check_wait_status (status, NULL);
}

int
main (int argc, char **argv)
{
  int ret;

  g_test_init (&argc, &argv, NULL);
  if (!make_bags ()) {
    g_print ("SKIP: no ROBOCACHE_MAKE_BAGS or no python3 with rosbag\n");
    if (bag_dir)
      test_remove_tree (bag_dir);
    return SKIP;
  }
  g_test_add_func ("/reader/topics", test_topics);
  g_test_add_func ("/reader/all-messages", test_all_messages);
  g_test_add_func ("/reader/mixed-connections", test_mixed_connections);
  g_test_add_func ("/reader/select-and-seek", test_select_and_seek);
  g_test_add_func ("/reader/errors", test_errors);
  g_test_add_func ("/reader/version-errors", test_version_errors);
  g_test_add_func ("/reader/index-pos-scanned", test_index_pos_scanned);
  g_test_add_func ("/reader/chunk-size-errors", test_chunk_size_errors);
  g_test_add_func ("/reader/cut", test_cut);
  g_test_add_func ("/reader/killed", test_killed);
  g_test_add_func ("/reader/scan-stops-at-corrupt-chunk",
      test_scan_stops_at_corrupt_chunk);
  g_test_add_func ("/reader/scan-errors", test_scan_errors);
  ret = g_test_run ();
  test_remove_tree (bag_dir);
  g_free (bag_dir);
  return ret;
}
