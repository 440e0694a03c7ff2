/* The CDR walker of cdr.h.  Errors are built from the inside out: the
 * failing read says ": needs N bytes at offset X, ..." and each field on
 * the way up puts ".name" or "[i]" before it; rc_cdr_finish_error turns
 * that into "what: a.b[i].c: needs ...". */
#include "cdr.h"
#include "reader-impl.h"

#include <string.h>

gboolean
rc_cdr_reader_init (RcCdrReader * reader, const guint8 * data, gsize size,
    GError ** error)
{
  memset (reader, 0, sizeof (*reader));
  if (size < RC_CDR_HEADER_SIZE)
    return rc_reader_fail (error, RC_READER_ERROR_FORMAT, ": %"
        G_GSIZE_FORMAT " bytes, shorter than the %u-byte encapsulation "
        "header", size, RC_CDR_HEADER_SIZE);
  if (data[0] != 0 || data[1] > 1)
    return rc_reader_fail (error, RC_READER_ERROR_UNSUPPORTED,
        ": encapsulation %02x %02x at offset 0 is not plain CDR (00 00 or "
        "00 01)", data[0], data[1]);
  reader->big_endian = data[1] == 0;
  reader->data = data + RC_CDR_HEADER_SIZE;
  reader->size = size - RC_CDR_HEADER_SIZE;
  return TRUE;
}

/* Moves to the next multiple of @align, then checks that @n bytes are
 * left there. */
static gboolean
align_and_need (RcCdrReader * r, guint align, guint64 n, GError ** error)
{
  gsize pos = (r->pos + align - 1) & ~(gsize) (align - 1);

  if (pos > r->size || n > r->size - pos)
    return rc_reader_fail (error, RC_READER_ERROR_FORMAT, ": needs %"
        G_GUINT64_FORMAT " bytes at offset %" G_GSIZE_FORMAT ", %"
        G_GSIZE_FORMAT " are left", n, pos + RC_CDR_HEADER_SIZE,
        pos > r->size ? 0 : r->size - pos);
  r->pos = pos;
  return TRUE;
}

static guint64
load (const RcCdrReader * r, const guint8 * p, guint size)
{
  guint64 v = 0;

  for (guint i = 0; i < size; i++) {
    guint shift = r->big_endian ? 8 * (size - 1 - i) : 8 * i;
    v |= (guint64) p[i] << shift;
  }
  return v;
}

gboolean
rc_cdr_read_primitive (RcCdrReader * reader, RcMsgKind kind, guint64 * bits,
    GError ** error)
{
  guint size = rc_msg_kind_size (kind);

  g_return_val_if_fail (size > 0, FALSE);
  if (!align_and_need (reader, size, size, error))
    return FALSE;
  *bits = load (reader, reader->data + reader->pos, size);
  reader->pos += size;
  return TRUE;
}

gboolean
rc_cdr_read_string (RcCdrReader * reader, guint32 bound, const gchar ** chars,
    guint32 * length, GError ** error)
{
  guint64 n;
  gsize start;

  if (!rc_cdr_read_primitive (reader, RC_MSG_UINT32, &n, error))
    return FALSE;
  start = reader->pos;
  if (!align_and_need (reader, 1, n, error))
    return FALSE;
  *chars = (const gchar *) reader->data + start;
  /* the length counts the NUL; 0 (no NUL at all) is taken as empty too */
  *length = n > 0 && reader->data[start + n - 1] == '\0' ? n - 1 : n;
  reader->pos += n;
  if (bound && *length > bound)
    return rc_reader_fail (error, RC_READER_ERROR_FORMAT, ": a string of %u "
        "bytes at offset %" G_GSIZE_FORMAT " exceeds its bound of %u",
        *length, start + RC_CDR_HEADER_SIZE, bound);
  return TRUE;
}

/* The fewest bytes one element of @field takes. */
static guint64
element_min_size (const RcMsgField * field)
{
  if (field->kind == RC_MSG_NESTED)
    return field->type->min_size;
  if (field->kind == RC_MSG_STRING)
    return 4;
  return rc_msg_kind_size (field->kind);
}

