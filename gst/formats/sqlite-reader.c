/* rosbag2's SQLite storage (`<name>_0.db3`, ROS 2's default up to Humble)
 * behind reader.h, through libsqlite3.  The topics table gives the topics
 * (one per name; rows of one name that differ in type or serialization
 * format make a topic of several definitions, reader.h); a definition
 * stored in the message_definitions table (schema version 4, Iron on)
 * becomes its topic's schema, and without one the decoders use the
 * standard definition, as for an MCAP channel without a schema.  At open,
 * the messages' ids, topics and times are read in (timestamp, id) order,
 * which rosbag2's timestamp index gives without sorting; a message's
 * bytes are read, as a blob, only when it is played.  Schema versions 1
 * to 4 read alike: only the columns every version has are asked for.
 *
 * A file is opened read-only (open_file says how, by journal mode), so
 * that a recording rosbag2 is still writing reads whole and one on
 * read-only media plays.  From memory (fuzzing, tests) the bytes are
 * copied into SQLite's in-memory database. */
#include "reader-impl.h"

#include <glib/gstdio.h>
#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>

#define FORMAT_NAME "rosbag2 SQLite"

/* Bytes 18 and 19 of the database header: 2 where the file is in WAL
 * mode, which an in-memory database cannot be. */
#define HEADER_SIZE 100
#define WAL_VERSION_OFFSET 18

/* How long to wait for a writer's lock on a recording being made. */
#define BUSY_TIMEOUT_MS 2000

typedef struct
{
  guint64 time;
  gint64 row;                   /* messages.id */
  guint32 topic;
} SqliteEntry;

typedef struct
{
  RcReader parent;
  sqlite3 *db;
  /* What it reads, to be opened again (rc_reader_reopen): the file, or
   * the caller's bytes. */
  gchar *path;
  const guint8 *data;
  gsize size;
  GArray *entries;              /* SqliteEntry in (time, id) order */
  gsize next;
  sqlite3_blob *blob;           /* the last message's data, reopened */
  guint8 *bytes, *inflated;
  gsize bytes_capacity, inflated_capacity;
  gchar *reason;                /* recovery.reason */
  gboolean wal;                 /* the file is in WAL mode */
  /* @data is a private writable mapping of a decompressed file
   * (rc_sqlite_reader_open_private): read in place, not copied. */
  gboolean in_place;
} SqliteReader;

static gboolean
sqlite_fail (SqliteReader * self, GError ** error, const gchar * what)
{
  return rc_reader_fail (error, RC_READER_ERROR_FORMAT, FORMAT_NAME
      ": %s: %s", what, sqlite3_errmsg (self->db));
}

/* SQLite's hardening for databases from elsewhere: no schema-defined
 * function or view runs with side effects, and cells are bounds-checked
 * as they are read. */
static gboolean
harden (SqliteReader * self, GError ** error)
{
  if (sqlite3_db_config (self->db, SQLITE_DBCONFIG_DEFENSIVE, 1, NULL)
      != SQLITE_OK
      || sqlite3_db_config (self->db, SQLITE_DBCONFIG_TRUSTED_SCHEMA, 0,
          NULL) != SQLITE_OK
      || sqlite3_exec (self->db, "PRAGMA cell_size_check=ON; "
          "PRAGMA query_only=ON", NULL, NULL, NULL) != SQLITE_OK)
    return sqlite_fail (self, error, "cannot set the database up to be read");
  return TRUE;
}

/* A "file:" URI for the absolute path of @path, percent-escaping what
 * URIs give a meaning ("//" starting a path would name a host). */
static gchar *
file_uri (const gchar * path, const gchar * query)
{
  gchar *absolute = g_canonicalize_filename (path, NULL);
  gchar *escaped = g_uri_escape_string (absolute, "/", FALSE);
  gchar *uri = g_strdup_printf ("file://%s?%s", escaped, query);

  g_free (escaped);
  g_free (absolute);
  return uri;
}

