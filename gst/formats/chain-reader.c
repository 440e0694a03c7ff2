/* The files of one split recording (rosbag2's --max-bag-size or
 * --max-bag-duration, rosbag's --split) behind reader.h as one recording:
 * their topics merged by name, their messages merged by record time (ties
 * in file order).  Each file is opened while its messages are read and
 * closed at its end, so that of a recording split into hundreds of files
 * one or two are mapped at a time: a file joins once the merge reaches
 * its first message.  At open each is read once for its topics and times.
 *
 * Message bytes lie in the file of the moment, so the chain maps none
 * (rc_reader_get_mapped_file: NULL); each message names its file's
 * (RcMessage.mapped). */
#include "reader-impl.h"

#include <string.h>

typedef struct
{
  gchar *path;
  /* Of its messages, over all topics (G_MAXUINT64, 0 without any). */
  guint64 first_time, last_time;
  guint64 n_messages;
  guint64 index_base;           /* the messages of the files before it */
  GArray *topic_map;            /* guint: its topic -> the chain's */
  RcReader *reader;             /* while it is read */
  gboolean done;                /* read to its end since the last seek */
  gboolean pending;             /* @message is its next message */
  RcMessage message;
} ChainPart;

typedef struct
{
  RcReader parent;
  RcReaderFlags flags;
  ChainPart *parts;
  guint n_parts;
  guint64 seek_time;
  gint returned;                /* the part of the last message out, or -1 */
} ChainReader;

/* The definition of @part_topic (one of @reader's) as a key and label
 * for the chain's topic: its type, encoding and schema; a topic of several
 * definitions in its file stays one of several in the chain. */
static void
add_part_definition (RcReader * chain, guint topic, const RcTopic * t,
    guint part)
{
  GString *key = g_string_new (NULL);
  gchar *label;

  g_string_append_printf (key, "%s%c%s%c%s%c", t->type, 0, t->encoding, 0,
      t->schema_name ? t->schema_name : "", 0);
  if (t->schema)
    g_string_append_len (key, t->schema, t->schema_size);
  if (t->n_definitions > 1)
    g_string_append_printf (key, "%cpart %u", 0, part);
  label = t->n_definitions > 1 ? g_strdup (t->definitions) :
      g_strdup_printf ("%s (message encoding %s)", t->type, t->encoding);
  rc_reader_add_topic_definition (chain, topic, label, key->str, key->len);
  g_free (label);
  g_string_free (key, TRUE);
}

/* Takes @reader's topics into the chain, by name, and @part's times. */
static void
merge_topics (ChainReader * self, ChainPart * part, guint index,
    RcReader * reader)
{
  RcReader *chain = &self->parent;

  part->topic_map = g_array_new (FALSE, FALSE, sizeof (guint));
  part->first_time = G_MAXUINT64;
  for (guint i = 0; i < rc_reader_n_topics (reader); i++) {
    const RcTopic *t = rc_reader_get_topic (reader, i);
    const RcTopic *found = rc_reader_find_topic (chain, t->name);
    guint topic = found ? (guint) (found - rc_reader_get_topic (chain, 0)) :
        rc_reader_add_topic (chain, t->name, t->type, t->encoding);
    RcTopic *merged = rc_reader_topic (chain, topic);

    g_array_append_val (part->topic_map, topic);
    if (!found && t->schema)
      rc_reader_set_topic_schema (chain, topic, t->schema_name,
          t->schema_encoding, (const guint8 *) t->schema, t->schema_size);
    add_part_definition (chain, topic, t, index);
    if (t->n_messages == 0)
      continue;
    if (merged->n_messages == 0 || t->first_time < merged->first_time)
      merged->first_time = t->first_time;
    merged->last_time = MAX (merged->last_time, t->last_time);
    merged->n_messages += t->n_messages;
    part->first_time = MIN (part->first_time, t->first_time);
    part->last_time = MAX (part->last_time, t->last_time);
    part->n_messages += t->n_messages;
  }
}

/* The recovery of the chain: the files' sizes and messages summed, and
 * the first file read by scanning, with why. */
