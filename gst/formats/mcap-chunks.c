/* The MCAP reader's decompressed chunks (mcap-reader.h): a small cache,
 * and decompression on several cores.  Reading a zstd recording is mostly
 * decompressing it, one chunk after another; when the reader needs a chunk
 * it does not hold, it decompresses that one and, on other threads at the
 * same time, the next chunks its message index says it will read (of the
 * selected topics), so that a file reads at the speed of several cores.
 * Chunks are independent, so this changes nothing but the time: a chunk
 * that fails while read ahead is decompressed again when it is needed,
 * and then its error is reported.  Memory stays within the cache's bounds:
 * at most MCAP_CACHE_CHUNKS chunks, MCAP_CACHE_BYTES read ahead. */
#include "mcap-reader.h"

typedef struct
{
  McapReader *reader;
  guint32 chunk;
  const guint8 *records;
  gboolean owned;
  GError *error;
} Job;

static void
run_job (Job * job)
{
  McapReader *self = job->reader;
  const McapChunkInfo *info = &g_array_index (self->chunks, McapChunkInfo,
      job->chunk);

  if (!mcap_chunk_decompress (&info->chunk, info->offset, self->check_crc,
          &job->records, &job->owned, &job->error))
    job->records = NULL;
}

/* A job on a decompressing thread. */
static void
run_pooled_job (gpointer data, gpointer user_data)
{
  McapReader *self = user_data;

  run_job (data);
  g_mutex_lock (&self->jobs_lock);
  if (--self->jobs_pending == 0)
    g_cond_signal (&self->jobs_done);
  g_mutex_unlock (&self->jobs_lock);
}

static gboolean
is_cached (McapReader * self, guint32 chunk)
{
  for (guint i = 0; i < MCAP_CACHE_CHUNKS; i++)
    if (self->cache[i].records && self->cache[i].chunk == chunk)
      return TRUE;
  return FALSE;
}

/* Frees cache slots, least recently used first, until one is free and
 * @need more bytes keep the decompressed ones within MCAP_CACHE_BYTES. */
static McapCachedChunk *
make_room (McapReader * self, guint64 need)
{
  for (;;) {
    McapCachedChunk *free_slot = NULL, *oldest = NULL;
    guint64 bytes = 0;

    for (guint i = 0; i < MCAP_CACHE_CHUNKS; i++) {
      McapCachedChunk *slot = &self->cache[i];

      if (!slot->records) {
        free_slot = slot;
        continue;
      }
      if (slot->owned)
        bytes += g_array_index (self->chunks, McapChunkInfo,
            slot->chunk).chunk.uncompressed_size;
      if (!oldest || slot->last_use < oldest->last_use)
        oldest = slot;
    }
    if (free_slot && (bytes + need <= MCAP_CACHE_BYTES || !oldest))
      return free_slot;
    if (oldest->owned)
      g_free ((guint8 *) oldest->records);
    oldest->records = NULL;
  }
}

static void
cache_job (McapReader * self, const Job * job)
{
  McapCachedChunk *slot = make_room (self, g_array_index (self->chunks,
          McapChunkInfo, job->chunk).chunk.uncompressed_size);

  slot->chunk = job->chunk;
  slot->records = job->records;
  slot->owned = job->owned;
  slot->last_use = ++self->clock;
}

/* Jobs for the next chunks the reader will read that it does not hold,
 * after @jobs[0]; returns how many jobs there are in all. */
static guint
plan_read_ahead (McapReader * self, Job * jobs, guint max_jobs)
{
  /* How far ahead to look: a few chunks' worth of messages. */
  const gsize horizon = MIN (self->entries->len, self->next + 4096);
  guint64 bytes = 0;
  guint n = 1;

  for (gsize i = self->next; i < horizon && n < max_jobs; i++) {
    const McapEntry *e = &g_array_index (self->entries, McapEntry, i);
    guint64 size;
    gboolean planned = FALSE;

    if (e->chunk == MCAP_NOT_CHUNKED ||
        !rc_reader_topic_is_selected (&self->parent, e->topic))
      continue;
    for (guint j = 0; j < n; j++)
      planned |= jobs[j].chunk == e->chunk;
    if (planned || is_cached (self, e->chunk))
      continue;
    size = g_array_index (self->chunks, McapChunkInfo,
        e->chunk).chunk.uncompressed_size;
    if (bytes + size > MCAP_CACHE_BYTES / 2)
      break;
    bytes += size;
    jobs[n++] = (Job) {
    self, e->chunk, NULL, FALSE, NULL};
  }
  return n;
}

/* Decompresses @chunk here and the chunks to come on the other threads,
 * then caches them; FALSE with @error if @chunk fails. */
static gboolean
load_chunks (McapReader * self, guint32 chunk, GError ** error)
{
  Job jobs[MCAP_CACHE_CHUNKS] = { {self, chunk, NULL, FALSE, NULL}, };
  guint n = 1;

  if (self->decompressors)
    n = plan_read_ahead (self, jobs, MIN (self->n_decompressors + 1,
            MCAP_CACHE_CHUNKS - 1));
  self->jobs_pending = n - 1;
  for (guint i = 1; i < n; i++)
    g_thread_pool_push (self->decompressors, &jobs[i], NULL);
  run_job (&jobs[0]);
  g_mutex_lock (&self->jobs_lock);
  while (self->jobs_pending > 0)
    g_cond_wait (&self->jobs_done, &self->jobs_lock);
  g_mutex_unlock (&self->jobs_lock);

  /* The chunk needed now last: the most recently used, kept longest. */
  for (guint i = n; i-- > 0;) {
    if (jobs[i].records)
      cache_job (self, &jobs[i]);
    else if (i > 0)
      g_clear_error (&jobs[i].error);
  }
  if (!jobs[0].records) {
    g_propagate_error (error, jobs[0].error);
    return FALSE;
  }
  return TRUE;
}

/* Threads for reading ahead: one per core besides the reader's own. */
static void
start_decompressors (McapReader * self)
{
  guint cores = g_get_num_processors ();

  self->n_decompressors = MIN (cores, MCAP_CACHE_CHUNKS - 1) - 1;
  if (self->n_decompressors > 0)
    self->decompressors = g_thread_pool_new (run_pooled_job, self,
        self->n_decompressors, FALSE, NULL);
  g_mutex_init (&self->jobs_lock);
  g_cond_init (&self->jobs_done);
  self->jobs_ready = TRUE;
}

const guint8 *
mcap_reader_get_chunk (McapReader * self, guint32 chunk, GError ** error)
{
  for (guint i = 0; i < MCAP_CACHE_CHUNKS; i++) {
    McapCachedChunk *slot = &self->cache[i];

    if (slot->records && slot->chunk == chunk) {
      slot->last_use = ++self->clock;
      return slot->records;
    }
  }
  if (!self->jobs_ready)
    start_decompressors (self);
  if (!load_chunks (self, chunk, error))
    return NULL;
  for (guint i = 0; i < MCAP_CACHE_CHUNKS; i++)
    if (self->cache[i].records && self->cache[i].chunk == chunk)
      return self->cache[i].records;
  g_assert_not_reached ();
}

void
mcap_reader_clear_chunks (McapReader * self)
{
  if (self->decompressors)
    g_thread_pool_free (self->decompressors, FALSE, TRUE);
  for (guint i = 0; i < MCAP_CACHE_CHUNKS; i++) {
    if (self->cache[i].owned)
      g_free ((guint8 *) self->cache[i].records);
  }
  if (self->jobs_ready) {
    g_mutex_clear (&self->jobs_lock);
    g_cond_clear (&self->jobs_done);
  }
}
