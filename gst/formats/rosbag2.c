/* rosbag2's metadata.yaml (rosbag2.h). */
#include "rosbag2.h"
#include "reader.h"

#include <string.h>

/* A YAML scalar: plain where rosbag2's names are (letters, digits, '/',
 * '_', '.', '-' not first), else double-quoted with escapes. */
static void
append_scalar (GString * s, const gchar * text)
{
  gboolean plain = text[0] && text[0] != '-' && text[0] != '.';

  for (const gchar * p = text; *p && plain; p++)
    plain = g_ascii_isalnum (*p) || strchr ("/_.-", *p);
  if (plain) {
    g_string_append (s, text);
    return;
  }
  g_string_append_c (s, '"');
  for (const gchar * p = text; *p; p++) {
    if (*p == '"' || *p == '\\')
      g_string_append_printf (s, "\\%c", *p);
    else if ((guchar) * p < 0x20)
      g_string_append_printf (s, "\\x%02x", (guchar) * p);
    else
      g_string_append_c (s, *p);
  }
  g_string_append_c (s, '"');
}

static void
append_topics (GString * s, const RcRosbag2Topic * topics, guint n_topics)
{
  g_string_append (s, "  topics_with_message_count:\n");
  for (guint i = 0; i < n_topics; i++) {
    g_string_append (s, "    - topic_metadata:\n        name: ");
    append_scalar (s, topics[i].name);
    g_string_append (s, "\n        type: ");
    append_scalar (s, topics[i].type);
    g_string_append_printf (s, "\n        serialization_format: cdr\n"
        "        offered_qos_profiles: \"\"\n"
        "      message_count: %" G_GUINT64_FORMAT "\n",
        topics[i].message_count);
  }
  if (n_topics == 0)
    g_string_append (s, "    []\n");
}

gboolean
rc_rosbag2_write_metadata (const gchar * dir, const gchar * file_name,
    guint64 start, guint64 duration, guint64 message_count,
    const RcRosbag2Topic * topics, guint n_topics, GError ** error)
{
  GString *s = g_string_new ("rosbag2_bagfile_information:\n"
      "  version: 5\n  storage_identifier: mcap\n");
  gchar *path = g_build_filename (dir, "metadata.yaml", NULL);
  GError *err = NULL;
  gboolean ok;

  g_string_append_printf (s, "  duration:\n    nanoseconds: %"
      G_GUINT64_FORMAT "\n  starting_time:\n    nanoseconds_since_epoch: %"
      G_GUINT64_FORMAT "\n  message_count: %" G_GUINT64_FORMAT "\n",
      duration, start, message_count);
  append_topics (s, topics, n_topics);
  g_string_append (s, "  compression_format: \"\"\n"
      "  compression_mode: \"\"\n  relative_file_paths:\n    - ");
  append_scalar (s, file_name);
  g_string_append (s, "\n  files:\n    - path: ");
  append_scalar (s, file_name);
  g_string_append_printf (s, "\n      starting_time:\n"
      "        nanoseconds_since_epoch: %" G_GUINT64_FORMAT "\n"
      "      duration:\n        nanoseconds: %" G_GUINT64_FORMAT "\n"
      "      message_count: %" G_GUINT64_FORMAT "\n", start, duration,
      message_count);
  ok = g_file_set_contents (path, s->str, s->len, &err);
  if (!ok) {
    g_set_error (error, RC_READER_ERROR, RC_READER_ERROR_IO, "%s",
        err->message);
    g_error_free (err);
  }
  g_string_free (s, TRUE);
  g_free (path);
  return ok;
}
