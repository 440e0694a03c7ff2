/* A walker of CDR-encoded ROS 2 messages (MCAP message encoding "cdr")
 * along a type of msgschema.h.
 *
 * A message starts with a 4-byte encapsulation header: 00 00 for CDR big
 * endian, 00 01 for CDR little endian (XCDR1); the parameter-list and XCDR2
 * kinds are refused as unsupported.  After it, each primitive is aligned to
 * its size (at most 8) counted from the end of that header; a string is a
 * uint32 length that counts its NUL, then the bytes (a length of 0 is taken
 * as an empty string too); a sequence a uint32 count, then the elements
 * (aligned only when there is one, as Fast-CDR writes them); a fixed array
 * the elements alone; bool, byte, char and uint8 one byte.  An empty
 * message type takes one byte (ROS 2's dummy member).
 *
 * The reader is a cursor: the typed decoders (ros2msg.c) read the fields
 * they need and skip the others with rc_cdr_skip_field.  Every length is
 * compared with the bytes left before anything is read or allocated, and a
 * failure is a GError in RC_READER_ERROR naming the field (as a path such
 * as "fields[2].name") and the byte offset in the message. */
#ifndef __ROBOCACHE_CDR_H__
#define __ROBOCACHE_CDR_H__

#include "msgschema.h"

G_BEGIN_DECLS
/* The bytes of the encapsulation header. */
#define RC_CDR_HEADER_SIZE 4
    typedef struct
{
  const guint8 *data;           /* after the encapsulation header */
  gsize size;
  gsize pos;                    /* the next byte, from data */
  gboolean big_endian;
} RcCdrReader;

/* Checks the encapsulation header of the @size bytes at @data and sets up
 * @reader after it. */
gboolean rc_cdr_reader_init (RcCdrReader * reader, const guint8 * data,
    gsize size, GError ** error);

/* One primitive of @kind (not a string or message), aligned, into @bits:
 * the value's bytes in host order, zero-extended (an int32 is
 * (gint32) *bits, a float64 the bits of a gdouble). */
gboolean rc_cdr_read_primitive (RcCdrReader * reader, RcMsgKind kind,
    guint64 * bits, GError ** error);

/* A string, without its NUL, as a pointer into the message: @bound is the
 * field's string_bound (0: none). */
gboolean rc_cdr_read_string (RcCdrReader * reader, guint32 bound,
    const gchar ** chars, guint32 * length, GError ** error);

/* The number of elements of the array @field: its size for T[N], the count
 * read for a sequence.  Fails when the elements cannot fit in the bytes
 * left (each takes at least its minimum size) or the count exceeds the
 * bound. */
gboolean rc_cdr_read_length (RcCdrReader * reader, const RcMsgField * field,
    guint32 * n, GError ** error);

/* @n primitives of @kind, after rc_cdr_read_length, as a pointer into the
 * message (in the message's byte order, aligned to their size from the
 * start of the data but not in memory). */
gboolean rc_cdr_read_primitives (RcCdrReader * reader, RcMsgKind kind,
    guint32 n, const guint8 ** elements, GError ** error);

/* Walks past one value of @field (all its elements for an array) or of
 * @type, checking every length. */
gboolean rc_cdr_skip_field (RcCdrReader * reader, const RcMsgField * field,
    GError ** error);
gboolean rc_cdr_skip_type (RcCdrReader * reader, const RcMsgType * type,
    GError ** error);

/* Walks the whole message @data of @type; the bytes it took (header
 * included) into @used when not NULL. */
gboolean rc_cdr_walk (const RcMsgType * type, const guint8 * data,
    gsize size, gsize * used, GError ** error);

/* Turns an error of a field's value into one of the path "@name[@index]"
 * or "@name" (index < 0), so that nested failures read
 * "header.stamp.sec: ...".  For the decoders that read fields themselves. */
void rc_cdr_prefix_error (GError ** error, const gchar * name, gint64 index);

/* The path of an error set by this walker with its leading '.' taken off
 * and "@what: " put before it. */
void rc_cdr_finish_error (GError ** error, const gchar * what);

G_END_DECLS
#endif
