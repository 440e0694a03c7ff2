/* Which topics of a recording the recording sources
 * (gstrobocacherecordingsrc.h) play. */
#ifndef __GST_ROBOCACHE_RECORDING_TOPICS_H__
#define __GST_ROBOCACHE_RECORDING_TOPICS_H__

#include <gst/gst.h>

#include "formats/reader.h"

G_BEGIN_DECLS

/* The topics of @reader to play (const RcTopic *), in pad order: those of
 * @wanted (comma-separated) as listed, or with @wanted NULL or empty every
 * topic of a played type and one definition (RcTopic.n_definitions) in
 * name order, the messages of the others added to *@skipped_messages
 * (under @element's object lock) and warned about.  NULL, with an element
 * error naming @location, when a requested topic is missing, recorded
 * with several definitions, of another type or listed twice, or none can
 * be played. */
GPtrArray *gst_robocache_recording_choose_topics (GstElement * element,
    RcReader * reader, const gchar * location, const gchar * wanted,
    guint64 * skipped_messages);

G_END_DECLS
#endif
