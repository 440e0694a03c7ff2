/* libFuzzer target over the MCAP reader (gst/formats/mcap-*.c) through
 * reader.h: opens the input from memory with and without CRC checks,
 * lists the topics, reads every message (touching its first and last
 * byte), seeks to the middle and reads on.  Built with meson -Dfuzz=true
 * and clang, with chunks capped at 16 MiB decompressed; see
 * docs/fuzzing.md. */
#include <stdint.h>
#include <stddef.h>
#include <string.h>

#include "formats/reader.h"

#define FUZZ_MAX_MESSAGES 100000

int LLVMFuzzerTestOneInput (const uint8_t * data, size_t size);

static volatile guint8 sink;

static void
touch_topics (const RcReader * reader)
{
  for (guint t = 0; t < rc_reader_n_topics (reader); t++) {
    const RcTopic *topic = rc_reader_get_topic (reader, t);

    sink ^= strlen (topic->name) + strlen (topic->type) +
        strlen (topic->encoding);
    if (topic->schema)
      sink ^= topic->schema[topic->schema_size];
    (void) rc_reader_find_topic (reader, topic->name);
  }
}

/* Reads up to @max messages; the last message's time in *@last. */
static void
read_messages (RcReader * reader, guint max, guint64 * last)
{
  RcMessage msg;
  GError *error = NULL;

  for (guint i = 0; i < max; i++) {
    RcReaderResult result = rc_reader_next (reader, &msg, &error);

    if (result == RC_READER_FAILED) {
      g_clear_error (&error);
      continue;
    }
    if (result == RC_READER_END)
      break;
    if (msg.size)
      sink ^= msg.data[0] ^ msg.data[msg.size - 1];
    sink ^= msg.type[0];
    *last = msg.time;
  }
}

int
LLVMFuzzerTestOneInput (const uint8_t * data, size_t size)
{
  RcReaderFlags flags[] = { RC_READER_FLAGS_NONE, RC_READER_FLAG_SKIP_CRC };

  for (guint f = 0; f < G_N_ELEMENTS (flags); f++) {
    RcReader *reader = rc_reader_open_data_full (data, size, flags[f], NULL);
    RcReaderRecovery recovery;
    guint64 last = 0;

    if (!reader)
      continue;
    rc_reader_get_recovery (reader, &recovery);
    touch_topics (reader);
    if (rc_reader_n_topics (reader) > 1)
      rc_reader_select_topic (reader, 1, FALSE);
    read_messages (reader, FUZZ_MAX_MESSAGES, &last);
    rc_reader_seek (reader, last / 2);
    read_messages (reader, 16, &last);
    rc_reader_free (reader);
  }
  return 0;
}
