/* The CDR walker's cursor (gst/formats/cdr.h) on a type of alignment
 * traps: every value read back as it was written, in both byte orders,
 * after strings of 0 to 7 bytes. */
#include <glib.h>
#include <string.h>

#include "formats/cdr.h"
#include "ros2msg-tests.h"

/* *INDENT-OFF* */
static const gchar traps_schema[] =
    "uint8 a\n"
    "float64 b\n"
    "string s\n"
    "uint32 c\n"
    "int16[3] t\n"
    "float32[<=4] f\n"
    "Inner[2] inners\n"
    "Empty e\n"
    "uint16 after\n"
    "string<=5 short\n"
    "bool[] flags\n"
    "===\n"
    "MSG: test_msgs/Inner\n"
    "char c\n"
    "int64 big\n"
    "===\n"
    "MSG: test_msgs/Empty\n"
    "# no fields: a dummy uint8 in CDR\n";

static const gchar *traps_types[] = {
  "uint8", "float64", "string", "uint32", "int16[3]", "float32[<=4]",
  "test_msgs/msg/Inner[2]", "test_msgs/msg/Empty", "uint16", "string<=5",
  "bool[]",
};
/* *INDENT-ON* */

typedef struct
{
  guint8 a;
  gdouble b;
  gchar *s;
  guint32 c;
  gint16 t[3];
  guint n_f;
  gfloat f[4];
  guint8 inner_c[2];
  gint64 inner_big[2];
  guint16 after;
  gchar *short_string;
  guint n_flags;
  guint8 flags[6];
} Traps;

static void
random_traps (Traps * v, guint string_len)
{
  v->a = g_test_rand_int ();
  v->b = g_test_rand_double ();
  v->s = random_string (string_len);
  v->c = g_test_rand_int ();
  for (guint i = 0; i < 3; i++)
    v->t[i] = g_test_rand_int ();
  v->n_f = g_test_rand_int_range (0, 5);
  for (guint i = 0; i < v->n_f; i++)
    v->f[i] = g_test_rand_double ();
  for (guint i = 0; i < 2; i++) {
    v->inner_c[i] = g_test_rand_int ();
    v->inner_big[i] = (gint64) (((guint64) (guint32) g_test_rand_int () << 32)
        | (guint32) g_test_rand_int ());
  }
  v->after = g_test_rand_int ();
  v->short_string = random_string (g_test_rand_int_range (0, 6));
  v->n_flags = g_test_rand_int_range (0, 7);
  for (guint i = 0; i < v->n_flags; i++)
    v->flags[i] = g_test_rand_bit ();
}

static guint8 *
encode_traps (const Traps * v, gboolean big_endian, gsize * size)
{
  CdrEncoder c;

  cdr_begin (&c, big_endian);
  cdr_u8 (&c, v->a);
  cdr_f64 (&c, v->b);
  cdr_string (&c, v->s);
  cdr_u32 (&c, v->c);
  for (guint i = 0; i < 3; i++)
    cdr_put (&c, (guint16) v->t[i], 2);
  cdr_seq (&c, v->f, v->n_f, 4);
  for (guint i = 0; i < 2; i++) {
    cdr_u8 (&c, v->inner_c[i]);
    cdr_put (&c, v->inner_big[i], 8);
  }
  cdr_u8 (&c, 0);
  cdr_put (&c, v->after, 2);
  cdr_string (&c, v->short_string);
  cdr_seq (&c, v->flags, v->n_flags, 1);
  return cdr_end (&c, size);
}

/* @n values of @size bytes at @p in the reader's byte order, each checked
 * against its bits in @want. */
static void
check_elements (const RcCdrReader * r, const guint8 * p, guint n, guint size,
    gconstpointer want)
{
  for (guint i = 0; i < n; i++) {
    guint64 got = 0, expected = 0;

    for (guint b = 0; b < size; b++)
      got |= (guint64) p[i * size + b] << (r->big_endian ?
          8 * (size - 1 - b) : 8 * b);
    memcpy (&expected, (const guint8 *) want + i * size, size);
    g_assert_cmphex (got, ==, expected);
  }
}

static guint64
read_bits (RcCdrReader * r, RcMsgKind kind)
{
  GError *error = NULL;
  guint64 bits = 0;

  g_assert_true (rc_cdr_read_primitive (r, kind, &bits, &error));
  g_assert_no_error (error);
  return bits;
}

static void
check_string (RcCdrReader * r, const RcMsgField * field, const gchar * want)
{
  const gchar *chars;
  guint32 len;

  g_assert_true (rc_cdr_read_string (r, field->string_bound, &chars, &len,
          NULL));
  g_assert_cmpmem (chars, len, want, strlen (want));
}

