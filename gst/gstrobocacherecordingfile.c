/* Opening a recording for the recording sources
 * (gstrobocacherecordingfile.h). */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstrobocacherecordingfile.h"

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
          "cut off?): %" G_GUINT64_FORMAT " messages recovered by "
          "scanning the file", location, r.n_messages),
      ("readable data ends at byte %" G_GUINT64_FORMAT " of %"
          G_GUINT64_FORMAT "; %" G_GUINT64_FORMAT " records skipped%s%s",
          r.end_offset, r.file_size, r.n_skipped_records,
          r.reason ? "; " : "", r.reason ? r.reason : ""));
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

/* The file to read at @location: itself, or in a folder (a rosbag2
 * recording: metadata.yaml beside one .mcap or .bag file) that file; or,
 * where there is none, its one file compressed whole (.mcap.zstd), which
 * the reader then refuses saying why.  NULL and an element error for a
 * folder with none or several. */
static gchar *
recording_file (GstElement * self, const gchar * location)
{
  GDir *dir;
  const gchar *name;
  gchar *found = NULL, *compressed = NULL;
  guint n = 0, n_compressed = 0;

  if (!g_file_test (location, G_FILE_TEST_IS_DIR))
    return g_strdup (location);
  dir = g_dir_open (location, 0, NULL);
  while (dir && (name = g_dir_read_name (dir))) {
    if (g_str_has_suffix (name, ".mcap.zstd")) {
      n_compressed++;
      g_free (compressed);
      compressed = g_build_filename (location, name, NULL);
    }
    if (!g_str_has_suffix (name, ".mcap") && !g_str_has_suffix (name, ".bag"))
      continue;
    n++;
    g_free (found);
    found = g_build_filename (location, name, NULL);
  }
  if (dir)
    g_dir_close (dir);
  if (n == 0 && n_compressed == 1) {
    g_free (found);
    return compressed;
  }
  g_free (compressed);
  if (n == 1)
    return found;
  g_free (found);
  GST_ELEMENT_ERROR (self, RESOURCE, NOT_FOUND, ("%s is a folder with %u "
          "recording files (.mcap or .bag); accepted is a file, or a folder "
          "(a rosbag2 recording) with exactly one: give a split recording's "
          "files one at a time", location, n), (NULL));
  return NULL;
}

RcReader *
gst_robocache_recording_open (GstElement * self, const gchar * location,
    RcReaderFlags flags)
{
  GError *error = NULL;
  gchar *file = recording_file (self, location);
  RcReader *reader;

  if (!file)
    return NULL;
  reader = rc_reader_open_full (file, flags, &error);
  if (reader) {
    post_recovery (self, reader, location);
  } else if (error->code == RC_READER_ERROR_IO) {
    GST_ELEMENT_ERROR (self, RESOURCE, OPEN_READ, ("%s", error->message),
        (NULL));
  } else {
    /* The file, where a folder's was chosen. */
    GST_ELEMENT_ERROR (self, STREAM, DEMUX, ("%s: %s", file, error->message),
        (NULL));
  }
  g_clear_error (&error);
  g_free (file);
  return reader;
}

GstMemory *
gst_robocache_recording_file_memory (RcReader * reader)
{
  GMappedFile *mapped = rc_reader_get_mapped_file (reader);
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
  GMappedFile *mapped = rc_reader_get_mapped_file (reader);
  const RcTopic *topic = rc_reader_get_topic (reader, topic_index);
  GstRobocacheRosSkip skip = { 0 };
  GstBuffer *buf = NULL;
  GstCaps *caps = NULL;
  RcReader *ahead;
  RcMessage msg;
  guint64 stamp;

  /* A second reader, so that the played position is left alone. */
  ahead = mapped ? rc_reader_open_data_full ((const guint8 *)
      g_mapped_file_get_contents (mapped), g_mapped_file_get_length (mapped),
      RC_READER_FLAG_SKIP_CRC, NULL) : NULL;
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
