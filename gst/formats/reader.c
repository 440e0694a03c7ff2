/* The format-independent part of reader.h: finding the format, the topic
 * list and selection, and the calls into the format. */
#include "reader-impl.h"
#include "mcap-records.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>
#include <glib/gstdio.h>

G_DEFINE_QUARK (rc - reader - error - quark, rc_reader_error);

typedef struct
{
  const gchar *name;            /* in errors, after "not a" */
  const gchar *magic;           /* the first bytes of every such file */
  const gchar *signature;       /* what a readable file starts with, for
                                 * errors */
  RcReader *(*open) (const guint8 * data, gsize size, RcReaderFlags flags,
      GError ** error);
  /* Optional: opens a file itself, rather than from its mapping (@data,
   * @size: the mapping, valid during the call). */
  RcReader *(*open_file) (const gchar * path, const guint8 * data,
      gsize size, RcReaderFlags flags, GError ** error);
  /* Optional, with open_file: opens a file decompressed (whole-file.c)
   * from its private, writable mapping, which outlives the reader. */
  RcReader *(*open_private) (guint8 * data, gsize size, RcReaderFlags flags,
      GError ** error);
} Format;

/* The bag reader tells a bag of another version from its magic. */
/* *INDENT-OFF* */
static const Format formats[] = {
  {"ROS bag", "#ROSBAG V", "#ROSBAG V2.0", rc_bag_reader_open, NULL, NULL},
  {"MCAP", "\x89MCAP0\r\n", "\\x89MCAP0\\r\\n", rc_mcap_reader_open,
      NULL, NULL},
  /* The magic's terminating NUL is part of SQLite's 16-byte header. */
  {"rosbag2 SQLite", "SQLite format 3", "SQLite format 3\\0",
      rc_sqlite_reader_open, rc_sqlite_reader_open_file,
      rc_sqlite_reader_open_private},
};
/* *INDENT-ON* */

gboolean
rc_reader_fail (GError ** error, RcReaderError code, const gchar * format, ...)
{
  va_list args;

  va_start (args, format);
  if (error)
    *error = g_error_new_valist (RC_READER_ERROR, code, format, args);
  va_end (args);
  return FALSE;
}

/* "not a ROS bag, MCAP or ...: the file does not start with ...", naming
 * every format; or, for zstd's frames, that a recording compressed whole
 * is read from its file (rc_reader_open_full), not from memory. */
static void
fail_unknown_format (const guint8 * data, gsize size, GError ** error)
{
  GString *names, *signatures;

  if (rc_whole_file_is_compressed (data, size)) {
    rc_reader_fail (error, RC_READER_ERROR_UNKNOWN_FORMAT, "zstd data: a "
        "recording compressed whole (rosbag2's --compression-mode file) is "
        "read from its file, not from memory");
    return;
  }
  names = g_string_new (NULL);
  signatures = g_string_new (NULL);
  for (guint i = 0; i < G_N_ELEMENTS (formats); i++) {
    const gchar *sep = i == 0 ? "" : i + 1 < G_N_ELEMENTS (formats) ? ", " :
        " or ";

    g_string_append_printf (names, "%s%s", sep, formats[i].name);
    g_string_append_printf (signatures, "%s\"%s\"", sep, formats[i].signature);
  }
  rc_reader_fail (error, RC_READER_ERROR_UNKNOWN_FORMAT, "not a %s: the file "
      "does not start with %s", names->str, signatures->str);
  g_string_free (names, TRUE);
  g_string_free (signatures, TRUE);
}

/* The format whose magic @data starts with, or NULL. */
static const Format *
find_format (const guint8 * data, gsize size)
{
  for (guint i = 0; i < G_N_ELEMENTS (formats); i++) {
    gsize magic_len = strlen (formats[i].magic);

    if (size >= magic_len && !memcmp (data, formats[i].magic, magic_len))
      return &formats[i];
  }
  return NULL;
}

