/* ROS 1 bags behind reader.h: the bag's connections become topics (one per
 * topic name; connections of one name that differ in type or md5sum make
 * a topic of several definitions, reader.h), its index (or, for a
 * recording cut off, what a scan of its chunks found) the message order. */
#include "reader-impl.h"
#include "robocachebag.h"

#include <string.h>

typedef struct
{
  RcReader parent;
  RcBag *bag;
  guint *topic_of;              /* per connection: its topic */
  gsize next;                   /* the next index entry */
} BagReader;

/* A topic recorded by several connections (publishers) takes the type of
 * the last one, as robocachebagsrc always did; the type and md5sum of
 * each are its definition, as ROS 1 decodes by them. */
static void
add_definition (BagReader * self, guint topic, const RcBagConnection * conn)
{
  const gchar *md5sum = conn->md5sum ? conn->md5sum : "";
  /* Two strings without NULs: the first's NUL ends it in the key. */
  gsize type_size = strlen (conn->type) + 1;
  gsize size = type_size + strlen (md5sum);
  gchar *key = g_malloc (size);
  gchar *label = g_strdup_printf ("%s (md5sum %s)", conn->type,
      conn->md5sum ? conn->md5sum : "none");

  memcpy (key, conn->type, type_size);
  memcpy (key + type_size, md5sum, size - type_size);
  rc_reader_add_topic_definition (&self->parent, topic, label, key, size);
  g_free (label);
  g_free (key);
}

static void
add_topics (BagReader * self)
{
  RcReader *reader = &self->parent;
  guint n = rc_bag_n_connections (self->bag);
  GHashTable *last_of_name = g_hash_table_new (g_str_hash, g_str_equal);
  GHashTable *topic_of_name = g_hash_table_new (g_str_hash, g_str_equal);

  for (guint c = 0; c < n; c++) {
    const RcBagConnection *conn = rc_bag_get_connection (self->bag, c);
    g_hash_table_insert (last_of_name, conn->topic, (gpointer) conn);
  }
  self->topic_of = g_new (guint, MAX (n, 1));
  for (guint c = 0; c < n; c++) {
    const gchar *name = rc_bag_get_connection (self->bag, c)->topic;
    gpointer topic;

    if (!g_hash_table_lookup_extended (topic_of_name, name, NULL, &topic)) {
      const RcBagConnection *last = g_hash_table_lookup (last_of_name, name);

      topic = GUINT_TO_POINTER (rc_reader_add_topic (reader, name,
              last->type, "ros1"));
      g_hash_table_insert (topic_of_name, (gpointer) name, topic);
    }
    self->topic_of[c] = GPOINTER_TO_UINT (topic);
    add_definition (self, self->topic_of[c],
        rc_bag_get_connection (self->bag, c));
  }
  g_hash_table_unref (topic_of_name);
  g_hash_table_unref (last_of_name);
}

/* Message counts and times per topic, from the index (sorted by time). */
static void
count_messages (BagReader * self)
{
  for (gsize i = 0; i < rc_bag_n_entries (self->bag); i++) {
    const RcBagEntry *e = rc_bag_get_entry (self->bag, i);
    RcTopic *t = rc_reader_topic (&self->parent, self->topic_of[e->connection]);

    if (t->n_messages++ == 0)
      t->first_time = e->time;
    t->last_time = e->time;
  }
}

static RcReaderResult
bag_reader_next (RcReader * reader, RcMessage * message, GError ** error)
{
  BagReader *self = (BagReader *) reader;
  const RcBagEntry *e;

  do {
    if (self->next >= rc_bag_n_entries (self->bag))
      return RC_READER_END;
    message->index = self->next;
    e = rc_bag_get_entry (self->bag, self->next++);
    message->topic = self->topic_of[e->connection];
  } while (!rc_reader_topic_is_selected (reader, message->topic));

  message->type = rc_reader_get_topic (reader, message->topic)->type;
  message->time = e->time;
  if (!rc_bag_read (self->bag, e, &message->data, &message->size, error))
    return RC_READER_FAILED;
  return RC_READER_OK;
}

static void
bag_reader_seek (RcReader * reader, guint64 time)
{
  BagReader *self = (BagReader *) reader;

  self->next = rc_bag_lower_bound (self->bag, time);
}

static void
bag_reader_clear (RcReader * reader)
{
  BagReader *self = (BagReader *) reader;

  g_free (self->topic_of);
  rc_bag_free (self->bag);
}

static const RcReaderFuncs bag_reader_funcs = {
  bag_reader_next,
  bag_reader_seek,
  bag_reader_clear,
};

RcReader *
rc_bag_reader_open (const guint8 * data, gsize size, RcReaderFlags flags,
    GError ** error)
{
  RcBag *bag = rc_bag_open_data (data, size, 0, error);
  BagReader *self;

  if (!bag)
    return NULL;
  self = g_new0 (BagReader, 1);
  rc_reader_init (&self->parent, &bag_reader_funcs);
  self->bag = bag;
  self->parent.recovery = *rc_bag_get_recovery (bag);
  add_topics (self);
  count_messages (self);
  return &self->parent;
}
