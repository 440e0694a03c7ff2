/* Recording files compressed whole (rosbag2's --compression-mode file,
 * gst/formats/whole-file.c) through the reader interface: an MCAP file
 * and a rosbag2 SQLite file, each read as the file inside, message for
 * message, with no temporary file left in the folder even while it is
 * read; a split recording of such files decompressing each once while it
 * is open; and the faults: cut off, not a recording inside, compressed
 * twice, more than the temporary folder holds, a name too long for it. */
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

/* The temporary files in the temporary folder of a reader decompressing
 * a file named @name (none: they are unlinked as soon as made). */
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

/* The decompressed files of the file named @name that this process has
 * open or mapped, by their names (each made anew: a random part), joined
 * by "|" in order. */
static gchar *
open_temporaries (const gchar * name)
{
  gchar *maps = NULL, *suffix = g_strconcat ("-", name, " (deleted)", NULL);
  GPtrArray *found = g_ptr_array_new_with_free_func (g_free);
  GDir *fds = g_dir_open ("/proc/self/fd", 0, NULL);
  gchar **lines, *joined;
  const gchar *entry;

  g_assert_true (g_file_get_contents ("/proc/self/maps", &maps, NULL, NULL));
  lines = g_strsplit (maps, "\n", -1);
  for (guint i = 0; lines[i]; i++) {
    gchar *at = strstr (lines[i], "/robocache-");

    if (at && g_str_has_suffix (at, suffix)
        && !g_ptr_array_find_with_equal_func (found, at, g_str_equal, NULL))
      g_ptr_array_add (found, g_strdup (at));
  }
  while (fds && (entry = g_dir_read_name (fds))) {
    gchar *link = g_strconcat ("/proc/self/fd/", entry, NULL);
    gchar *target = g_file_read_link (link, NULL);
    gchar *at = target ? strstr (target, "/robocache-") : NULL;

    if (at && g_str_has_suffix (at, suffix)
        && !g_ptr_array_find_with_equal_func (found, at, g_str_equal, NULL))
      g_ptr_array_add (found, g_strdup (at));
    g_free (target);
    g_free (link);
  }
  g_dir_close (fds);
  g_ptr_array_sort (found, (GCompareFunc) g_strcmp0);
  g_ptr_array_add (found, NULL);
  joined = g_strjoinv ("|", (gchar **) found->pdata);
  g_ptr_array_unref (found);
  g_strfreev (lines);
  g_free (maps);
  g_free (suffix);
  return joined;
}

/* The decompressed files of @name open now are @want ("" for none). */
static void
assert_open_temporaries (const gchar * name, const gchar * want)
{
  gchar *got = open_temporaries (name);

  g_assert_cmpstr (got, ==, want);
  g_free (got);
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
  gchar *plain_path, *whole_path, *open;
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
  open = open_temporaries ("whole-mcap.mcap");
  g_assert_nonnull (strchr (open, '/'));
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
  assert_open_temporaries ("whole-mcap.mcap", "");
  rc_reader_free (plain);
  g_free (open);
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

/* SQLite reads a decompressed file from its mapping, in place (WAL mode
 * as Jazzy leaves it, its header patched there); a reader opened again
 * shares it, and it goes with the last. */
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
  gchar *open;

  g_assert_nonnull (again);
  g_assert_cmpstr (rc_reader_format_name (whole), ==, "rosbag2 SQLite");
  g_assert_cmpuint (count_temporary ("whole-sqlite.db3"), ==, 0);
  open = open_temporaries ("whole-sqlite.db3");
  g_assert_nonnull (strchr (open, '/'));
  assert_same_messages (plain, whole, 30);
  rc_reader_free (whole);
  rc_reader_seek (plain, 0);
  assert_same_messages (plain, again, 30);
  assert_open_temporaries ("whole-sqlite.db3", open);
  rc_reader_free (again);
  assert_open_temporaries ("whole-sqlite.db3", "");
  rc_reader_free (plain);
  g_free (open);
  g_free (whole_path);
  g_free (plain_path);
  g_free (data);
}

