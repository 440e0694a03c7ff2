/* rosbag2's SQLite storage through the reader interface
 * (gst/formats/sqlite-reader.c) on databases this test writes with
 * libsqlite3: the files rosbag2 writes are compared value for value in
 * tests/mcap/samples.sh (write-db3.js); here, the faults and edges: what
 * is not a rosbag2 database, broken rows, a cut-off file, topics of
 * several definitions, seeking, reading from memory and opening again. */
#include <glib.h>
#include <glib/gstdio.h>
#include <sqlite3.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "formats/reader.h"
#include "rosbag2-tables.h"
#include "testutil.h"

#define SEC G_GINT64_CONSTANT (1000000000)
/* The user the read-only test runs as when the test runs as root. */
#define NOBODY 65534

static gchar *dir;

/* A database at dir/@name made by @sql, then @n_messages messages of
 * random bytes (message i: 10 + i bytes, at (100 + i) s, on topic
 * 1 + i % 2); its path. */
static gchar *
make_db (const gchar * name, const gchar * sql, guint n_messages)
{
  gchar *path = g_build_filename (dir, name, NULL);
  sqlite3 *db;
  sqlite3_stmt *insert;

  g_unlink (path);
  g_assert_cmpint (sqlite3_open (path, &db), ==, SQLITE_OK);
  g_assert_cmpint (sqlite3_exec (db, sql, NULL, NULL, NULL), ==, SQLITE_OK);
  g_assert_cmpint (sqlite3_prepare_v2 (db, "INSERT INTO messages "
          "(topic_id, timestamp, data) VALUES (?1, ?2, ?3)", -1, &insert,
          NULL), ==, SQLITE_OK);
  for (guint i = 0; i < n_messages; i++) {
    guint8 bytes[64];

    for (guint b = 0; b < 10 + i; b++)
      bytes[b] = g_random_int ();
    sqlite3_bind_int64 (insert, 1, 1 + i % 2);
    sqlite3_bind_int64 (insert, 2, (100 + i) * SEC);
    sqlite3_bind_blob (insert, 3, bytes, 10 + i, SQLITE_TRANSIENT);
    g_assert_cmpint (sqlite3_step (insert), ==, SQLITE_DONE);
    sqlite3_reset (insert);
  }
  sqlite3_finalize (insert);
  g_assert_cmpint (sqlite3_close (db), ==, SQLITE_OK);
  return path;
}

static gchar *
make_rosbag2 (const gchar * name, const gchar * more_sql, guint n_messages)
{
  gchar *sql = g_strconcat (ROSBAG2_HUMBLE_TABLES,
      "INSERT INTO topics VALUES (1, '/points', "
      "'sensor_msgs/msg/PointCloud2', 'cdr', ''),"
      "(2, '/joint_states', 'sensor_msgs/msg/JointState', 'cdr', '');",
      more_sql, NULL);
  gchar *path = make_db (name, sql, n_messages);

  g_free (sql);
  return path;
}

/* The error of opening @path, which must fail with @code. */
static gchar *
open_error (const gchar * path, gint code)
{
  GError *error = NULL;
  RcReader *reader = rc_reader_open (path, &error);
  gchar *message;

  g_assert_null (reader);
  g_assert_error (error, RC_READER_ERROR, code);
  message = g_strdup (error->message);
  g_error_free (error);
  return message;
}

