/* The ROS 1 bag parser's state and record helpers, shared by
 * robocachebag.c (the bag header, its index, reading messages) and
 * bag-scan.c (recovering a bag whose index cannot be used).  Not for the
 * users of robocachebag.h. */
#ifndef __ROBOCACHE_BAG_PRIVATE_H__
#define __ROBOCACHE_BAG_PRIVATE_H__

#include "robocachebag.h"
#include "reader-impl.h"

G_BEGIN_DECLS
#define BAG_VERSION_LEN 13
    enum
{
  BAG_OP_MSG_DATA = 0x02,
  BAG_OP_BAG_HEADER = 0x03,
  BAG_OP_INDEX_DATA = 0x04,
  BAG_OP_CHUNK = 0x05,
  BAG_OP_CHUNK_INFO = 0x06,
  BAG_OP_CONNECTION = 0x07
};

typedef enum
{
  BAG_COMPRESSION_NONE,
  BAG_COMPRESSION_BZ2,
  BAG_COMPRESSION_LZ4
} BagCompression;

typedef struct
{
  gsize data_pos;               /* of the compressed data in the file */
  guint32 data_len;
  guint32 size;                 /* decompressed */
  BagCompression compression;
} BagChunk;

struct _RcBag
{
  const guint8 *base;
  gsize size;
  gsize max_chunk_size;

  GArray *connections;          /* RcBagConnection */
  GHashTable *connection_ids;   /* bag id + 1 -> index + 1 */
  GArray *chunks;               /* BagChunk */
  GArray *entries;              /* RcBagEntry */

  /* The decompressed chunk of the last read. */
  gint64 cached_chunk;
  guint8 *cache;
  gsize cache_size;
  gpointer lz4;                 /* LZ4F_dctx, made at the first lz4 chunk */

  /* Filled in when the bag was read by scanning (bag-scan.c). */
  RcReaderRecovery recovery;
  gchar *reason;                /* recovery.reason */
};

/* One record: its header lies inside the buffer it was read from, and so
 * does its data unless it was read with @partial (see bag_read_record). */
typedef struct
{
  const guint8 *header;
  guint32 header_len;
  const guint8 *data;
  guint32 data_len;             /* as the record says */
  guint32 avail;                /* of it, inside the buffer */
  gsize next;
} BagRecord;

/* The record at @pos of @buf (@len bytes) and its op; @what names it in
 * errors.  With @partial, data cut off by the end of @buf is accepted
 * (r->avail tells how much is there). */
gboolean bag_read_record (const guint8 * buf, gsize len, gsize pos,
    gboolean partial, BagRecord * r, guint8 * op, const gchar * what,
    GError ** error);

/* The field @name of @r's header, which must be @size bytes. */
gboolean bag_sized_field (const BagRecord * r, const gchar * name,
    guint32 size, const guint8 ** value, const gchar * what, GError ** error);

/* Reads the little-endian unsigned field @name into *@v: 4 bytes into a
 * guint32, 8 into a guint64. */
gboolean bag_read_uint_field (const BagRecord * r, const gchar * name,
    guint32 size, gpointer v, const gchar * what, GError ** error);
#define bag_field_uint(r, name, v, what, error) \
    bag_read_uint_field (r, name, sizeof (*(v)), v, what, error)

/* Adds the connection record @r; an id listed twice is an error. */
gboolean bag_add_connection (RcBag * bag, const BagRecord * r, GError ** error);

/* The chunk record @r (at @chunk_pos): its size and compression, checked
 * against the limit and the record.  Errors in RC_READER_ERROR_FORMAT say
 * the record is corrupt, the others that it is unsupported or too big. */
gboolean bag_parse_chunk (RcBag * bag, const BagRecord * r,
    guint64 chunk_pos, BagChunk * chunk, GError ** error);

/* The records of chunk @index, decompressed when needed (into the bag's
 * cache), valid until the next call. */
gboolean bag_load_chunk (RcBag * bag, guint32 index, const guint8 ** data,
    gsize * size, GError ** error);

/* Builds the connections, chunks and entries by reading every record
 * from @start (after the bag header) up to the first one cut off or
 * corrupt, as rosbag reindex does; @why says why the index was not used.
 * Fills in bag->recovery.  FALSE only for what a scan cannot pass (an
 * unsupported compression, a chunk above the size limit). */
gboolean bag_scan (RcBag * bag, gsize start, const gchar * why,
    GError ** error);

G_END_DECLS
#endif
