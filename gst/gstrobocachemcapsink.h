#ifndef __GST_ROBOCACHE_MCAP_SINK_H__
#define __GST_ROBOCACHE_MCAP_SINK_H__

#include <gst/gst.h>

G_BEGIN_DECLS
#define GST_TYPE_ROBOCACHE_MCAP_SINK (gst_robocache_mcap_sink_get_type ())
G_DECLARE_FINAL_TYPE (GstRobocacheMcapSink, gst_robocache_mcap_sink,
    GST, ROBOCACHE_MCAP_SINK, GstElement);

#define GST_TYPE_ROBOCACHE_MCAP_SINK_PAD \
    (gst_robocache_mcap_sink_pad_get_type ())
G_DECLARE_FINAL_TYPE (GstRobocacheMcapSinkPad, gst_robocache_mcap_sink_pad,
    GST, ROBOCACHE_MCAP_SINK_PAD, GstPad);

/* The chunk compression (mcap-writer.h's RcMcapCompression, same
 * values). */
typedef enum
{
  GST_ROBOCACHE_MCAP_COMPRESSION_ZSTD,
  GST_ROBOCACHE_MCAP_COMPRESSION_LZ4,
  GST_ROBOCACHE_MCAP_COMPRESSION_NONE
} GstRobocacheMcapCompression;

#define GST_TYPE_ROBOCACHE_MCAP_COMPRESSION \
    (gst_robocache_mcap_compression_get_type ())
GType gst_robocache_mcap_compression_get_type (void);

G_END_DECLS
#endif
