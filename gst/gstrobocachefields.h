/* Properties kept in fields of the instance: a table of where each one
 * lives stands for the set_property and get_property switches that only
 * copy values in and out under the object lock. */
#ifndef __GST_ROBOCACHE_FIELDS_H__
#define __GST_ROBOCACHE_FIELDS_H__

#include <gst/gst.h>

G_BEGIN_DECLS

/* Reads a property that is not a plain field (stats), with the object
 * lock held. */
typedef void (*GstRobocacheFieldGetFunc) (GObject * object, GValue * value);

/**
 * GstRobocacheField:
 * @prop_id: the property, 0 ending a table
 * @offset: of its field in the instance; fractions: of the numerator
 * @den_offset: fractions: of the denominator
 * @get: optional: reads the value instead of the field
 *
 * The field's C type follows the property's value type: gboolean, guint,
 * guint64, gdouble, an enum (int sized), gchar * (owned) or two gints.
 */
typedef struct
{
  guint prop_id;
  gsize offset;
  gsize den_offset;
  GstRobocacheFieldGetFunc get;
} GstRobocacheField;

#define GST_ROBOCACHE_FIELD(id, Type, member) \
    {id, G_STRUCT_OFFSET (Type, member), 0, NULL}
#define GST_ROBOCACHE_FIELD_FRACTION(id, Type, num, den) \
    {id, G_STRUCT_OFFSET (Type, num), G_STRUCT_OFFSET (Type, den), NULL}
#define GST_ROBOCACHE_FIELD_GETTER(id, get) {id, 0, 0, get}

void gst_robocache_fields_register (GObjectClass * klass,
    const GstRobocacheField * fields);

void gst_robocache_fields_class_init (GObjectClass * klass,
    const GstRobocacheField * fields);

/* Installs the read-only "stats" property (a GstStructure of counters,
 * @blurb "Totals since start" or the like) that the elements read through a
 * GST_ROBOCACHE_FIELD_GETTER. */
void gst_robocache_fields_install_stats (GObjectClass * klass,
    guint prop_id, const gchar * blurb);

/* From the instance init: every writable field at its property's default. */
void gst_robocache_fields_init (gpointer object,
    const GstRobocacheField * fields);

/* Whether @pspec may be set on @object now.  A property flagged
 * GST_PARAM_MUTABLE_READY is read at start, so while its element (a pad's
 * parent) is past READY or on its way there, a new value would not be the
 * one running: it is refused with a warning and the old one kept, as
 * filesrc keeps its location.  First thing in every set_property that
 * handles such a property. */
gboolean gst_robocache_property_settable (GObject * object,
    GParamSpec * pspec);

/* Refuses, as gst_robocache_property_settable() says, or copies @value into
 * its registered field. */
void gst_robocache_fields_set_property (GObject * object, guint prop_id,
    const GValue * value, GParamSpec * pspec);
void gst_robocache_fields_get_property (GObject * object, guint prop_id,
    GValue * value, GParamSpec * pspec);

/* Copies @size bytes of @field, which @object's lock guards, into @dest
 * under that lock: a snapshot that no other thread tears. */
void gst_robocache_fields_read_locked (gpointer object, gconstpointer field,
    gpointer dest, gsize size);

G_END_DECLS
#endif /* __GST_ROBOCACHE_FIELDS_H__ */
