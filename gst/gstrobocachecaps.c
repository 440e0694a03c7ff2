/* Parsing and building of the robocache caps declared in
 * gstrobocachecaps.h. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstrobocachecaps.h"

#include <string.h>

#define FIELDS_ACCEPTED \
    "fields is a comma-separated list of name:type:offset with type one of " \
    "int8, uint8, int16, uint16, int32, uint32, float32, float64, and must " \
    "contain x, y and z as float32 or float64"

GstCaps *
gst_robocache_caps_with_cuda (const gchar * system_caps,
    const gchar * cuda_caps)
{
  GstCaps *caps = gst_caps_new_empty ();

#ifdef ROBOCACHE_HAVE_CUDA
  gst_caps_append (caps, gst_caps_from_string (cuda_caps));
#else
  (void) cuda_caps;
#endif
  gst_caps_append (caps, gst_caps_from_string (system_caps));
  return caps;
}

gboolean
gst_robocache_caps_is_cuda (const GstCaps * caps)
{
  GstCapsFeatures *features;

  if (!caps || gst_caps_is_empty (caps) || gst_caps_is_any (caps))
    return FALSE;
  features = gst_caps_get_features (caps, 0);
  return features && gst_caps_features_contains (features,
      GST_ROBOCACHE_CAPS_FEATURE_CUDA);
}

typedef struct
{
  gchar *name;
  rc_field field;
} ParsedField;

/* Splits "name:type:offset,..." into @out (at most @max entries). */
static gint
parse_fields (const gchar * text, guint point_step, ParsedField * out,
    gint max, GError ** error)
{
  gchar **entries = g_strsplit (text, ",", -1);
  gint n = 0;

  for (gchar ** e = entries; *e; e++) {
    gchar **parts = g_strsplit (g_strstrip (*e), ":", -1);
    gchar *end = NULL;
    guint64 offset;
    rc_scalar_type type;

    if (g_strv_length (parts) != 3 || parts[0][0] == '\0') {
      g_set_error (error, GST_STREAM_ERROR, GST_STREAM_ERROR_FORMAT,
          "bad point field \"%s\": %s", *e, FIELDS_ACCEPTED);
      goto fail;
    }
    type = rc_scalar_type_from_string (parts[1]);
    offset = g_ascii_strtoull (parts[2], &end, 10);
    if (type == RC_TYPE_INVALID || type == RC_TYPE_BFLOAT16) {
      g_set_error (error, GST_STREAM_ERROR, GST_STREAM_ERROR_FORMAT,
          "point field \"%s\" has unknown type \"%s\": %s", parts[0],
          parts[1], FIELDS_ACCEPTED);
      goto fail;
    }
    if (end == parts[2] || *end != '\0' ||
        offset + rc_scalar_type_size (type) > point_step) {
      g_set_error (error, GST_STREAM_ERROR, GST_STREAM_ERROR_FORMAT,
          "point field \"%s\" at offset \"%s\" does not fit in point-step %u",
          parts[0], parts[2], point_step);
      goto fail;
    }
    if (n == max) {
      g_set_error (error, GST_STREAM_ERROR, GST_STREAM_ERROR_FORMAT,
          "more than %d point fields", max);
      goto fail;
    }
    out[n].name = g_strdup (parts[0]);
    out[n].field.offset = (uint32_t) offset;
    out[n].field.type = type;
    n++;
    g_strfreev (parts);
    continue;
  fail:
    g_strfreev (parts);
    g_strfreev (entries);
    for (gint i = 0; i < n; i++)
      g_free (out[i].name);
    return -1;
  }
  g_strfreev (entries);
  return n;
}

static const ParsedField *
find_field (const ParsedField * fields, gint n, const gchar * name)
{
  for (gint i = 0; i < n; i++) {
    if (g_strcmp0 (fields[i].name, name) == 0)
      return &fields[i];
  }
  return NULL;
}

#define MAX_POINT_FIELDS 64

