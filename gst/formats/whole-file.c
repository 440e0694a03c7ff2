/* A recording file compressed whole (rosbag2's --compression-mode file:
 * <name>_0.mcap.zstd, <name>_0.db3.zstd), decompressed into a temporary
 * file for its format's reader (reader-impl.h).  A file on disk rather
 * than memory: a split is often gigabytes, and pages of a file the kernel
 * can drop; bounded by the temporary folder's free space, said before a
 * byte is written where the frames give their size (rosbag2's do).  The
 * file is unlinked as soon as it is made, so nothing is left behind, even
 * by a crash: its descriptor and the mappings of it hold its space.
 *
 * A split recording (chain-reader.c) opens its files again and again (at
 * start, on each seek, for a look ahead): while one is open, the last
 * files decompressed are kept, by their descriptors, and a file opened
 * again is mapped afresh from its kept copy (each reader its own private
 * mapping, so that one consumer's writes are never another's data). */
#include "reader-impl.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>
#include <sys/statvfs.h>
#include <glib/gstdio.h>
#include <zstd.h>
#include <zstd_errors.h>

#define OUT_CHUNK (1 << 20)
/* How many files decompressed are kept: a split recording's merge reads
 * one or two at a time. */
#define N_KEPT 2
/* The longest name of a file made in the temporary folder (most file
 * systems take 255 bytes). */
#define MAX_NAME 200

/* A file decompressed, kept: the compressed file's identity and the
 * descriptor of its decompressed copy. */
typedef struct
{
  dev_t dev;
  ino_t ino;
  goffset size;
  gint64 mtime_ns;
  gint fd;                      /* where @used */
  gboolean used;
} Kept;

static GMutex kept_lock;
static Kept kept[N_KEPT];
static guint kept_holders;

/* The bytes free to an unprivileged writer in the file system of @fd. */
static guint64
free_bytes (gint fd)
{
  struct statvfs st;

  if (fstatvfs (fd, &st) != 0)
    return G_MAXUINT64;         /* unknown: the writes will say */
  return (guint64) st.f_bavail * st.f_frsize;
}

/* Writes to the temporary file of the compressed file @path. */
static gboolean
write_all (gint fd, const guint8 * data, gsize size, const gchar * path,
    GError ** error)
{
  while (size > 0) {
    gssize n = write (fd, data, size);

    if (n < 0 && errno == EINTR)
      continue;
    if (n < 0) {
      gint saved = errno;

      return rc_reader_fail (error, saved == ENOSPC ?
          RC_READER_ERROR_TOO_LARGE : RC_READER_ERROR_IO, "cannot write %s "
          "decompressed into the temporary folder %s: %s", path,
          g_get_tmp_dir (), g_strerror (saved));
    }
    data += n;
    size -= n;
  }
  return TRUE;
}

/* Where the decompressed bytes cannot fit: the error, naming the way out. */
static gboolean
fail_no_room (GError ** error, guint64 size, gboolean declared,
    guint64 room)
{
  return rc_reader_fail (error, RC_READER_ERROR_TOO_LARGE, "decompressed, "
      "it takes %s%" G_GUINT64_FORMAT " bytes, and the temporary folder %s "
      "has %" G_GUINT64_FORMAT " free: set TMPDIR to a folder with room, or "
      "decompress it there first (zstd -d FILE -o OUT)", declared ? "" :
      "more than ", size, g_get_tmp_dir (), room);
}

/* Streams @data's zstd frames into @fd, at most @room bytes, for the
 * compressed file @path. */