/* Completes a reader that @format opened from @size bytes. */
static RcReader *
opened (RcReader * reader, const Format * format, gsize size)
{
  if (reader) {
    reader->format_name = format->name;
    reader->recovery.file_size = size;
    if (!reader->recovery.scanned)
      reader->recovery.end_offset = size;
  }
  return reader;
}

RcReader *
rc_reader_open_data_full (const guint8 * data, gsize size,
    RcReaderFlags flags, GError ** error)
{
  const Format *format = find_format (data, size);

  if (!format) {
    fail_unknown_format (data, size, error);
    return NULL;
  }
  return opened (format->open (data, size, flags, error), format, size);
}

RcReader *
rc_reader_open_data (const guint8 * data, gsize size, GError ** error)
{
  return rc_reader_open_data_full (data, size, RC_READER_FLAGS_NONE, error);
}

RcReader *
rc_reader_open (const gchar * path, GError ** error)
{
  return rc_reader_open_full (path, RC_READER_FLAGS_NONE, error);
}

/* The file at @path mapped private and writable (@shareable TRUE):
 * message bytes handed on without a copy may be written by whoever gets
 * them (a torch tensor changed in place), which copies the pages written
 * and never changes the file; read-only pages would crash that consumer
 * instead.  Where a writable mapping is refused (strict overcommit counts
 * the whole file against the commit limit), read-only, and not to be
 * shared (@shareable FALSE). */
static GMappedFile *
map_fd (gint fd, const gchar * path, gboolean * shareable, GError ** error)
{
  GError *err = NULL;
  GMappedFile *mapped = g_mapped_file_new_from_fd (fd, TRUE, NULL);

  *shareable = mapped != NULL;
  if (!mapped)
    mapped = g_mapped_file_new_from_fd (fd, FALSE, &err);
  if (!mapped) {
    rc_reader_fail (error, RC_READER_ERROR_IO, "%s: %s", path, err->message);
    g_error_free (err);
  }
  return mapped;
}

static GMappedFile *
map_file (const gchar * path, gboolean * shareable, GError ** error)
{
  GMappedFile *mapped;
  gint fd = g_open (path, O_RDONLY | O_CLOEXEC, 0);

  if (fd < 0) {
    gint saved = errno;

    rc_reader_fail (error, RC_READER_ERROR_IO, "cannot open %s: %s", path,
        g_strerror (saved));
    return NULL;
  }
  mapped = map_fd (fd, path, shareable, error);
  close (fd);
  return mapped;
}

/* A reader of the file @path, mapped as @mapped (taken). */
static RcReader *
open_mapped (const gchar * path, GMappedFile * mapped, gboolean shareable,
    RcReaderFlags flags, GError ** error)
{
  const guint8 *data = (const guint8 *) g_mapped_file_get_contents (mapped);
  gsize size = g_mapped_file_get_length (mapped);
  const Format *format = find_format (data, size);
  RcReader *reader;

  if (format && format->open_file) {
    reader = opened (format->open_file (path, data, size, flags, error),
        format, size);
    g_mapped_file_unref (mapped);
    return reader;
  }
  reader = rc_reader_open_data_full (data, size, flags, error);
  if (reader) {
    reader->mapped = mapped;
    reader->mapped_shareable = shareable;
  } else
    g_mapped_file_unref (mapped);
  return reader;
}

/* A reader of the file @path, which rosbag2 compressed whole (@data,
 * @size bytes), decompressed into a temporary file and read from its
 * mapping (private: a consumer's writes are its own). */
