/* Opening a recording for the recording sources
 * (gstrobocacherecordingfile.h). */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstrobocacherecordingfile.h"
#include "formats/rosbag2.h"

#include <string.h>
#include <sys/stat.h>
#include <glib/gstdio.h>

GST_DEBUG_CATEGORY_EXTERN (gst_robocache_recording_src_debug);
#define GST_CAT_DEFAULT gst_robocache_recording_src_debug

/* A file cut off before its end (as a recorder killed mid-write leaves
 * it), read by scanning, plays what could be recovered; says how much, as
 * a warning and an element message "robocache-recovered". */
static void
post_recovery (GstElement * self, RcReader * reader, const gchar * location)
{
  RcReaderRecovery r;
  GstStructure *s;

  rc_reader_get_recovery (reader, &r);
  if (!r.scanned)
    return;
  GST_ELEMENT_WARNING (self, STREAM, DEMUX, ("%s ends early (a recording "
          "cut off?): %" G_GUINT64_FORMAT " messages recovered%s%s",
          location, r.n_messages, r.reason ? ": " : "",
          r.reason ? r.reason : ""), ("readable data ends at byte %"
          G_GUINT64_FORMAT " of %" G_GUINT64_FORMAT "; %" G_GUINT64_FORMAT
          " records skipped", r.end_offset, r.file_size,
          r.n_skipped_records));
  s = gst_structure_new ("robocache-recovered",
      "location", G_TYPE_STRING, location,
      "format", G_TYPE_STRING, rc_reader_format_name (reader),
      "messages", G_TYPE_UINT64, r.n_messages,
      "end-offset", G_TYPE_UINT64, r.end_offset,
      "file-size", G_TYPE_UINT64, r.file_size,
      "skipped-records", G_TYPE_UINT64, r.n_skipped_records, NULL);
  if (r.reason)
    gst_structure_set (s, "reason", G_TYPE_STRING, r.reason, NULL);
  gst_element_post_message (self, gst_message_new_element (GST_OBJECT (self),
          s));
}

static gint
compare_file_names (gconstpointer a, gconstpointer b)
{
  gchar *x = g_utf8_collate_key_for_filename (*(const gchar **) a, -1);
  gchar *y = g_utf8_collate_key_for_filename (*(const gchar **) b, -1);
  gint order = strcmp (x, y);

  g_free (x);
  g_free (y);
  return order;
}

/* The formats of the files a folder's recording is made of: MCAP and
 * rosbag2's SQLite storage (rosbag2), ROS bags (rosbag record --split).
 * Each may also end in its own second suffix: rosbag2's files compressed
 * whole (--compression-mode file: rec_0.mcap.zstd), which the reader
 * decompresses; the bag rosbag record was writing when it was killed or
 * the power went (rec_2.bag.active: renamed at a clean stop), which the
 * reader recovers. */
#define WHOLE_FILE_SUFFIX ".zstd"

static const gchar *const recording_formats[] = { ".mcap", ".db3", ".bag" };
static const gchar *const second_suffixes[] = { WHOLE_FILE_SUFFIX,
  WHOLE_FILE_SUFFIX, ".active"
};

#define N_FORMATS G_N_ELEMENTS (recording_formats)

static gboolean
has_suffix_len (const gchar * name, gsize len, const gchar * suffix)
{
  gsize suffix_len = strlen (suffix);

  return len >= suffix_len && !strncmp (name + len - suffix_len, suffix,
      suffix_len);
}

/* The format of the file @name, an index of recording_formats; N_FORMATS
 * for none. */
static guint
format_of (const gchar * name)
{
  gsize len = strlen (name);

  for (guint k = 0; k < N_FORMATS; k++) {
    gsize stem = len - (g_str_has_suffix (name, second_suffixes[k]) ?
        strlen (second_suffixes[k]) : 0);

    if (has_suffix_len (name, stem, recording_formats[k]))
      return k;
  }
  return N_FORMATS;
}

/* The NULL-terminated paths in @found, in their names' natural order
 * (rec_2 before rec_10, rec_1.mcap.zstd before rec_2.mcap); frees @found,
 * not the paths. */
