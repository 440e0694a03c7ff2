/* Recording files compressed whole (rosbag2's --compression-mode file,
 * gst/formats/whole-file.c) through the reader interface: an MCAP file
 * and a rosbag2 SQLite file, each read as the file inside, message for
 * message; the temporary file removed as soon as the format needs it no
 * more; and the faults: cut off, not a recording inside, compressed twice,
 * more than the temporary folder holds. */
#include <glib.h>
#include <glib/gstdio.h>
#include <sqlite3.h>
#include <string.h>
#include <zstd.h>

#include "formats/reader.h"
#include "mcap-builder.h"
#include "rosbag2-tables.h"
#include "testutil.h"

static gchar *dir;

/* Writes @size bytes of @data to dir/@name, compressed whole where @name
 * ends in ".zstd" (one frame that gives its size, as rosbag2 writes),
 * less its last @cut bytes; the path. */
static gchar *
write_file (const gchar * name, const guint8 * data, gsize size, gsize cut)
{
  gchar *path = g_build_filename (dir, name, NULL);
  gsize bound = ZSTD_compressBound (size);
  guint8 *packed = g_malloc (bound);

  if (g_str_has_suffix (name, ".zstd")) {
    size = ZSTD_compress (packed, bound, data, size, 3);
    g_assert_false (ZSTD_isError (size));
    data = packed;
  }
  g_assert_cmpuint (cut, <, size);
  g_assert_true (g_file_set_contents (path, (const gchar *) data, size - cut,
          NULL));
  g_free (packed);
  return path;
}

/* The temporary files of the reader decompressing a file named @name. */
static guint
count_temporary (const gchar * name)
{
  GDir *d = g_dir_open (g_get_tmp_dir (), 0, NULL);
  gchar *suffix = g_strconcat ("-", name, NULL);
  const gchar *entry;
  guint n = 0;

  while (d && (entry = g_dir_read_name (d)))
    n += g_str_has_prefix (entry, "robocache-")
        && g_str_has_suffix (entry, suffix);
  if (d)
    g_dir_close (d);
  g_free (suffix);
  return n;
}

static RcReader *
open_ok (const gchar * path)
{
  GError *error = NULL;
  RcReader *reader = rc_reader_open (path, &error);

  g_assert_no_error (error);
  return reader;
}

/* @a and @b read the same messages, @n of them. */
static void
assert_same_messages (RcReader * a, RcReader * b, guint n)
{
  RcMessage x, y;

  g_assert_cmpuint (rc_reader_n_topics (a), ==, rc_reader_n_topics (b));
  for (guint i = 0; i < n; i++) {
    g_assert_cmpint (rc_reader_next (a, &x, NULL), ==, RC_READER_OK);
    g_assert_cmpint (rc_reader_next (b, &y, NULL), ==, RC_READER_OK);
    g_assert_cmpuint (x.topic, ==, y.topic);
    g_assert_cmpuint (x.time, ==, y.time);
    g_assert_cmpmem (x.data, x.size, y.data, y.size);
  }
  g_assert_cmpint (rc_reader_next (a, &x, NULL), ==, RC_READER_END);
  g_assert_cmpint (rc_reader_next (b, &y, NULL), ==, RC_READER_END);
}

/* MCAP is read from its mapping: the decompressed file is gone from the
 * folder once the reader is open, and its messages are shared from that
 * mapping as a plain file's are. */
static void
test_mcap (void)
{
  McapBuilder *b = mb_new ();
  RcReader *plain, *whole, *again;
  gchar *plain_path, *whole_path;
  guint8 *data;
  gsize size;
  RcMessage msg;

  mb_channel (b, 1, 0, "/points", "cdr");
  mb_channel (b, 2, 0, "/joint_states", "cdr");
  mb_chunk_begin (b, "lz4");
  for (guint i = 0; i < 40; i++)
    mb_message (b, 1 + i % 2, 1000 + 7 * i, 100 + g_random_int_range (0,
            4000));
  mb_chunk_end (b);
  data = mb_finish (b, TRUE, &size);
  plain_path = write_file ("whole-mcap.mcap", data, size, 0);
  whole_path = write_file ("whole-mcap.mcap.zstd", data, size, 0);

  plain = open_ok (plain_path);
  whole = open_ok (whole_path);
  g_assert_cmpuint (count_temporary ("whole-mcap.mcap"), ==, 0);
  again = rc_reader_reopen (whole, RC_READER_FLAGS_NONE, NULL);
  g_assert_nonnull (again);
  g_assert_cmpstr (rc_reader_format_name (whole), ==, "MCAP");
  assert_same_messages (plain, whole, 40);
  rc_reader_seek (again, 1000 + 7 * 39);
  g_assert_cmpint (rc_reader_next (again, &msg, NULL), ==, RC_READER_OK);
  g_assert_cmpuint (msg.time, ==, 1000 + 7 * 39);
  g_assert_nonnull (msg.mapped);
  rc_reader_free (again);
  rc_reader_free (whole);
  rc_reader_free (plain);
  g_free (whole_path);
  g_free (plain_path);
  g_free (data);
  mb_free (b);
}

/* A rosbag2 SQLite file (WAL mode, as Jazzy leaves it) with @n messages;
 * its bytes. */
