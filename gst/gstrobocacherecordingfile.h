/* Opening a recording for the recording sources
 * (gstrobocacherecordingsrc.h): the file at a location or in a rosbag2
 * folder, errors as element errors, and what a scan recovered from a
 * cut-off file posted. */
#ifndef __GST_ROBOCACHE_RECORDING_FILE_H__
#define __GST_ROBOCACHE_RECORDING_FILE_H__

#include <gst/gst.h>

#include "formats/reader.h"

G_BEGIN_DECLS

/* The reader of the recording at @location: a file, or a folder (a rosbag2
 * recording) holding one .mcap or .bag file.  NULL and an element error of
 * @element if it cannot be read.  A cut-off file read by scanning is
 * played, with a warning and an element message "robocache-recovered"
 * (location, format, messages, end-offset, file-size, skipped-records). */
RcReader *gst_robocache_recording_open (GstElement * element,
    const gchar * location, RcReaderFlags flags);

G_END_DECLS
#endif
