/* The MCAP reader's decompressed chunks (mcap-reader.h): a small cache,
 * and decompression ahead of the reader on the other cores.  Reading a
 * zstd recording is mostly decompressing it, one chunk after another;
 * while the reader hands out the messages of one chunk, the next chunks
 * its message index says it will read (of the selected topics) are
 * decompressed on other threads, so that a file reads at the speed of
 * several cores.  Chunks are independent, so this changes nothing but the
 * time: a chunk that fails while read ahead is decompressed again when it
 * is needed, and its error reported then.  Memory stays bounded: at most
 * MCAP_CACHE_CHUNKS chunks cached and MCAP_CACHE_BYTES / 2 in flight.
 * The buffers of evicted chunks are decompressed into again: fresh memory
 * for every chunk would cost a page fault every 4 KiB. */
#include "mcap-reader.h"

/* How many messages ahead of the reader to look for chunks to read. */
#define READ_AHEAD_MESSAGES 1024

typedef struct
{
  McapReader *reader;
  guint32 chunk;
  gboolean busy;                /* the job holds a chunk, done or not */
  gboolean done;                /* under the lock */
  guint8 *buffer;               /* to decompress into, or NULL */
  gsize capacity;               /* of buffer */
  const guint8 *records;        /* NULL if it failed */
  gboolean owned;
  GError *error;
} Job;

/* A buffer of an evicted chunk, for the next one. */
typedef struct
{
  guint8 *data;                 /* NULL: none */
  gsize capacity;
} Spare;

/* The read-ahead's threads are its own (g_thread_try_new), not a
 * GThreadPool's: GLib's pools hand work to the idle threads a process had
 * when it forked, which in the child (a DataLoader worker forked after a
 * first read in the parent) do not exist, so the work never ran, and
 * freeing the pool waited for them for ever. */
typedef struct _McapReadAhead
{
  GAsyncQueue *queue;           /* Job *, or &stop_job; NULL on one core */
  GThread *threads[MCAP_CACHE_CHUNKS];
  guint n_threads;
  guint32 failed;               /* the last chunk that failed read ahead */
  GMutex lock;
  GCond done;
  Job jobs[MCAP_CACHE_CHUNKS];
  Spare spares[MCAP_CACHE_CHUNKS];
} McapReadAhead;

static void
run_job (Job * job)
{
  McapReader *self = job->reader;
  const McapChunkInfo *info = &g_array_index (self->chunks, McapChunkInfo,
      job->chunk);

  if (!mcap_chunk_decompress (&info->chunk, info->offset, self->check_crc,
          job->buffer, &job->records, &job->owned, &job->error))
    job->records = NULL;
}

/* Tells a read-ahead thread to end. */
static Job stop_job;

/* A read-ahead thread: the jobs of the queue until stop_job. */
static gpointer
run_jobs (gpointer data)
{
  McapReadAhead *ra = data;
  Job *job;

  while ((job = g_async_queue_pop (ra->queue)) != &stop_job) {
    run_job (job);
    g_mutex_lock (&ra->lock);
    job->done = TRUE;
    g_cond_broadcast (&ra->done);
    g_mutex_unlock (&ra->lock);
  }
  return NULL;
}

static guint64
chunk_size (McapReader * self, guint32 chunk)
{
  return g_array_index (self->chunks, McapChunkInfo,
      chunk).chunk.uncompressed_size;
}

static McapCachedChunk *
cached (McapReader * self, guint32 chunk)
{
  for (guint i = 0; i < MCAP_CACHE_CHUNKS; i++)
    if (self->cache[i].records && self->cache[i].chunk == chunk)
      return &self->cache[i];
  return NULL;
}

/* Keeps @data for the next chunk, or frees it when the spares are full
 * or would hold more than MCAP_CACHE_BYTES / 2. */
