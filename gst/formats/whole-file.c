/* A recording file compressed whole (rosbag2's --compression-mode file:
 * <name>_0.mcap.zstd, <name>_0.db3.zstd), decompressed into a temporary
 * file for its format's reader (reader-impl.h).  A file on disk rather
 * than memory: a split is often gigabytes, and pages of a file the kernel
 * can drop; bounded by the temporary folder's free space, said before a
 * byte is written where the frames give their size (rosbag2's do). */
#include "reader-impl.h"

#include <errno.h>
#include <string.h>
#include <unistd.h>
#include <sys/statvfs.h>
#include <glib/gstdio.h>
#include <zstd.h>

#define OUT_CHUNK (1 << 20)

struct _RcWholeFile
{
  gchar *path;
};

/* The bytes free to an unprivileged writer in the file system of @fd. */
static guint64
free_bytes (gint fd)
{
  struct statvfs st;

  if (fstatvfs (fd, &st) != 0)
    return G_MAXUINT64;         /* unknown: the writes will say */
  return (guint64) st.f_bavail * st.f_frsize;
}

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
          RC_READER_ERROR_TOO_LARGE : RC_READER_ERROR_IO, "cannot write "
          "the decompressed recording to %s: %s", path, g_strerror (saved));
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

/* Streams @data's zstd frames into @fd (the file @path), at most @room
 * bytes. */
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
          "decompress the zstd data at byte %" G_GSIZE_FORMAT ": %s", in.pos,
          ZSTD_getErrorName (left));
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

/* The temporary file's name: the compressed file's, less ".zstd", after a
 * unique prefix, so that its reader's errors still say which it was. */
static gint
open_temporary (const gchar * path, gchar ** temporary, GError ** error)
{
  gchar *base = g_path_get_basename (path);
  gchar *template;
  GError *err = NULL;
  gint fd;

  if (g_str_has_suffix (base, ".zstd"))
    base[strlen (base) - strlen (".zstd")] = '\0';
  template = g_strdup_printf ("robocache-XXXXXX-%s", base);
  fd = g_file_open_tmp (template, temporary, &err);
  if (fd < 0) {
    rc_reader_fail (error, RC_READER_ERROR_IO, "cannot make a temporary "
        "file to decompress into: %s", err->message);
    g_error_free (err);
  }
  g_free (template);
  g_free (base);
  return fd;
}

RcWholeFile *
rc_whole_file_inflate (const gchar * path, const guint8 * data, gsize size,
    GError ** error)
{
  unsigned long long declared = declared_size (data, size);
  RcWholeFile *file;
  gchar *temporary = NULL;
  guint64 room;
  gboolean ok;
  gint fd;

  if (declared == ZSTD_CONTENTSIZE_ERROR) {
    rc_reader_fail (error, RC_READER_ERROR_FORMAT, "damaged or cut-off zstd "
        "data (its frames do not add up to the file)");
    return NULL;
  }
  fd = open_temporary (path, &temporary, error);
  if (fd < 0)
    return NULL;
  room = free_bytes (fd);
  if (declared != ZSTD_CONTENTSIZE_UNKNOWN && declared > room)
    ok = fail_no_room (error, declared, TRUE, room);
  else
    ok = inflate_into (data, size, fd, temporary, room, error);
  if (close (fd) != 0 && ok)
    ok = rc_reader_fail (error, RC_READER_ERROR_IO, "cannot write the "
        "decompressed recording to %s: %s", temporary, g_strerror (errno));
  if (!ok) {
    g_unlink (temporary);
    g_free (temporary);
    return NULL;
  }
  file = g_atomic_rc_box_new0 (RcWholeFile);
  file->path = temporary;
  return file;
}

const gchar *
rc_whole_file_path (const RcWholeFile * file)
{
  return file->path;
}

RcWholeFile *
rc_whole_file_ref (RcWholeFile * file)
{
  return g_atomic_rc_box_acquire (file);
}

static void
whole_file_clear (gpointer data)
{
  RcWholeFile *file = data;

  g_unlink (file->path);
  g_free (file->path);
}

void
rc_whole_file_unref (RcWholeFile * file)
{
  g_atomic_rc_box_release_full (file, whole_file_clear);
}