/* Whether the file's header says it is in WAL mode (bytes 18 and 19). */
static gboolean
is_wal_mode (const guint8 * header, gsize size)
{
  return size >= HEADER_SIZE && header[WAL_VERSION_OFFSET] == 2
      && header[WAL_VERSION_OFFSET + 1] == 2;
}

/* Whether the write-ahead log beside @path (beside the file a link
 * leads to, where SQLite looks) holds pages not yet written back. */
static gboolean
has_unmerged_log (const gchar * path)
{
  gchar *target = realpath (path, NULL);
  gchar *log = g_strconcat (target ? target : path, "-wal", NULL);
  GStatBuf st;
  gboolean unmerged = g_stat (log, &st) == 0 && st.st_size > 0;

  g_free (log);
  free (target);
  return unmerged;
}

static gint
open_uri (SqliteReader * self, const gchar * query)
{
  gchar *uri = file_uri (self->path, query);
  gint rc;

  sqlite3_close (self->db);
  rc = sqlite3_open_v2 (uri, &self->db, SQLITE_OPEN_READONLY |
      SQLITE_OPEN_URI | SQLITE_OPEN_NOMUTEX, NULL);
  g_free (uri);
  if (rc != SQLITE_OK)
    return rc;
  /* A writer holding its lock: wait for it rather than fail. */
  sqlite3_busy_timeout (self->db, BUSY_TIMEOUT_MS);
  /* Opening is lazy: this reads the header and the schema. */
  return sqlite3_exec (self->db, "SELECT count(*) FROM sqlite_master", NULL,
      NULL, NULL);
}

/* Opens the file read-only, as the writer may still be writing it: a
 * rollback-journal database (rosbag2's default) with shared locks, which
 * need nothing beside the file; a WAL database (the "resilient" preset)
 * through its log where that holds pages, else immutable, so that no -shm
 * or -wal file is made beside it.  A log that cannot be read (its folder
 * not writable for the -shm) is left out, saying so in the recovery. */
static gboolean
open_file (SqliteReader * self, GError ** error)
{
  gboolean log = self->wal && has_unmerged_log (self->path);
  gint rc = open_uri (self, !self->wal || log ? "mode=ro" : "immutable=1");

  if (rc != SQLITE_OK && log) {
    self->parent.recovery.scanned = TRUE;
    self->parent.recovery.reason = self->reason = g_strdup_printf ("its "
        "write-ahead log %s-wal holds pages that cannot be read (%s; SQLite "
        "needs to write %s-shm beside it): the messages in them are "
        "missing; copy the folder somewhere writable to read them",
        self->path, sqlite3_errmsg (self->db), self->path);
    rc = open_uri (self, "immutable=1");
  }
  if (rc != SQLITE_OK)
    return rc_reader_fail (error, RC_READER_ERROR_FORMAT, FORMAT_NAME ": %s",
        self->db ? sqlite3_errmsg (self->db) : sqlite3_errstr (rc));
  /* Pages read from the file's mapping, not copied in by read(). */
  sqlite3_exec (self->db, "PRAGMA mmap_size=2147418112", NULL, NULL, NULL);
  return TRUE;
}

