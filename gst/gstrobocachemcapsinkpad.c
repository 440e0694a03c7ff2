/* robocachemcapsink's request pads: their topic and frame-id properties
 * and their names (gstrobocachemcapsinkprivate.h). */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstrobocachemcapsinkprivate.h"
#include "gstrobocachefields.h"

#define GST_CAT_DEFAULT gst_robocache_mcap_sink_debug

#define DEFAULT_TOPIC NULL
#define DEFAULT_FRAME_ID NULL

enum
{
  PROP_0,
  PROP_TOPIC,
  PROP_FRAME_ID
};

G_DEFINE_TYPE (GstRobocacheMcapSinkPad, gst_robocache_mcap_sink_pad,
    GST_TYPE_PAD);

static const GstRobocacheField fields[] = {
  GST_ROBOCACHE_FIELD (PROP_TOPIC, GstRobocacheMcapSinkPad, topic),
  GST_ROBOCACHE_FIELD (PROP_FRAME_ID, GstRobocacheMcapSinkPad, frame_id),
  {0}
};

/* The topic names the pad's channel, made when its first caps arrive: a
 * pad requested while the sink plays takes one until then, not after. */
static void
gst_robocache_mcap_sink_pad_set_property (GObject * object, guint prop_id,
    const GValue * value, GParamSpec * pspec)
{
  if (prop_id == PROP_TOPIC && gst_pad_has_current_caps (GST_PAD (object))) {
    g_warning ("%s:%s: property 'topic' is read when the pad's first caps "
        "arrive, and it has caps: the new value is refused, the old one "
        "kept (set it before linking, or on a new pad)",
        GST_DEBUG_PAD_NAME (object));
    return;
  }
  gst_robocache_fields_set_property (object, prop_id, value, pspec);
}

static void
gst_robocache_mcap_sink_pad_finalize (GObject * object)
{
  GstRobocacheMcapSinkPad *pad = GST_ROBOCACHE_MCAP_SINK_PAD (object);

  g_free (pad->topic);
  g_free (pad->frame_id);
  mcap_format_clear (&pad->format);
  g_byte_array_unref (pad->scratch);
  G_OBJECT_CLASS (gst_robocache_mcap_sink_pad_parent_class)->finalize (object);
}

static void
gst_robocache_mcap_sink_pad_class_init (GstRobocacheMcapSinkPadClass * klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);

  gst_robocache_fields_class_init (gobject_class, fields);
  gobject_class->set_property = gst_robocache_mcap_sink_pad_set_property;
  gobject_class->finalize = gst_robocache_mcap_sink_pad_finalize;

  /**
   * GstRobocacheMcapSinkPad:topic:
   *
   * The ROS 2 topic of the pad's messages.  NULL (the default): /points,
   * /voxels, /pillars, /joints or /image after the pad's caps, with _1,
   * _2, ... for further pads of the same kind, in the order their caps
   * arrive (set the topic for names that do not depend on that order).
   * Read when the pad's first caps arrive: it may be set until then, on
   * a pad requested while the sink plays too; later it is refused with a
   * warning.
   */
  g_object_class_install_property (gobject_class, PROP_TOPIC,
      g_param_spec_string ("topic", "Topic", "ROS 2 topic of the pad's "
          "messages (NULL: /points, /voxels, /pillars, /joints, /image)",
          DEFAULT_TOPIC,
          G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
          GST_PARAM_MUTABLE_PLAYING));
  /**
   * GstRobocacheMcapSinkPad:frame-id:
   *
   * header.frame_id of the pad's messages.  NULL (the default): the caps'
   * frame-id string field where they have one, else "map".
   */
  g_object_class_install_property (gobject_class, PROP_FRAME_ID,
      g_param_spec_string ("frame-id", "Frame id", "header.frame_id of the "
          "messages (NULL: the caps' frame-id, else \"map\")",
          DEFAULT_FRAME_ID, G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
          GST_PARAM_MUTABLE_PLAYING));
}

static void
gst_robocache_mcap_sink_pad_init (GstRobocacheMcapSinkPad * pad)
{
  pad->topic = DEFAULT_TOPIC;
  pad->frame_id = DEFAULT_FRAME_ID;
  pad->scratch = g_byte_array_new ();
  pad->position = GST_CLOCK_TIME_NONE;
  gst_segment_init (&pad->segment, GST_FORMAT_TIME);
}

/* The name of a pad requested as @name (NULL: sink_%u), numbering the
 * pads after the highest asked for by name, as gst-launch's m.sink_0 asks
 * (GstAggregator's rule); NULL for a name taken. */
gchar *
mcap_sink_pad_name (GstElement * element, guint * next_pad, const gchar * name)
{
  gchar *pad_name, *end;
  guint64 serial;
  gboolean taken = FALSE;

  GST_OBJECT_LOCK (element);
  if (name && g_str_has_prefix (name, "sink_")
      && (serial = g_ascii_strtoull (name + 5, &end, 10), *end == '\0')
      && serial < G_MAXUINT)
    *next_pad = MAX (*next_pad, (guint) serial + 1);
  pad_name = name ? g_strdup (name) : g_strdup_printf ("sink_%u",
      (*next_pad)++);
  for (GList * l = element->sinkpads; l && !taken; l = l->next)
    taken = !g_strcmp0 (GST_OBJECT_NAME (l->data), pad_name);
  GST_OBJECT_UNLOCK (element);
  if (taken) {
    GST_WARNING_OBJECT (element, "a pad named %s already exists", pad_name);
    g_clear_pointer (&pad_name, g_free);
  }
  return pad_name;
}