static void
test_messages (void)
{
  gchar *path = make_rosbag2 ("ok.db3", "", 6);
  /* A path of two leading slashes (HOME=/ and $HOME/bags) is the same
   * file, not a URI's host. */
  gchar *doubled = g_strconcat ("/", path, NULL);
  GError *error = NULL;
  RcReader *reader = rc_reader_open (doubled, &error);
  const RcTopic *points;
  RcMessage msg;

  g_assert_no_error (error);
  g_assert_cmpstr (rc_reader_format_name (reader), ==, "rosbag2 SQLite");
  g_assert_cmpuint (rc_reader_n_topics (reader), ==, 2);
  points = rc_reader_find_topic (reader, "/points");
  g_assert_cmpstr (points->type, ==, "sensor_msgs/msg/PointCloud2");
  g_assert_cmpstr (points->encoding, ==, "cdr");
  g_assert_null (points->schema);
  g_assert_cmpuint (points->n_messages, ==, 3);
  g_assert_cmpuint (points->first_time, ==, 100 * SEC);
  g_assert_cmpuint (points->last_time, ==, 104 * SEC);
  for (guint i = 0; i < 6; i++) {
    g_assert_cmpint (rc_reader_next (reader, &msg, &error), ==, RC_READER_OK);
    g_assert_cmpuint (msg.index, ==, i);
    g_assert_cmpuint (msg.time, ==, (100 + i) * SEC);
    g_assert_cmpuint (msg.size, ==, 10 + i);
    g_assert_cmpuint (msg.topic, ==, i % 2);
    /* Copied out of SQLite's pages: shared from no mapping. */
    g_assert_null (msg.mapped);
  }
  g_assert_cmpint (rc_reader_next (reader, &msg, &error), ==, RC_READER_END);

  /* Only /joint_states, from 102.5 s. */
  rc_reader_select_topic (reader, 0, FALSE);
  rc_reader_seek (reader, 102 * SEC + SEC / 2);
  g_assert_cmpint (rc_reader_next (reader, &msg, &error), ==, RC_READER_OK);
  g_assert_cmpuint (msg.index, ==, 3);
  g_assert_cmpuint (msg.time, ==, 103 * SEC);
  g_assert_cmpint (rc_reader_next (reader, &msg, &error), ==, RC_READER_OK);
  g_assert_cmpuint (msg.index, ==, 5);
  g_assert_cmpint (rc_reader_next (reader, &msg, &error), ==, RC_READER_END);
  rc_reader_free (reader);
  g_free (doubled);
  g_free (path);
}

/* The bytes of a file, read from memory, and a reader opened again,
 * read the same messages as the file. */
static void
test_memory_and_reopen (void)
{
  gchar *path = make_rosbag2 ("memory.db3", "PRAGMA journal_mode=WAL;", 4);
  GError *error = NULL;
  RcReader *file = rc_reader_open (path, &error);
  RcReader *again, *memory;
  RcMessage a, b, c;
  gchar *data;
  gsize size;

  g_assert_no_error (error);
  g_assert_true (g_file_get_contents (path, &data, &size, NULL));
  /* Left in WAL mode, its log merged: bytes 18 and 19 of its header. */
  g_assert_cmpint (data[18], ==, 2);
  memory = rc_reader_open_data ((const guint8 *) data, size, &error);
  g_assert_no_error (error);
  again = rc_reader_reopen (file, RC_READER_FLAGS_NONE, &error);
  g_assert_no_error (error);
  for (guint i = 0; i < 4; i++) {
    g_assert_cmpint (rc_reader_next (file, &a, NULL), ==, RC_READER_OK);
    g_assert_cmpint (rc_reader_next (memory, &b, NULL), ==, RC_READER_OK);
    g_assert_cmpint (rc_reader_next (again, &c, NULL), ==, RC_READER_OK);
    g_assert_cmpmem (a.data, a.size, b.data, b.size);
    g_assert_cmpmem (a.data, a.size, c.data, c.size);
  }
  rc_reader_free (again);
  rc_reader_free (memory);
  rc_reader_free (file);
  g_free (data);
  g_free (path);
}

/* A topic name with two types (a publisher changed its message) is one
 * topic of two definitions; the stored definition of version 4 is its
 * schema. */
static void
test_definitions (void)
{
  gchar *path = make_db ("definitions.db3", "CREATE TABLE topics(id INTEGER "
      "PRIMARY KEY, name TEXT NOT NULL, type TEXT NOT NULL, "
      "serialization_format TEXT NOT NULL, offered_qos_profiles TEXT NOT "
      "NULL, type_description_hash TEXT NOT NULL);"
      "CREATE TABLE message_definitions(id INTEGER PRIMARY KEY, topic_type "
      "TEXT NOT NULL, encoding TEXT NOT NULL, encoded_message_definition "
      "TEXT NOT NULL, type_description_hash TEXT NOT NULL);"
      "CREATE TABLE messages(id INTEGER PRIMARY KEY, topic_id INTEGER NOT "
      "NULL, timestamp INTEGER NOT NULL, data BLOB NOT NULL);"
      "INSERT INTO topics VALUES (1, '/a', 'std_msgs/msg/String', 'cdr', '', "
      "''), (2, '/a', 'std_msgs/msg/Int32', 'cdr', '', ''),"
      "(3, '/b', 'std_msgs/msg/Int32', 'cdr', '', '');"
      "INSERT INTO message_definitions VALUES (1, 'std_msgs/msg/Int32', "
      "'ros2msg', 'int32 data', ''), (2, 'std_msgs/msg/String', 'unknown', "
      "'', '');", 4);
  RcReader *reader = rc_reader_open (path, NULL);
  const RcTopic *a, *b;

  g_assert_nonnull (reader);
  g_assert_cmpuint (rc_reader_n_topics (reader), ==, 2);
  a = rc_reader_find_topic (reader, "/a");
  b = rc_reader_find_topic (reader, "/b");
  g_assert_cmpuint (a->n_definitions, ==, 2);
  g_assert_nonnull (strstr (a->definitions, "std_msgs/msg/Int32"));
  g_assert_cmpuint (a->n_messages, ==, 4);
  /* "unknown" with no text: no schema. */
  g_assert_null (a->schema);
  g_assert_cmpuint (b->n_definitions, ==, 1);
  g_assert_cmpstr (b->schema_encoding, ==, "ros2msg");
  g_assert_cmpstr (b->schema, ==, "int32 data");
  g_assert_cmpuint (b->n_messages, ==, 0);
  rc_reader_free (reader);
  g_free (path);
}

