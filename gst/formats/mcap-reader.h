/* The MCAP reader's state, shared by mcap-reader.c (the RcReader: topics,
 * reading, seeking, the chunk cache) and mcap-index.c (building the
 * message index at open, from the summary or by scanning). */
#ifndef __ROBOCACHE_MCAP_READER_H__
#define __ROBOCACHE_MCAP_READER_H__

#include "mcap-records.h"

G_BEGIN_DECLS
/* Decompressed chunks kept between messages: at most this many, and at
 * most MCAP_CACHE_BYTES of them together (besides the one being read), so
 * that chunks overlapping in time are not decompressed again for every
 * message. */
#define MCAP_CACHE_CHUNKS 8
#define MCAP_CACHE_BYTES (G_GUINT64_CONSTANT (256) << 20)
#define MCAP_NOT_CHUNKED G_MAXUINT32
/* A message of the file, in the index sorted by log time. */
    typedef struct
{
  guint64 time;                 /* log_time */
  /* Of the message record: in the file, or in its chunk's records. */
  guint64 offset;
  guint32 chunk;                /* in McapReader.chunks, or MCAP_NOT_CHUNKED */
  guint32 topic;
  guint16 channel;
} McapEntry;

typedef struct
{
  guint64 offset;               /* of the chunk record */
  McapChunk chunk;              /* pointing into the file */
} McapChunkInfo;

typedef struct
{
  guint32 chunk;
  const guint8 *records;        /* NULL: the slot is free */
  gboolean owned;               /* decompressed (else in the file) */
  gsize capacity;               /* of the decompressed records' buffer */
  guint64 last_use;
} McapCachedChunk;

/* A channel of the summary naming a schema that the summary leaves out:
 * it waits for the schema, from the data section. */
typedef struct
{
  McapRecord record;            /* in the file */
  McapChannel channel;
} McapWaitingChannel;

typedef struct
{
  RcReader parent;
  const guint8 *data;
  gsize size;
  gboolean check_crc;
  gsize data_start;             /* after the header record */
  GHashTable *schemas;          /* id -> McapStoredSchema */
  GHashTable *channel_topics;   /* id -> topic + 1 */
  GHashTable *topic_of_name;    /* name -> topic + 1 */
  GArray *waiting;              /* McapWaitingChannel */
  /* Where the summary leaves out schemas or channels: the data section,
   * up to defs_end (0 when scanning), read for them from defs_pos on. */
  gsize defs_pos, defs_end;
  GArray *chunks;               /* McapChunkInfo, in file order */
  GArray *entries;              /* McapEntry, by time then file order */
  gsize next;                   /* in entries */
  McapCachedChunk cache[MCAP_CACHE_CHUNKS];
  guint64 clock;                /* for last_use */
  /* Decompressing the chunks to come on other threads (mcap-chunks.c). */
  struct _McapReadAhead *read_ahead;
  /* The last message that rosbag2 compressed alone, decompressed. */
  guint8 *inflated;
  gsize inflated_capacity;
  gchar *reason;                /* parent.recovery.reason */
} McapReader;

/* The records of chunk @chunk, decompressed (or in the file), valid until
 * the next call; the next chunks the reader will read are decompressed at
 * the same time on other cores. */
const guint8 *mcap_reader_get_chunk (McapReader * self, guint32 chunk,
    GError ** error);

/* Frees the cached chunks and the decompressing threads. */
void mcap_reader_clear_chunks (McapReader * self);

/* Remembers a schema (copied), and adds the channels that waited for it;
 * ignores id 0 and repeated ids. */
void mcap_reader_add_schema (McapReader * self, const McapSchema * schema);

/* Remembers a channel, making its topic when it is the first of its
 * name.  One naming a schema not seen before fails, unless @can_wait (a
 * record of the summary, in the file): it then waits in self->waiting. */
gboolean mcap_reader_add_channel (McapReader * self,
    const McapRecord * record, const McapChannel * channel,
    gboolean can_wait, GError ** error);

/* The topic of a channel seen before, or -1. */
gint mcap_reader_channel_topic (McapReader * self, guint16 channel);

/* Builds self->chunks and self->entries (in file order) from the summary
 * that @footer points to; *@indexed FALSE when it has no chunk index, so
 * that the data section must be scanned. */
gboolean mcap_index_from_summary (McapReader * self,
    const McapFooter * footer, gsize footer_offset, gboolean * indexed,
    GError ** error);

/* Builds them by reading the data section from the start, every complete
 * record up to a cut; fills in self->parent.recovery, whose reason starts
 * with @why, the reason the file is scanned. */
gboolean mcap_index_by_scanning (McapReader * self, const gchar * why,
    GError ** error);

G_END_DECLS
#endif
