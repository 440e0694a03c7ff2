/* The ros2msg schema parser of msgschema.h.  The text is read in two
 * passes: every line into its section's fields (syntax errors anywhere are
 * reported), then the main type's nested types resolved depth first (so
 * that unknown types and recursion are found where they are used). */
#include "msgschema.h"
#include "reader-impl.h"
#include "ros2types.h"

#include <string.h>

typedef enum
{
  SECTION_UNRESOLVED,
  SECTION_RESOLVING,
  SECTION_RESOLVED
} SectionState;

/* One type of the text: the main one or a MSG section. */
typedef struct
{
  RcMsgType type;
  GArray *fields;               /* RcMsgField while parsing */
  GPtrArray *type_names;        /* per field: the nested type as written */
  SectionState state;
} Section;

struct _RcMsgSchema
{
  GPtrArray *sections;          /* Section, the main type first */
  GHashTable *by_name;          /* "pkg/msg/Name" -> Section */
};

/* Kept below G_MAXUINT32 so that products of sizes and counts fit. */
#define MAX_MIN_SIZE G_MAXUINT32

/* *INDENT-OFF* */
static const struct
{
  const gchar *name;
  RcMsgKind kind;
  guint size;
} primitives[] = {
  {"bool", RC_MSG_BOOL, 1},
  {"byte", RC_MSG_BYTE, 1},
  {"char", RC_MSG_CHAR, 1},
  {"int8", RC_MSG_INT8, 1},
  {"uint8", RC_MSG_UINT8, 1},
  {"int16", RC_MSG_INT16, 2},
  {"uint16", RC_MSG_UINT16, 2},
  {"int32", RC_MSG_INT32, 4},
  {"uint32", RC_MSG_UINT32, 4},
  {"int64", RC_MSG_INT64, 8},
  {"uint64", RC_MSG_UINT64, 8},
  {"float32", RC_MSG_FLOAT32, 4},
  {"float64", RC_MSG_FLOAT64, 8},
  {"string", RC_MSG_STRING, 0},
};
/* *INDENT-ON* */

guint
rc_msg_kind_size (RcMsgKind kind)
{
  for (guint i = 0; i < G_N_ELEMENTS (primitives); i++)
    if (primitives[i].kind == kind)
      return primitives[i].size;
  return 0;
}

static const gchar *
kind_name (RcMsgKind kind)
{
  for (guint i = 0; i < G_N_ELEMENTS (primitives); i++)
    if (primitives[i].kind == kind)
      return primitives[i].name;
  return "message";
}

gchar *
rc_msg_field_type_string (const RcMsgField * field, gboolean with_bounds)
{
  GString *s = g_string_new (field->kind == RC_MSG_NESTED ?
      field->type->name : kind_name (field->kind));

  if (field->kind == RC_MSG_STRING && field->string_bound && with_bounds)
    g_string_append_printf (s, "<=%u", field->string_bound);
  if (field->shape == RC_MSG_FIXED_ARRAY)
    g_string_append_printf (s, "[%u]", field->length);
  else if (field->shape == RC_MSG_SEQUENCE && field->length && with_bounds)
    g_string_append_printf (s, "[<=%u]", field->length);
  else if (field->shape == RC_MSG_SEQUENCE)
    g_string_append (s, "[]");
  return g_string_free (s, FALSE);
}

const RcMsgField *
rc_msg_type_find_field (const RcMsgType * type, const gchar * name)
{
  for (guint i = 0; i < type->n_fields; i++)
    if (!strcmp (type->fields[i].name, name))
      return &type->fields[i];
  return NULL;
}

const RcMsgType *
rc_msg_schema_root (const RcMsgSchema * schema)
{
  return &((Section *) schema->sections->pdata[0])->type;
}

static void
section_free (Section * section)
{
  RcMsgField *fields = section->fields ?
      (RcMsgField *) section->fields->data : section->type.fields;
  guint n = section->fields ? section->fields->len : section->type.n_fields;

  for (guint i = 0; i < n; i++)
    g_free (fields[i].name);
  if (section->fields)
    g_array_free (section->fields, TRUE);
  else
    g_free (section->type.fields);
  g_ptr_array_free (section->type_names, TRUE);
  g_free (section->type.name);
  g_free (section);
}