static void
test_not_rosbag2 (void)
{
  gchar *path = make_db ("other.db3", "CREATE TABLE messages(id INTEGER "
      "PRIMARY KEY, topic_id INTEGER, timestamp INTEGER, data BLOB);", 0);
  gchar *message = open_error (path, RC_READER_ERROR_FORMAT);

  g_assert_nonnull (strstr (message, "rosbag2 SQLite"));
  g_assert_nonnull (strstr (message, "topics"));
  g_free (message);
  g_free (path);
}

/* Rows no rosbag2 writes: a message of no topic, a negative timestamp,
 * data that is NULL. */
static void
test_bad_rows (void)
{
  gchar *path = make_rosbag2 ("no-topic.db3", "", 3);
  gchar *message;
  RcReader *reader;
  RcMessage msg;
  GError *error = NULL;
  sqlite3 *db;

  g_assert_cmpint (sqlite3_open (path, &db), ==, SQLITE_OK);
  g_assert_cmpint (sqlite3_exec (db, "UPDATE messages SET topic_id = 9 "
          "WHERE id = 2", NULL, NULL, NULL), ==, SQLITE_OK);
  sqlite3_close (db);
  message = open_error (path, RC_READER_ERROR_FORMAT);
  g_assert_nonnull (strstr (message, "message 2 names topic 9"));
  g_free (message);
  g_free (path);

  path = make_rosbag2 ("negative.db3", "", 3);
  g_assert_cmpint (sqlite3_open (path, &db), ==, SQLITE_OK);
  g_assert_cmpint (sqlite3_exec (db, "UPDATE messages SET timestamp = -5 "
          "WHERE id = 3", NULL, NULL, NULL), ==, SQLITE_OK);
  sqlite3_close (db);
  message = open_error (path, RC_READER_ERROR_FORMAT);
  g_assert_nonnull (strstr (message, "negative timestamp -5"));
  g_free (message);
  g_free (path);

  /* Without NOT NULL on data (a database that rosbag2 did not make): the
   * message fails, the next reads. */
  path = make_db ("null-data.db3", "CREATE TABLE topics(id INTEGER PRIMARY "
      "KEY, name TEXT, type TEXT, serialization_format TEXT);"
      "CREATE TABLE messages(id INTEGER PRIMARY KEY, topic_id INTEGER, "
      "timestamp INTEGER, data BLOB);"
      "INSERT INTO topics VALUES (1, '/a', 'std_msgs/msg/String', 'cdr'), "
      "(2, '/b', 'std_msgs/msg/String', 'cdr');", 2);
  g_assert_cmpint (sqlite3_open (path, &db), ==, SQLITE_OK);
  g_assert_cmpint (sqlite3_exec (db, "UPDATE messages SET data = NULL "
          "WHERE id = 1", NULL, NULL, NULL), ==, SQLITE_OK);
  sqlite3_close (db);
  reader = rc_reader_open (path, &error);
  g_assert_no_error (error);
  g_assert_cmpint (rc_reader_next (reader, &msg, &error), ==,
      RC_READER_FAILED);
  g_assert_error (error, RC_READER_ERROR, RC_READER_ERROR_FORMAT);
  g_assert_nonnull (strstr (error->message, "message 1 (/a at"));
  g_clear_error (&error);
  g_assert_cmpint (rc_reader_next (reader, &msg, &error), ==, RC_READER_OK);
  g_assert_cmpuint (msg.size, ==, 11);
  rc_reader_free (reader);
  g_free (path);
}

