/* The ros2msg schema parser (gst/formats/msgschema.h): the forms it must
 * take, and each error with the line and type it names. */
#include <glib.h>
#include <string.h>

#include "formats/msgschema.h"
#include "formats/reader.h"
#include "ros2msg-tests.h"

static RcMsgSchema *
parse (const gchar * type, const gchar * text, GError ** error)
{
  return rc_msg_schema_parse (type, text, strlen (text), error);
}

/* Both MSG forms, bare names of the same package, a bare Header, defaults,
 * constants, comments, blank lines, CRLF, a MSG section with no '=' line
 * before it, an unused section naming an unknown type, and a NUL ending
 * the text early. */
static void
test_forms (void)
{
  const gchar text[] =
      "  # comment\n\n"
      "Header header\r\n"
      "Point p   # trailing comment\n"
      "geometry_msgs/Point[<=3] more\n"
      "float64 x 0.5\n"
      "int32 LIMIT = -1\n"
      "string S=\"a = b\"\n"
      "==========\n"
      "MSG: std_msgs/Header\n"
      "builtin_interfaces/msg/Time stamp\n"
      "string frame_id\n"
      "==========\n"
      "MSG: builtin_interfaces/msg/Time\n"
      "int32 sec\n"
      "uint32 nanosec\n"
      "MSG: geometry_msgs/msg/Point\n"
      "float64 x\nfloat64 y\nfloat64 z\n"
      "==========\n"
      "MSG: other_msgs/Unused\n" "no_such/Type t\n" "\0garbage after a NUL\n";
  GError *error = NULL;
  RcMsgSchema *schema = rc_msg_schema_parse ("geometry_msgs/Thing", text,
      sizeof (text) - 1, &error);
  const RcMsgType *root;
  const RcMsgField *f;

  g_assert_no_error (error);
  root = rc_msg_schema_root (schema);
  g_assert_cmpstr (root->name, ==, "geometry_msgs/msg/Thing");
  g_assert_cmpuint (root->n_fields, ==, 4);
  f = rc_msg_type_find_field (root, "header");
  g_assert_cmpstr (f->type->name, ==, "std_msgs/msg/Header");
  g_assert_cmpuint (f->line, ==, 3);
  f = rc_msg_type_find_field (root, "p");
  g_assert_cmpstr (f->type->name, ==, "geometry_msgs/msg/Point");
  g_assert_cmpuint (f->type->min_size, ==, 24);
  f = rc_msg_type_find_field (root, "more");
  g_assert_true (f->shape == RC_MSG_SEQUENCE && f->length == 3);
  g_assert_null (rc_msg_type_find_field (root, "LIMIT"));
  g_assert_null (rc_msg_type_find_field (root, "S"));
  /* 8 + 4 (header) + 24 + 4 + 8 */
  g_assert_cmpuint (root->min_size, ==, 48);
  rc_msg_schema_free (schema);
}

/* The definitions of ros2types.h parse. */
static void
test_builtin_definitions (void)
{
  const gchar *types[] = { RC_ROS2_TYPE_POINT_CLOUD2,
    RC_ROS2_TYPE_JOINT_STATE, RC_ROS2_TYPE_IMAGE
  };

  for (guint i = 0; i < G_N_ELEMENTS (types); i++) {
    GError *error = NULL;
    RcMsgSchema *schema = parse (types[i],
        rc_ros2_type_definition (types[i]), &error);

    g_assert_no_error (error);
    g_assert_cmpstr (rc_msg_schema_root (schema)->name, ==, types[i]);
    rc_msg_schema_free (schema);
  }
}