void
rc_msg_schema_free (RcMsgSchema * schema)
{
  if (!schema)
    return;
  g_hash_table_destroy (schema->by_name);
  g_ptr_array_free (schema->sections, TRUE);
  g_free (schema);
}

/* Sets @error to "@section's type, line @line of the schema: ...". */
static gboolean
G_GNUC_PRINTF (5, 6)
schema_fail (GError ** error, RcReaderError code, const Section * section,
    guint line, const gchar * format, ...)
{
  va_list args;
  gchar *what;

  va_start (args, format);
  what = g_strdup_vprintf (format, args);
  va_end (args);
  rc_reader_fail (error, code, "ros2msg schema, line %u (in %s): %s", line,
      section->type.name, what);
  g_free (what);
  return FALSE;
}

static gboolean
is_identifier (const gchar * s, gsize n)
{
  if (n == 0 || !g_ascii_isalpha (s[0]))
    return FALSE;
  for (gsize i = 1; i < n; i++)
    if (!g_ascii_isalnum (s[i]) && s[i] != '_')
      return FALSE;
  return TRUE;
}

/* A type name "Name", "pkg/Name" or "pkg/msg/Name". */
static gboolean
is_type_name (const gchar * s)
{
  gchar **parts = g_strsplit (s, "/", -1);
  guint n = g_strv_length (parts);
  gboolean ok = n >= 1 && n <= 3;

  for (guint i = 0; ok && i < n; i++)
    ok = is_identifier (parts[i], strlen (parts[i]));
  g_strfreev (parts);
  return ok;
}

/* @text, the @what ("array size") of @field, as an unsigned number from 1
 * to G_MAXUINT32 into @value. */
static gboolean
parse_bound (const gchar * text, const gchar * what, guint32 * value,
    const RcMsgField * field, const Section * s, GError ** error)
{
  guint64 v;

  if (!g_ascii_string_to_unsigned (text, 10, 1, G_MAXUINT32, &v, NULL))
    return schema_fail (error, RC_READER_ERROR_FORMAT, s, field->line,
        "%s '%s' is not a number from 1 to %u", what, text, G_MAXUINT32);
  *value = v;
  return TRUE;
}

/* The array suffix of @token ("[]", "[N]", "[<=N]"), cut off it. */
static gboolean
parse_array_suffix (gchar * token, RcMsgField * field, const Section * s,
    GError ** error)
{
  gchar *open = strchr (token, '[');
  gsize len = strlen (token);

  field->shape = RC_MSG_SINGLE;
  if (!open)
    return TRUE;
  if (token[len - 1] != ']')
    return schema_fail (error, RC_READER_ERROR_FORMAT, s, field->line,
        "type '%s' has a malformed array suffix", token);
  token[len - 1] = '\0';
  *open = '\0';
  if (open[1] == '\0') {
    field->shape = RC_MSG_SEQUENCE;
    return TRUE;
  }
  if (g_str_has_prefix (open + 1, "<=")) {
    field->shape = RC_MSG_SEQUENCE;
    return parse_bound (open + 3, "array bound", &field->length, field, s,
        error);
  }
  field->shape = RC_MSG_FIXED_ARRAY;
  return parse_bound (open + 1, "array size", &field->length, field, s, error);
}

/* The type @token of a field line into @field; the name of a nested type
 * into @type_name. */
static gboolean
parse_type (gchar * token, RcMsgField * field, gchar ** type_name,
    const Section * s, GError ** error)
{
  if (!parse_array_suffix (token, field, s, error))
    return FALSE;
  if (!strcmp (token, "wstring") || g_str_has_prefix (token, "wstring<="))
    return schema_fail (error, RC_READER_ERROR_UNSUPPORTED, s, field->line,
        "field '%s' is a wstring, which is not supported", field->name);
  if (g_str_has_prefix (token, "string<=")) {
    field->kind = RC_MSG_STRING;
    return parse_bound (token + 8, "string bound", &field->string_bound,
        field, s, error);
  }
  for (guint i = 0; i < G_N_ELEMENTS (primitives); i++) {
    if (!strcmp (token, primitives[i].name)) {
      field->kind = primitives[i].kind;
      return TRUE;
    }
  }
  if (!is_type_name (token))
    return schema_fail (error, RC_READER_ERROR_FORMAT, s, field->line,
        "'%s' is not a type name", token);
  field->kind = RC_MSG_NESTED;
  *type_name = g_strdup (token);
  return TRUE;
}

