/* rosdump [--topics] FILE...: the messages of a recording (any format
 * reader.h reads; several FILEs: the files of one split recording, in
 * order, read as one)
 * that robocache plays, decoded by gst/formats/ (ros1msg.h, ros2msg.h),
 * as JSON lines in record-time order: first {"format", "recovered",
 * "topics": [{"name", "type", "encoding", "messages"}]}, then per message
 * {"topic", "log_time", "stamp", "frame_id", ...the message's values}, in
 * the form tests/mcap/write-samples.js writes its expectations
 * (tests/mcap/compare.py compares them; a topic recorded with several
 * definitions, reader.h, has "definitions": N and its list as
 * "definition_list"); with --topics the first line only.  Exit status 1
 * with the error on stderr when the file or a message cannot be read, or
 * a topic has several definitions (the element refuses such a topic). */
#include <glib.h>
#include <string.h>

#include "formats/reader.h"
#include "formats/ros1msg.h"
#include "formats/ros2msg.h"

typedef enum
{
  KIND_NONE,
  KIND_POINTS,
  KIND_JOINTS,
  KIND_IMAGE
} Kind;

typedef struct
{
  Kind kind;
  RcRos2Decoder *cdr;           /* NULL for ROS 1 messages */
} Topic;

static Kind
kind_of (const RcTopic * topic)
{
  gchar *type = rc_ros2_type_canonical (topic->type);
  Kind kind = KIND_NONE;

  if (!strcmp (type, RC_ROS2_TYPE_POINT_CLOUD2))
    kind = KIND_POINTS;
  else if (!strcmp (type, RC_ROS2_TYPE_JOINT_STATE))
    kind = KIND_JOINTS;
  else if (!strcmp (type, RC_ROS2_TYPE_IMAGE))
    kind = KIND_IMAGE;
  g_free (type);
  if (strcmp (topic->encoding, "cdr") && strcmp (topic->encoding, "ros1"))
    kind = KIND_NONE;
  return kind;
}

static void
append_string (GString * out, const gchar * key, const gchar * value)
{
  gchar *escaped = g_strescape (value, NULL);

  g_string_append_printf (out, ", \"%s\": \"%s\"", key, escaped);
  g_free (escaped);
}

static void
append_doubles (GString * out, const gchar * key, const gdouble * v, guint n)
{
  g_string_append_printf (out, ", \"%s\": [", key);
  for (guint i = 0; i < n; i++)
    g_string_append_printf (out, "%s%.17g", i ? ", " : "", v[i]);
  g_string_append (out, "]");
}

static void
append_data (GString * out, const guint8 * data, gsize size)
{
  gchar *sum = g_compute_checksum_for_data (G_CHECKSUM_SHA256, data, size);

  g_string_append_printf (out, ", \"data_sha256\": \"%s\", "
      "\"data_length\": %" G_GSIZE_FORMAT, sum, size);
  g_free (sum);
}

static void
append_header (GString * out, const RcRosHeader * header)
{
  g_string_append_printf (out, ", \"stamp\": \"%" G_GUINT64_FORMAT "\"",
      header->stamp);
  append_string (out, "frame_id", header->frame_id ? header->frame_id : "");
}

static gboolean
dump_points (const Topic * t, const RcMessage * m, GString * out,
    GError ** error)
{
  RcPointCloud2 msg;

  if (t->cdr ? !rc_ros2_parse_point_cloud2 (t->cdr, m->data, m->size, &msg,
          error) : !rc_ros1_parse_point_cloud2 (m->data, m->size, &msg, error))
    return FALSE;
  append_header (out, &msg.header);
  g_string_append_printf (out, ", \"height\": %u, \"width\": %u, "
      "\"point_step\": %u, \"row_step\": %u, \"is_dense\": %s, "
      "\"fields\": [", msg.height, msg.width, msg.point_step, msg.row_step,
      msg.is_dense ? "true" : "false");
  for (guint i = 0; i < msg.n_fields; i++)
    g_string_append_printf (out, "%s{\"name\": \"%s\", \"offset\": %u, "
        "\"datatype\": %u, \"count\": %u}", i ? ", " : "",
        msg.fields[i].name, msg.fields[i].offset, msg.fields[i].datatype,
        msg.fields[i].count);
  g_string_append (out, "]");
  append_data (out, msg.data, msg.data_size);
  rc_ros_point_cloud2_clear (&msg);
  return TRUE;
}

static gboolean
dump_joints (const Topic * t, const RcMessage * m, GString * out,
    GError ** error)
{
  RcJointState msg;

  if (t->cdr ? !rc_ros2_parse_joint_state (t->cdr, m->data, m->size, &msg,
          error) : !rc_ros1_parse_joint_state (m->data, m->size, &msg, error))
    return FALSE;
  append_header (out, &msg.header);
  g_string_append (out, ", \"name\": [");
  for (guint i = 0; i < msg.n_names; i++) {
    gchar *escaped = g_strescape (msg.names[i], NULL);

    g_string_append_printf (out, "%s\"%s\"", i ? ", " : "", escaped);
    g_free (escaped);
  }
  g_string_append (out, "]");
  append_doubles (out, "position", msg.position, msg.n_position);
  append_doubles (out, "velocity", msg.velocity, msg.n_velocity);
  append_doubles (out, "effort", msg.effort, msg.n_effort);
  rc_ros_joint_state_clear (&msg);
  return TRUE;
}