static RcReader *
open_whole_file (const gchar * path, const guint8 * data, gsize size,
    RcReaderFlags flags, GError ** error)
{
  gint fd = rc_whole_file_inflate (path, data, size, error);
  gboolean shareable = FALSE;
  GMappedFile *mapped = fd < 0 ? NULL : map_fd (fd, path, &shareable, error);
  guint8 *inner;
  const Format *format;
  RcReader *reader;

  if (fd >= 0)
    close (fd);
  if (!mapped)
    return NULL;
  inner = (guint8 *) g_mapped_file_get_contents (mapped);
  size = g_mapped_file_get_length (mapped);
  format = find_format (inner, size);
  if (rc_whole_file_is_compressed (inner, size)) {
    reader = NULL;
    rc_reader_fail (error, RC_READER_ERROR_UNKNOWN_FORMAT, "decompressed, "
        "it is zstd again; accepted is a recording compressed once");
  } else if (format && format->open_private && shareable) {
    /* Its messages are copied out: none lies in the mapping. */
    reader = opened (format->open_private (inner, size, flags, error),
        format, size);
    shareable = FALSE;
  } else {
    reader = rc_reader_open_data_full (inner, size, flags, error);
  }
  if (reader) {
    reader->mapped = g_mapped_file_ref (mapped);
    reader->mapped_shareable = shareable;
  }
  g_mapped_file_unref (mapped);
  return reader;
}

RcReader *
rc_reader_open_full (const gchar * path, RcReaderFlags flags,
    GError ** error)
{
  gboolean shareable = FALSE;
  GMappedFile *mapped = map_file (path, &shareable, error);
  RcReader *reader;

  if (!mapped)
    return NULL;
  if (!rc_whole_file_is_compressed ((const guint8 *)
          g_mapped_file_get_contents (mapped),
          g_mapped_file_get_length (mapped)))
    return open_mapped (path, mapped, shareable, flags, error);
  reader = open_whole_file (path, (const guint8 *)
      g_mapped_file_get_contents (mapped),
      g_mapped_file_get_length (mapped), flags, error);
  g_mapped_file_unref (mapped);
  return reader;
}

RcReader *
rc_reader_reopen (const RcReader * reader, RcReaderFlags flags, GError ** error)
{
  RcReader *again;

  if (reader->funcs->reopen) {
    again = reader->funcs->reopen (reader, flags, error);
    /* A decompressed file's SQLite reader reads its mapping in place. */
    if (again && reader->mapped && !again->mapped) {
      again->mapped = g_mapped_file_ref (reader->mapped);
      again->mapped_shareable = reader->mapped_shareable;
    }
    return again;
  }
  if (!reader->mapped) {
    rc_reader_fail (error, RC_READER_ERROR_IO, "a reader of memory cannot be "
        "opened again");
    return NULL;
  }
  again = rc_reader_open_data_full ((const guint8 *)
      g_mapped_file_get_contents (reader->mapped),
      g_mapped_file_get_length (reader->mapped), flags, error);
  if (again) {
    again->mapped = g_mapped_file_ref (reader->mapped);
    again->mapped_shareable = reader->mapped_shareable;
  }
  return again;
}

void
rc_reader_free (RcReader * reader)
{
  if (!reader)
    return;
  reader->funcs->clear (reader);
  for (guint i = 0; i < reader->topics->len; i++) {
    RcTopic *t = &g_array_index (reader->topics, RcTopic, i);

    g_free ((gchar *) t->name);
    g_free ((gchar *) t->type);
    g_free ((gchar *) t->encoding);
    g_free ((gchar *) t->schema_name);
    g_free ((gchar *) t->schema_encoding);
    g_free ((gchar *) t->schema);
  }
  g_array_unref (reader->topics);
  g_array_unref (reader->selected);
  g_ptr_array_unref (reader->definitions);
  if (reader->mapped)
    g_mapped_file_unref (reader->mapped);
  g_free (reader);
}

GMappedFile *
rc_reader_get_mapped_file (const RcReader * reader)
{
  return reader->mapped_shareable ? reader->mapped : NULL;
}

const gchar *
rc_reader_format_name (const RcReader * reader)
{
  return reader->format_name;
}

void
rc_reader_get_recovery (const RcReader * reader, RcReaderRecovery * recovery)
{
  *recovery = reader->recovery;
}

guint
rc_reader_n_topics (const RcReader * reader)
{
  return reader->topics->len;
}