static void
merge_recovery (ChainReader * self, RcReader * reader)
{
  RcReaderRecovery *chain = &self->parent.recovery, part;

  rc_reader_get_recovery (reader, &part);
  chain->file_size += part.file_size;
  chain->end_offset += part.end_offset;
  chain->n_skipped_records += part.n_skipped_records;
  if (part.scanned && !chain->scanned) {
    chain->scanned = TRUE;
    chain->n_messages = part.n_messages;
    chain->reason = part.reason ? g_intern_string (part.reason) : NULL;
  }
}

/* Opens @part's file, its topics selected as the chain's are. */
static gboolean
open_part (ChainReader * self, ChainPart * part, GError ** error)
{
  part->reader = rc_reader_open_full (part->path, self->flags, error);
  if (!part->reader) {
    g_prefix_error (error, "%s: ", part->path);
    return FALSE;
  }
  if (rc_reader_n_topics (part->reader) != part->topic_map->len) {
    g_clear_pointer (&part->reader, rc_reader_free);
    return rc_reader_fail (error, RC_READER_ERROR_FORMAT, "%s: its topics "
        "changed since the recording was opened", part->path);
  }
  for (guint i = 0; i < part->topic_map->len; i++)
    rc_reader_select_topic (part->reader, i, rc_reader_topic_is_selected
        (&self->parent, g_array_index (part->topic_map, guint, i)));
  if (self->seek_time > 0)
    rc_reader_seek (part->reader, self->seek_time);
  return TRUE;
}

/* Reads @part's next message into it, or closes it at its end. */
static gboolean
fill_part (ChainPart * part, GError ** error)
{
  switch (rc_reader_next (part->reader, &part->message, error)) {
    case RC_READER_OK:
      part->pending = TRUE;
      return TRUE;
    case RC_READER_END:
      part->done = TRUE;
      g_clear_pointer (&part->reader, rc_reader_free);
      return TRUE;
    default:
      g_prefix_error (error, "%s: ", part->path);
      return FALSE;
  }
}

/* The part whose pending message comes first (-1: none), and the first
 * part not opened yet (-1: none). */
static void
next_parts (ChainReader * self, gint * best, gint * waiting)
{
  *best = *waiting = -1;
  for (guint k = 0; k < self->n_parts; k++) {
    const ChainPart *p = &self->parts[k];

    if (p->pending && (*best < 0
            || p->message.time < self->parts[*best].message.time))
      *best = k;
    if (!p->done && !p->reader && (*waiting < 0
            || p->first_time < self->parts[*waiting].first_time))
      *waiting = k;
  }
}

static RcReaderResult
chain_next (RcReader * reader, RcMessage * message, GError ** error)
{
  ChainReader *self = (ChainReader *) reader;
  ChainPart *p;
  gint best, waiting;

  if (self->returned >= 0) {
    p = &self->parts[self->returned];
    self->returned = -1;
    p->pending = FALSE;
    if (!fill_part (p, error))
      return RC_READER_FAILED;
  }
  for (;;) {
    next_parts (self, &best, &waiting);
    if (waiting >= 0 && (best < 0 || self->parts[waiting].first_time <=
            self->parts[best].message.time)) {
      p = &self->parts[waiting];
      if (!open_part (self, p, error) || !fill_part (p, error))
        return RC_READER_FAILED;
      continue;
    }
    if (best < 0)
      return RC_READER_END;
    p = &self->parts[best];
    *message = p->message;
    message->topic = g_array_index (p->topic_map, guint, p->message.topic);
    message->type = rc_reader_get_topic (reader, message->topic)->type;
    message->index = p->index_base + p->message.index;
    self->returned = best;
    return RC_READER_OK;
  }
}

static void
chain_seek (RcReader * reader, guint64 time)
{
  ChainReader *self = (ChainReader *) reader;

  self->seek_time = time;
  self->returned = -1;
  for (guint k = 0; k < self->n_parts; k++) {
    ChainPart *p = &self->parts[k];

    g_clear_pointer (&p->reader, rc_reader_free);
    p->pending = FALSE;
    p->done = p->n_messages == 0 || p->last_time < time;
  }
}

