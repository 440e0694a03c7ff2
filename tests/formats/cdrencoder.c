/* The test CDR encoder of cdrencoder.h. */
#include "cdrencoder.h"

#include <string.h>

#define HEADER_SIZE 4

void
cdr_begin (CdrEncoder * c, gboolean big_endian)
{
  const guint8 header[HEADER_SIZE] = { 0, big_endian ? 0 : 1, 0, 0 };

  c->bytes = g_byte_array_new ();
  c->big_endian = big_endian;
  g_byte_array_append (c->bytes, header, HEADER_SIZE);
}

guint8 *
cdr_end (CdrEncoder * c, gsize * size)
{
  *size = c->bytes->len;
  return g_byte_array_free (c->bytes, FALSE);
}

void
cdr_align (CdrEncoder * c, guint align)
{
  const guint8 pad = 0xAA;

  while ((c->bytes->len - HEADER_SIZE) % align)
    g_byte_array_append (c->bytes, &pad, 1);
}

void
cdr_put (CdrEncoder * c, guint64 value, guint size)
{
  cdr_align (c, size);
  for (guint i = 0; i < size; i++) {
    guint shift = c->big_endian ? 8 * (size - 1 - i) : 8 * i;
    guint8 b = value >> shift;
    g_byte_array_append (c->bytes, &b, 1);
  }
}

void
cdr_u8 (CdrEncoder * c, guint8 value)
{
  cdr_put (c, value, 1);
}

void
cdr_u32 (CdrEncoder * c, guint32 value)
{
  cdr_put (c, value, 4);
}

void
cdr_f32 (CdrEncoder * c, gfloat value)
{
  guint32 bits;

  memcpy (&bits, &value, 4);
  cdr_put (c, bits, 4);
}

void
cdr_f64 (CdrEncoder * c, gdouble value)
{
  guint64 bits;

  memcpy (&bits, &value, 8);
  cdr_put (c, bits, 8);
}

void
cdr_string (CdrEncoder * c, const gchar * value)
{
  cdr_u32 (c, strlen (value) + 1);
  g_byte_array_append (c->bytes, (const guint8 *) value, strlen (value) + 1);
}

void
cdr_seq (CdrEncoder * c, gconstpointer values, guint32 n, guint size)
{
  cdr_u32 (c, n);
  for (guint32 i = 0; i < n; i++) {
    guint64 v = 0;

    memcpy (&v, (const guint8 *) values + (gsize) i * size, size);
    if (G_BYTE_ORDER == G_BIG_ENDIAN)
      v >>= 8 * (8 - size);
    cdr_put (c, v, size);
  }
}

gchar *
random_string (guint len)
{
  gchar *s = g_malloc (len + 1);

  for (guint i = 0; i < len; i++)
    s[i] = 'a' + g_test_rand_int_range (0, 26);
  s[len] = '\0';
  return s;
}