/* A database cut at every 4 KiB page and in the middle of its header
 * gives an error or fewer messages, never a crash; from memory too. */
static void
test_cut (void)
{
  gchar *path = make_rosbag2 ("whole.db3", "", 40);
  gchar *cut = g_build_filename (dir, "cut.db3", NULL);
  gchar *data;
  gsize size;
  guint failures = 0;

  g_assert_true (g_file_get_contents (path, &data, &size, NULL));
  for (gsize at = 50; at < size; at += at < 4096 ? 4046 : 4096) {
    RcReader *readers[2];
    GError *error = NULL;

    g_assert_true (g_file_set_contents (cut, data, at, NULL));
    readers[0] = rc_reader_open (cut, &error);
    /* SQLite's own reason: every table is listed in the first page. */
    g_assert_true (!error || !strstr (error->message, "not a rosbag2"));
    g_clear_error (&error);
    readers[1] = rc_reader_open_data ((const guint8 *) data, at, &error);
    g_clear_error (&error);
    for (guint r = 0; r < 2; r++) {
      RcMessage msg;
      RcReaderResult result;

      if (!readers[r]) {
        failures++;
        continue;
      }
      while ((result = rc_reader_next (readers[r], &msg, &error))
          != RC_READER_END) {
        failures += result == RC_READER_FAILED;
        g_clear_error (&error);
      }
      rc_reader_free (readers[r]);
    }
  }
  g_assert_cmpuint (failures, >, 0);
  g_free (data);
  g_free (cut);
  g_free (path);
}

/* A recording rosbag2 is still writing (its default: journal_mode=MEMORY,
 * synchronous=OFF): the messages there when the reader opened it play
 * whole while the writer commits more (an immutable open then read
 * "malformed" pages), and a writer's transaction in the middle of
 * spilling pages into the file makes the open wait, then fail saying the
 * file is locked, rather than read half-written pages. */