/* A field or constant line (stripped, not blank, not a comment). */
static gboolean
parse_field_line (Section * s, gchar * line, guint line_no, GError ** error)
{
  RcMsgField field = { NULL };
  gchar *type_name = NULL;
  gchar *name = line + strcspn (line, " \t");
  gsize name_len;

  if (*name == '\0')
    return schema_fail (error, RC_READER_ERROR_FORMAT, s, line_no,
        "'%s' is not a field ('type name')", line);
  *name++ = '\0';
  name += strspn (name, " \t");
  name_len = strspn (name, "abcdefghijklmnopqrstuvwxyz"
      "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_");
  /* "type NAME=value" or "type NAME = value": a constant */
  if (name[name_len + strspn (name + name_len, " \t")] == '=')
    return TRUE;
  if (!is_identifier (name, name_len) ||
      (name[name_len] != '\0' && !strchr (" \t#", name[name_len])))
    return schema_fail (error, RC_READER_ERROR_FORMAT, s, line_no,
        "field name '%s' is not a name", name);
  field.name = g_strndup (name, name_len);
  field.line = line_no;
  for (guint i = 0; i < s->fields->len; i++) {
    if (!strcmp (g_array_index (s->fields, RcMsgField, i).name, field.name)) {
      schema_fail (error, RC_READER_ERROR_FORMAT, s, line_no, "field '%s' "
          "is defined twice", field.name);
      g_free (field.name);
      return FALSE;
    }
  }
  if (!parse_type (line, &field, &type_name, s, error)) {
    g_free (field.name);
    return FALSE;
  }
  g_array_append_val (s->fields, field);
  g_ptr_array_add (s->type_names, type_name);
  return TRUE;
}

static Section *
add_section (RcMsgSchema * schema, gchar * name)
{
  Section *s = g_new0 (Section, 1);

  s->type.name = name;
  s->fields = g_array_new (FALSE, FALSE, sizeof (RcMsgField));
  s->type_names = g_ptr_array_new_with_free_func (g_free);
  g_ptr_array_add (schema->sections, s);
  g_hash_table_insert (schema->by_name, name, s);
  return s;
}

/* "MSG: pkg/Name": a new section, current from now on. */
static gboolean
parse_msg_line (RcMsgSchema * schema, const gchar * line, guint line_no,
    Section ** current, GError ** error)
{
  const gchar *name = line + 4;
  gchar *canonical;

  name += strspn (name, " \t");
  if (!is_type_name (name) || !strchr (name, '/'))
    return schema_fail (error, RC_READER_ERROR_FORMAT, *current, line_no,
        "'%s' does not name a type as pkg/Name or pkg/msg/Name", line);
  canonical = rc_ros2_type_canonical (name);
  if (g_hash_table_contains (schema->by_name, canonical)) {
    schema_fail (error, RC_READER_ERROR_FORMAT, *current, line_no,
        "type %s is defined twice", canonical);
    g_free (canonical);
    return FALSE;
  }
  *current = add_section (schema, canonical);
  return TRUE;
}

static gboolean
is_separator (const gchar * line)
{
  return strlen (line) >= 3 && strspn (line, "=") == strlen (line);
}

/* The first pass: every line of @text into the sections. */
static gboolean
parse_lines (RcMsgSchema * schema, gchar * text, GError ** error)
{
  gchar **lines = g_strsplit (text, "\n", -1);
  Section *current = schema->sections->pdata[0];
  gboolean after_separator = FALSE, ok = TRUE;

  for (guint i = 0; ok && lines[i]; i++) {
    gchar *line = g_strstrip (lines[i]);

    if (*line == '\0' || *line == '#')
      continue;
    if (is_separator (line)) {
      after_separator = TRUE;
    } else if (g_str_has_prefix (line, "MSG:")) {
      ok = parse_msg_line (schema, line, i + 1, &current, error);
      after_separator = FALSE;
    } else if (after_separator) {
      ok = schema_fail (error, RC_READER_ERROR_FORMAT, current, i + 1,
          "'%s' follows a line of '=' where 'MSG: pkg/Name' was expected",
          line);
    } else {
      ok = parse_field_line (current, line, i + 1, error);
    }
  }
  g_strfreev (lines);
  return ok;
}