static gchar **
sorted_paths (GPtrArray * found)
{
  g_ptr_array_sort (found, compare_file_names);
  g_ptr_array_add (found, NULL);
  return (gchar **) g_ptr_array_free (found, FALSE);
}

/* The format of the files in @found that make the folder @location's
 * recording; N_FORMATS and an element error for a folder with none, or
 * with files of two formats. */
static guint
folder_format (GstElement * self, const gchar * location, GPtrArray ** found)
{
  guint format = N_FORMATS;

  for (guint k = 0; k < N_FORMATS; k++) {
    if (found[k]->len == 0)
      continue;
    if (format < N_FORMATS) {
      GST_ELEMENT_ERROR (self, RESOURCE, NOT_FOUND, ("%s is a folder with "
              "both %s and %s files; accepted is a file, or a folder of one "
              "recording's files of one format", location,
              recording_formats[format], recording_formats[k]), (NULL));
      return N_FORMATS;
    }
    format = k;
  }
  if (format == N_FORMATS)
    GST_ELEMENT_ERROR (self, RESOURCE, NOT_FOUND, ("%s is a folder with no "
            "recording files; accepted is a file, or a folder (a rosbag2 "
            "recording) of .mcap, .db3 or .bag files (also .mcap.zstd and "
            ".db3.zstd, compressed whole, and the .bag.active of a killed "
            "rosbag record)", location), (NULL));
  return format;
}

/* Whether the folder entry @path may be part of a recording: a file that
 * is not empty.  An empty one (a split the recorder opened, then died or
 * ran out of disk) is left out with a warning. */
static gboolean
is_recording_file (GstElement * self, const gchar * path)
{
  GStatBuf st;

  if (g_stat (path, &st) != 0 || !S_ISREG (st.st_mode))
    return FALSE;
  if (st.st_size > 0)
    return TRUE;
  GST_ELEMENT_WARNING (self, RESOURCE, READ, ("%s is empty (a file the "
          "recorder opened but never wrote?): left out", path), (NULL));
  return FALSE;
}

/* The name of the file @name in its other form, compressed whole or not
 * (rec_0.mcap.zstd for rec_0.mcap, and back); NULL for a file of a
 * format rosbag2 does not compress (.bag). */
static gchar *
other_form (const gchar * name)
{
  guint format = format_of (name);

  if (format == N_FORMATS
      || strcmp (second_suffixes[format], WHOLE_FILE_SUFFIX) != 0)
    return NULL;
  if (g_str_has_suffix (name, WHOLE_FILE_SUFFIX))
    return g_strndup (name, strlen (name) - strlen (WHOLE_FILE_SUFFIX));
  return g_strconcat (name, WHOLE_FILE_SUFFIX, NULL);
}

/* The path in the folder @location of the file that metadata.yaml lists
 * as *@listed, which is renamed to what was found; NULL where none is
 * there. */
static gchar *
find_listed (GstElement * self, const gchar * location, gchar ** listed)
{
  gchar *path = g_build_filename (location, *listed, NULL);
  gchar *base, *other;

  if (g_file_test (path, G_FILE_TEST_EXISTS))
    return path;
  g_free (path);
  /* Up to ROS 2 Foxy the paths began with the folder's own name. */
  base = g_path_get_basename (*listed);
  g_free (*listed);
  *listed = base;
  path = g_build_filename (location, base, NULL);
  if (g_file_test (path, G_FILE_TEST_EXISTS))
    return path;
  g_free (path);
  /* Decompressed by hand since (zstd -d --rm), or compressed: the same
   * messages. */
  other = other_form (base);
  path = other ? g_build_filename (location, other, NULL) : NULL;
  if (!path || !g_file_test (path, G_FILE_TEST_EXISTS)) {
    g_free (other);
    g_free (path);
    return NULL;
  }
  GST_INFO_OBJECT (self, "%s: metadata.yaml lists %s, %s is there: played",
      location, base, other);
  g_free (*listed);
  *listed = other;
  return path;
}