static gboolean
dump_image (const Topic * t, const RcMessage * m, GString * out,
    GError ** error)
{
  RcImage msg;

  if (t->cdr ? !rc_ros2_parse_image (t->cdr, m->data, m->size, &msg,
          error) : !rc_ros1_parse_image (m->data, m->size, &msg, error))
    return FALSE;
  append_header (out, &msg.header);
  g_string_append_printf (out, ", \"height\": %u, \"width\": %u",
      msg.height, msg.width);
  append_string (out, "encoding", msg.encoding);
  g_string_append_printf (out, ", \"step\": %u", msg.step);
  append_data (out, msg.data, msg.data_size);
  rc_ros_image_clear (&msg);
  return TRUE;
}

static void
print_topics (RcReader * reader)
{
  RcReaderRecovery recovery;
  GString *out = g_string_new (NULL);

  rc_reader_get_recovery (reader, &recovery);
  g_string_printf (out, "{\"format\": \"%s\", \"recovered\": %s, "
      "\"topics\": [", rc_reader_format_name (reader),
      recovery.scanned ? "true" : "false");
  for (guint i = 0; i < rc_reader_n_topics (reader); i++) {
    const RcTopic *t = rc_reader_get_topic (reader, i);

    g_string_append_printf (out, "%s{\"name\": \"%s\", \"type\": \"%s\", "
        "\"encoding\": \"%s\", \"messages\": %" G_GUINT64_FORMAT,
        i ? ", " : "", t->name, t->type, t->encoding, t->n_messages);
    if (t->n_definitions > 1) {
      g_string_append_printf (out, ", \"definitions\": %u", t->n_definitions);
      append_string (out, "definition_list", t->definitions);
    }
    g_string_append (out, "}");
  }
  g_print ("%s]}\n", out->str);
  g_string_free (out, TRUE);
}

static Topic *
open_topics (RcReader * reader, GError ** error)
{
  guint n = rc_reader_n_topics (reader);
  Topic *topics = g_new0 (Topic, MAX (n, 1));

  for (guint i = 0; i < n; i++) {
    const RcTopic *rt = rc_reader_get_topic (reader, i);

    /* Its type and schema are those of one publisher only. */
    if (rt->n_definitions > 1) {
      g_set_error (error, RC_READER_ERROR, RC_READER_ERROR_UNSUPPORTED,
          "topic %s is recorded with %u different definitions: %s; a topic "
          "is decoded only when all its channels or connections share one",
          rt->name, rt->n_definitions, rt->definitions);
      return topics;
    }
    topics[i].kind = kind_of (rt);
    rc_reader_select_topic (reader, i, topics[i].kind != KIND_NONE);
    if (topics[i].kind == KIND_NONE || strcmp (rt->encoding, "cdr"))
      continue;
    topics[i].cdr = rc_ros2_decoder_new (rt->type, rt->schema_encoding,
        rt->schema, rt->schema_size, error);
    if (!topics[i].cdr)
      return topics;
  }
  return topics;
}

static gboolean
dump_messages (RcReader * reader, const Topic * topics, GError ** error)
{
  typedef gboolean (*DumpFunc) (const Topic *, const RcMessage *, GString *,
      GError **);
  static const DumpFunc dump[] = {
    NULL, dump_points, dump_joints, dump_image
  };
  RcMessage m;
  GString *out = g_string_new (NULL);
  RcReaderResult res;

  while ((res = rc_reader_next (reader, &m, error)) == RC_READER_OK) {
    const Topic *t = &topics[m.topic];
    gchar *name = g_strescape (rc_reader_get_topic (reader, m.topic)->name,
        NULL);

    g_string_printf (out, "{\"topic\": \"%s\", \"log_time\": \"%"
        G_GUINT64_FORMAT "\"", name, m.time);
    g_free (name);
    if (!dump[t->kind] (t, &m, out, error)) {
      res = RC_READER_FAILED;
      break;
    }
    g_print ("%s}\n", out->str);
  }
  g_string_free (out, TRUE);
  return res == RC_READER_END;
}

int
main (int argc, char **argv)
{
  GError *error = NULL;
  RcReader *reader;
  Topic *topics;
  gboolean ok, topics_only = argc > 1 && !strcmp (argv[1], "--topics");
  const gchar *const *paths = (const gchar * const *) argv + 1 + topics_only;
  const gchar *path = argv[argc - 1];

  if (!paths[0]) {
    g_printerr ("usage: %s [--topics] FILE...\n", argv[0]);
    return 2;
  }
  reader = rc_reader_open_files (paths, RC_READER_FLAGS_NONE, &error);
  if (!reader) {
    g_printerr ("%s: %s\n", path, error->message);
    return 1;
  }
  print_topics (reader);
  if (topics_only) {
    rc_reader_free (reader);
    return 0;
  }
  topics = open_topics (reader, &error);
  ok = !error && dump_messages (reader, topics, &error);
  if (!ok)
    g_printerr ("%s: %s\n", path, error ? error->message : "?");
  for (guint i = 0; i < rc_reader_n_topics (reader); i++)
    g_clear_pointer (&topics[i].cdr, rc_ros2_decoder_free);
  g_free (topics);
  g_clear_error (&error);
  rc_reader_free (reader);
  return ok ? 0 : 1;
}
