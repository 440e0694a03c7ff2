/* Properties kept in fields of the instance, see gstrobocachefields.h. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstrobocachefields.h"

#include <string.h>

/* Enum fields are written through a gint. */
typedef enum
{
  FIELDS_SOME_ENUM_VALUE
} FieldsSomeEnum;
G_STATIC_ASSERT (sizeof (FieldsSomeEnum) == sizeof (gint));

static GQuark gst_robocache_fields_quark (void);
G_DEFINE_QUARK (robocache-fields, gst_robocache_fields);

/**
 * gst_robocache_fields_register:
 * @klass: the class being initialised
 * @fields: (array zero-terminated=1): static, ending with a 0 @prop_id
 *
 * Makes @fields where the properties that @klass installs are kept, for
 * gst_robocache_fields_set_property() and _get_property().
 */
void
gst_robocache_fields_register (GObjectClass * klass,
    const GstRobocacheField * fields)
{
  g_type_set_qdata (G_OBJECT_CLASS_TYPE (klass), gst_robocache_fields_quark (),
      (gpointer) fields);
}

/**
 * gst_robocache_fields_class_init:
 *
 * Registers @fields and makes them the whole of @klass's set_property and
 * get_property.
 */
void
gst_robocache_fields_class_init (GObjectClass * klass,
    const GstRobocacheField * fields)
{
  klass->set_property = gst_robocache_fields_set_property;
  klass->get_property = gst_robocache_fields_get_property;
  gst_robocache_fields_register (klass, fields);
}

void
gst_robocache_fields_install_stats (GObjectClass * klass, guint prop_id,
    const gchar * blurb)
{
  g_object_class_install_property (klass, prop_id,
      g_param_spec_boxed ("stats", "Statistics", blurb, GST_TYPE_STRUCTURE,
          G_PARAM_READABLE | G_PARAM_STATIC_STRINGS));
}

/* The field of the property @pspec (installed by a class that registered
 * its fields), or NULL after a warning. */
static const GstRobocacheField *
find_field (GObject * object, guint prop_id, GParamSpec * pspec)
{
  const GstRobocacheField *f = g_type_get_qdata (pspec->owner_type,
      gst_robocache_fields_quark ());

  for (; f && f->prop_id; f++) {
    if (f->prop_id == prop_id)
      return f;
  }
  G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
  return NULL;
}

#define FIELD(object, offset, Type) \
    ((Type *) G_STRUCT_MEMBER_P (object, offset))

/* Copies @value into the field @f of @object; with the object lock held,
 * or from the instance init. */
static void
set_field (GObject * object, const GstRobocacheField * f, const GValue * value)
{
  gsize at = f->offset;

  switch (G_TYPE_FUNDAMENTAL (G_VALUE_TYPE (value))) {
    case G_TYPE_BOOLEAN:
      *FIELD (object, at, gboolean) = g_value_get_boolean (value);
      break;
    case G_TYPE_UINT:
      *FIELD (object, at, guint) = g_value_get_uint (value);
      break;
    case G_TYPE_UINT64:
      *FIELD (object, at, guint64) = g_value_get_uint64 (value);
      break;
    case G_TYPE_DOUBLE:
      *FIELD (object, at, gdouble) = g_value_get_double (value);
      break;
    case G_TYPE_ENUM:
      *FIELD (object, at, gint) = g_value_get_enum (value);
      break;
    case G_TYPE_STRING:
      g_free (*FIELD (object, at, gchar *));
      *FIELD (object, at, gchar *) = g_value_dup_string (value);
      break;
    default:
      g_assert (GST_VALUE_HOLDS_FRACTION (value));
      *FIELD (object, at, gint) = gst_value_get_fraction_numerator (value);
      *FIELD (object, f->den_offset, gint) =
          gst_value_get_fraction_denominator (value);
      break;
  }
}

/**
 * gst_robocache_fields_init:
 * @object: the instance being initialised
 * @fields: the table its class registered
 *
 * Sets the field of every writable property of @fields to the default of
 * its param spec, so that each default is written once, in class_init.
 * Call it from the instance init of the class that registered @fields:
 * GObject then gives the instance that class, whose param specs these are.
 */
void
gst_robocache_fields_init (gpointer object, const GstRobocacheField * fields)
{
  GObjectClass *klass = G_OBJECT_GET_CLASS (object);
  guint n_pspecs;
  GParamSpec **pspecs = g_object_class_list_properties (klass, &n_pspecs);

  for (const GstRobocacheField * f = fields; f->prop_id; f++) {
    for (guint i = 0; i < n_pspecs; i++) {
      GParamSpec *pspec = pspecs[i];

      if (pspec->owner_type == G_OBJECT_CLASS_TYPE (klass)
          && pspec->param_id == f->prop_id && (pspec->flags & G_PARAM_WRITABLE))
        set_field (G_OBJECT (object), f,
            g_param_spec_get_default_value (pspec));
    }
  }
  g_free (pspecs);
}