gboolean
gst_robocache_points_caps_parse (const GstCaps * caps,
    const gchar * feature_names, rc_point_layout * layout, GError ** error)
{
  ParsedField fields[MAX_POINT_FIELDS];
  const GstStructure *s;
  const gchar *text;
  const ParsedField *x, *y, *z;
  gint point_step, n;
  gboolean ret = FALSE;

  memset (layout, 0, sizeof (*layout));
  if (!caps || !gst_caps_is_fixed (caps)) {
    g_set_error (error, GST_STREAM_ERROR, GST_STREAM_ERROR_FORMAT,
        "points caps are not fixed");
    return FALSE;
  }
  s = gst_caps_get_structure (caps, 0);
  if (!gst_structure_has_name (s, GST_ROBOCACHE_POINTS_MEDIA_TYPE) ||
      !gst_structure_get_int (s, "point-step", &point_step) ||
      point_step <= 0) {
    gchar *str = gst_caps_to_string (caps);
    g_set_error (error, GST_STREAM_ERROR, GST_STREAM_ERROR_FORMAT,
        "caps %s are not " GST_ROBOCACHE_POINTS_MEDIA_TYPE
        " with a positive point-step", str);
    g_free (str);
    return FALSE;
  }
  text = gst_structure_get_string (s, "fields");
  if (!text) {
    g_set_error (error, GST_STREAM_ERROR, GST_STREAM_ERROR_FORMAT,
        "points caps have no fields string: %s", FIELDS_ACCEPTED);
    return FALSE;
  }
  n = parse_fields (text, point_step, fields, MAX_POINT_FIELDS, error);
  if (n < 0)
    return FALSE;

  x = find_field (fields, n, "x");
  y = find_field (fields, n, "y");
  z = find_field (fields, n, "z");
  if (!x || !y || !z) {
    g_set_error (error, GST_STREAM_ERROR, GST_STREAM_ERROR_FORMAT,
        "points caps fields \"%s\" lack %s: %s", text,
        !x ? "x" : !y ? "y" : "z", FIELDS_ACCEPTED);
    goto done;
  }
  layout->point_step = point_step;
  layout->x = x->field;
  layout->y = y->field;
  layout->z = z->field;
  if (rc_voxelize_check (layout, &(rc_voxel_grid) {
            {0, 0, 0}, {1, 1, 1}, {1, 1, 1}, RC_VOXEL_OCCUPANCY})
      != RC_OK) {
    g_set_error (error, GST_STREAM_ERROR, GST_STREAM_ERROR_FORMAT,
        "points caps fields \"%s\": %s", text, FIELDS_ACCEPTED);
    goto done;
  }

  if (!feature_names || !*feature_names)
    feature_names = "x,y,z";
  {
    gchar **names = g_strsplit (feature_names, ",", -1);
    for (gchar ** name = names; *name; name++) {
      const ParsedField *f = find_field (fields, n, g_strstrip (*name));
      if (!f) {
        g_set_error (error, GST_STREAM_ERROR, GST_STREAM_ERROR_FORMAT,
            "feature field \"%s\" is not among the point fields \"%s\"",
            *name, text);
        g_strfreev (names);
        goto done;
      }
      if (layout->n_features == RC_VOXELIZE_MAX_FEATURES) {
        g_set_error (error, GST_STREAM_ERROR, GST_STREAM_ERROR_FORMAT,
            "more than %d feature fields in \"%s\"", RC_VOXELIZE_MAX_FEATURES,
            feature_names);
        g_strfreev (names);
        goto done;
      }
      layout->features[layout->n_features++] = f->field;
    }
    g_strfreev (names);
  }
  ret = TRUE;

done:
  for (gint i = 0; i < n; i++)
    g_free (fields[i].name);
  return ret;
}

gchar *
gst_robocache_points_fields_to_string (guint n_fields,
    const gchar * const *names, const rc_scalar_type * types,
    const guint * offsets)
{
  GString *s = g_string_new (NULL);

  for (guint i = 0; i < n_fields; i++) {
    g_string_append_printf (s, "%s%s:%s:%u", i ? "," : "", names[i],
        rc_scalar_type_to_string (types[i]), offsets[i]);
  }
  return g_string_free (s, FALSE);
}

static const gchar *const voxel_mode_names[] = { "occupancy", "count", "mean" };
static const rc_scalar_type voxel_mode_types[] = {
  RC_TYPE_UINT8, RC_TYPE_UINT32, RC_TYPE_FLOAT32
};

const gchar *
gst_robocache_voxel_mode_to_string (rc_voxel_mode mode)
{
  return (guint) mode <= RC_VOXEL_MEAN ? voxel_mode_names[mode] : NULL;
}