static gboolean
open_memory (SqliteReader * self, GError ** error)
{
  guint8 *bytes = (guint8 *) self->data;
  gint rc = sqlite3_open_v2 (":memory:", &self->db, SQLITE_OPEN_READWRITE |
      SQLITE_OPEN_NOMUTEX, NULL);

  if (rc != SQLITE_OK)
    return rc_reader_fail (error, RC_READER_ERROR_TOO_LARGE, FORMAT_NAME
        ": cannot open a database in memory: %s", sqlite3_errstr (rc));
  if (!self->in_place) {
    bytes = sqlite3_malloc64 (self->size);
    if (!bytes)
      return rc_reader_fail (error, RC_READER_ERROR_TOO_LARGE, FORMAT_NAME
          ": %" G_GSIZE_FORMAT " bytes do not fit in memory", self->size);
    memcpy (bytes, self->data, self->size);
  }
  /* A WAL database whose log was merged reads the same in rollback mode. */
  if (is_wal_mode (bytes, self->size))
    bytes[WAL_VERSION_OFFSET] = bytes[WAL_VERSION_OFFSET + 1] = 1;
  rc = sqlite3_deserialize (self->db, "main", bytes, self->size, self->size,
      SQLITE_DESERIALIZE_READONLY | (self->in_place ? 0 :
          SQLITE_DESERIALIZE_FREEONCLOSE));
  if (rc != SQLITE_OK)
    return sqlite_fail (self, error, "cannot read the database");
  return TRUE;
}

/* Whether the database has a table named @name, in *@found; FALSE with
 * @error where the database cannot be read. */
static gboolean
has_table (SqliteReader * self, const gchar * name, gboolean * found,
    GError ** error)
{
  sqlite3_stmt *stmt;
  gint rc;

  if (sqlite3_prepare_v2 (self->db, "SELECT 1 FROM sqlite_master WHERE "
          "type = 'table' AND name = ?1", -1, &stmt, NULL) != SQLITE_OK)
    return sqlite_fail (self, error, "the list of tables");
  sqlite3_bind_text (stmt, 1, name, -1, SQLITE_STATIC);
  rc = sqlite3_step (stmt);
  sqlite3_finalize (stmt);
  if (rc != SQLITE_ROW && rc != SQLITE_DONE)
    return sqlite_fail (self, error, "the list of tables");
  *found = rc == SQLITE_ROW;
  return TRUE;
}

/* Whether the database has the tables rosbag2 writes, which an SQLite
 * database of another program lacks. */
static gboolean
check_tables (SqliteReader * self, GError ** error)
{
  gboolean topics = FALSE, messages = FALSE;

  if (!has_table (self, "topics", &topics, error)
      || !has_table (self, "messages", &messages, error))
    return FALSE;
  if (topics && messages)
    return TRUE;
  return rc_reader_fail (error, RC_READER_ERROR_FORMAT, FORMAT_NAME ": an "
      "SQLite database without the topics and messages tables that rosbag2 "
      "writes: not a rosbag2 recording");
}

/* A text column as a string ("" for NULL). */
static const gchar *
column_text (sqlite3_stmt * stmt, gint column)
{
  const guchar *text = sqlite3_column_text (stmt, column);

  return text ? (const gchar *) text : "";
}

/* Per message type, its stored definition (schema version 4): the
 * encoding ("ros2msg", "ros2idl"; "unknown" with no text where rosbag2
 * found none) and the text, joined by a NUL. */
static GHashTable *
read_definitions (SqliteReader * self, GError ** error)
{
  GHashTable *definitions = g_hash_table_new_full (g_str_hash, g_str_equal,
      g_free, (GDestroyNotify) g_bytes_unref);
  sqlite3_stmt *stmt;
  gboolean stored = FALSE;
  gint rc;

  if (!has_table (self, "message_definitions", &stored, error)) {
    g_hash_table_unref (definitions);
    return NULL;
  }
  if (!stored)
    return definitions;
  if (sqlite3_prepare_v2 (self->db, "SELECT topic_type, encoding, "
          "encoded_message_definition FROM message_definitions ORDER BY id",
          -1, &stmt, NULL) != SQLITE_OK) {
    sqlite_fail (self, error, "the message_definitions table");
    g_hash_table_unref (definitions);
    return NULL;
  }
  while ((rc = sqlite3_step (stmt)) == SQLITE_ROW) {
    const gchar *encoding = column_text (stmt, 1);
    const gchar *text = column_text (stmt, 2);
    GString *value;

    if (!*text || g_hash_table_contains (definitions, column_text (stmt, 0)))
      continue;
    value = g_string_new (encoding);
    g_string_append_len (value, "", 1);
    g_string_append (value, text);
    g_hash_table_insert (definitions, g_strdup (column_text (stmt, 0)),
        g_string_free_to_bytes (value));
  }
  sqlite3_finalize (stmt);
  if (rc != SQLITE_DONE) {
    sqlite_fail (self, error, "the message_definitions table");
    g_clear_pointer (&definitions, g_hash_table_unref);
  }
  return definitions;
}

