/* The parser of ROS 1 bag files (format 2.0, as written by rosbag record
 * and python rosbag): their connections and their index of messages.
 * bag-reader.c puts it behind reader.h; the fuzz target
 * (tests/fuzz/fuzz_bag.c) drives it directly.
 *
 * Every length field is checked against what is left of the file, chunk or
 * record before anything is read or allocated, and a decompressed chunk
 * never exceeds the max-chunk-size given at open; every failure is a
 * GError in RC_READER_ERROR saying what was wrong, never an abort.
 *
 * A bag whose index cannot be used (a recording cut off: no index, or an
 * index cut off or past the end) is read by scanning its chunks up to the
 * first record cut off or corrupt, as rosbag reindex does
 * (bag-scan.c); rc_bag_get_recovery says so. */
#ifndef __ROBOCACHE_BAG_H__
#define __ROBOCACHE_BAG_H__

#include "reader.h"

G_BEGIN_DECLS
/* Decompressed chunks above this are refused (rosbag's default chunk is
 * 768 KiB; big images can make a chunk tens of MiB). */
#define RC_BAG_DEFAULT_MAX_CHUNK_SIZE ((gsize) 1 << 30)
typedef struct _RcBag RcBag;

typedef struct
{
  guint32 id;                   /* the bag's connection id */
  gchar *topic;
  gchar *type;                  /* e.g. "sensor_msgs/PointCloud2" */
  gchar *md5sum;
} RcBagConnection;

/* One message of the index. */
typedef struct
{
  guint64 time;                 /* record time, ns since the epoch */
  guint32 connection;           /* index into the connections */
  guint32 chunk;
  guint32 offset;               /* in the decompressed chunk */
} RcBagEntry;

/* Reads a bag from memory; @data must outlive the bag. */
RcBag *rc_bag_open_data (const guint8 * data, gsize size,
    gsize max_chunk_size, GError ** error);
void rc_bag_free (RcBag * bag);

guint rc_bag_n_connections (const RcBag * bag);
const RcBagConnection *rc_bag_get_connection (const RcBag * bag, guint i);

/* How the bag was read: recovery->scanned when by scanning. */
const RcReaderRecovery *rc_bag_get_recovery (const RcBag * bag);

/* Every indexed message, sorted by record time (ties in file order). */
gsize rc_bag_n_entries (const RcBag * bag);
const RcBagEntry *rc_bag_get_entry (const RcBag * bag, gsize i);
/* The first entry at or after @time (n_entries if none). */
gsize rc_bag_lower_bound (const RcBag * bag, guint64 time);

/* The serialized message of @entry, valid until the next call or
 * rc_bag_free.  Decompresses the entry's chunk when needed. */
gboolean rc_bag_read (RcBag * bag, const RcBagEntry * entry,
    const guint8 ** data, gsize * size, GError ** error);

G_END_DECLS
#endif