/* The element whose state decides for @object: itself, or a pad's parent
 * (taken without holding the pad's lock); NULL for a pad without one. */
static GstElement *
deciding_element (GObject * object)
{
  if (GST_IS_PAD (object))
    return gst_pad_get_parent_element (GST_PAD (object));
  if (GST_IS_ELEMENT (object))
    return gst_object_ref (object);
  return NULL;
}

/**
 * gst_robocache_property_settable:
 * @object: an element, or a pad of one
 * @pspec: the property being set
 *
 * Returns: FALSE, after a g_warning naming the object, the property and
 * the state, when @pspec is GST_PARAM_MUTABLE_READY and the element is
 * above READY or changing to a state above it.  A state change that failed
 * leaves its target in GST_STATE_NEXT until the next one starts; that is no
 * change in progress.
 */
gboolean
gst_robocache_property_settable (GObject * object, GParamSpec * pspec)
{
  GstElement *element;
  GstState state, next;
  gboolean started;

  if (!(pspec->flags & GST_PARAM_MUTABLE_READY))
    return TRUE;
  element = deciding_element (object);
  if (!element)
    return TRUE;
  GST_OBJECT_LOCK (element);
  state = GST_STATE (element);
  next = GST_STATE_RETURN (element) == GST_STATE_CHANGE_FAILURE ?
      GST_STATE_VOID_PENDING : GST_STATE_NEXT (element);
  GST_OBJECT_UNLOCK (element);
  started = state > GST_STATE_READY || next > GST_STATE_READY;
  if (started) {
    gboolean moving = next != GST_STATE_VOID_PENDING && next != state;
    gchar *name = GST_IS_PAD (object) ? g_strdup_printf ("%s:%s",
        GST_OBJECT_NAME (element), GST_OBJECT_NAME (object)) :
        g_strdup (GST_OBJECT_NAME (element));

    g_warning ("%s: property '%s' is changeable only in NULL or READY "
        "state, and %s is %s%s%s: the new value is refused, the old one "
        "kept", name, pspec->name, GST_IS_PAD (object) ? "its element" :
        "the element", gst_element_state_get_name (state),
        moving ? " going to " : "",
        moving ? gst_element_state_get_name (next) : "");
    g_free (name);
  }
  gst_object_unref (element);
  return !started;
}

/**
 * gst_robocache_fields_set_property:
 *
 * A set_property that copies @value into its registered field under the
 * object lock (warning about an id without one), unless
 * gst_robocache_property_settable() refuses it.
 */
void
gst_robocache_fields_set_property (GObject * object, guint prop_id,
    const GValue * value, GParamSpec * pspec)
{
  const GstRobocacheField *f = find_field (object, prop_id, pspec);

  if (!f || !gst_robocache_property_settable (object, pspec))
    return;

  GST_OBJECT_LOCK (object);
  set_field (object, f, value);
  GST_OBJECT_UNLOCK (object);
}

/**
 * gst_robocache_fields_get_property:
 *
 * A get_property that reads @value from its registered field, or its
 * getter, under the object lock (warning about an id without one).
 */
void
gst_robocache_fields_get_property (GObject * object, guint prop_id,
    GValue * value, GParamSpec * pspec)
{
  const GstRobocacheField *f = find_field (object, prop_id, pspec);
  gsize at = f ? f->offset : 0;

  if (!f)
    return;

  GST_OBJECT_LOCK (object);
  if (f->get) {
    f->get (object, value);
  } else {
    switch (G_TYPE_FUNDAMENTAL (G_VALUE_TYPE (value))) {
      case G_TYPE_BOOLEAN:
        g_value_set_boolean (value, *FIELD (object, at, gboolean));
        break;
      case G_TYPE_UINT:
        g_value_set_uint (value, *FIELD (object, at, guint));
        break;
      case G_TYPE_UINT64:
        g_value_set_uint64 (value, *FIELD (object, at, guint64));
        break;
      case G_TYPE_DOUBLE:
        g_value_set_double (value, *FIELD (object, at, gdouble));
        break;
      case G_TYPE_ENUM:
        g_value_set_enum (value, *FIELD (object, at, gint));
        break;
      case G_TYPE_STRING:
        g_value_set_string (value, *FIELD (object, at, gchar *));
        break;
      default:
        g_assert (GST_VALUE_HOLDS_FRACTION (value));
        gst_value_set_fraction (value, *FIELD (object, at, gint),
            *FIELD (object, f->den_offset, gint));
        break;
    }
  }
  GST_OBJECT_UNLOCK (object);
}

void
gst_robocache_fields_read_locked (gpointer object, gconstpointer field,
    gpointer dest, gsize size)
{
  GST_OBJECT_LOCK (object);
  memcpy (dest, field, size);
  GST_OBJECT_UNLOCK (object);
}
