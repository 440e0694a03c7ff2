/* A reader of ROS 1 bag files (format 2.0, as written by rosbag record and
 * python rosbag) and of the messages robocachebagsrc turns into streams.
 * GLib only, no GStreamer: the fuzz target (tests/fuzz/fuzz_bag.c) drives
 * it directly.
 *
 * Every length field is checked against what is left of the file, chunk or
 * message before anything is read or allocated, and a decompressed chunk
 * never exceeds the max-chunk-size given at open; every failure is a
 * GError in RC_BAG_ERROR saying what was wrong, never an abort. */
#ifndef __ROBOCACHE_BAG_H__
#define __ROBOCACHE_BAG_H__

#include <glib.h>

G_BEGIN_DECLS

#define RC_BAG_ERROR (rc_bag_error_quark ())
GQuark rc_bag_error_quark (void);

typedef enum
{
  RC_BAG_ERROR_IO,              /* the file cannot be opened or mapped */
  RC_BAG_ERROR_VERSION,         /* not "#ROSBAG V2.0" */
  RC_BAG_ERROR_FORMAT,          /* truncated, corrupt or inconsistent */
  RC_BAG_ERROR_UNSUPPORTED,     /* unknown compression, unindexed bag */
  RC_BAG_ERROR_TOO_LARGE        /* a chunk above max-chunk-size */
} RcBagError;

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

RcBag *rc_bag_open (const gchar * path, gsize max_chunk_size, GError ** error);
/* Reads a bag from memory; @data must outlive the reader. */
RcBag *rc_bag_open_data (const guint8 * data, gsize size,
    gsize max_chunk_size, GError ** error);
void rc_bag_free (RcBag * bag);

guint rc_bag_n_connections (const RcBag * bag);
const RcBagConnection *rc_bag_get_connection (const RcBag * bag, guint i);

/* Every indexed message, sorted by record time (ties in file order). */
gsize rc_bag_n_entries (const RcBag * bag);
const RcBagEntry *rc_bag_get_entry (const RcBag * bag, gsize i);
/* The first entry at or after @time (n_entries if none). */
gsize rc_bag_lower_bound (const RcBag * bag, guint64 time);

/* The serialized message of @entry, valid until the next call or
 * rc_bag_free.  Decompresses the entry's chunk when needed. */
gboolean rc_bag_read (RcBag * bag, const RcBagEntry * entry,
    const guint8 ** data, gsize * size, GError ** error);

/* ------------------------------------------------------------------ */
/* Messages (ROS 1 serialization: little-endian, strings and arrays as a
 * uint32 length then the elements).  The parsed structs point into the
 * message bytes; rc_bag_*_clear frees what they allocated. */

typedef struct
{
  guint32 seq;
  guint64 stamp;                /* ns */
  gchar *frame_id;
} RcRosHeader;

/* PointField datatypes 1..8. */
typedef enum
{
  RC_POINT_FIELD_INT8 = 1,
  RC_POINT_FIELD_UINT8,
  RC_POINT_FIELD_INT16,
  RC_POINT_FIELD_UINT16,
  RC_POINT_FIELD_INT32,
  RC_POINT_FIELD_UINT32,
  RC_POINT_FIELD_FLOAT32,
  RC_POINT_FIELD_FLOAT64
} RcPointFieldType;

typedef struct
{
  gchar *name;
  guint32 offset;
  guint8 datatype;
  guint32 count;
} RcPointField;

typedef struct
{
  RcRosHeader header;
  guint32 height, width;
  guint n_fields;
  RcPointField *fields;
  gboolean is_bigendian;
  guint32 point_step, row_step;
  const guint8 *data;
  guint32 data_size;
  gboolean is_dense;
} RcPointCloud2;

typedef struct
{
  RcRosHeader header;
  guint n_names;
  gchar **names;
  /* Each NULL when the message's array is empty. */
  guint n_position, n_velocity, n_effort;
  gdouble *position, *velocity, *effort;
} RcJointState;

typedef struct
{
  RcRosHeader header;
  guint32 height, width;
  gchar *encoding;
  gboolean is_bigendian;
  guint32 step;
  const guint8 *data;
  guint32 data_size;
} RcImage;

/* Only the header, at the start of every stamped message. */
gboolean rc_bag_parse_header (const guint8 * data, gsize size,
    RcRosHeader * header, GError ** error);
void rc_bag_header_clear (RcRosHeader * header);

gboolean rc_bag_parse_point_cloud2 (const guint8 * data, gsize size,
    RcPointCloud2 * msg, GError ** error);
void rc_bag_point_cloud2_clear (RcPointCloud2 * msg);
gboolean rc_bag_parse_joint_state (const guint8 * data, gsize size,
    RcJointState * msg, GError ** error);
void rc_bag_joint_state_clear (RcJointState * msg);
gboolean rc_bag_parse_image (const guint8 * data, gsize size,
    RcImage * msg, GError ** error);
void rc_bag_image_clear (RcImage * msg);

G_END_DECLS
#endif
