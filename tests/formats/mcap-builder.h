/* A small MCAP writer for tests/formats/mcap.c, building records byte by
 * byte (https://mcap.dev/spec) and remembering what it wrote: every
 * message with the end of the top-level record holding it, every
 * top-level record's end, where each chunk is. */
#ifndef __ROBOCACHE_TEST_MCAP_BUILDER_H__
#define __ROBOCACHE_TEST_MCAP_BUILDER_H__

#include <glib.h>

typedef struct
{
  guint64 time;
  guint16 channel;
  const gchar *topic;
  GBytes *data;
  /* Where the message record, or the chunk holding it, ends. */
  guint64 end;
} MbMessage;

typedef struct
{
  GByteArray *file;
  /* The open chunk's records (NULL outside chunks), its compression, its
   * messages' time range and per channel its message index entries. */
  GByteArray *chunk;
  gchar *compression;
  guint64 chunk_start_time, chunk_end_time;
  GHashTable *chunk_index;      /* channel -> GArray of (time, offset) */
  gsize chunk_first_message;
  /* Message index records after each chunk (default TRUE). */
  gboolean message_indexes;
  GByteArray *chunk_indexes;    /* chunk index records for the summary */
  GByteArray *schemas, *channels;       /* copies for the summary */
  /* Whether the summary repeats them (default TRUE), as @mcap/core's
   * repeatSchemas and repeatChannels. */
  gboolean repeat_schemas, repeat_channels;
  GHashTable *topics;           /* channel -> topic name */
  GArray *messages;             /* MbMessage, in file order */
  GArray *ends;                 /* guint64: each top-level record's end */
  GArray *chunk_offsets;        /* guint64: each chunk record's offset */
  guint n_chunks;
  guint64 data_end;             /* the data end record's offset */
} McapBuilder;

/* The magic and a header record with profile "ros2". */
McapBuilder *mb_new (void);
void mb_free (McapBuilder * b);

void mb_schema (McapBuilder * b, guint16 id, const gchar * name,
    const gchar * encoding, const gchar * text);
void mb_channel (McapBuilder * b, guint16 id, guint16 schema_id,
    const gchar * topic, const gchar * encoding);
/* A message of @size random bytes (never all zero). */
void mb_message (McapBuilder * b, guint16 channel, guint64 time, gsize size);
/* A message of @payload (taken, a g_malloc'ed block of @size bytes). */
void mb_message_take (McapBuilder * b, guint16 channel, guint64 time,
    guint8 * payload, gsize size);
/* A record of any opcode with @size random bytes. */
void mb_record (McapBuilder * b, guint8 opcode, gsize size);
/* Chunks: "" (uncompressed), "zstd" or "lz4". */
void mb_chunk_begin (McapBuilder * b, const gchar * compression);
void mb_chunk_end (McapBuilder * b);

/* Data end (with the data section's CRC), with @summary the summary
 * (schemas and channels unless repeat_schemas and repeat_channels say
 * not, chunk indexes, statistics) and its summary offsets,
 * the footer and the magic.  Returns the file (free with g_free). */
guint8 *mb_finish (McapBuilder * b, gboolean summary, gsize * size);

/* The messages sorted by time, file order kept among equal times. */
GArray *mb_messages_in_time_order (McapBuilder * b);

/* Writes @data to $ROBOCACHE_MCAP_SEEDS/@name.mcap when it is set (seeds
 * for tests/fuzz/fuzz_mcap.c). */
void mb_write_seed (const gchar * name, const guint8 * data, gsize size);

#endif