/* The primitive array @field: its count, then its elements. */
static void
check_array (RcCdrReader * r, const RcMsgField * field, guint n,
    gconstpointer want)
{
  const guint8 *p;
  guint32 got_n;

  g_assert_true (rc_cdr_read_length (r, field, &got_n, NULL));
  g_assert_cmpuint (got_n, ==, n);
  g_assert_true (rc_cdr_read_primitives (r, field->kind, n, &p, NULL));
  check_elements (r, p, n, rc_msg_kind_size (field->kind), want);
}

static void
read_traps (const RcMsgType * type, const Traps * v, const guint8 * msg,
    gsize size)
{
  const RcMsgField *f = type->fields;
  RcCdrReader r;
  guint64 bits;
  guint32 n;

  g_assert_true (rc_cdr_reader_init (&r, msg, size, NULL));
  g_assert_cmpuint (read_bits (&r, RC_MSG_UINT8), ==, v->a);
  bits = read_bits (&r, RC_MSG_FLOAT64);
  g_assert_cmpmem (&bits, 8, &v->b, 8);
  check_string (&r, &f[2], v->s);
  g_assert_cmpuint (read_bits (&r, RC_MSG_UINT32), ==, v->c);
  check_array (&r, &f[4], 3, v->t);
  check_array (&r, &f[5], v->n_f, v->f);
  g_assert_true (rc_cdr_read_length (&r, &f[6], &n, NULL));
  g_assert_cmpuint (n, ==, 2);
  for (guint i = 0; i < 2; i++) {
    g_assert_cmpuint (read_bits (&r, RC_MSG_CHAR), ==, v->inner_c[i]);
    g_assert_cmpint ((gint64) read_bits (&r, RC_MSG_INT64), ==,
        v->inner_big[i]);
  }
  g_assert_true (rc_cdr_skip_field (&r, &f[7], NULL));
  g_assert_cmpuint (read_bits (&r, RC_MSG_UINT16), ==, v->after);
  check_string (&r, &f[9], v->short_string);
  check_array (&r, &f[10], v->n_flags, v->flags);
  g_assert_cmpuint (r.pos + RC_CDR_HEADER_SIZE, ==, size);
}

static void
test_traps (void)
{
  GError *error = NULL;
  RcMsgSchema *schema = rc_msg_schema_parse ("test_msgs/Traps", traps_schema,
      strlen (traps_schema), &error);
  const RcMsgType *type;

  g_assert_no_error (error);
  type = rc_msg_schema_root (schema);
  g_assert_cmpstr (type->name, ==, "test_msgs/msg/Traps");
  g_assert_cmpuint (type->n_fields, ==, G_N_ELEMENTS (traps_types));
  for (guint i = 0; i < type->n_fields; i++) {
    gchar *s = rc_msg_field_type_string (&type->fields[i], TRUE);
    g_assert_cmpstr (s, ==, traps_types[i]);
    g_free (s);
  }
  /* 1 + 8 + 4 + 4 + 6 + 4 + 2 * (1 + 8) + 1 + 2 + 4 + 4 */
  g_assert_cmpuint (type->min_size, ==, 56);
  for (guint round = 0; round < 64; round++) {
    Traps v;
    gsize size, used;
    guint8 *msg;

    random_traps (&v, round % 8);
    msg = encode_traps (&v, round & 8, &size);
    read_traps (type, &v, msg, size);
    g_assert_true (rc_cdr_walk (type, msg, size, &used, &error));
    g_assert_no_error (error);
    g_assert_cmpuint (used, ==, size);
    g_free (v.s);
    g_free (v.short_string);
    g_free (msg);
  }
  rc_msg_schema_free (schema);
}

/* A type without fields takes one byte (ROS 2's dummy member). */
static void
test_empty_type (void)
{
  const guint8 msg[] = { 0, 1, 0, 0, 0x5a };
  RcMsgSchema *schema = rc_msg_schema_parse ("std_msgs/Empty",
      "# nothing\n", 10, NULL);
  GError *error = NULL;
  gsize used;

  g_assert_nonnull (schema);
  g_assert_cmpuint (rc_msg_schema_root (schema)->min_size, ==, 1);
  g_assert_true (rc_cdr_walk (rc_msg_schema_root (schema), msg, 5, &used,
          NULL));
  g_assert_cmpuint (used, ==, 5);
  g_assert_false (rc_cdr_walk (rc_msg_schema_root (schema), msg, 4, &used,
          &error));
  g_assert_error (error, RC_READER_ERROR, RC_READER_ERROR_FORMAT);
  g_clear_error (&error);
  rc_msg_schema_free (schema);
}

void
add_walker_tests (void)
{
  g_test_add_func ("/ros2msg/walker/traps", test_traps);
  g_test_add_func ("/ros2msg/walker/empty-type", test_empty_type);
}