const RcTopic *
rc_reader_get_topic (const RcReader * reader, guint topic)
{
  g_return_val_if_fail (topic < reader->topics->len, NULL);
  return &g_array_index (reader->topics, RcTopic, topic);
}

const RcTopic *
rc_reader_find_topic (const RcReader * reader, const gchar * name)
{
  for (guint t = 0; t < reader->topics->len; t++) {
    const RcTopic *topic = &g_array_index (reader->topics, RcTopic, t);

    if (!strcmp (topic->name, name))
      return topic;
  }
  return NULL;
}

void
rc_reader_select_topic (RcReader * reader, guint topic, gboolean selected)
{
  g_return_if_fail (topic < reader->topics->len);
  g_array_index (reader->selected, gboolean, topic) = selected;
  if (reader->funcs->select)
    reader->funcs->select (reader, topic, selected);
}

RcReaderResult
rc_reader_next (RcReader * reader, RcMessage * message, GError ** error)
{
  RcReaderResult result;

  message->mapped = NULL;
  result = reader->funcs->next (reader, message, error);
  /* A reader of several files says its message's own. */
  if (result == RC_READER_OK && !message->mapped)
    message->mapped = rc_reader_get_mapped_file (reader);
  return result;
}

void
rc_reader_seek (RcReader * reader, guint64 time)
{
  reader->funcs->seek (reader, time);
}

/* The different definitions of one topic's publishers. */
typedef struct
{
  GHashTable *keys;             /* GBytes, the set of definitions */
  GString *labels;              /* RcTopic.definitions */
} Definitions;

static void
definitions_free (gpointer data)
{
  Definitions *defs = data;

  g_hash_table_unref (defs->keys);
  g_string_free (defs->labels, TRUE);
  g_free (defs);
}

void
rc_reader_init (RcReader * reader, const RcReaderFuncs * funcs)
{
  reader->funcs = funcs;
  reader->topics = g_array_new (FALSE, TRUE, sizeof (RcTopic));
  reader->selected = g_array_new (FALSE, TRUE, sizeof (gboolean));
  reader->definitions = g_ptr_array_new_with_free_func (definitions_free);
}

guint
rc_reader_add_topic (RcReader * reader, const gchar * name,
    const gchar * type, const gchar * encoding)
{
  RcTopic t = { 0, };
  gboolean selected = TRUE;

  t.name = g_strdup (name);
  t.type = g_strdup (type);
  t.encoding = g_strdup (encoding);
  g_array_append_val (reader->topics, t);
  g_array_append_val (reader->selected, selected);
  g_ptr_array_add (reader->definitions, NULL);
  return reader->topics->len - 1;
}

void
rc_reader_add_topic_definition (RcReader * reader, guint topic,
    const gchar * label, gconstpointer key, gsize key_size)
{
  Definitions *defs = g_ptr_array_index (reader->definitions, topic);
  RcTopic *t = rc_reader_topic (reader, topic);
  GBytes *bytes = g_bytes_new (key, key_size);

  if (!defs) {
    defs = g_new0 (Definitions, 1);
    defs->keys = g_hash_table_new_full (g_bytes_hash, g_bytes_equal,
        (GDestroyNotify) g_bytes_unref, NULL);
    defs->labels = g_string_new (NULL);
    g_ptr_array_index (reader->definitions, topic) = defs;
  }
  if (!g_hash_table_add (defs->keys, bytes))
    return;
  g_string_append_printf (defs->labels, "%s%s", defs->labels->len ? "; " :
      "", label);
  t->n_definitions = g_hash_table_size (defs->keys);
  /* Named only where there is a choice to report. */
  t->definitions = t->n_definitions > 1 ? defs->labels->str : NULL;
}

void
rc_reader_set_topic_schema (RcReader * reader, guint topic,
    const gchar * name, const gchar * encoding, const guint8 * data,
    gsize size)
{
  RcTopic *t = rc_reader_topic (reader, topic);

  g_free ((gchar *) t->schema_name);
  g_free ((gchar *) t->schema_encoding);
  g_free ((gchar *) t->schema);
  t->schema_name = g_strdup (name);
  t->schema_encoding = g_strdup (encoding);
  t->schema = g_strndup ((const gchar *) data, size);
  t->schema_size = size;
}