static void
set_schema (SqliteReader * self, guint topic, const gchar * type,
    GBytes * definition)
{
  gsize size;
  const gchar *encoding = g_bytes_get_data (definition, &size);
  gsize encoding_size = strlen (encoding) + 1;

  rc_reader_set_topic_schema (&self->parent, topic, type, encoding,
      (const guint8 *) encoding + encoding_size, size - encoding_size);
}

/* The topic of a topics row, found by name or added; counts the row's
 * type and serialization format as a definition of it. */
static guint
add_topic_row (SqliteReader * self, GHashTable * topic_of_name,
    GHashTable * definitions, sqlite3_stmt * stmt)
{
  RcReader *reader = &self->parent;
  const gchar *name = column_text (stmt, 1);
  const gchar *type = column_text (stmt, 2);
  const gchar *format = column_text (stmt, 3);
  GByteArray *key = g_byte_array_new ();
  gchar *label = g_strdup_printf ("%s (serialization format %s)", type,
      format);
  gpointer found;
  guint topic;

  if (g_hash_table_lookup_extended (topic_of_name, name, NULL, &found)) {
    topic = GPOINTER_TO_UINT (found);
  } else {
    GBytes *definition = g_hash_table_lookup (definitions, type);

    topic = rc_reader_add_topic (reader, name, type, format);
    if (definition)
      set_schema (self, topic, type, definition);
    g_hash_table_insert (topic_of_name, g_strdup (name),
        GUINT_TO_POINTER (topic));
  }
  /* Two strings without NULs: the first's NUL ends it in the key. */
  g_byte_array_append (key, (const guint8 *) type, strlen (type) + 1);
  g_byte_array_append (key, (const guint8 *) format, strlen (format));
  rc_reader_add_topic_definition (reader, topic, label, key->data, key->len);
  g_free (label);
  g_byte_array_unref (key);
  return topic;
}

/* The topics; @topic_of_id maps a topics.id to its topic. */
static gboolean
read_topics (SqliteReader * self, GHashTable * topic_of_id, GError ** error)
{
  GHashTable *topic_of_name = g_hash_table_new_full (g_str_hash,
      g_str_equal, g_free, NULL);
  GHashTable *definitions = read_definitions (self, error);
  sqlite3_stmt *stmt = NULL;
  gint rc = SQLITE_ERROR;

  if (definitions && sqlite3_prepare_v2 (self->db, "SELECT id, name, type, "
          "serialization_format FROM topics ORDER BY id", -1, &stmt,
          NULL) == SQLITE_OK) {
    while ((rc = sqlite3_step (stmt)) == SQLITE_ROW) {
      gint64 id = sqlite3_column_int64 (stmt, 0);
      guint topic = add_topic_row (self, topic_of_name, definitions, stmt);

      g_hash_table_insert (topic_of_id, g_memdup2 (&id, sizeof (id)),
          GUINT_TO_POINTER (topic));
    }
  }
  if (definitions && rc != SQLITE_DONE)
    sqlite_fail (self, error, "the topics table");
  sqlite3_finalize (stmt);
  g_hash_table_unref (topic_of_name);
  if (definitions)
    g_hash_table_unref (definitions);
  return rc == SQLITE_DONE;
}

/* Appends the message of a messages row (id, topic_id, timestamp) and
 * counts it in its topic. */