/* Selected or not in the chain: so in each open file. */
static void
chain_select (RcReader * reader, guint topic, gboolean selected)
{
  ChainReader *self = (ChainReader *) reader;

  for (guint k = 0; k < self->n_parts; k++) {
    ChainPart *p = &self->parts[k];

    for (guint i = 0; p->reader && i < p->topic_map->len; i++) {
      if (g_array_index (p->topic_map, guint, i) == topic)
        rc_reader_select_topic (p->reader, i, selected);
    }
  }
}

static void
chain_clear (RcReader * reader)
{
  ChainReader *self = (ChainReader *) reader;

  for (guint k = 0; k < self->n_parts; k++) {
    g_free (self->parts[k].path);
    if (self->parts[k].topic_map)
      g_array_unref (self->parts[k].topic_map);
    rc_reader_free (self->parts[k].reader);
  }
  g_free (self->parts);
  rc_whole_file_release ();
}

static RcReader *chain_reopen (const RcReader * reader, RcReaderFlags flags,
    GError ** error);

static const RcReaderFuncs chain_funcs = {
  chain_next,
  chain_seek,
  chain_clear,
  chain_select,
  chain_reopen,
};

static ChainReader *
chain_new (RcReaderFlags flags, guint n_parts)
{
  ChainReader *self = g_new0 (ChainReader, 1);

  rc_reader_init (&self->parent, &chain_funcs);
  self->flags = flags;
  self->returned = -1;
  self->n_parts = n_parts;
  self->parts = g_new0 (ChainPart, n_parts);
  /* Its files are opened again and again (at start, at each seek): those
   * compressed whole are decompressed once while it is open. */
  rc_whole_file_keep ();
  return self;
}

RcReader *
rc_reader_open_files (const gchar * const *paths, RcReaderFlags flags,
    GError ** error)
{
  ChainReader *self;
  guint64 base = 0;

  if (!paths[0]) {
    rc_reader_fail (error, RC_READER_ERROR_IO, "no file to read");
    return NULL;
  }
  if (!paths[1])
    return rc_reader_open_full (paths[0], flags, error);
  self = chain_new (flags, g_strv_length ((gchar **) paths));
  for (guint k = 0; k < self->n_parts; k++) {
    ChainPart *p = &self->parts[k];
    RcReader *reader = rc_reader_open_full (paths[k], flags, error);

    p->path = g_strdup (paths[k]);
    if (!reader) {
      g_prefix_error (error, "%s: ", paths[k]);
      rc_reader_free (&self->parent);
      return NULL;
    }
    if (k == 0)
      self->parent.format_name = rc_reader_format_name (reader);
    merge_topics (self, p, k, reader);
    merge_recovery (self, reader);
    p->index_base = base;
    base += p->n_messages;
    rc_reader_free (reader);
  }
  chain_seek (&self->parent, 0);
  return &self->parent;
}

/* What the files held at open is kept, not read again: of a recording in
 * hundreds of files, a look ahead opens only those it reads.  A file
 * changed since then fails when it is reached, as in the first reader. */
static RcReader *
chain_reopen (const RcReader * reader, RcReaderFlags flags, GError ** error)
{
  const ChainReader *from = (const ChainReader *) reader;
  ChainReader *self = chain_new (flags, from->n_parts);

  rc_reader_copy_topics (&self->parent, reader);
  self->parent.format_name = reader->format_name;
  self->parent.recovery = reader->recovery;
  for (guint k = 0; k < self->n_parts; k++) {
    const ChainPart *p = &from->parts[k];
    ChainPart *copy = &self->parts[k];

    copy->path = g_strdup (p->path);
    copy->first_time = p->first_time;
    copy->last_time = p->last_time;
    copy->n_messages = p->n_messages;
    copy->index_base = p->index_base;
    copy->topic_map = g_array_ref (p->topic_map);
  }
  chain_seek (&self->parent, 0);
  return &self->parent;
}
