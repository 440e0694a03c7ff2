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

/* The topics of @wanted (comma-separated) into @topics; FALSE (and an
 * element error) if one is missing, unsupported or listed twice. */
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
    if (!topic) {
      GST_ELEMENT_ERROR (element, RESOURCE, NOT_FOUND, ("topic %s is not in "
              "%s", *n, location), (NULL));
      goto out;
    }
    if (!gst_robocache_ros_topic_is_playable (topic)) {
      GST_ELEMENT_ERROR (element, STREAM, CODEC_NOT_FOUND, ("topic %s is of "
              "type %s (encoding %s); played are "
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

/* Every topic of a supported type into @topics, in name order; the others
 * are warned about. */
static void
add_supported_topics (GstElement * element, RcReader * reader,
    GPtrArray * topics, guint64 * skipped_messages)
{
  GString *skipped = g_string_new (NULL);

  for (guint t = 0; t < rc_reader_n_topics (reader); t++) {
    const RcTopic *topic = rc_reader_get_topic (reader, t);

    if (gst_robocache_ros_topic_is_playable (topic)) {
      g_ptr_array_add (topics, (gpointer) topic);
      continue;
    }
    g_string_append_printf (skipped, "%s%s (%s)", skipped->len ? ", " : "",
        topic->name, topic->type);
    GST_OBJECT_LOCK (element);
    *skipped_messages += topic->n_messages;
    GST_OBJECT_UNLOCK (element);
  }
  g_ptr_array_sort (topics, compare_topic_names);
  if (skipped->len)
    GST_ELEMENT_WARNING (element, STREAM, CODEC_NOT_FOUND, ("skipping topics "
            "of unsupported types: %s", skipped->str), (NULL));
  g_string_free (skipped, TRUE);
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
    GST_ELEMENT_ERROR (element, STREAM, CODEC_NOT_FOUND, ("%s has no topic to "
            "play; played are " GST_ROBOCACHE_ROS_TYPES_PLAYED, location),
        (NULL));
    g_clear_pointer (&topics, g_ptr_array_unref);
  }
  return topics;
}