static gboolean
add_entry (SqliteReader * self, GHashTable * topic_of_id,
    sqlite3_stmt * stmt, GError ** error)
{
  gint64 topic_id = sqlite3_column_int64 (stmt, 1);
  gint64 time = sqlite3_column_int64 (stmt, 2);
  SqliteEntry e = { (guint64) time, sqlite3_column_int64 (stmt, 0), 0 };
  gpointer topic;
  RcTopic *t;

  if (!g_hash_table_lookup_extended (topic_of_id, &topic_id, NULL, &topic))
    return rc_reader_fail (error, RC_READER_ERROR_FORMAT, FORMAT_NAME
        ": message %" G_GINT64_FORMAT " names topic %" G_GINT64_FORMAT
        ", which the topics table does not hold", e.row, topic_id);
  if (time < 0)
    return rc_reader_fail (error, RC_READER_ERROR_FORMAT, FORMAT_NAME
        ": message %" G_GINT64_FORMAT " has the negative timestamp %"
        G_GINT64_FORMAT " (accepted: ns since the epoch)", e.row, time);
  e.topic = GPOINTER_TO_UINT (topic);
  g_array_append_val (self->entries, e);
  t = rc_reader_topic (&self->parent, e.topic);
  if (t->n_messages++ == 0)
    t->first_time = e.time;
  t->last_time = e.time;
  return TRUE;
}

/* The message order, by timestamp then id as rosbag2 plays them (the
 * index on timestamp keeps ids in order among equal times). */
static gboolean
read_entries (SqliteReader * self, GHashTable * topic_of_id, GError ** error)
{
  sqlite3_stmt *stmt;
  gint rc;

  if (sqlite3_prepare_v2 (self->db, "SELECT id, topic_id, timestamp FROM "
          "messages ORDER BY timestamp, id", -1, &stmt, NULL) != SQLITE_OK)
    return sqlite_fail (self, error, "the messages table");
  while ((rc = sqlite3_step (stmt)) == SQLITE_ROW) {
    if (!add_entry (self, topic_of_id, stmt, error)) {
      sqlite3_finalize (stmt);
      return FALSE;
    }
  }
  sqlite3_finalize (stmt);
  if (rc != SQLITE_DONE)
    return sqlite_fail (self, error, "the messages table");
  return TRUE;
}

/* The data of message @row into self->bytes. */
static gboolean
read_data (SqliteReader * self, const SqliteEntry * e, RcMessage * message,
    GError ** error)
{
  gint rc;
  gsize size;

  if (self->blob)
    rc = sqlite3_blob_reopen (self->blob, e->row);
  else
    rc = sqlite3_blob_open (self->db, "main", "messages", "data", e->row, 0,
        &self->blob);
  if (rc == SQLITE_OK) {
    size = sqlite3_blob_bytes (self->blob);
    if (size > self->bytes_capacity) {
      self->bytes_capacity = MAX (size, 2 * self->bytes_capacity);
      self->bytes = g_realloc (self->bytes, self->bytes_capacity);
    }
    rc = sqlite3_blob_read (self->blob, self->bytes, size, 0);
  }
  if (rc != SQLITE_OK) {
    rc_reader_fail (error, RC_READER_ERROR_FORMAT, FORMAT_NAME ": the data "
        "of message %" G_GINT64_FORMAT " (%s at %" G_GUINT64_FORMAT "): %s",
        e->row, rc_reader_get_topic (&self->parent, e->topic)->name,
        e->time, sqlite3_errmsg (self->db));
    /* A handle whose reopen failed is of no further use. */
    g_clear_pointer (&self->blob, sqlite3_blob_close);
    return FALSE;
  }
  message->data = self->bytes;
  message->size = size;
  return TRUE;
}