/* *INDENT-OFF* */
static const struct
{
  const gchar *text;
  gint code;
  const gchar *message;         /* a part of the error message */
} bad_schemas[] = {
  {"int32 a\nfoo/Bar x\n", RC_READER_ERROR_FORMAT,
   "line 2 (in a_msgs/msg/A): field 'x' has the unknown type foo/msg/Bar"},
  {"Header header\n", RC_READER_ERROR_FORMAT,
   "line 1 (in a_msgs/msg/A): field 'header' has the unknown type "
   "std_msgs/msg/Header (no 'MSG: std_msgs/msg/Header' section)"},
  {"time stamp\n", RC_READER_ERROR_FORMAT, "unknown type a_msgs/msg/time"},
  {"int32 x\nA[] children\n", RC_READER_ERROR_FORMAT,
   "line 2 (in a_msgs/msg/A): field 'children' makes type a_msgs/msg/A "
   "contain itself"},
  {"B b\n===\nMSG: a_msgs/B\nC c\n===\nMSG: a_msgs/msg/C\nint8 x\nB[2] b\n",
   RC_READER_ERROR_FORMAT,
   "line 8 (in a_msgs/msg/C): field 'b' makes type a_msgs/msg/B contain"},
  {"garbage\n", RC_READER_ERROR_FORMAT,
   "line 1 (in a_msgs/msg/A): 'garbage' is not a field"},
  {"int32 9x\n", RC_READER_ERROR_FORMAT, "line 1 (in a_msgs/msg/A): field "
   "name '9x'"},
  {"int32 x-y\n", RC_READER_ERROR_FORMAT, "field name 'x-y'"},
  {"int32 a\n\n\x01\x02 \xff\xfe\n", RC_READER_ERROR_FORMAT, "line 3"},
  {"uint8[abc] x\n", RC_READER_ERROR_FORMAT, "array size 'abc'"},
  {"uint8[0] x\n", RC_READER_ERROR_FORMAT, "array size '0'"},
  {"uint8[4294967296] x\n", RC_READER_ERROR_FORMAT, "array size"},
  {"uint8[<=] x\n", RC_READER_ERROR_FORMAT, "array bound ''"},
  {"uint8[3 x\n", RC_READER_ERROR_FORMAT, "malformed array suffix"},
  {"string<=0 s\n", RC_READER_ERROR_FORMAT, "string bound '0'"},
  {"a/b/c/d x\n", RC_READER_ERROR_FORMAT, "'a/b/c/d' is not a type name"},
  {"int32 a\nwstring w\n", RC_READER_ERROR_UNSUPPORTED,
   "line 2 (in a_msgs/msg/A): field 'w' is a wstring"},
  {"wstring<=4[] w\n", RC_READER_ERROR_UNSUPPORTED, "wstring"},
  {"int32 a\n=====\nint32 b\n", RC_READER_ERROR_FORMAT,
   "line 3 (in a_msgs/msg/A): 'int32 b' follows a line of '='"},
  {"int32 a\n=====\nMSG: Nopkg\n", RC_READER_ERROR_FORMAT,
   "line 3 (in a_msgs/msg/A): 'MSG: Nopkg' does not name a type"},
  {"int32 a\nint32 a\n", RC_READER_ERROR_FORMAT,
   "line 2 (in a_msgs/msg/A): field 'a' is defined twice"},
  {"B b\nMSG: a_msgs/B\nint8 x\nMSG: a_msgs/msg/B\nint8 y\n",
   RC_READER_ERROR_FORMAT, "line 4 (in a_msgs/msg/B): type a_msgs/msg/B is "
   "defined twice"},
};
/* *INDENT-ON* */

static void
test_errors (void)
{
  for (guint i = 0; i < G_N_ELEMENTS (bad_schemas); i++) {
    GError *error = NULL;

    g_test_message ("schema %u: %s", i, bad_schemas[i].text);
    g_assert_null (parse ("a_msgs/A", bad_schemas[i].text, &error));
    g_assert_error (error, RC_READER_ERROR, bad_schemas[i].code);
    if (!strstr (error->message, bad_schemas[i].message))
      g_error ("'%s' does not say '%s'", error->message,
          bad_schemas[i].message);
    g_error_free (error);
  }
}

/* A chain of nested types deeper than RC_MSG_MAX_DEPTH is refused. */
static void
test_too_deep (void)
{
  GString *text = g_string_new ("T0 t\n");
  GError *error = NULL;

  for (guint i = 0; i <= RC_MSG_MAX_DEPTH; i++)
    g_string_append_printf (text, "===\nMSG: a_msgs/T%u\nT%u t\n", i, i + 1);
  g_string_append_printf (text, "===\nMSG: a_msgs/T%u\nint8 x\n",
      RC_MSG_MAX_DEPTH + 1);
  g_assert_null (parse ("a_msgs/A", text->str, &error));
  g_assert_error (error, RC_READER_ERROR, RC_READER_ERROR_UNSUPPORTED);
  g_assert_nonnull (strstr (error->message, "more than"));
  g_clear_error (&error);
  g_string_free (text, TRUE);
}

/* JointState as rosbag2 stores it in IDL (schema encoding "ros2idl"),
 * for types generated from .idl files. */
