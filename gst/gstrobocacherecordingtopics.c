/* Which topics of a recording the recording sources play
 * (gstrobocacherecordingtopics.h). */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstrobocacherecordingtopics.h"
#include "gstrobocacherosmsg.h"

#include <string.h>

static gint
compare_topic_names (gconstpointer a, gconstpointer b)
{
  const RcTopic *x = *(const RcTopic * const *) a;
  const RcTopic *y = *(const RcTopic * const *) b;

  return strcmp (x->name, y->name);
}

/* What is said of a topic recorded with several definitions. */
#define MIXED_ACCEPTED "a topic plays only when all its channels or " \
    "connections share one definition (type, message encoding and schema)"

/* For an error about a missing topic: where @reader scanned a file cut
 * off, that the topic may be in what was lost ("" otherwise).  The
 * warning that says so too is lost where the error stops the pipeline
 * before its bus is read (gst-launch-1.0). */
static const gchar *
cut_off_note (RcReader * reader)
{
  RcReaderRecovery r;

  rc_reader_get_recovery (reader, &r);
  return r.scanned ? " (it ends early, a recording cut off: only what "
      "scanning it recovered is there)" : "";
}

/* @topic's type, or what stands for none: an MCAP channel may have no
 * schema (schema id 0). */
static const gchar *
type_name (const RcTopic * topic)
{
  return topic->type && *topic->type ? topic->type : "no schema";
}

/* The names of the recording's topics, ", " between (the first
 * MAX_TOPICS_NAMED, then how many in all), for an error naming a topic
 * that is not there. */
#define MAX_TOPICS_NAMED 24

static gchar *
topic_names (const RcReader * reader)
{
  GString *names = g_string_new (NULL);
  guint n = rc_reader_n_topics (reader);

  for (guint t = 0; t < MIN (n, MAX_TOPICS_NAMED); t++)
    g_string_append_printf (names, "%s%s", t ? ", " : "",
        rc_reader_get_topic (reader, t)->name);
  if (n > MAX_TOPICS_NAMED)
    g_string_append_printf (names, ", ... (%u in all)", n);
  if (n == 0)
    g_string_append (names, "none");
  return g_string_free (names, FALSE);
}

/* The topics of @wanted (comma-separated) into @topics; FALSE (and an
 * element error) if one is missing, of several definitions, unsupported
 * or listed twice. */
static gboolean
add_requested_topics (GstElement * element, RcReader * reader,
    const gchar * location, const gchar * wanted, GPtrArray * topics)
{
  gchar **names = g_strsplit (wanted, ",", -1);
  gboolean ok = FALSE;

  for (gchar ** n = names; *n; n++) {
    const RcTopic *topic;

    g_strstrip (*n);
    if (!**n)
      continue;
    topic = rc_reader_find_topic (reader, *n);
    /* A cut-off file may hold a topic's connection and none of its
     * messages: as good as missing. */
    if (!topic || (topic->n_messages == 0 && *cut_off_note (reader))) {
      gchar *held = topic_names (reader);

      GST_ELEMENT_ERROR (element, RESOURCE, NOT_FOUND, ("topic %s is not in "
              "%s%s%s; its topics: %s", *n, location, topic ? " (its "
              "connection is, but no message of it)" : "",
              cut_off_note (reader), held), (NULL));
      g_free (held);
      goto out;
    }
    /* Before the type: the type is one channel's, not the topic's. */
    if (topic->n_definitions > 1) {
      GST_ELEMENT_ERROR (element, STREAM, WRONG_TYPE, ("topic %s of %s is "
              "recorded with %u different definitions: %s; "
              MIXED_ACCEPTED, *n, location, topic->n_definitions,
              topic->definitions), (NULL));
      goto out;
    }
    if (!gst_robocache_ros_topic_is_playable (topic)) {
      if (!topic->type || !*topic->type)
        GST_ELEMENT_ERROR (element, STREAM, CODEC_NOT_FOUND, ("topic %s has "
                "no schema (MCAP schema id 0, message encoding %s), so its "
                "type is not known; played are "
                GST_ROBOCACHE_ROS_TYPES_PLAYED, *n, topic->encoding), (NULL));
      else
        GST_ELEMENT_ERROR (element, STREAM, CODEC_NOT_FOUND, ("topic %s is "
                "of type %s (encoding %s); played are "
                GST_ROBOCACHE_ROS_TYPES_PLAYED, *n, topic->type,
                topic->encoding), (NULL));
      goto out;
    }
    if (g_ptr_array_find (topics, topic, NULL)) {
      GST_ELEMENT_ERROR (element, RESOURCE, SETTINGS, ("topic %s is listed "
              "twice in topics", *n), (NULL));
      goto out;
    }
    g_ptr_array_add (topics, (gpointer) topic);
  }
  ok = TRUE;
out:
  g_strfreev (names);
  return ok;
}

/* Every topic of a supported type and one definition into @topics, in
 * name order; the others are warned about. */
static void
add_supported_topics (GstElement * element, RcReader * reader,
    GPtrArray * topics, guint64 * skipped_messages)
{
  GString *skipped = g_string_new (NULL), *mixed = g_string_new (NULL);

  for (guint t = 0; t < rc_reader_n_topics (reader); t++) {
    const RcTopic *topic = rc_reader_get_topic (reader, t);

    if (topic->n_definitions > 1)
      g_string_append_printf (mixed, "%s%s (%s)", mixed->len ? ", " : "",
          topic->name, topic->definitions);
    else if (gst_robocache_ros_topic_is_playable (topic)) {
      g_ptr_array_add (topics, (gpointer) topic);
      continue;
    } else
      g_string_append_printf (skipped, "%s%s (%s)", skipped->len ? ", " : "",
          topic->name, type_name (topic));
    GST_OBJECT_LOCK (element);
    *skipped_messages += topic->n_messages;
    GST_OBJECT_UNLOCK (element);
  }
  g_ptr_array_sort (topics, compare_topic_names);
  if (skipped->len)
    GST_ELEMENT_WARNING (element, STREAM, CODEC_NOT_FOUND, ("skipping topics "
            "of unsupported types: %s", skipped->str), (NULL));
  if (mixed->len)
    GST_ELEMENT_WARNING (element, STREAM, WRONG_TYPE, ("skipping topics "
            "recorded with several definitions: %s; " MIXED_ACCEPTED,
            mixed->str), (NULL));
  g_string_free (skipped, TRUE);
  g_string_free (mixed, TRUE);
}

GPtrArray *
gst_robocache_recording_choose_topics (GstElement * element,
    RcReader * reader, const gchar * location, const gchar * wanted,
    guint64 * skipped_messages)
{
  GPtrArray *topics = g_ptr_array_new ();

  if (wanted && wanted[0]) {
    if (!add_requested_topics (element, reader, location, wanted,
            topics))
      g_clear_pointer (&topics, g_ptr_array_unref);
  } else {
    add_supported_topics (element, reader, topics, skipped_messages);
  }
  if (topics && topics->len == 0) {
    GST_ELEMENT_ERROR (element, STREAM, CODEC_NOT_FOUND, ("%s%s has no "
            "topic to play; played are " GST_ROBOCACHE_ROS_TYPES_PLAYED,
            location, cut_off_note (reader)), (NULL));
    g_clear_pointer (&topics, g_ptr_array_unref);
  }
  return topics;
}