static RcReaderResult
sqlite_reader_next (RcReader * reader, RcMessage * message, GError ** error)
{
  SqliteReader *self = (SqliteReader *) reader;
  const SqliteEntry *e = rc_entries_next_selected (reader, self->entries,
      G_STRUCT_OFFSET (SqliteEntry, topic), &self->next, message);

  if (!e)
    return RC_READER_END;
  message->type = rc_reader_get_topic (reader, message->topic)->type;
  message->time = e->time;
  if (!read_data (self, e, message, error)
      || !rc_reader_inflate_rosbag2_message (reader, message,
          &self->inflated, &self->inflated_capacity, error))
    return RC_READER_FAILED;
  return RC_READER_OK;
}

static void
sqlite_reader_seek (RcReader * reader, guint64 time)
{
  SqliteReader *self = (SqliteReader *) reader;

  self->next = rc_entries_lower_bound (self->entries,
      G_STRUCT_OFFSET (SqliteEntry, time), time);
}

static void
sqlite_reader_clear (RcReader * reader)
{
  SqliteReader *self = (SqliteReader *) reader;

  g_clear_pointer (&self->blob, sqlite3_blob_close);
  sqlite3_close (self->db);
  g_array_unref (self->entries);
  g_free (self->path);
  g_free (self->bytes);
  g_free (self->inflated);
  g_free (self->reason);
}

static RcReader *sqlite_reader_reopen (const RcReader * reader,
    RcReaderFlags flags, GError ** error);

static const RcReaderFuncs sqlite_reader_funcs = {
  sqlite_reader_next,
  sqlite_reader_seek,
  sqlite_reader_clear,
  NULL,
  sqlite_reader_reopen,
};

/* Opens the file at @path (in WAL mode if @wal), or else @size bytes at
 * @data (@in_place: see SqliteReader). */
static RcReader *
sqlite_reader_open (const gchar * path, gboolean wal, const guint8 * data,
    gsize size, gboolean in_place, GError ** error)
{
  SqliteReader *self = g_new0 (SqliteReader, 1);
  GHashTable *topic_of_id = g_hash_table_new_full (g_int64_hash,
      g_int64_equal, g_free, NULL);
  gboolean ok;

  rc_reader_init (&self->parent, &sqlite_reader_funcs);
  self->parent.format_name = FORMAT_NAME;
  self->path = g_strdup (path);
  self->wal = wal;
  self->data = data;
  self->size = size;
  self->in_place = in_place;
  self->entries = g_array_new (FALSE, FALSE, sizeof (SqliteEntry));
  ok = (path ? open_file (self, error) : open_memory (self, error))
      && harden (self, error) && check_tables (self, error)
      && read_topics (self, topic_of_id, error)
      && read_entries (self, topic_of_id, error);
  g_hash_table_unref (topic_of_id);
  if (!ok) {
    rc_reader_free (&self->parent);
    return NULL;
  }
  self->parent.recovery.n_messages = self->entries->len;
  return &self->parent;
}

RcReader *
rc_sqlite_reader_open (const guint8 * data, gsize size, RcReaderFlags flags,
    GError ** error)
{
  return sqlite_reader_open (NULL, FALSE, data, size, FALSE, error);
}

RcReader *
rc_sqlite_reader_open_private (guint8 * data, gsize size,
    RcReaderFlags flags, GError ** error)
{
  return sqlite_reader_open (NULL, FALSE, data, size, TRUE, error);
}

RcReader *
rc_sqlite_reader_open_file (const gchar * path, const guint8 * data,
    gsize size, RcReaderFlags flags, GError ** error)
{
  RcReader *reader = sqlite_reader_open (path, is_wal_mode (data, size),
      NULL, 0, FALSE, error);

  if (reader)
    reader->recovery.end_offset = size;
  return reader;
}

static RcReader *
sqlite_reader_reopen (const RcReader * reader, RcReaderFlags flags,
    GError ** error)
{
  const SqliteReader *self = (const SqliteReader *) reader;

  return sqlite_reader_open (self->path, self->wal, self->data, self->size,
      self->in_place, error);
}