/* Whether the folder entry @name, not listed in metadata.yaml, is a
 * listed file in its other form (left out without a word: a copy
 * decompressed by hand beside the file rosbag2 compressed). */
static gboolean
is_other_form_of_listed (const gchar * name, gchar ** listed)
{
  gchar *other = other_form (name);
  gboolean found = other
      && g_strv_contains ((const gchar * const *) listed, other);

  g_free (other);
  return found;
}

/* The files of the rosbag2 recording in folder @location that its
 * metadata.yaml lists in @listed (freed), in that order (find_listed);
 * a recording file beside them that it does not list (a copy, a backup)
 * is left out with a warning.  NULL and an element error where a listed
 * file is missing. */
static gchar **
listed_files (GstElement * self, const gchar * location, gchar ** listed)
{
  GPtrArray *paths = g_ptr_array_new_with_free_func (g_free);
  GDir *dir = g_dir_open (location, 0, NULL);
  const gchar *name;

  for (gchar ** f = listed; *f; f++) {
    gchar *path = find_listed (self, location, f);

    if (!path) {
      GST_ELEMENT_ERROR (self, RESOURCE, NOT_FOUND, ("%s: metadata.yaml "
              "lists %s, which is not there, compressed whole or not; "
              "accepted is a rosbag2 folder holding every file its "
              "metadata.yaml lists", location, *f), (NULL));
      g_clear_pointer (&paths, g_ptr_array_unref);
      break;
    }
    if (is_recording_file (self, path))
      g_ptr_array_add (paths, path);
    else
      g_free (path);
  }
  while (paths && dir && (name = g_dir_read_name (dir))) {
    if (format_of (name) < N_FORMATS
        && !g_strv_contains ((const gchar * const *) listed, name)
        && !is_other_form_of_listed (name, listed))
      GST_ELEMENT_WARNING (self, RESOURCE, READ, ("%s/%s is not among the "
              "files metadata.yaml lists: left out", location, name),
          (NULL));
  }
  if (dir)
    g_dir_close (dir);
  g_strfreev (listed);
  if (paths && paths->len == 0) {
    GST_ELEMENT_ERROR (self, RESOURCE, NOT_FOUND, ("%s: the files its "
            "metadata.yaml lists are empty", location), (NULL));
    g_clear_pointer (&paths, g_ptr_array_unref);
  }
  if (!paths)
    return NULL;
  g_ptr_array_add (paths, NULL);
  return (gchar **) g_ptr_array_free (paths, FALSE);
}

/* Whether the folder @location's file @name, compressed whole, is left
 * out since the same file lies beside it uncompressed: rosbag2 compresses
 * each split once closed and then removes it, so both are there only
 * where it stopped while compressing, and the compressed one may be cut
 * off. */
static gboolean
has_uncompressed_twin (GstElement * self, const gchar * location,
    const gchar * name)
{
  gchar *stem, *path;
  gboolean twin;
  GStatBuf st;

  if (!g_str_has_suffix (name, WHOLE_FILE_SUFFIX)
      || !(stem = other_form (name)))
    return FALSE;
  path = g_build_filename (location, stem, NULL);
  /* An empty twin is left out itself (is_recording_file). */
  twin = g_stat (path, &st) == 0 && S_ISREG (st.st_mode) && st.st_size > 0;
  if (twin)
    GST_ELEMENT_WARNING (self, RESOURCE, READ, ("%s/%s is left out: %s "
            "beside it is the same file uncompressed (rosbag2 stopped while "
            "compressing it)", location, name, stem), (NULL));
  g_free (path);
  g_free (stem);
  return twin;
}

/* The recording files in the folder @location, by format, into @found. */
static void
scan_folder (GstElement * self, const gchar * location, GPtrArray ** found)
{
  GDir *dir = g_dir_open (location, 0, NULL);
  const gchar *name;

  while (dir && (name = g_dir_read_name (dir))) {
    guint format = format_of (name);
    gchar *path;

    if (format == N_FORMATS || has_uncompressed_twin (self, location, name))
      continue;
    path = g_build_filename (location, name, NULL);
    if (is_recording_file (self, path))
      g_ptr_array_add (found[format], path);
    else
      g_free (path);
  }
  if (dir)
    g_dir_close (dir);
}