gboolean
rc_cdr_read_length (RcCdrReader * reader, const RcMsgField * field,
    guint32 * n, GError ** error)
{
  guint64 count = field->length;
  gsize at = reader->pos;

  if (field->shape == RC_MSG_SEQUENCE) {
    if (!rc_cdr_read_primitive (reader, RC_MSG_UINT32, &count, error))
      return FALSE;
    at = reader->pos - 4;
    if (field->length && count > field->length)
      return rc_reader_fail (error, RC_READER_ERROR_FORMAT, ": %"
          G_GUINT64_FORMAT " elements at offset %" G_GSIZE_FORMAT " exceed "
          "the bound of %u", count, at + RC_CDR_HEADER_SIZE, field->length);
  }
  /* no padding counted: a lower bound of what the elements need */
  if (count * element_min_size (field) > reader->size - reader->pos)
    return rc_reader_fail (error, RC_READER_ERROR_FORMAT, ": %"
        G_GUINT64_FORMAT " elements (at offset %" G_GSIZE_FORMAT ") need at "
        "least %" G_GUINT64_FORMAT " bytes, %" G_GSIZE_FORMAT " are left",
        count, at + RC_CDR_HEADER_SIZE, count * element_min_size (field),
        reader->size - reader->pos);
  *n = count;
  return TRUE;
}

gboolean
rc_cdr_read_primitives (RcCdrReader * reader, RcMsgKind kind, guint32 n,
    const guint8 ** elements, GError ** error)
{
  guint size = rc_msg_kind_size (kind);

  g_return_val_if_fail (size > 0, FALSE);
  *elements = reader->data + reader->pos;
  if (n == 0)
    return TRUE;
  if (!align_and_need (reader, size, (guint64) n * size, error))
    return FALSE;
  *elements = reader->data + reader->pos;
  reader->pos += (gsize) n *size;
  return TRUE;
}

void
rc_cdr_prefix_error (GError ** error, const gchar * name, gint64 index)
{
  if (name && index >= 0)
    g_prefix_error (error, ".%s[%" G_GINT64_FORMAT "]", name, index);
  else if (name)
    g_prefix_error (error, ".%s", name);
  else if (index >= 0)
    g_prefix_error (error, "[%" G_GINT64_FORMAT "]", index);
}

void
rc_cdr_finish_error (GError ** error, const gchar * what)
{
  gchar *message;

  if (!error || !*error)
    return;
  message = (*error)->message;
  if (message[0] == '.')
    (*error)->message = g_strdup_printf ("%s: %s", what, message + 1);
  else
    (*error)->message = g_strdup_printf ("%s%s", what, message);
  g_free (message);
}

/* One element of @field (a string or a message; primitives are skipped
 * together). */
static gboolean
skip_element (RcCdrReader * reader, const RcMsgField * field, GError ** error)
{
  const gchar *chars;
  guint32 length;

  if (field->kind == RC_MSG_STRING)
    return rc_cdr_read_string (reader, field->string_bound, &chars, &length,
        error);
  return rc_cdr_skip_type (reader, field->type, error);
}

static gboolean
skip_value (RcCdrReader * reader, const RcMsgField * field, GError ** error)
{
  const guint8 *elements;
  guint32 n = 1;

  if (field->shape != RC_MSG_SINGLE &&
      !rc_cdr_read_length (reader, field, &n, error))
    return FALSE;
  if (rc_msg_kind_size (field->kind))
    return rc_cdr_read_primitives (reader, field->kind, n, &elements, error);
  for (guint32 i = 0; i < n; i++) {
    if (!skip_element (reader, field, error)) {
      if (field->shape != RC_MSG_SINGLE)
        rc_cdr_prefix_error (error, NULL, i);
      return FALSE;
    }
  }
  return TRUE;
}

gboolean
rc_cdr_skip_field (RcCdrReader * reader, const RcMsgField * field,
    GError ** error)
{
  if (skip_value (reader, field, error))
    return TRUE;
  rc_cdr_prefix_error (error, field->name, -1);
  return FALSE;
}

gboolean
rc_cdr_skip_type (RcCdrReader * reader, const RcMsgType * type, GError ** error)
{
  guint64 dummy;

  if (type->n_fields == 0)
    return rc_cdr_read_primitive (reader, RC_MSG_UINT8, &dummy, error);
  for (guint i = 0; i < type->n_fields; i++)
    if (!rc_cdr_skip_field (reader, &type->fields[i], error))
      return FALSE;
  return TRUE;
}

gboolean
rc_cdr_walk (const RcMsgType * type, const guint8 * data, gsize size,
    gsize * used, GError ** error)
{
  RcCdrReader reader;

  if (!rc_cdr_reader_init (&reader, data, size, error) ||
      !rc_cdr_skip_type (&reader, type, error)) {
    rc_cdr_finish_error (error, type->name);
    return FALSE;
  }
  if (used)
    *used = reader.pos + RC_CDR_HEADER_SIZE;
  return TRUE;
}
