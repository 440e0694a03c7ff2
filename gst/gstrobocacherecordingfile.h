/* Opening a recording for the recording sources
 * (gstrobocacherecordingsrc.h): the file at a location or in a rosbag2
 * folder, errors as element errors, and what a scan recovered from a
 * cut-off file posted; the mapped file's bytes shared and read ahead. */
#ifndef __GST_ROBOCACHE_RECORDING_FILE_H__
#define __GST_ROBOCACHE_RECORDING_FILE_H__

#include <gst/gst.h>

#include "formats/reader.h"
#include "gstrobocacherosmsg.h"

G_BEGIN_DECLS

/* The reader of the recording at @location: a file, or a folder (a rosbag2
 * recording) holding one .mcap or .bag file.  NULL and an element error of
 * @element if it cannot be read.  A cut-off file read by scanning is
 * played, with a warning and an element message "robocache-recovered"
 * (location, format, messages, end-offset, file-size, skipped-records). */
RcReader *gst_robocache_recording_open (GstElement * element,
    const gchar * location, RcReaderFlags flags);

/* @mapped (a message's file, RcMessage.mapped) as read-only memory that
 * message buffers can share, or NULL (no mapping, or an empty one). */
GstMemory *gst_robocache_recording_file_memory (GMappedFile * mapped);

/* The caps of the first message of topic @topic_index that @decoder makes
 * a buffer of, among its first @max_messages, read through a second
 * reader of the mapped file (the played position stays).  NULL where none
 * can be read: the file not mapped, the messages skipped or malformed
 * (they say why when they are played). */
GstCaps *gst_robocache_recording_peek_caps (RcReader * reader,
    guint topic_index, GstRobocacheRosDecoder * decoder, guint max_messages);

G_END_DECLS
#endif