static const gchar joint_state_idl[] =
    "================================================================"
    "================\n"
    "IDL: sensor_msgs/msg/JointState\n"
    "module sensor_msgs { module msg { struct JointState {\n"
    "  std_msgs::msg::Header header; sequence<string> name;\n"
    "  sequence<double> position; sequence<double> velocity;\n"
    "  sequence<double> effort; }; }; };\n"
    "================================================================"
    "================\n"
    "IDL: std_msgs/msg/Header\n"
    "module std_msgs { module msg { struct Header {\n"
    "  builtin_interfaces::msg::Time stamp; string frame_id; }; }; };\n"
    "================================================================"
    "================\n"
    "IDL: builtin_interfaces/msg/Time\n"
    "module builtin_interfaces { module msg { struct Time {\n"
    "  int32 sec; uint32 nanosec; }; }; };\n";

/* A schema in an encoding other than ros2msg is not parsed: the type's
 * builtin definition reads its messages.  The same text said to be
 * ros2msg is parsed, and refused. */
static void
test_other_encodings (void)
{
  const gchar *encodings[] = { "ros2idl", "omgidl", "", NULL };
  GError *error = NULL;

  for (guint i = 0; i < G_N_ELEMENTS (encodings); i++) {
    RcRos2Decoder *decoder = rc_ros2_decoder_new (RC_ROS2_TYPE_JOINT_STATE,
        encodings[i], joint_state_idl, strlen (joint_state_idl), &error);
    RcJointState want, got;
    gsize size;
    guint8 *msg;

    g_assert_no_error (error);
    g_assert_nonnull (decoder);
    random_joints (&want, i);
    msg = encode_joints (&want, FALSE, FALSE, &size);
    g_assert_true (rc_ros2_parse_joint_state (decoder, msg, size, &got,
            &error));
    g_assert_no_error (error);
    g_assert_cmpuint (got.header.stamp, ==, want.header.stamp);
    g_assert_cmpstr (got.header.frame_id, ==, want.header.frame_id);
    g_assert_cmpuint (got.n_names, ==, want.n_names);
    g_assert_cmpuint (got.n_position, ==, want.n_position);
    g_assert_cmpmem (got.effort, got.n_effort * sizeof (gdouble),
        want.effort, want.n_effort * sizeof (gdouble));
    rc_ros_joint_state_clear (&got);
    rc_ros_joint_state_clear (&want);
    g_free (msg);
    rc_ros2_decoder_free (decoder);
  }
  g_assert_null (rc_ros2_decoder_new (RC_ROS2_TYPE_JOINT_STATE, "ros2msg",
          joint_state_idl, strlen (joint_state_idl), &error));
  g_assert_error (error, RC_READER_ERROR, RC_READER_ERROR_FORMAT);
  g_assert_nonnull (strstr (error->message, "IDL: sensor_msgs/msg/"));
  g_clear_error (&error);
}

/* Decoders: no schema and no builtin definition; a schema in another
 * encoding and no builtin definition, naming the encoding and what is
 * read; a schema error passed on. */
static void
test_decoder_errors (void)
{
  GError *error = NULL;

  g_assert_null (rc_ros2_decoder_new ("geometry_msgs/msg/Pose", NULL, NULL,
          0, &error));
  g_assert_error (error, RC_READER_ERROR, RC_READER_ERROR_UNSUPPORTED);
  g_assert_nonnull (strstr (error->message, "geometry_msgs/msg/Pose"));
  g_clear_error (&error);
  g_assert_null (rc_ros2_decoder_new ("geometry_msgs/msg/Pose", "ros2idl",
          joint_state_idl, strlen (joint_state_idl), &error));
  g_assert_error (error, RC_READER_ERROR, RC_READER_ERROR_UNSUPPORTED);
  g_assert_nonnull (strstr (error->message, "geometry_msgs/msg/Pose: the "
          "file stores its schema in encoding \"ros2idl\", which robocache "
          "does not read (only \"ros2msg\")"));
  g_clear_error (&error);
  g_assert_null (rc_ros2_decoder_new ("sensor_msgs/Image", "ros2msg",
          "foo/Bar x\n", 10, &error));
  g_assert_error (error, RC_READER_ERROR, RC_READER_ERROR_FORMAT);
  g_clear_error (&error);
}

void
add_schema_tests (void)
{
  g_test_add_func ("/ros2msg/schema/forms", test_forms);
  g_test_add_func ("/ros2msg/schema/builtin", test_builtin_definitions);
  g_test_add_func ("/ros2msg/schema/errors", test_errors);
  g_test_add_func ("/ros2msg/schema/too-deep", test_too_deep);
  g_test_add_func ("/ros2msg/schema/other-encodings", test_other_encodings);
  g_test_add_func ("/ros2msg/schema/decoder-errors", test_decoder_errors);
}