static void
give_spare (McapReadAhead * ra, guint8 * data, gsize capacity)
{
  Spare *free_spare = NULL;
  guint64 bytes = capacity;

  for (guint i = 0; i < MCAP_CACHE_CHUNKS; i++) {
    if (ra->spares[i].data)
      bytes += ra->spares[i].capacity;
    else
      free_spare = &ra->spares[i];
  }
  if (!free_spare || bytes > MCAP_CACHE_BYTES / 2) {
    g_free (data);
    return;
  }
  free_spare->data = data;
  free_spare->capacity = capacity;
}

/* The smallest spare buffer of at least @size bytes, taken; NULL if
 * none. */
static guint8 *
take_spare (McapReadAhead * ra, gsize size, gsize * capacity)
{
  Spare *best = NULL;
  guint8 *data;

  for (guint i = 0; i < MCAP_CACHE_CHUNKS; i++) {
    Spare *spare = &ra->spares[i];

    if (spare->data && spare->capacity >= size &&
        (!best || spare->capacity < best->capacity))
      best = spare;
  }
  if (!best)
    return NULL;
  data = best->data;
  *capacity = best->capacity;
  best->data = NULL;
  return data;
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
        bytes += chunk_size (self, slot->chunk);
      if (!oldest || slot->last_use < oldest->last_use)
        oldest = slot;
    }
    if (free_slot && (bytes + need <= MCAP_CACHE_BYTES || !oldest))
      return free_slot;
    if (oldest->owned)
      give_spare (self->read_ahead, (guint8 *) oldest->records,
          oldest->capacity);
    oldest->records = NULL;
  }
}

/* Moves a finished job's chunk into the cache (a failed one is dropped:
 * it is read again, and fails again, when needed; returns FALSE). */
static gboolean
cache_job (McapReader * self, Job * job)
{
  McapCachedChunk *slot;

  job->busy = FALSE;
  if (!job->records || !job->owned) {
    /* Failed, or an uncompressed chunk read in place. */
    if (job->buffer)
      give_spare (self->read_ahead, job->buffer, job->capacity);
  }
  if (!job->records) {
    g_clear_error (&job->error);
    return FALSE;
  }
  slot = make_room (self, chunk_size (self, job->chunk));
  slot->chunk = job->chunk;
  slot->records = job->records;
  slot->owned = job->owned;
  slot->capacity = job->buffer ? job->capacity : chunk_size (self, job->chunk);
  slot->last_use = ++self->clock;
  return TRUE;
}

/* Caches the chunks read ahead that are ready. */
static void
harvest (McapReader * self, McapReadAhead * ra)
{
  for (guint i = 0; i < MCAP_CACHE_CHUNKS; i++) {
    Job *job = &ra->jobs[i];
    gboolean done;

    g_mutex_lock (&ra->lock);
    done = job->busy && job->done;
    g_mutex_unlock (&ra->lock);
    if (done && !cache_job (self, job))
      ra->failed = job->chunk;
  }
}

/* The job holding @chunk, or NULL. */
static Job *
find_job (McapReadAhead * ra, guint32 chunk)
{
  for (guint i = 0; i < MCAP_CACHE_CHUNKS; i++)
    if (ra->jobs[i].busy && ra->jobs[i].chunk == chunk)
      return &ra->jobs[i];
  return NULL;
}

/* Starts jobs on the next chunks the reader will read that are neither
 * cached nor being read, while threads are free. */
static void
read_ahead (McapReader * self, McapReadAhead * ra)
{
  gsize end = MIN (self->entries->len, self->next + READ_AHEAD_MESSAGES);
  guint64 bytes = 0;
  guint busy = 0;

  for (guint i = 0; i < MCAP_CACHE_CHUNKS; i++) {
    if (ra->jobs[i].busy) {
      busy++;
      bytes += chunk_size (self, ra->jobs[i].chunk);
    }
  }
  for (gsize i = self->next; i < end && busy < ra->n_threads; i++) {
    const McapEntry *e = &g_array_index (self->entries, McapEntry, i);
    Job *job = NULL;

    if (e->chunk == MCAP_NOT_CHUNKED || e->chunk == ra->failed ||
        cached (self, e->chunk) || find_job (ra, e->chunk) ||
        !rc_reader_topic_is_selected (&self->parent, e->topic))
      continue;
    if (bytes + chunk_size (self, e->chunk) > MCAP_CACHE_BYTES / 2)
      return;
    bytes += chunk_size (self, e->chunk);
    for (guint j = 0; j < MCAP_CACHE_CHUNKS && !job; j++)
      job = ra->jobs[j].busy ? NULL : &ra->jobs[j];
    *job = (Job) {
    self, e->chunk, TRUE, FALSE};
    job->buffer = take_spare (ra, chunk_size (self, e->chunk), &job->capacity);
    busy++;
    g_async_queue_push (ra->queue, job);
  }
}

