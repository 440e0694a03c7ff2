/* A tiny CDR (XCDR1) encoder for the tests of the ROS 2 decoders: it writes
 * what a DDS implementation would, in either byte order, with the padding
 * filled with 0xAA so that no decoder can lean on zeros there. */
#ifndef __TESTS_CDRENCODER_H__
#define __TESTS_CDRENCODER_H__

#include <glib.h>

typedef struct
{
  GByteArray *bytes;
  gboolean big_endian;
} CdrEncoder;

/* Starts a message with the encapsulation header of its byte order. */
void cdr_begin (CdrEncoder * c, gboolean big_endian);
/* The message; the encoder is done with. */
guint8 *cdr_end (CdrEncoder * c, gsize * size);

void cdr_align (CdrEncoder * c, guint align);
/* An integer (or float bits) of @size bytes, aligned to @size. */
void cdr_put (CdrEncoder * c, guint64 value, guint size);
void cdr_u8 (CdrEncoder * c, guint8 value);
void cdr_u32 (CdrEncoder * c, guint32 value);
void cdr_f32 (CdrEncoder * c, gfloat value);
void cdr_f64 (CdrEncoder * c, gdouble value);
/* A uint32 length counting the NUL, the bytes, the NUL. */
void cdr_string (CdrEncoder * c, const gchar * value);
/* A sequence of @n primitives of @size bytes in host order: the count,
 * then (when @n > 0) the elements aligned to their size. */
void cdr_seq (CdrEncoder * c, gconstpointer values, guint32 n, guint size);

/* A random string of @len lowercase letters (newly allocated). */
gchar *random_string (guint len);

#endif