/* The files to read at @location: itself; or, in a folder, a rosbag2
 * recording's as its metadata.yaml lists them; or else its recording
 * files (a rosbag2 recording cut off before metadata.yaml was written,
 * rosbag's split .bag files) in their names' order, the parts of a
 * recording split by size or duration.  NULL and an element error for a
 * folder with none, or with files of two formats. */
static gchar **
recording_files (GstElement * self, const gchar * location)
{
  GPtrArray *found[N_FORMATS];
  const gchar *single[] = { location, NULL };
  gchar **listed;
  guint format;

  if (!g_file_test (location, G_FILE_TEST_IS_DIR))
    return g_strdupv ((gchar **) single);
  listed = rc_rosbag2_read_file_list (location);
  if (listed)
    return listed_files (self, location, listed);
  for (guint k = 0; k < N_FORMATS; k++)
    found[k] = g_ptr_array_new_with_free_func (g_free);
  scan_folder (self, location, found);
  format = folder_format (self, location, found);
  for (guint k = 0; k < N_FORMATS; k++) {
    if (k != format)
      g_ptr_array_unref (found[k]);
  }
  return format < N_FORMATS ? sorted_paths (found[format]) : NULL;
}

RcReader *
gst_robocache_recording_open (GstElement * self, const gchar * location,
    RcReaderFlags flags)
{
  GError *error = NULL;
  gchar **files = recording_files (self, location);
  RcReader *reader;

  if (!files)
    return NULL;
  reader = rc_reader_open_files ((const gchar * const *) files, flags, &error);
  if (reader) {
    post_recovery (self, reader, location);
  } else if (error->code == RC_READER_ERROR_IO) {
    GST_ELEMENT_ERROR (self, RESOURCE, OPEN_READ, ("%s", error->message),
        (NULL));
  } else {
    /* The file, where a folder's was chosen; a split recording's errors
     * name theirs. */
    GST_ELEMENT_ERROR (self, STREAM, DEMUX, ("%s: %s", files[1] ? location :
            files[0], error->message), (NULL));
  }
  g_clear_error (&error);
  g_strfreev (files);
  return reader;
}

GstMemory *
gst_robocache_recording_file_memory (GMappedFile * mapped)
{
  gsize size = mapped ? g_mapped_file_get_length (mapped) : 0;

  if (size == 0)
    return NULL;
  return gst_memory_new_wrapped (GST_MEMORY_FLAG_READONLY,
      g_mapped_file_get_contents (mapped), size, 0, size,
      g_mapped_file_ref (mapped), (GDestroyNotify) g_mapped_file_unref);
}

GstCaps *
gst_robocache_recording_peek_caps (RcReader * reader, guint topic_index,
    GstRobocacheRosDecoder * decoder, guint max_messages)
{
  const RcTopic *topic = rc_reader_get_topic (reader, topic_index);
  GstRobocacheRosSkip skip = { 0 };
  GstBuffer *buf = NULL;
  GstCaps *caps = NULL;
  RcReader *ahead;
  RcMessage msg;
  guint64 stamp;

  /* A second reader, so that the played position is left alone. */
  ahead = rc_reader_reopen (reader, RC_READER_FLAG_SKIP_CRC, NULL);
  if (!ahead)
    return NULL;
  for (guint t = 0; t < rc_reader_n_topics (ahead); t++)
    rc_reader_select_topic (ahead, t, t == topic_index);
  rc_reader_seek (ahead, topic->first_time);
  for (guint i = 0; !buf && i < max_messages
      && rc_reader_next (ahead, &msg, NULL) == RC_READER_OK; i++) {
    gst_clear_caps (&caps);
    g_clear_pointer (&skip.reason, g_free);
    buf = gst_robocache_ros_decoder_buffer_new (decoder, msg.data, msg.size,
        &stamp, &caps, &skip, NULL);
  }
  if (!buf)
    gst_clear_caps (&caps);
  gst_clear_buffer (&buf);
  g_free (skip.reason);
  rc_reader_free (ahead);
  return caps;
}
