/* todb3 OUT.db3 IN...: the messages of a recording (any format reader.h
 * reads; several files as one) written as rosbag2's SQLite storage, with
 * the tables of schema version 3 (ROS 2 Humble), as `ros2 bag convert`
 * would write them: for the tests that need a .db3 of known content
 * (tests/python).  OUT.db3.zstd: then compressed whole, one zstd frame, as
 * rosbag2's --compression-mode file leaves a split.  The messages' bytes are copied as they are, so a CDR
 * recording (MCAP from rosbag2 or robocachemcapsink) gives a .db3 that
 * ROS 2 reads. */
#include <glib.h>
#include <glib/gstdio.h>
#include <sqlite3.h>
#include <string.h>
#include <zstd.h>

#include "formats/reader.h"
#include "rosbag2-tables.h"

static gboolean
check (sqlite3 * db, gint rc, gint wanted)
{
  if (rc == wanted)
    return TRUE;
  g_printerr ("todb3: %s\n", sqlite3_errmsg (db));
  return FALSE;
}

/* Topic t is row t + 1 of the topics table. */
static gboolean
write_topics (sqlite3 * db, RcReader * reader)
{
  sqlite3_stmt *insert;
  gboolean ok = check (db, sqlite3_prepare_v2 (db, "INSERT INTO topics "
          "VALUES (?1, ?2, ?3, ?4, '')", -1, &insert, NULL), SQLITE_OK);

  for (guint t = 0; ok && t < rc_reader_n_topics (reader); t++) {
    const RcTopic *topic = rc_reader_get_topic (reader, t);

    sqlite3_bind_int64 (insert, 1, t + 1);
    sqlite3_bind_text (insert, 2, topic->name, -1, SQLITE_STATIC);
    sqlite3_bind_text (insert, 3, topic->type, -1, SQLITE_STATIC);
    sqlite3_bind_text (insert, 4, topic->encoding, -1, SQLITE_STATIC);
    ok = check (db, sqlite3_step (insert), SQLITE_DONE);
    sqlite3_reset (insert);
  }
  sqlite3_finalize (insert);
  return ok;
}

static gboolean
write_messages (sqlite3 * db, RcReader * reader)
{
  sqlite3_stmt *insert;
  GError *error = NULL;
  RcReaderResult result;
  RcMessage msg;
  gboolean ok = check (db, sqlite3_prepare_v2 (db, "INSERT INTO messages "
          "(topic_id, timestamp, data) VALUES (?1, ?2, ?3)", -1, &insert,
          NULL), SQLITE_OK);

  while (ok && (result = rc_reader_next (reader, &msg, &error))
      == RC_READER_OK) {
    sqlite3_bind_int64 (insert, 1, msg.topic + 1);
    sqlite3_bind_int64 (insert, 2, (gint64) msg.time);
    sqlite3_bind_blob64 (insert, 3, msg.data, msg.size, SQLITE_STATIC);
    ok = check (db, sqlite3_step (insert), SQLITE_DONE);
    sqlite3_reset (insert);
  }
  if (ok && result == RC_READER_FAILED) {
    g_printerr ("todb3: %s\n", error->message);
    g_error_free (error);
    ok = FALSE;
  }
  sqlite3_finalize (insert);
  return ok;
}

/* Replaces the file @plain by @packed, its bytes compressed whole. */
static gboolean
compress_whole (const gchar * plain, const gchar * packed)
{
  GError *error = NULL;
  gchar *data, *out = NULL;
  gsize size, bound;
  gboolean ok = g_file_get_contents (plain, &data, &size, &error);

  if (ok) {
    bound = ZSTD_compressBound (size);
    out = g_malloc (bound);
    size = ZSTD_compress (out, bound, data, size, 3);
    ok = !ZSTD_isError (size)
        && g_file_set_contents (packed, out, size, &error);
  }
  if (!ok)
    g_printerr ("todb3: %s\n", error ? error->message : "zstd failed");
  g_clear_error (&error);
  g_unlink (plain);
  g_free (out);
  g_free (data);
  return ok;
}

int
main (int argc, char **argv)
{
  GError *error = NULL;
  RcReader *reader;
  sqlite3 *db;
  gboolean ok;
  gboolean whole = argc >= 2 && g_str_has_suffix (argv[1], ".zstd");
  gchar *db_path;

  if (argc < 3) {
    g_printerr ("usage: todb3 OUT.db3[.zstd] IN...\n");
    return 2;
  }
  reader = rc_reader_open_files ((const gchar * const *) argv + 2,
      RC_READER_FLAGS_NONE, &error);
  if (!reader) {
    g_printerr ("todb3: %s\n", error->message);
    g_error_free (error);
    return 1;
  }
  db_path = whole ? g_strndup (argv[1], strlen (argv[1]) - 5) :
      g_strdup (argv[1]);
  g_unlink (db_path);
  ok = sqlite3_open (db_path, &db) == SQLITE_OK
      && check (db, sqlite3_exec (db, ROSBAG2_HUMBLE_TABLES, NULL, NULL, NULL), SQLITE_OK)
      && check (db, sqlite3_exec (db, "BEGIN", NULL, NULL, NULL), SQLITE_OK)
      && write_topics (db, reader) && write_messages (db, reader)
      && check (db, sqlite3_exec (db, "COMMIT", NULL, NULL, NULL), SQLITE_OK);
  ok = check (db, sqlite3_close (db), SQLITE_OK) && ok;
  if (ok && whole)
    ok = compress_whole (db_path, argv[1]);
  rc_reader_free (reader);
  g_free (db_path);
  return ok ? 0 : 1;
}