GstCaps *
gst_robocache_voxels_caps_new (const rc_voxel_grid * grid, guint n_features,
    const gchar * feature_names, gboolean cuda)
{
  GstCaps *caps = gst_caps_new_simple (GST_ROBOCACHE_VOXELS_MEDIA_TYPE,
      "layout", G_TYPE_STRING, "dense",
      "mode", G_TYPE_STRING, voxel_mode_names[grid->mode],
      "format", G_TYPE_STRING,
      rc_scalar_type_to_string (voxel_mode_types[grid->mode]),
      "grid-x", G_TYPE_INT, (gint) grid->dims[0],
      "grid-y", G_TYPE_INT, (gint) grid->dims[1],
      "grid-z", G_TYPE_INT, (gint) grid->dims[2],
      "origin-x", G_TYPE_DOUBLE, grid->origin[0],
      "origin-y", G_TYPE_DOUBLE, grid->origin[1],
      "origin-z", G_TYPE_DOUBLE, grid->origin[2],
      "voxel-size-x", G_TYPE_DOUBLE, grid->voxel_size[0],
      "voxel-size-y", G_TYPE_DOUBLE, grid->voxel_size[1],
      "voxel-size-z", G_TYPE_DOUBLE, grid->voxel_size[2], NULL);

  if (grid->mode == RC_VOXEL_MEAN) {
    gst_caps_set_simple (caps, "features", G_TYPE_INT, (gint) n_features,
        "feature-names", G_TYPE_STRING,
        feature_names && *feature_names ? feature_names : "x,y,z", NULL);
  }
  if (cuda) {
    gst_caps_set_features (caps, 0,
        gst_caps_features_new (GST_ROBOCACHE_CAPS_FEATURE_CUDA, NULL));
  }
  return caps;
}

gboolean
gst_robocache_voxels_caps_parse (const GstCaps * caps, rc_voxel_grid * grid,
    guint * n_features, GError ** error)
{
  static const gchar *const axis[] = { "x", "y", "z" };
  const GstStructure *s;
  const gchar *mode;
  gint features = 0;

  memset (grid, 0, sizeof (*grid));
  if (!caps || !gst_caps_is_fixed (caps))
    goto bad;
  s = gst_caps_get_structure (caps, 0);
  if (!gst_structure_has_name (s, GST_ROBOCACHE_VOXELS_MEDIA_TYPE))
    goto bad;
  mode = gst_structure_get_string (s, "mode");
  grid->mode = RC_VOXEL_OCCUPANCY;
  for (guint m = 0; m < G_N_ELEMENTS (voxel_mode_names); m++) {
    if (g_strcmp0 (mode, voxel_mode_names[m]) == 0)
      grid->mode = (rc_voxel_mode) m;
  }
  for (gint a = 0; a < 3; a++) {
    gchar *dim = g_strdup_printf ("grid-%s", axis[a]);
    gchar *origin = g_strdup_printf ("origin-%s", axis[a]);
    gchar *size = g_strdup_printf ("voxel-size-%s", axis[a]);
    gint d = 0;
    gboolean ok = gst_structure_get_int (s, dim, &d) && d > 0 &&
        gst_structure_get_double (s, origin, &grid->origin[a]) &&
        gst_structure_get_double (s, size, &grid->voxel_size[a]);
    grid->dims[a] = (uint32_t) d;
    g_free (dim);
    g_free (origin);
    g_free (size);
    if (!ok)
      goto bad;
  }
  if (grid->mode == RC_VOXEL_MEAN &&
      (!gst_structure_get_int (s, "features", &features) || features <= 0))
    goto bad;
  if (n_features)
    *n_features = (guint) features;
  return TRUE;

bad:
  {
    gchar *str = caps ? gst_caps_to_string (caps) : g_strdup ("(none)");
    g_set_error (error, GST_STREAM_ERROR, GST_STREAM_ERROR_FORMAT,
        "caps %s are not complete " GST_ROBOCACHE_VOXELS_MEDIA_TYPE
        " caps (mode, grid-x/y/z, origin-x/y/z, voxel-size-x/y/z, and "
        "features in mean mode)", str);
    g_free (str);
  }
  return FALSE;
}
