/* ROS 2 message definitions ("ros2msg" schema text, as rosbag2 and
 * Foxglove store them in MCAP) parsed into a table of types that the CDR
 * walker (cdr.h) follows.
 *
 * The text is the main type's .msg definition, then each type it uses
 * after a line of '=' characters and a line "MSG: pkg/Name" (or
 * "MSG: pkg/msg/Name").  A field line is "type name", optionally followed
 * by a default value (ignored); "type NAME=value" is a constant (skipped);
 * '#' starts a comment.  Types: bool, byte, char, int8 ... uint64, float32,
 * float64, string, string<=N, other messages as pkg/Name, pkg/msg/Name or
 * a bare Name (of the package of the type being defined; a bare Header is
 * std_msgs/Header), and arrays T[], T[N], T[<=N].  wstring is refused as
 * unsupported (its CDR form differs between DDS implementations), as are
 * ROS 1's time and duration (unknown types here).
 *
 * Only the types the main type uses are resolved: an unknown type, a
 * missing MSG section or a type that contains itself is an error there.
 * Errors are GErrors in RC_READER_ERROR naming the type and line. */
#ifndef __ROBOCACHE_MSGSCHEMA_H__
#define __ROBOCACHE_MSGSCHEMA_H__

#include <glib.h>

G_BEGIN_DECLS
/* Types nest at most this deep (a recursion guard for the walker). */
#define RC_MSG_MAX_DEPTH 32
    typedef enum
{
  RC_MSG_BOOL,
  RC_MSG_BYTE,
  RC_MSG_CHAR,
  RC_MSG_INT8,
  RC_MSG_UINT8,
  RC_MSG_INT16,
  RC_MSG_UINT16,
  RC_MSG_INT32,
  RC_MSG_UINT32,
  RC_MSG_INT64,
  RC_MSG_UINT64,
  RC_MSG_FLOAT32,
  RC_MSG_FLOAT64,
  RC_MSG_STRING,
  RC_MSG_NESTED                 /* another message type */
} RcMsgKind;

typedef enum
{
  RC_MSG_SINGLE,
  RC_MSG_FIXED_ARRAY,           /* T[N]: N elements, no count */
  RC_MSG_SEQUENCE               /* T[] or T[<=N]: a count, then elements */
} RcMsgShape;

typedef struct _RcMsgType RcMsgType;

typedef struct
{
  gchar *name;
  RcMsgKind kind;
  const RcMsgType *type;        /* RC_MSG_NESTED */
  guint32 string_bound;         /* string<=N: N; 0 when unbounded */
  RcMsgShape shape;
  guint32 length;               /* T[N]: N; T[<=N]: N; T[]: 0 */
  guint line;                   /* in the schema text, from 1 */
} RcMsgField;

struct _RcMsgType
{
  gchar *name;                  /* "pkg/msg/Name" */
  guint n_fields;
  RcMsgField *fields;
  /* The fewest bytes one value takes in CDR, alignment left out (an empty
   * type still takes one byte: ROS 2 gives it a dummy uint8). */
  guint64 min_size;
};

typedef struct _RcMsgSchema RcMsgSchema;

/* Parses @size bytes of ros2msg @text defining @type ("pkg/msg/Name" or
 * "pkg/Name"); NULL with @error set when it cannot. */
RcMsgSchema *rc_msg_schema_parse (const gchar * type, const gchar * text,
    gsize size, GError ** error);
void rc_msg_schema_free (RcMsgSchema * schema);

/* The main type. */
const RcMsgType *rc_msg_schema_root (const RcMsgSchema * schema);

/* The field named @name, or NULL. */
const RcMsgField *rc_msg_type_find_field (const RcMsgType * type,
    const gchar * name);

/* The CDR size of one primitive of @kind; 0 for strings and messages. */
guint rc_msg_kind_size (RcMsgKind kind);

/* The field's type as a .msg writes it ("uint8[]", "string<=8",
 * "std_msgs/msg/Header[4]"), newly allocated; with @with_bounds FALSE,
 * string and sequence bounds are left out ("uint8[]", "string"). */
gchar *rc_msg_field_type_string (const RcMsgField * field,
    gboolean with_bounds);

G_END_DECLS
#endif