static void
test_being_written (void)
{
  gchar *path = make_rosbag2 ("live.db3", "", 5);
  sqlite3 *writer;
  GError *error = NULL;
  RcReader *reader = rc_reader_open (path, &error);
  RcMessage msg;
  guint n = 0;

  g_assert_no_error (error);
  g_assert_cmpint (sqlite3_open (path, &writer), ==, SQLITE_OK);
  g_assert_cmpint (sqlite3_exec (writer, "PRAGMA journal_mode=MEMORY; "
          "PRAGMA synchronous=OFF; PRAGMA cache_size=1; BEGIN;"
          "WITH RECURSIVE i(k) AS (SELECT 1 UNION ALL SELECT k + 1 FROM i "
          "WHERE k < 200) INSERT INTO messages (topic_id, timestamp, data) "
          "SELECT 1, 300000000000 + k, randomblob(3000) FROM i", NULL, NULL,
          NULL), ==, SQLITE_OK);
  g_assert_null (rc_reader_open (path, &error));
  g_assert_nonnull (strstr (error->message, "locked"));
  g_clear_error (&error);
  g_assert_cmpint (sqlite3_exec (writer, "COMMIT", NULL, NULL, NULL), ==,
      SQLITE_OK);
  while (rc_reader_next (reader, &msg, &error) == RC_READER_OK) {
    g_assert_cmpuint (msg.size, ==, 10 + n);
    n++;
  }
  g_assert_no_error (error);
  g_assert_cmpuint (n, ==, 5);
  rc_reader_free (reader);
  reader = rc_reader_open (path, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (rc_reader_find_topic (reader, "/points")->n_messages,
      ==, 203);
  rc_reader_free (reader);
  sqlite3_close (writer);
  g_free (path);
}

/* Copies @from and its -wal to dir/@name and its -wal; the copy's path. */
static gchar *
copy_with_log (const gchar * from, const gchar * name)
{
  gchar *to = g_build_filename (dir, name, NULL);

  for (guint i = 0; i < 2; i++) {
    gchar *src = g_strconcat (from, i ? "-wal" : "", NULL);
    gchar *dst = g_strconcat (to, i ? "-wal" : "", NULL);
    gchar *data;
    gsize size;

    g_assert_true (g_file_get_contents (src, &data, &size, NULL));
    g_assert_true (g_file_set_contents (dst, data, size, NULL));
    g_free (data);
    g_free (dst);
    g_free (src);
  }
  return to;
}

/* A recording cut off in rosbag2's resilient preset (WAL): the messages
 * still in its write-ahead log are read; where the log cannot be read
 * (here its -shm cannot be made), those before it play and the recovery
 * says what is missing. */
static void
test_write_ahead_log (void)
{
  gchar *path = make_rosbag2 ("wal.db3", "PRAGMA journal_mode=WAL;", 5);
  gchar *copy, *readonly, *link;
  RcReaderRecovery recovery;
  gint status;
  pid_t child;
  GError *error = NULL;
  RcReader *reader;
  sqlite3 *writer;

  g_assert_cmpint (sqlite3_open (path, &writer), ==, SQLITE_OK);
  g_assert_cmpint (sqlite3_exec (writer, "PRAGMA wal_autocheckpoint=0;"
          "INSERT INTO messages (topic_id, timestamp, data) SELECT topic_id, "
          "timestamp + 100000000000, data FROM messages", NULL, NULL, NULL),
      ==, SQLITE_OK);
  copy = copy_with_log (path, "cut.db3");
  /* Through a link too: the log lies beside the file the link leads to. */
  link = g_build_filename (dir, "link.db3", NULL);
  g_assert_cmpint (symlink (copy, link), ==, 0);
  for (guint i = 0; i < 2; i++) {
    reader = rc_reader_open (i ? link : copy, &error);
    g_assert_no_error (error);
    g_assert_cmpuint (rc_reader_find_topic (reader, "/points")->n_messages,
        ==, 6);
    rc_reader_get_recovery (reader, &recovery);
    g_assert_false (recovery.scanned);
    rc_reader_free (reader);
  }
  g_free (link);
  g_free (copy);

  /* In a folder the reader cannot write in (as nobody where the test runs
   * as root), which SQLite's -shm needs. */
  readonly = g_build_filename (dir, "read-only", NULL);
  g_assert_cmpint (g_mkdir (readonly, 0755), ==, 0);
  copy = copy_with_log (path, "read-only/cut.db3");
  g_assert_cmpint (g_chmod (dir, 0755), ==, 0);
  g_assert_cmpint (g_chmod (readonly, 0555), ==, 0);
  child = fork ();
  if (child == 0) {
    if (geteuid () == 0 && setuid (NOBODY) != 0)
      _exit (2);
    reader = rc_reader_open (copy, &error);
    g_assert_no_error (error);
    g_assert_cmpuint (rc_reader_find_topic (reader, "/points")->n_messages,
        ==, 3);
    rc_reader_get_recovery (reader, &recovery);
    g_assert_true (recovery.scanned);
    g_assert_cmpuint (recovery.n_messages, ==, 5);
    g_assert_nonnull (strstr (recovery.reason, "write-ahead log"));
    rc_reader_free (reader);
    /* The parent's, copied by fork(): freed so that valgrind finds no
     * leak in the child either. */
    g_free (copy);
    g_free (readonly);
    g_free (path);
    _exit (0);
  }
  g_assert_cmpint (waitpid (child, &status, 0), ==, child);
  g_assert_true (WIFEXITED (status));
  g_assert_cmpint (WEXITSTATUS (status), ==, 0);
  g_assert_cmpint (g_chmod (readonly, 0755), ==, 0);
  for (guint i = 0; i < 2; i++) {
    gchar *file = g_strconcat (copy, i ? "-wal" : "", NULL);

    g_unlink (file);
    g_free (file);
  }
  g_rmdir (readonly);
  g_free (readonly);
  g_free (copy);
  sqlite3_close (writer);
  g_free (path);
}

int
main (int argc, char **argv)
{
  int ret;

  g_test_init (&argc, &argv, NULL);
  dir = g_dir_make_tmp ("robocache-sqlite-XXXXXX", NULL);
  g_assert_nonnull (dir);
  g_test_add_func ("/sqlite/messages", test_messages);
  g_test_add_func ("/sqlite/memory-and-reopen", test_memory_and_reopen);
  g_test_add_func ("/sqlite/definitions", test_definitions);
  g_test_add_func ("/sqlite/not-rosbag2", test_not_rosbag2);
  g_test_add_func ("/sqlite/bad-rows", test_bad_rows);
  g_test_add_func ("/sqlite/cut", test_cut);
  g_test_add_func ("/sqlite/being-written", test_being_written);
  g_test_add_func ("/sqlite/write-ahead-log", test_write_ahead_log);
  ret = g_test_run ();
  test_remove_tree (dir);
  g_free (dir);
  return ret;
}