static gboolean
inflate_into (const guint8 * data, gsize size, gint fd, const gchar * path,
    guint64 room, GError ** error)
{
  ZSTD_DStream *stream = ZSTD_createDStream ();
  ZSTD_inBuffer in = { data, size, 0 };
  guint8 *chunk = g_malloc (OUT_CHUNK);
  guint64 written = 0;
  gsize left = 0;
  gboolean ok = stream != NULL;
  gboolean full = FALSE;

  if (!ok)
    rc_reader_fail (error, RC_READER_ERROR_TOO_LARGE, "out of memory for "
        "zstd's decompression");
  /* With the input all taken, a full chunk may leave more to flush. */
  while (ok && (in.pos < in.size || full)) {
    ZSTD_outBuffer out = { chunk, OUT_CHUNK, 0 };

    left = ZSTD_decompressStream (stream, &out, &in);
    if (ZSTD_isError (left)) {
      ok = rc_reader_fail (error, RC_READER_ERROR_FORMAT, "cannot "
          "decompress the zstd data at byte %" G_GSIZE_FORMAT ": %s%s",
          in.pos, ZSTD_getErrorName (left),
          ZSTD_getErrorCode (left) == ZSTD_error_frameParameter_windowTooLarge
          ? " (compressed with zstd --long: decompress it first, zstd -d "
          "--long=31 FILE)" : "");
      break;
    }
    written += out.pos;
    full = out.pos == out.size;
    if (written > room)
      ok = fail_no_room (error, room, FALSE, room);
    else
      ok = write_all (fd, chunk, out.pos, path, error);
  }
  if (ok && left != 0)
    ok = rc_reader_fail (error, RC_READER_ERROR_FORMAT, "the file ends "
        "inside a zstd frame (cut off while it was compressed?)");
  ZSTD_freeDStream (stream);
  g_free (chunk);
  return ok;
}

/* The bytes @data's frames decompress to, as their headers say (huge
 * sums saturate); ZSTD_CONTENTSIZE_UNKNOWN where a frame does not say, or
 * ZSTD_CONTENTSIZE_ERROR where the frames do not add up to @size bytes. */
static unsigned long long
declared_size (const guint8 * data, gsize size)
{
  const unsigned long long most = ZSTD_CONTENTSIZE_ERROR - 1;
  unsigned long long total = 0;
  gboolean known = TRUE;

  while (size > 0) {
    unsigned long long n = ZSTD_getFrameContentSize (data, size);
    gsize frame = ZSTD_findFrameCompressedSize (data, size);

    if (n == ZSTD_CONTENTSIZE_ERROR || ZSTD_isError (frame))
      return ZSTD_CONTENTSIZE_ERROR;
    if (n == ZSTD_CONTENTSIZE_UNKNOWN)
      known = FALSE;
    else
      total = n > most - total ? most : total + n;
    data += frame;
    size -= frame;
  }
  return known ? total : ZSTD_CONTENTSIZE_UNKNOWN;
}

/* A new file in the temporary folder, already unlinked, for the
 * compressed file @path: its descriptor (close-on-exec), or -1. */
static gint
open_temporary (const gchar * path, GError ** error)
{
  gchar *base = g_path_get_basename (path);
  gchar *name, *template;
  gint fd, saved;

  /* Its name less ".zstd" and cut to its last bytes where long (the
   * format's suffix), so that an error made while it is open says which
   * file it was. */
  if (g_str_has_suffix (base, ".zstd"))
    base[strlen (base) - strlen (".zstd")] = '\0';
  name = strlen (base) > MAX_NAME ? base + strlen (base) - MAX_NAME : base;
  while ((*name & 0xc0) == 0x80)        /* not inside a UTF-8 character */
    name++;
  template = g_strdup_printf ("%s/robocache-XXXXXX-%s", g_get_tmp_dir (),
      g_strdelimit (name, "X", 'x'));
  fd = g_mkstemp_full (template, O_RDWR | O_CLOEXEC, 0600);
  saved = errno;
  if (fd < 0)
    rc_reader_fail (error, RC_READER_ERROR_IO, "cannot make a temporary "
        "file in %s to decompress %s into: %s", g_get_tmp_dir (), path,
        g_strerror (saved));
  else
    g_unlink (template);
  g_free (template);
  g_free (base);
  return fd;
}

/* The descriptor of a new decompressed copy of the compressed file @path,
 * @data, @size bytes; -1 with @error. */