/* @from's definitions of one topic, for another reader. */
static Definitions *
definitions_copy (const Definitions * from)
{
  Definitions *defs = g_new0 (Definitions, 1);
  GHashTableIter iter;
  gpointer key;

  defs->keys = g_hash_table_new_full (g_bytes_hash, g_bytes_equal,
      (GDestroyNotify) g_bytes_unref, NULL);
  g_hash_table_iter_init (&iter, from->keys);
  while (g_hash_table_iter_next (&iter, &key, NULL))
    g_hash_table_add (defs->keys, g_bytes_ref (key));
  defs->labels = g_string_new (from->labels->str);
  return defs;
}

void
rc_reader_copy_topics (RcReader * reader, const RcReader * from)
{
  for (guint i = 0; i < from->topics->len; i++) {
    const RcTopic *t = rc_reader_get_topic (from, i);
    const Definitions *defs = g_ptr_array_index (from->definitions, i);
    guint topic = rc_reader_add_topic (reader, t->name, t->type, t->encoding);
    RcTopic *copy = rc_reader_topic (reader, topic);
    Definitions *copied;

    if (t->schema)
      rc_reader_set_topic_schema (reader, topic, t->schema_name,
          t->schema_encoding, (const guint8 *) t->schema, t->schema_size);
    copy->n_messages = t->n_messages;
    copy->first_time = t->first_time;
    copy->last_time = t->last_time;
    copy->n_definitions = t->n_definitions;
    if (!defs)
      continue;
    copied = definitions_copy (defs);
    g_ptr_array_index (reader->definitions, topic) = copied;
    copy->definitions = t->definitions ? copied->labels->str : NULL;
  }
}

RcTopic *
rc_reader_topic (RcReader * reader, guint topic)
{
  return &g_array_index (reader->topics, RcTopic, topic);
}

gboolean
rc_reader_topic_is_selected (const RcReader * reader, guint topic)
{
  return g_array_index (reader->selected, gboolean, topic);
}

gsize
rc_entries_lower_bound (GArray * entries, gsize time_offset, guint64 time)
{
  guint size = g_array_get_element_size (entries);
  gsize low = 0, high = entries->len;

  while (low < high) {
    gsize mid = low + (high - low) / 2;

    if (G_STRUCT_MEMBER (guint64, entries->data + mid * size,
            time_offset) < time)
      low = mid + 1;
    else
      high = mid;
  }
  return low;
}

gboolean
rc_reader_inflate_rosbag2_message (const RcReader * reader,
    RcMessage * message, guint8 ** buffer, gsize * capacity, GError ** error)
{
  const RcTopic *topic = rc_reader_get_topic (reader, message->topic);
  gsize made;

  if (g_strcmp0 (topic->encoding, "cdr") != 0
      || !mcap_is_zstd_frame (message->data, message->size))
    return TRUE;
  if (!mcap_inflate_frame (message->data, message->size, buffer, capacity,
          &made, error)) {
    g_prefix_error (error, "%s: the message of %s at time %"
        G_GUINT64_FORMAT ", compressed alone by rosbag2 (--compression-mode "
        "message): ", reader->format_name, topic->name, message->time);
    return FALSE;
  }
  message->data = *buffer;
  message->size = made;
  return TRUE;
}

gconstpointer
rc_entries_next_selected (const RcReader * reader, GArray * entries,
    gsize topic_offset, gsize * next, RcMessage * message)
{
  guint size = g_array_get_element_size (entries);

  while (*next < entries->len) {
    const guint8 *entry = (const guint8 *) entries->data + *next * size;

    message->index = (*next)++;
    message->topic = G_STRUCT_MEMBER (guint32, entry, topic_offset);
    if (rc_reader_topic_is_selected (reader, message->topic))
      return entry;
  }
  return NULL;
}