/* A split recording of files compressed whole reads each as its own
 * file: every message in time order, and a seek back reads its files'
 * decompressed copies again, not decompressing them anew (a copy made
 * anew has a new name). */
static void
test_split (void)
{
  gchar *paths[3], *whole[3], *first, *second;
  RcReader *plain, *chain;
  guint n = 0;

  for (guint k = 0; k < 2; k++) {
    McapBuilder *b = mb_new ();
    gchar *name = g_strdup_printf ("split-whole_%u.mcap", k);
    gchar *packed = g_strconcat (name, ".zstd", NULL);
    guint8 *data;
    gsize size;

    mb_channel (b, 1, 0, "/points", "cdr");
    for (guint i = 0; i < 20; i++, n++)
      mb_message (b, 1, 1000 + 10 * n, 64 + g_random_int_range (0, 512));
    data = mb_finish (b, TRUE, &size);
    paths[k] = write_file (name, data, size, 0);
    whole[k] = write_file (packed, data, size, 0);
    g_free (packed);
    g_free (name);
    g_free (data);
    mb_free (b);
  }
  paths[2] = whole[2] = NULL;
  plain = rc_reader_open_files ((const gchar * const *) paths,
      RC_READER_FLAGS_NONE, NULL);
  chain = rc_reader_open_files ((const gchar * const *) whole,
      RC_READER_FLAGS_NONE, NULL);
  g_assert_nonnull (chain);
  assert_same_messages (plain, chain, 40);
  first = open_temporaries ("split-whole_0.mcap");
  g_assert_nonnull (strchr (first, '/'));
  rc_reader_seek (plain, 0);
  rc_reader_seek (chain, 0);
  assert_same_messages (plain, chain, 40);
  second = open_temporaries ("split-whole_0.mcap");
  g_assert_cmpstr (first, ==, second);
  /* The copies are kept while any split recording is open. */
  rc_reader_free (plain);
  rc_reader_free (chain);
  assert_open_temporaries ("split-whole_0.mcap", "");
  assert_open_temporaries ("split-whole_1.mcap", "");
  g_free (second);
  g_free (first);
  for (guint k = 0; k < 2; k++) {
    g_free (paths[k]);
    g_free (whole[k]);
  }
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

  /* A name as long as a file system takes: its temporary copy's is cut. */
  {
    gchar *name = g_strnfill (240, 'n'), *long_name;
    RcReader *reader;

    memcpy (name + 240 - strlen (".db3.zstd"), ".db3.zstd", 9);
    long_name = write_file (name, (guint8 *) db3, size, 0);
    reader = open_ok (long_name);
    g_assert_cmpstr (rc_reader_format_name (reader), ==, "rosbag2 SQLite");
    rc_reader_free (reader);
    g_free (long_name);
    g_free (name);
  }

  /* A skippable frame first, as pzstd writes: read past. */
  {
    static const guint8 skippable[] = { 0x50, 0x2a, 0x4d, 0x18, 4, 0, 0, 0,
      1, 2, 3, 4
    };
    gchar *packed_path = write_file ("skip.db3.zstd", (guint8 *) db3, size,
        0), *packed;
    gsize packed_size;
    GByteArray *bytes = g_byte_array_new ();
    RcReader *reader;

    g_assert_true (g_file_get_contents (packed_path, &packed, &packed_size,
            NULL));
    g_byte_array_append (bytes, skippable, sizeof (skippable));
    g_byte_array_append (bytes, (guint8 *) packed, packed_size);
    g_assert_true (g_file_set_contents (packed_path, (gchar *) bytes->data,
            bytes->len, NULL));
    reader = open_ok (packed_path);
    g_assert_cmpstr (rc_reader_format_name (reader), ==, "rosbag2 SQLite");
    rc_reader_free (reader);
    g_byte_array_unref (bytes);
    g_free (packed);
    g_free (packed_path);
  }

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
  g_test_add_func ("/whole-file/split", test_split);
  g_test_add_func ("/whole-file/faults", test_faults);
  ret = g_test_run ();
  test_remove_tree (dir);
  g_free (dir);
  return ret;
}