static gint
inflate_file (const gchar * path, const guint8 * data, gsize size,
    GError ** error)
{
  unsigned long long declared = declared_size (data, size);
  guint64 room;
  gboolean ok;
  gint fd;

  if (declared == ZSTD_CONTENTSIZE_ERROR) {
    rc_reader_fail (error, RC_READER_ERROR_FORMAT, "damaged or cut-off zstd "
        "data (its frames do not add up to the file)");
    return -1;
  }
  fd = open_temporary (path, error);
  if (fd < 0)
    return -1;
  room = free_bytes (fd);
  if (declared != ZSTD_CONTENTSIZE_UNKNOWN && declared > room)
    ok = fail_no_room (error, declared, TRUE, room);
  else
    ok = inflate_into (data, size, fd, path, room, error);
  if (!ok) {
    close (fd);
    return -1;
  }
  return fd;
}

/* The kept copy of the file @st, or NULL; under kept_lock. */
static Kept *
find_kept (const GStatBuf * st)
{
  for (guint i = 0; i < N_KEPT; i++) {
    Kept *k = &kept[i];

    if (k->used && k->dev == st->st_dev && k->ino == st->st_ino
        && k->size == st->st_size
        && k->mtime_ns == (gint64) st->st_mtim.tv_sec * G_GINT64_CONSTANT
        (1000000000) + st->st_mtim.tv_nsec)
      return k;
  }
  return NULL;
}

/* Keeps @fd (a copy of it) as the decompressed copy of the file @st, in
 * place of the oldest; under kept_lock. */
static void
keep (const GStatBuf * st, gint fd)
{
  Kept *k = &kept[N_KEPT - 1];

  if (k->used)
    close (k->fd);
  memmove (&kept[1], &kept[0], (N_KEPT - 1) * sizeof (Kept));
  kept[0].dev = st->st_dev;
  kept[0].ino = st->st_ino;
  kept[0].size = st->st_size;
  kept[0].mtime_ns = (gint64) st->st_mtim.tv_sec *
      G_GINT64_CONSTANT (1000000000) + st->st_mtim.tv_nsec;
  kept[0].fd = fcntl (fd, F_DUPFD_CLOEXEC, 0);
  kept[0].used = kept[0].fd >= 0;
}

gboolean
rc_whole_file_is_compressed (const guint8 * data, gsize size)
{
  /* A frame, or a skippable frame (its magic's low 4 bits free), as pzstd
   * writes first. */
  return size >= 4 && (rc_get_u32 (data) == ZSTD_MAGICNUMBER
      || (rc_get_u32 (data) & 0xfffffff0) == ZSTD_MAGIC_SKIPPABLE_START);
}

gint
rc_whole_file_inflate (const gchar * path, const guint8 * data, gsize size,
    GError ** error)
{
  GStatBuf st;
  gboolean known = g_stat (path, &st) == 0;
  Kept *k;
  gint fd = -1;

  g_mutex_lock (&kept_lock);
  if (known && kept_holders > 0 && (k = find_kept (&st)))
    fd = fcntl (k->fd, F_DUPFD_CLOEXEC, 0);
  g_mutex_unlock (&kept_lock);
  if (fd >= 0)
    return fd;
  fd = inflate_file (path, data, size, error);
  g_mutex_lock (&kept_lock);
  if (fd >= 0 && known && kept_holders > 0 && !find_kept (&st))
    keep (&st, fd);
  g_mutex_unlock (&kept_lock);
  return fd;
}

void
rc_whole_file_keep (void)
{
  g_mutex_lock (&kept_lock);
  kept_holders++;
  g_mutex_unlock (&kept_lock);
}

void
rc_whole_file_release (void)
{
  g_mutex_lock (&kept_lock);
  if (--kept_holders == 0) {
    for (guint i = 0; i < N_KEPT; i++) {
      if (kept[i].used)
        close (kept[i].fd);
      kept[i].used = FALSE;
    }
  }
  g_mutex_unlock (&kept_lock);
}