/* The section that the name @written, used in @s, refers to. */
static Section *
find_section (RcMsgSchema * schema, const Section * s, const gchar * written,
    gchar ** canonical)
{
  if (!strchr (written, '/') && !strcmp (written, "Header")) {
    *canonical = g_strdup ("std_msgs/msg/Header");
  } else if (!strchr (written, '/')) {
    gsize pkg_len = strcspn (s->type.name, "/");
    *canonical = g_strdup_printf ("%.*s/msg/%s", (gint) pkg_len,
        s->type.name, written);
  } else {
    *canonical = rc_ros2_type_canonical (written);
  }
  return g_hash_table_lookup (schema->by_name, *canonical);
}

static guint64
capped_product (guint64 a, guint64 b)
{
  return MIN (a * b, MAX_MIN_SIZE);     /* both <= G_MAXUINT32 */
}

static gboolean resolve (RcMsgSchema * schema, Section * s, guint depth,
    GError ** error);

/* Resolves the nested type of @field of @s; its minimum size into @size. */
static gboolean
resolve_field (RcMsgSchema * schema, Section * s, RcMsgField * field,
    const gchar * written, guint depth, guint64 * size, GError ** error)
{
  gchar *canonical;
  Section *dep = find_section (schema, s, written, &canonical);
  gboolean ok = FALSE;

  if (!dep)
    schema_fail (error, RC_READER_ERROR_FORMAT, s, field->line, "field '%s' "
        "has the unknown type %s (no 'MSG: %s' section)", field->name,
        canonical, canonical);
  else if (dep->state == SECTION_RESOLVING)
    schema_fail (error, RC_READER_ERROR_FORMAT, s, field->line, "field '%s' "
        "makes type %s contain itself", field->name, canonical);
  else if (depth >= RC_MSG_MAX_DEPTH)
    schema_fail (error, RC_READER_ERROR_UNSUPPORTED, s, field->line, "field "
        "'%s' nests types more than %u deep", field->name, RC_MSG_MAX_DEPTH);
  else
    ok = resolve (schema, dep, depth + 1, error);
  if (ok) {
    field->type = &dep->type;
    *size = dep->type.min_size;
  }
  g_free (canonical);
  return ok;
}

/* Resolves the nested types of @s, depth first, and its minimum size. */
static gboolean
resolve (RcMsgSchema * schema, Section * s, guint depth, GError ** error)
{
  guint64 min_size = 0;

  if (s->state == SECTION_RESOLVED)
    return TRUE;
  s->state = SECTION_RESOLVING;
  for (guint i = 0; i < s->fields->len; i++) {
    RcMsgField *field = &g_array_index (s->fields, RcMsgField, i);
    guint64 size = field->kind == RC_MSG_STRING ? 4 :
        rc_msg_kind_size (field->kind);

    if (field->kind == RC_MSG_NESTED && !resolve_field (schema, s, field,
            s->type_names->pdata[i], depth, &size, error))
      return FALSE;
    if (field->shape == RC_MSG_SEQUENCE)
      size = 4;
    else if (field->shape == RC_MSG_FIXED_ARRAY)
      size = capped_product (size, field->length);
    min_size = MIN (min_size + size, MAX_MIN_SIZE);
  }
  /* ROS 2 gives an empty message a uint8 member */
  s->type.min_size = s->fields->len ? min_size : 1;
  s->type.n_fields = s->fields->len;
  s->type.fields = (RcMsgField *) g_array_free (s->fields, FALSE);
  s->fields = NULL;
  s->state = SECTION_RESOLVED;
  return TRUE;
}

RcMsgSchema *
rc_msg_schema_parse (const gchar * type, const gchar * text, gsize size,
    GError ** error)
{
  RcMsgSchema *schema = g_new0 (RcMsgSchema, 1);
  gchar *copy = g_strndup (text, size);
  gboolean ok;

  schema->sections = g_ptr_array_new_with_free_func ((GDestroyNotify)
      section_free);
  schema->by_name = g_hash_table_new (g_str_hash, g_str_equal);
  add_section (schema, rc_ros2_type_canonical (type));
  ok = parse_lines (schema, copy, error) &&
      resolve (schema, schema->sections->pdata[0], 0, error);
  g_free (copy);
  if (!ok) {
    rc_msg_schema_free (schema);
    return NULL;
  }
  return schema;
}
