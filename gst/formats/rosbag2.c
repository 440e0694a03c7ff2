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

/* @text without surrounding spaces and quotes (YAML's single quotes
 * double a quote inside; rosbag2's names have none). */
static gchar *
unquote (const gchar * text)
{
  gchar *s = g_strstrip (g_strdup (text));
  gsize n = strlen (s);

  if (n >= 2 && (s[0] == '"' || s[0] == '\'') && s[n - 1] == s[0]) {
    memmove (s, s + 1, n - 2);
    s[n - 2] = '\0';
  }
  return s;
}

/* Appends the names of a flow sequence "[a, b]" to @files. */
static void
add_flow_items (GPtrArray * files, const gchar * flow)
{
  gchar *inner = g_strndup (flow + 1, strlen (flow) - 2);
  gchar **items = g_strsplit (inner, ",", -1);

  for (gchar ** item = items; *item; item++) {
    gchar *name = unquote (*item);

    if (*name)
      g_ptr_array_add (files, name);
    else
      g_free (name);
  }
  g_strfreev (items);
  g_free (inner);
}

static guint
indent_of (const gchar * line)
{
  guint n = 0;

  while (line[n] == ' ')
    n++;
  return n;
}

gchar **
rc_rosbag2_read_file_list (const gchar * dir)
{
  gchar *path = g_build_filename (dir, "metadata.yaml", NULL);
  gchar *text = NULL, **lines;
  GPtrArray *files = g_ptr_array_new_with_free_func (g_free);
  gint key_indent = -1;

  if (!g_file_get_contents (path, &text, NULL, NULL))
    text = g_strdup ("");
  lines = g_strsplit (text, "\n", -1);
  for (gchar ** line = lines; *line; line++) {
    const gchar *body = *line + indent_of (*line);
    gint indent = (gint) indent_of (*line);

    if (key_indent < 0) {
      if (!g_str_has_prefix (body, "relative_file_paths:"))
        continue;
      key_indent = indent;
      body = g_strstrip (*line + indent + strlen ("relative_file_paths:"));
      if (body[0] == '[' && g_str_has_suffix (body, "]")) {
        add_flow_items (files, body);
        break;
      }
      continue;
    }
    /* The block sequence's items, at the key's indentation or deeper;
     * blank and comment lines between them. */
    if (!*body || *body == '\r' || *body == '#')
      continue;
    if (indent < key_indent || !g_str_has_prefix (body, "- "))
      break;
    g_ptr_array_add (files, unquote (body + 2));
  }
  g_strfreev (lines);
  g_free (text);
  g_free (path);
  if (files->len == 0) {
    g_ptr_array_unref (files);
    return NULL;
  }
  g_ptr_array_add (files, NULL);
  return (gchar **) g_ptr_array_free (files, FALSE);
}