static gchar *
make_db3 (guint n, gsize * size)
{
  gchar *path = g_build_filename (dir, "db3-source.db3", NULL);
  sqlite3 *db;
  gchar *sql, *data;

  g_assert_cmpint (sqlite3_open (path, &db), ==, SQLITE_OK);
  g_assert_cmpint (sqlite3_exec (db, "PRAGMA journal_mode=WAL;"
          ROSBAG2_HUMBLE_TABLES "INSERT INTO topics VALUES (1, '/points', "
          "'sensor_msgs/msg/PointCloud2', 'cdr', '');", NULL, NULL, NULL),
      ==, SQLITE_OK);
  for (guint i = 0; i < n; i++) {
    sql = g_strdup_printf ("INSERT INTO messages (topic_id, timestamp, "
        "data) VALUES (1, %u, randomblob(%u));", 5000 + 3 * i,
        8 + g_random_int_range (0, 200));
    g_assert_cmpint (sqlite3_exec (db, sql, NULL, NULL, NULL), ==,
        SQLITE_OK);
    g_free (sql);
  }
  g_assert_cmpint (sqlite3_close (db), ==, SQLITE_OK);
  g_assert_true (g_file_get_contents (path, &data, size, NULL));
  g_unlink (path);
  g_free (path);
  return data;
}

/* SQLite reads its file by path: the decompressed file stays while a
 * reader of it (one opened again too) is open, and goes with the last. */
static void
test_sqlite (void)
{
  gsize size;
  gchar *data = make_db3 (30, &size);
  gchar *plain_path = write_file ("whole-sqlite.db3", (guint8 *) data, size,
      0);
  gchar *whole_path = write_file ("whole-sqlite.db3.zstd", (guint8 *) data,
      size, 0);
  RcReader *plain = open_ok (plain_path), *whole = open_ok (whole_path);
  RcReader *again = rc_reader_reopen (whole, RC_READER_FLAGS_NONE, NULL);

  g_assert_nonnull (again);
  g_assert_cmpstr (rc_reader_format_name (whole), ==, "rosbag2 SQLite");
  g_assert_cmpuint (count_temporary ("whole-sqlite.db3"), ==, 1);
  assert_same_messages (plain, whole, 30);
  rc_reader_free (whole);
  g_assert_cmpuint (count_temporary ("whole-sqlite.db3"), ==, 1);
  rc_reader_seek (plain, 0);
  assert_same_messages (plain, again, 30);
  rc_reader_free (again);
  g_assert_cmpuint (count_temporary ("whole-sqlite.db3"), ==, 0);
  rc_reader_free (plain);
  g_free (whole_path);
  g_free (plain_path);
  g_free (data);
}

/* Opening @path fails with @code and a message holding @text, and leaves
 * no temporary file behind. */
static void
assert_fails (const gchar * path, gint code, const gchar * text)
{
  gchar *base = g_path_get_basename (path);
  GError *error = NULL;

  g_assert_null (rc_reader_open (path, &error));
  g_assert_error (error, RC_READER_ERROR, code);
  if (!strstr (error->message, text))
    g_error ("\"%s\" is not in \"%s\"", text, error->message);
  base[strlen (base) - strlen (".zstd")] = '\0';
  g_assert_cmpuint (count_temporary (base), ==, 0);
  g_error_free (error);
  g_free (base);
}

static void
test_faults (void)
{
  /* A frame whose header says it holds 2^62 bytes, and one block. */
  static const guint8 huge[] = { 0x28, 0xb5, 0x2f, 0xfd, 0xe0,
    0, 0, 0, 0, 0, 0, 0, 0x40, 0x0b, 0, 0, 'x'
  };
  gsize size;
  gchar *db3 = make_db3 (5, &size), *path, *twice;
  guint8 *packed;

  /* Cut off while rosbag2 compressed it. */
  path = write_file ("cut.db3.zstd", (guint8 *) db3, size, 9);
  assert_fails (path, RC_READER_ERROR_FORMAT, "damaged or cut-off zstd");
  g_free (path);

  path = write_file ("text.mcap.zstd", (const guint8 *) "hello world", 11,
      0);
  assert_fails (path, RC_READER_ERROR_UNKNOWN_FORMAT, "not a ROS bag");
  g_free (path);

  path = write_file ("twice.db3.zstd", (guint8 *) db3, size, 0);
  g_assert_true (g_file_get_contents (path, (gchar **) & packed, &size,
          NULL));
  twice = write_file ("twice2.db3.zstd", packed, size, 0);
  assert_fails (twice, RC_READER_ERROR_UNKNOWN_FORMAT, "zstd again");
  g_free (twice);
  g_free (packed);
  g_free (path);

  path = g_build_filename (dir, "huge.mcap.zstd", NULL);
  g_assert_true (g_file_set_contents (path, (const gchar *) huge,
          sizeof (huge), NULL));
  assert_fails (path, RC_READER_ERROR_TOO_LARGE,
      "it takes 4611686018427387904 bytes, and the temporary folder");
  g_free (path);
  g_free (db3);
}

int
main (int argc, char **argv)
{
  int ret;

  g_test_init (&argc, &argv, NULL);
  dir = g_dir_make_tmp ("robocache-whole-file-XXXXXX", NULL);
  g_assert_nonnull (dir);
  g_test_add_func ("/whole-file/mcap", test_mcap);
  g_test_add_func ("/whole-file/sqlite", test_sqlite);
  g_test_add_func ("/whole-file/faults", test_faults);
  ret = g_test_run ();
  test_remove_tree (dir);
  g_free (dir);
  return ret;
}