static McapReadAhead *
read_ahead_new (void)
{
  McapReadAhead *ra = g_new0 (McapReadAhead, 1);

  /* One thread per core, as many as the cache holds besides the chunk
   * being read: the reader itself mostly waits for them. */
  guint wanted = MIN (g_get_num_processors (), MCAP_CACHE_CHUNKS - 1);

  ra->failed = MCAP_NOT_CHUNKED;
  g_mutex_init (&ra->lock);
  g_cond_init (&ra->done);
  if (wanted < 2)
    return ra;
  ra->queue = g_async_queue_new ();
  while (ra->n_threads < wanted && (ra->threads[ra->n_threads] =
          g_thread_try_new ("robocache-mcap", run_jobs, ra, NULL)))
    ra->n_threads++;
  if (ra->n_threads == 0)
    g_clear_pointer (&ra->queue, g_async_queue_unref);
  return ra;
}

/* Chunk @chunk into the cache: waited for if it is being read ahead,
 * else decompressed here; FALSE with @error if it fails. */
static gboolean
load_chunk (McapReader * self, McapReadAhead * ra, guint32 chunk,
    GError ** error)
{
  Job *job = find_job (ra, chunk);
  Job here = { self, chunk, TRUE, TRUE };

  if (job) {
    g_mutex_lock (&ra->lock);
    while (!job->done)
      g_cond_wait (&ra->done, &ra->lock);
    g_mutex_unlock (&ra->lock);
    harvest (self, ra);
    if (cached (self, chunk))
      return TRUE;
  }
  here.buffer = take_spare (ra, chunk_size (self, chunk), &here.capacity);
  run_job (&here);
  if (!here.records) {
    g_propagate_error (error, here.error);
    here.error = NULL;
  }
  return cache_job (self, &here);
}

const guint8 *
mcap_reader_get_chunk (McapReader * self, guint32 chunk, GError ** error)
{
  McapCachedChunk *slot;

  if (!self->read_ahead)
    self->read_ahead = read_ahead_new ();
  harvest (self, self->read_ahead);
  if (!cached (self, chunk) && !load_chunk (self, self->read_ahead, chunk,
          error))
    return NULL;
  slot = cached (self, chunk);
  slot->last_use = ++self->clock;
  if (self->read_ahead->queue)
    read_ahead (self, self->read_ahead);
  return slot->records;
}

void
mcap_reader_clear_chunks (McapReader * self)
{
  McapReadAhead *ra = self->read_ahead;

  if (ra) {
    /* The jobs queued run first: their buffers are freed below. */
    for (guint i = 0; i < ra->n_threads; i++)
      g_async_queue_push (ra->queue, &stop_job);
    for (guint i = 0; i < ra->n_threads; i++)
      g_thread_join (ra->threads[i]);
    if (ra->queue)
      g_async_queue_unref (ra->queue);
    for (guint i = 0; i < MCAP_CACHE_CHUNKS; i++) {
      Job *job = &ra->jobs[i];

      if (job->busy && job->owned)
        g_free ((guint8 *) job->records);
      else if (job->busy)
        g_free (job->buffer);
      g_clear_error (&job->error);
      g_free (ra->spares[i].data);
    }
    g_mutex_clear (&ra->lock);
    g_cond_clear (&ra->done);
    g_free (ra);
  }
  for (guint i = 0; i < MCAP_CACHE_CHUNKS; i++) {
    if (self->cache[i].owned)
      g_free ((guint8 *) self->cache[i].records);
  }
}
