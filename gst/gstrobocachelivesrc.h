/* GstRobocacheLiveSrc: the abstract base of the synthetic sources. */
#ifndef __GST_ROBOCACHE_LIVE_SRC_H__
#define __GST_ROBOCACHE_LIVE_SRC_H__

#include <gst/gst.h>
#include <gst/base/gstpushsrc.h>

#include "gstrobocachefields.h"

G_BEGIN_DECLS

#define GST_TYPE_ROBOCACHE_LIVE_SRC (gst_robocache_live_src_get_type ())
G_DECLARE_DERIVABLE_TYPE (GstRobocacheLiveSrc, gst_robocache_live_src, GST,
    ROBOCACHE_LIVE_SRC, GstPushSrc);

/* Property ids up to here are the base's: a subclass numbers its own from
 * GST_ROBOCACHE_LIVE_SRC_PROP_LAST + 1 and says where it keeps them in
 * gst_robocache_live_src_class_install_properties(). */
#define GST_ROBOCACHE_LIVE_SRC_PROP_LAST 3

/* The shared settings a stream runs with, taken when caps are set. */
typedef struct
{
  gint rate_n;
  gint rate_d;
  guint seed;
} GstRobocacheLiveSrcConfig;

/**
 * GstRobocacheLiveSrcClass:
 * @sample_name: what one buffer is called in messages ("sweep")
 * @fields: the subclass's own properties, as
 *     gst_robocache_live_src_class_install_properties() was given them
 * @get_caps: the one fixed caps the settings give (no filter)
 * @configure: checks the negotiated caps against the settings and prepares
 *     the streaming state for @config; FALSE, changing nothing, if they do
 *     not fit
 * @clear: frees the streaming state (called with the object lock held)
 * @get_sample_size: bytes of one sample, once configured
 * @drop_sample: optional: TRUE if sample @n is lost and gives no buffer
 * @get_sample_time: optional: the PTS of sample @n, due at @nominal
 *     (default: @nominal)
 * @make_sample: writes sample @n, timestamped @pts, into @data
 *
 * Sample n is due at n / rate; the base class timestamps it, answers the
 * latency query (one period), syncs live buffers on the clock and resets
 * the count on start.
 */
struct _GstRobocacheLiveSrcClass
{
  GstPushSrcClass parent_class;

  const gchar *sample_name;
  const GstRobocacheField *fields;

  GstCaps *(*get_caps) (GstRobocacheLiveSrc * src);
  gboolean (*configure) (GstRobocacheLiveSrc * src, GstCaps * caps,
      const GstRobocacheLiveSrcConfig * config);
  void (*clear) (GstRobocacheLiveSrc * src);
  gsize (*get_sample_size) (GstRobocacheLiveSrc * src);
  gboolean (*drop_sample) (GstRobocacheLiveSrc * src, guint64 n);
  GstClockTime (*get_sample_time) (GstRobocacheLiveSrc * src, guint64 n,
      GstClockTime nominal);
  void (*make_sample) (GstRobocacheLiveSrc * src, guint64 n,
      GstClockTime pts, guint8 * data);
};

/* Installs a subclass's rate and seed properties (call it from its
 * class_init, before installing its own): their blurbs, range and default
 * rate are the element's own; the base class keeps and uses their values.
 * The base's set_property and get_property then serve the subclass's own
 * properties too, kept in @fields (static, ending with a 0 id), which it
 * also sets to their defaults in each new instance. */
void gst_robocache_live_src_class_install_properties
    (GstRobocacheLiveSrcClass * klass, const GstRobocacheField * fields,
    const gchar * rate_blurb, gint max_rate_n, gint default_rate_n,
    gint default_rate_d, const gchar * seed_blurb);

/* The settings of the stream being made: for the streaming thread. */
const GstRobocacheLiveSrcConfig *gst_robocache_live_src_get_config
    (GstRobocacheLiveSrc * src);

/* splitmix64 (Steele, Lea and Flood): a small generator whose output only
 * depends on the seed, so that the same seed gives the same samples on any
 * machine.  gst_robocache_random_mix() is its output function, usable as a
 * hash; gst_robocache_random_next() steps a state. */
static inline guint64
gst_robocache_random_mix (guint64 z)
{
  z += G_GUINT64_CONSTANT (0x9e3779b97f4a7c15);
  z = (z ^ (z >> 30)) * G_GUINT64_CONSTANT (0xbf58476d1ce4e5b9);
  z = (z ^ (z >> 27)) * G_GUINT64_CONSTANT (0x94d049bb133111eb);
  return z ^ (z >> 31);
}

static inline guint64
gst_robocache_random_next (guint64 * state)
{
  guint64 z = *state;

  *state += G_GUINT64_CONSTANT (0x9e3779b97f4a7c15);
  return gst_robocache_random_mix (z);
}

/* The top 53 bits of @bits as a double in [0, 1). */
static inline gdouble
gst_robocache_random_to_unit (guint64 bits)
{
  return (bits >> 11) * (1.0 / 9007199254740992.0);
}

/* Uniform in [0, 1), a pure function of (seed, stream, index), so that any
 * sample can be drawn on its own. */
static inline gdouble
gst_robocache_random_at (guint seed, guint stream, guint64 index)
{
  return gst_robocache_random_to_unit (gst_robocache_random_mix ((((guint64)
                  seed << 8) | stream) ^ gst_robocache_random_mix (index)));
}

G_END_DECLS
#endif /* __GST_ROBOCACHE_LIVE_SRC_H__ */
