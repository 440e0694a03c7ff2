/* Parsing and building of the robocache caps declared in
 * gstrobocachecaps.h. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstrobocachecaps.h"

#include <math.h>
#include <string.h>

#define FIELDS_ACCEPTED \
    "fields is a comma-separated list of name:type:offset with type one of " \
    "int8, uint8, int16, uint16, int32, uint32, float32, float64, and must " \
    "contain x, y and z as float32 or float64"

/* FALSE, with @error saying that @caps are not complete @what caps and
 * which @fields those need. */
static gboolean
incomplete_caps (const GstCaps * caps, const gchar * what,
    const gchar * fields, GError ** error)
{
  gchar *str = caps ? gst_caps_to_string (caps) : g_strdup ("(none)");

  g_set_error (error, GST_STREAM_ERROR, GST_STREAM_ERROR_FORMAT,
      "caps %s are not complete %s caps (%s)", str, what, fields);
  g_free (str);
  return FALSE;
}

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

GstCaps *
gst_robocache_caps_filter (GstCaps * caps, GstCaps * filter)
{
  GstCaps *filtered;

  if (!filter)
    return caps;
  filtered = gst_caps_intersect_full (filter, caps, GST_CAPS_INTERSECT_FIRST);
  gst_caps_unref (caps);
  return filtered;
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

gchar *
gst_robocache_rate_problem (gint n, gint d)
{
  if (n <= 0 || d <= 0)
    return g_strdup_printf ("rate %d/%d is not a positive number a second",
        n, d);
  if ((gint64) n > (gint64) d * GST_ROBOCACHE_MAX_RATE)
    return g_strdup_printf ("rate %d/%d is above %d a second: its times "
        "would be less than 1 ns apart, the finest a GstClockTime holds; "
        "accepted are rates up to %d/1", n, d, GST_ROBOCACHE_MAX_RATE,
        GST_ROBOCACHE_MAX_RATE);
  return NULL;
}

typedef struct
{
  gchar *name;
  rc_field field;
} ParsedField;

static void
clear_field (gpointer field)
{
  g_free (((ParsedField *) field)->name);
}

static gint
compare_offsets (gconstpointer a, gconstpointer b)
{
  guint x = (*(const ParsedField * const *) a)->field.offset;
  guint y = (*(const ParsedField * const *) b)->field.offset;

  return x < y ? -1 : x > y;
}

/* FALSE, with @error, where two of @fields share a name or bytes: a
 * reader would take one for the other, or read bytes that mean two
 * things.  Sorted by offset, a field that overlaps any other overlaps the
 * next one. */
static gboolean
check_distinct_fields (GArray * fields, GError ** error)
{
  GHashTable *names = g_hash_table_new (g_str_hash, g_str_equal);
  GPtrArray *by_offset = g_ptr_array_sized_new (fields->len);
  gboolean ret = TRUE;

  for (guint i = 0; i < fields->len && ret; i++) {
    ParsedField *f = &g_array_index (fields, ParsedField, i);

    g_ptr_array_add (by_offset, f);
    if (!g_hash_table_add (names, f->name)) {
      g_set_error (error, GST_STREAM_ERROR, GST_STREAM_ERROR_FORMAT,
          "point field \"%s\" is named twice; each name is one field",
          f->name);
      ret = FALSE;
    }
  }
  g_ptr_array_sort (by_offset, compare_offsets);
  for (guint i = 1; i < by_offset->len && ret; i++) {
    const ParsedField *a = g_ptr_array_index (by_offset, i - 1);
    const ParsedField *b = g_ptr_array_index (by_offset, i);

    if (a->field.offset + rc_scalar_type_size (a->field.type) >
        b->field.offset) {
      g_set_error (error, GST_STREAM_ERROR, GST_STREAM_ERROR_FORMAT,
          "point fields \"%s\" (offset %u) and \"%s\" (offset %u) "
          "overlap; each byte of a point belongs to one field at most",
          a->name, a->field.offset, b->name, b->field.offset);
      ret = FALSE;
    }
  }
  g_ptr_array_unref (by_offset);
  g_hash_table_unref (names);
  return ret;
}

/* One "name:type:offset" of a fields string, checked against
 * @point_step. */
static gboolean
parse_field (const gchar * entry, guint point_step, ParsedField * out,
    GError ** error)
{
  gchar **parts = g_strsplit (entry, ":", -1);
  gchar *end = NULL;
  guint64 offset;
  rc_scalar_type type;
  gboolean ret = FALSE;

  if (g_strv_length (parts) != 3 || parts[0][0] == '\0') {
    g_set_error (error, GST_STREAM_ERROR, GST_STREAM_ERROR_FORMAT,
        "bad point field \"%s\": %s", entry, FIELDS_ACCEPTED);
    goto done;
  }
  type = rc_scalar_type_from_string (parts[1]);
  offset = g_ascii_strtoull (parts[2], &end, 10);
  if (type == RC_TYPE_INVALID || type == RC_TYPE_BFLOAT16) {
    g_set_error (error, GST_STREAM_ERROR, GST_STREAM_ERROR_FORMAT,
        "point field \"%s\" has unknown type \"%s\": %s", parts[0],
        parts[1], FIELDS_ACCEPTED);
    goto done;
  }
  /* offset first: strtoull saturates at 2^64 - 1, and offset + size
   * would wrap round to a small number that fits. */
  if (end == parts[2] || *end != '\0' || offset > point_step ||
      offset + rc_scalar_type_size (type) > point_step) {
    g_set_error (error, GST_STREAM_ERROR, GST_STREAM_ERROR_FORMAT,
        "point field \"%s\" at offset \"%s\" does not fit in point-step %u",
        parts[0], parts[2], point_step);
    goto done;
  }
  out->name = g_strdup (parts[0]);
  out->field.offset = (uint32_t) offset;
  out->field.type = type;
  ret = TRUE;
done:
  g_strfreev (parts);
  return ret;
}

/* The fields of "name:type:offset,...", as many as there are (distinct
 * and inside @point_step, so no more than @point_step), or NULL with
 * @error. */
static GArray *
parse_fields (const gchar * text, guint point_step, GError ** error)
{
  gchar **entries = g_strsplit (text, ",", -1);
  GArray *fields = g_array_new (FALSE, FALSE, sizeof (ParsedField));
  gboolean ok = TRUE;

  g_array_set_clear_func (fields, clear_field);
  for (gchar ** e = entries; *e && ok; e++) {
    ParsedField f;

    if ((ok = parse_field (g_strstrip (*e), point_step, &f, error)))
      g_array_append_val (fields, f);
  }
  g_strfreev (entries);
  if (!ok || !check_distinct_fields (fields, error))
    g_clear_pointer (&fields, g_array_unref);
  return fields;
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

/* Reads the string field @field of @s; FALSE, with @error set from @format,
 * when it is missing or not a string. */
static gboolean
get_string (const GstStructure * s, const gchar * field, const gchar ** value,
    GError ** error, const gchar * format, ...)
{
  va_list args;

  *value = gst_structure_get_string (s, field);
  if (*value)
    return TRUE;
  va_start (args, format);
  g_propagate_error (error, g_error_new_valist (GST_STREAM_ERROR,
          GST_STREAM_ERROR_FORMAT, format, args));
  va_end (args);
  return FALSE;
}

/* The point-step and the fields string of fixed points caps. */
static gboolean
get_points_step_and_fields (const GstCaps * caps, gint * point_step,
    const gchar ** text, GError ** error)
{
  const GstStructure *s;

  if (!caps || !gst_caps_is_fixed (caps)) {
    g_set_error (error, GST_STREAM_ERROR, GST_STREAM_ERROR_FORMAT,
        "points caps are not fixed");
    return FALSE;
  }
  s = gst_caps_get_structure (caps, 0);
  if (!gst_structure_has_name (s, GST_ROBOCACHE_POINTS_MEDIA_TYPE) ||
      !gst_structure_get_int (s, "point-step", point_step) ||
      *point_step <= 0) {
    gchar *str = gst_caps_to_string (caps);
    g_set_error (error, GST_STREAM_ERROR, GST_STREAM_ERROR_FORMAT,
        "caps %s are not " GST_ROBOCACHE_POINTS_MEDIA_TYPE
        " with a positive point-step", str);
    g_free (str);
    return FALSE;
  }
  return get_string (s, "fields", text, error,
      "points caps have no fields string: %s", FIELDS_ACCEPTED);
}

/* The x, y and z fields into @layout, checked as the voxelizer reads
 * them. */
static gboolean
set_position_fields (rc_point_layout * layout, gint point_step,
    const ParsedField * fields, gint n, const gchar * text, GError ** error)
{
  const ParsedField *x = find_field (fields, n, "x");
  const ParsedField *y = find_field (fields, n, "y");
  const ParsedField *z = find_field (fields, n, "z");

  if (!x || !y || !z) {
    g_set_error (error, GST_STREAM_ERROR, GST_STREAM_ERROR_FORMAT,
        "points caps fields \"%s\" lack %s: %s", text,
        !x ? "x" : !y ? "y" : "z", FIELDS_ACCEPTED);
    return FALSE;
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
    return FALSE;
  }
  return TRUE;
}

/* The feature fields, named among the point fields ("x,y,z" when none
 * are named). */
static gboolean
add_feature_fields (rc_point_layout * layout, const ParsedField * fields,
    gint n, const gchar * text, const gchar * feature_names, GError ** error)
{
  gchar **names;
  gboolean ret = FALSE;

  if (!feature_names || !*feature_names)
    feature_names = "x,y,z";
  names = g_strsplit (feature_names, ",", -1);
  for (gchar ** name = names; *name; name++) {
    const ParsedField *f = find_field (fields, n, g_strstrip (*name));
    if (!f) {
      g_set_error (error, GST_STREAM_ERROR, GST_STREAM_ERROR_FORMAT,
          "feature field \"%s\" is not among the point fields \"%s\"",
          *name, text);
      goto done;
    }
    if (layout->n_features == RC_VOXELIZE_MAX_FEATURES) {
      g_set_error (error, GST_STREAM_ERROR, GST_STREAM_ERROR_FORMAT,
          "more than %d feature fields in \"%s\"", RC_VOXELIZE_MAX_FEATURES,
          feature_names);
      goto done;
    }
    layout->features[layout->n_features++] = f->field;
  }
  ret = TRUE;
done:
  g_strfreev (names);
  return ret;
}

gboolean
gst_robocache_points_caps_parse (const GstCaps * caps,
    const gchar * feature_names, rc_point_layout * layout, GError ** error)
{
  GArray *fields;
  const gchar *text;
  gint point_step;
  gboolean ret;

  memset (layout, 0, sizeof (*layout));
  if (!get_points_step_and_fields (caps, &point_step, &text, error))
    return FALSE;
  fields = parse_fields (text, point_step, error);
  if (!fields)
    return FALSE;

  ret = set_position_fields (layout, point_step,
      (const ParsedField *) fields->data, fields->len, text, error) &&
      add_feature_fields (layout, (const ParsedField *) fields->data,
      fields->len, text, feature_names, error);
  g_array_unref (fields);
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
  if (mode == RC_VOXEL_CENTROIDS)
    return "centroids";
  return (guint) mode <= RC_VOXEL_MEAN ? voxel_mode_names[mode] : NULL;
}

/* The grid's fields, alike in voxels and centroids caps. */
static void
set_grid_fields (GstCaps * caps, const rc_voxel_grid * grid)
{
  gst_caps_set_simple (caps,
      "grid-x", G_TYPE_INT, (gint) grid->dims[0],
      "grid-y", G_TYPE_INT, (gint) grid->dims[1],
      "grid-z", G_TYPE_INT, (gint) grid->dims[2],
      "origin-x", G_TYPE_DOUBLE, grid->origin[0],
      "origin-y", G_TYPE_DOUBLE, grid->origin[1],
      "origin-z", G_TYPE_DOUBLE, grid->origin[2],
      "voxel-size-x", G_TYPE_DOUBLE, grid->voxel_size[0],
      "voxel-size-y", G_TYPE_DOUBLE, grid->voxel_size[1],
      "voxel-size-z", G_TYPE_DOUBLE, grid->voxel_size[2], NULL);
}

/* What get_grid_fields takes, for errors: the grid limits of
 * robocachevoxelize, so that no size computed from it wraps. */
#define GRID_FIELDS_ACCEPTED "grid-x/y/z > 0 with fewer than 2^32 voxels " \
    "in all, origin-x/y/z finite, voxel-size-x/y/z finite and > 0"

static gboolean
get_grid_fields (const GstStructure * s, rc_voxel_grid * grid)
{
  static const gchar *const axis[] = { "x", "y", "z" };
  gboolean ok = TRUE;
  guint64 voxels = 1;

  for (gint a = 0; a < 3 && ok; a++) {
    gchar *dim = g_strdup_printf ("grid-%s", axis[a]);
    gchar *origin = g_strdup_printf ("origin-%s", axis[a]);
    gchar *size = g_strdup_printf ("voxel-size-%s", axis[a]);
    gint d = 0;
    ok = gst_structure_get_int (s, dim, &d) && d > 0 &&
        gst_structure_get_double (s, origin, &grid->origin[a]) &&
        gst_structure_get_double (s, size, &grid->voxel_size[a]) &&
        isfinite (grid->origin[a]) && isfinite (grid->voxel_size[a]) &&
        grid->voxel_size[a] > 0;
    grid->dims[a] = (uint32_t) d;
    /* Each factor below 2^31: the product of two cannot wrap. */
    voxels *= ok ? (guint64) d : 1;
    ok = ok && voxels <= G_MAXUINT32;
    g_free (dim);
    g_free (origin);
    g_free (size);
  }
  return ok;
}

static void
set_cuda_feature (GstCaps * caps, gboolean cuda)
{
  if (cuda) {
    gst_caps_set_features (caps, 0,
        gst_caps_features_new (GST_ROBOCACHE_CAPS_FEATURE_CUDA, NULL));
  }
}

GstCaps *
gst_robocache_voxels_caps_new (const rc_voxel_grid * grid, guint n_features,
    const gchar * feature_names, gboolean cuda)
{
  GstCaps *caps = gst_caps_new_simple (GST_ROBOCACHE_VOXELS_MEDIA_TYPE,
      "layout", G_TYPE_STRING, "dense",
      "mode", G_TYPE_STRING, voxel_mode_names[grid->mode],
      "format", G_TYPE_STRING,
      rc_scalar_type_to_string (voxel_mode_types[grid->mode]), NULL);

  set_grid_fields (caps, grid);
  if (grid->mode == RC_VOXEL_MEAN) {
    gst_caps_set_simple (caps, "features", G_TYPE_INT, (gint) n_features,
        "feature-names", G_TYPE_STRING,
        feature_names && *feature_names ? feature_names : "x,y,z", NULL);
  }
  set_cuda_feature (caps, cuda);
  return caps;
}

GstCaps *
gst_robocache_centroids_caps_new (const rc_voxel_grid * grid,
    const gchar * feature_names, gboolean cuda)
{
  gchar **names = g_strsplit (feature_names && *feature_names ?
      feature_names : "x,y,z", ",", -1);
  guint n = g_strv_length (names);
  rc_scalar_type *types = g_new (rc_scalar_type, n);
  guint *offsets = g_new (guint, n);
  gchar *fields;
  GstCaps *caps;

  for (guint f = 0; f < n; f++) {
    g_strstrip (names[f]);
    types[f] = RC_TYPE_FLOAT32;
    offsets[f] = f * sizeof (gfloat);
  }
  fields = gst_robocache_points_fields_to_string (n,
      (const gchar * const *) names, types, offsets);
  caps = gst_caps_new_simple (GST_ROBOCACHE_POINTS_MEDIA_TYPE,
      "point-step", G_TYPE_INT, (gint) (n * sizeof (gfloat)),
      "fields", G_TYPE_STRING, fields, NULL);
  set_grid_fields (caps, grid);
  set_cuda_feature (caps, cuda);
  g_free (fields);
  g_free (offsets);
  g_free (types);
  g_strfreev (names);
  return caps;
}

gboolean
gst_robocache_centroids_caps_parse (const GstCaps * caps,
    rc_voxel_grid * grid, guint * n_features, GError ** error)
{
  const GstStructure *s;
  gint step = 0;

  memset (grid, 0, sizeof (*grid));
  grid->mode = RC_VOXEL_CENTROIDS;
  if (caps && gst_caps_is_fixed (caps)) {
    s = gst_caps_get_structure (caps, 0);
    if (gst_structure_has_name (s, GST_ROBOCACHE_POINTS_MEDIA_TYPE)
        && gst_structure_get_int (s, "point-step", &step) && step > 0
        && step % 4 == 0 && get_grid_fields (s, grid)) {
      *n_features = (guint) step / 4;
      return TRUE;
    }
  }
  return incomplete_caps (caps, "centroids", GST_ROBOCACHE_POINTS_MEDIA_TYPE
      " with point-step a multiple of 4, " GRID_FIELDS_ACCEPTED, error);
}

gboolean
gst_robocache_voxels_caps_parse (const GstCaps * caps, rc_voxel_grid * grid,
    guint * n_features, GError ** error)
{
  const GstStructure *s;
  const gchar *mode, *format;
  gint features = 0;
  guint m;

  memset (grid, 0, sizeof (*grid));
  if (!caps || !gst_caps_is_fixed (caps))
    goto bad;
  s = gst_caps_get_structure (caps, 0);
  if (!gst_structure_has_name (s, GST_ROBOCACHE_VOXELS_MEDIA_TYPE))
    goto bad;
  /* The mode, and the format it stores its voxels in. */
  mode = gst_structure_get_string (s, "mode");
  format = gst_structure_get_string (s, "format");
  for (m = 0; m < G_N_ELEMENTS (voxel_mode_names); m++) {
    if (g_strcmp0 (mode, voxel_mode_names[m]) == 0)
      break;
  }
  if (m == G_N_ELEMENTS (voxel_mode_names) || g_strcmp0 (format,
          rc_scalar_type_to_string (voxel_mode_types[m])) != 0)
    goto bad;
  grid->mode = (rc_voxel_mode) m;
  if (!get_grid_fields (s, grid))
    goto bad;
  if (grid->mode == RC_VOXEL_MEAN &&
      (!gst_structure_get_int (s, "features", &features) || features <= 0
          || features > GST_ROBOCACHE_VOXELS_MAX_FEATURES))
    goto bad;
  if (n_features)
    *n_features = (guint) features;
  return TRUE;

bad:
  return incomplete_caps (caps, GST_ROBOCACHE_VOXELS_MEDIA_TYPE,
      "mode occupancy, count or mean with format uint8, uint32 or float32 "
      "to match, " GRID_FIELDS_ACCEPTED ", and features 1 to 65535 in "
      "mean mode",
      error);
}

#define VECTORS_ACCEPTED \
    "accepted: channels 1 to 65535, format float32 or float64 (bfloat16 " \
    "with layout chunk only), layout sample or chunk, batch >= 1 (chunk)"

gsize
gst_robocache_vectors_sample_size (const GstRobocacheVectorsInfo * info)
{
  return (gsize) info->channels * rc_scalar_type_size (info->type);
}

/* A whole non-negative decimal number, as a channel index. */
static gboolean
parse_channel (const gchar * text, guint * value)
{
  gchar *end = NULL;
  guint64 v;

  if (!g_ascii_isdigit (*text))
    return FALSE;
  v = g_ascii_strtoull (text, &end, 10);
  if (*end != '\0' || v > G_MAXUINT32)
    return FALSE;
  *value = (guint) v;
  return TRUE;
}

/* Reads one entry of a channel list into @range, checked against the @n
 * entries before it; @text is the whole list, for the messages. */
typedef gboolean (*ChannelEntryFunc) (const gchar * text, const gchar * entry,
    guint channels, const rc_channel_range * earlier, guint n,
    rc_channel_range * range, GError ** error);

/* A comma-separated list of channel groups, at most RC_RESAMPLE_MAX_GROUPS;
 * @what and @unit name the list and its entries in the messages. */
static gboolean
parse_channel_list (const gchar * text, guint channels,
    ChannelEntryFunc parse_entry, const gchar * what, const gchar * unit,
    guint * n_ranges, rc_channel_range * ranges, GError ** error)
{
  gchar **entries;
  guint n = 0;
  gboolean ret = FALSE;

  *n_ranges = 0;
  if (!text || !*text)
    return TRUE;
  entries = g_strsplit (text, ",", -1);
  for (gchar ** e = entries; *e; e++) {
    rc_channel_range range;

    if (!parse_entry (text, g_strstrip (*e), channels, ranges, n, &range,
            error))
      goto done;
    if (n == RC_RESAMPLE_MAX_GROUPS) {
      g_set_error (error, GST_STREAM_ERROR, GST_STREAM_ERROR_FORMAT,
          "%s \"%s\": more than %d %s", what, text, RC_RESAMPLE_MAX_GROUPS,
          unit);
      goto done;
    }
    ranges[n++] = range;
  }
  *n_ranges = n;
  ret = TRUE;
done:
  g_strfreev (entries);
  return ret;
}

/* A quaternion: its first channel, the group four channels long. */
static gboolean
parse_quaternion_entry (const gchar * text, const gchar * entry,
    guint channels, const rc_channel_range * earlier, guint n,
    rc_channel_range * range, GError ** error)
{
  guint first;

  if (!parse_channel (entry, &first)) {
    g_set_error (error, GST_STREAM_ERROR, GST_STREAM_ERROR_FORMAT,
        "quaternions \"%s\": \"%s\" is not a channel index; accepted: "
        "first channels of (x, y, z, w) groups, e.g. \"3,10\"", text, entry);
    return FALSE;
  }
  if ((guint64) first + 4 > channels) {
    g_set_error (error, GST_STREAM_ERROR, GST_STREAM_ERROR_FORMAT,
        "quaternions \"%s\": the quaternion at channel %u does not fit in "
        "%u channels", text, first, channels);
    return FALSE;
  }
  for (guint i = 0; i < n; i++) {
    if (first < earlier[i].first + 4 && earlier[i].first < first + 4) {
      g_set_error (error, GST_STREAM_ERROR, GST_STREAM_ERROR_FORMAT,
          "quaternions \"%s\": the quaternions at channels %u and %u "
          "overlap", text, earlier[i].first, first);
      return FALSE;
    }
  }
  range->first = first;
  range->count = 4;
  return TRUE;
}

gboolean
gst_robocache_vectors_parse_quaternions (const gchar * text, guint channels,
    guint * n_quaternions, guint32 * quaternion_first, GError ** error)
{
  rc_channel_range ranges[RC_RESAMPLE_MAX_GROUPS];

  if (!parse_channel_list (text, channels, parse_quaternion_entry,
          "quaternions", "quaternions", n_quaternions, ranges, error))
    return FALSE;
  for (guint i = 0; i < *n_quaternions; i++)
    quaternion_first[i] = ranges[i].first;
  return TRUE;
}

/* An angle channel or an inclusive range of them, "5" or "0-2". */
static gboolean
parse_angle_entry (const gchar * text, const gchar * entry, guint channels,
    const rc_channel_range * earlier, guint n, rc_channel_range * range,
    GError ** error)
{
  gchar **ends = g_strsplit (entry, "-", 2);
  guint first = 0, last = 0;
  /* An empty entry ("0,,2") splits into no parts at all. */
  gboolean ok = ends[0] && parse_channel (g_strstrip (ends[0]), &first);

  if (ok && ends[1])
    ok = parse_channel (g_strstrip (ends[1]), &last);
  else
    last = first;
  g_strfreev (ends);
  if (!ok || last < first) {
    g_set_error (error, GST_STREAM_ERROR, GST_STREAM_ERROR_FORMAT,
        "angles \"%s\": \"%s\" is not a channel or a range; accepted: "
        "channel indices or inclusive ranges, e.g. \"0-2,5\"", text, entry);
    return FALSE;
  }
  if (last >= channels) {
    g_set_error (error, GST_STREAM_ERROR, GST_STREAM_ERROR_FORMAT,
        "angles \"%s\": channel %u is not among the %u channels", text,
        last, channels);
    return FALSE;
  }
  for (guint i = 0; i < n; i++) {
    if (first < earlier[i].first + earlier[i].count &&
        earlier[i].first <= last) {
      g_set_error (error, GST_STREAM_ERROR, GST_STREAM_ERROR_FORMAT,
          "angles \"%s\": \"%s\" overlaps an earlier entry", text, entry);
      return FALSE;
    }
  }
  range->first = first;
  range->count = last - first + 1;
  return TRUE;
}

gboolean
gst_robocache_vectors_parse_angles (const gchar * text, guint channels,
    guint * n_ranges, rc_channel_range * ranges, GError ** error)
{
  return parse_channel_list (text, channels, parse_angle_entry, "angles",
      "entries", n_ranges, ranges, error);
}

gchar *
gst_robocache_vectors_quaternions_to_string (guint n_quaternions,
    const guint32 * quaternion_first)
{
  GString *s = g_string_new (NULL);

  for (guint i = 0; i < n_quaternions; i++)
    g_string_append_printf (s, "%s%u", i ? "," : "", quaternion_first[i]);
  return g_string_free (s, FALSE);
}

gchar *
gst_robocache_vectors_angles_to_string (guint n_ranges,
    const rc_channel_range * ranges)
{
  GString *s = g_string_new (NULL);

  for (guint i = 0; i < n_ranges; i++) {
    g_string_append_printf (s, "%s%u", i ? "," : "", ranges[i].first);
    if (ranges[i].count > 1)
      g_string_append_printf (s, "-%u", ranges[i].first + ranges[i].count - 1);
  }
  return g_string_free (s, FALSE);
}

/* Reads an optional string field; FALSE (with @error) if present but not a
 * string. */
static gboolean
get_optional_string (const GstStructure * s, const gchar * field,
    const gchar ** value, GError ** error)
{
  *value = NULL;
  if (!gst_structure_has_field (s, field))
    return TRUE;
  return get_string (s, field, value, error,
      "vectors caps field %s is not a string", field);
}

/* The media type, channels and format of vectors caps @str. */
static gboolean
get_vectors_channels_and_format (const GstStructure * s, const gchar * str,
    GstRobocacheVectorsInfo * info, GError ** error)
{
  const gchar *format;
  gint channels = 0;

  if (!gst_structure_has_name (s, GST_ROBOCACHE_VECTORS_MEDIA_TYPE)) {
    g_set_error (error, GST_STREAM_ERROR, GST_STREAM_ERROR_FORMAT,
        "caps %s are not " GST_ROBOCACHE_VECTORS_MEDIA_TYPE, str);
    return FALSE;
  }
  if (!gst_structure_get_int (s, "channels", &channels) || channels < 1 ||
      channels > 65535) {
    g_set_error (error, GST_STREAM_ERROR, GST_STREAM_ERROR_FORMAT,
        "vectors caps %s: channels must be an int in [1, 65535]; "
        VECTORS_ACCEPTED, str);
    return FALSE;
  }
  info->channels = (guint) channels;

  format = gst_structure_get_string (s, "format");
  info->type = format ? rc_scalar_type_from_string (format) :
      RC_TYPE_INVALID;
  if (info->type != RC_TYPE_FLOAT32 && info->type != RC_TYPE_FLOAT64 &&
      info->type != RC_TYPE_BFLOAT16) {
    g_set_error (error, GST_STREAM_ERROR, GST_STREAM_ERROR_FORMAT,
        "vectors caps %s: format \"%s\" is not a vectors format; "
        VECTORS_ACCEPTED, str, format ? format : "(none)");
    return FALSE;
  }
  return TRUE;
}

/* The layout and batch of vectors caps @str, whose format is known. */
static gboolean
get_vectors_layout_and_batch (const GstStructure * s, const gchar * str,
    GstRobocacheVectorsInfo * info, GError ** error)
{
  const gchar *layout = gst_structure_get_string (s, "layout");
  gint batch = 1;

  if (g_strcmp0 (layout, "sample") == 0) {
    info->layout = GST_ROBOCACHE_VECTORS_LAYOUT_SAMPLE;
  } else if (g_strcmp0 (layout, "chunk") == 0) {
    info->layout = GST_ROBOCACHE_VECTORS_LAYOUT_CHUNK;
  } else {
    g_set_error (error, GST_STREAM_ERROR, GST_STREAM_ERROR_FORMAT,
        "vectors caps %s: layout \"%s\" is unknown; " VECTORS_ACCEPTED, str,
        layout ? layout : "(none)");
    return FALSE;
  }
  if (info->type == RC_TYPE_BFLOAT16 &&
      info->layout != GST_ROBOCACHE_VECTORS_LAYOUT_CHUNK) {
    g_set_error (error, GST_STREAM_ERROR, GST_STREAM_ERROR_FORMAT,
        "vectors caps %s: format bfloat16 needs layout chunk; "
        VECTORS_ACCEPTED, str);
    return FALSE;
  }
  if (gst_structure_has_field (s, "batch") &&
      (!gst_structure_get_int (s, "batch", &batch) || batch < 1 ||
          (batch != 1 && info->layout != GST_ROBOCACHE_VECTORS_LAYOUT_CHUNK))) {
    g_set_error (error, GST_STREAM_ERROR, GST_STREAM_ERROR_FORMAT,
        "vectors caps %s: batch must be an int >= 1, and 1 with layout "
        "sample; " VECTORS_ACCEPTED, str);
    return FALSE;
  }
  info->batch = (guint) batch;
  return TRUE;
}

/* The optional quaternions and angles strings of vectors caps. */
static gboolean
get_vectors_channel_groups (const GstStructure * s,
    GstRobocacheVectorsInfo * info, GError ** error)
{
  const gchar *text;

  if (!get_optional_string (s, "quaternions", &text, error))
    return FALSE;
  info->has_quaternions = text != NULL;
  if (!gst_robocache_vectors_parse_quaternions (text, info->channels,
          &info->n_quaternions, info->quaternion_first, error))
    return FALSE;
  if (!get_optional_string (s, "angles", &text, error))
    return FALSE;
  info->has_angles = text != NULL;
  return gst_robocache_vectors_parse_angles (text, info->channels,
      &info->n_angle_ranges, info->angle_ranges, error);
}

gboolean
gst_robocache_vectors_caps_parse (const GstCaps * caps,
    GstRobocacheVectorsInfo * info, GError ** error)
{
  const GstStructure *s;
  gchar *str;
  gboolean ret;

  memset (info, 0, sizeof (*info));
  if (!caps || !gst_caps_is_fixed (caps)) {
    g_set_error (error, GST_STREAM_ERROR, GST_STREAM_ERROR_FORMAT,
        "vectors caps are not fixed");
    return FALSE;
  }
  s = gst_caps_get_structure (caps, 0);
  str = gst_caps_to_string (caps);
  ret = get_vectors_channels_and_format (s, str, info, error) &&
      get_vectors_layout_and_batch (s, str, info, error) &&
      get_vectors_channel_groups (s, info, error);
  g_free (str);
  return ret;
}

GstCaps *
gst_robocache_vectors_caps_new (const GstRobocacheVectorsInfo * info,
    const gchar * names, gboolean cuda)
{
  gboolean chunk = info->layout == GST_ROBOCACHE_VECTORS_LAYOUT_CHUNK;
  GstCaps *caps = gst_caps_new_simple (GST_ROBOCACHE_VECTORS_MEDIA_TYPE,
      "channels", G_TYPE_INT, (gint) info->channels,
      "format", G_TYPE_STRING, rc_scalar_type_to_string (info->type),
      "layout", G_TYPE_STRING, chunk ? "chunk" : "sample", NULL);

  if (chunk)
    gst_caps_set_simple (caps, "batch", G_TYPE_INT, (gint) info->batch, NULL);
  if (names)
    gst_caps_set_simple (caps, "names", G_TYPE_STRING, names, NULL);
  if (info->n_quaternions > 0) {
    gchar *q = gst_robocache_vectors_quaternions_to_string
        (info->n_quaternions, info->quaternion_first);
    gst_caps_set_simple (caps, "quaternions", G_TYPE_STRING, q, NULL);
    g_free (q);
  }
  if (info->n_angle_ranges > 0) {
    gchar *a = gst_robocache_vectors_angles_to_string (info->n_angle_ranges,
        info->angle_ranges);
    gst_caps_set_simple (caps, "angles", G_TYPE_STRING, a, NULL);
    g_free (a);
  }
  if (cuda) {
    gst_caps_set_features (caps, 0,
        gst_caps_features_new (GST_ROBOCACHE_CAPS_FEATURE_CUDA, NULL));
  }
  return caps;
}

/* ------------------------------------------------------------------ */
/* Sparse voxels and pillars                                           */
/* ------------------------------------------------------------------ */

void
gst_robocache_sparse_info_layout (GstRobocacheSparseInfo * info)
{
  gsize m = info->params.max_voxels;

  info->coords_offset = m * info->params.max_points * info->channels * 4;
  info->num_points_offset = info->coords_offset + m * 3 * 4;
  info->n_voxels_offset = info->num_points_offset + m * 4;
  info->size = info->n_voxels_offset + 16;
}

GstCaps *
gst_robocache_sparse_caps_new (const GstRobocacheSparseInfo * info,
    const gchar * channel_names, gboolean cuda)
{
  GstCaps *caps = gst_caps_new_simple (GST_ROBOCACHE_SPARSE_MEDIA_TYPE,
      "mode", G_TYPE_STRING, info->params.mode == RC_SPARSE_VOXELS ?
      "voxels" : "pillars",
      "channels", G_TYPE_INT, (gint) info->channels,
      "max-voxels", G_TYPE_INT, (gint) info->params.max_voxels,
      "max-points", G_TYPE_INT, (gint) info->params.max_points,
      "channel-names", G_TYPE_STRING, channel_names, NULL);

  set_grid_fields (caps, &info->params.grid);
  if (cuda)
    gst_caps_set_features (caps, 0,
        gst_caps_features_new (GST_ROBOCACHE_CAPS_FEATURE_CUDA, NULL));
  return caps;
}

gboolean
gst_robocache_sparse_caps_parse (const GstCaps * caps,
    GstRobocacheSparseInfo * info, GError ** error)
{
  const GstStructure *s;
  gint channels = 0, m = 0, k = 0;

  memset (info, 0, sizeof (*info));
  if (!caps || !gst_caps_is_fixed (caps))
    goto bad;
  s = gst_caps_get_structure (caps, 0);
  if (!gst_structure_has_name (s, GST_ROBOCACHE_SPARSE_MEDIA_TYPE) ||
      !gst_structure_get_int (s, "channels", &channels) || channels <= 0 ||
      !gst_structure_get_int (s, "max-voxels", &m) || m <= 0 ||
      !gst_structure_get_int (s, "max-points", &k) || k <= 0 ||
      !get_grid_fields (s, &info->params.grid))
    goto bad;
  info->params.grid.mode = RC_VOXEL_COUNT;
  info->params.mode = g_strcmp0 (gst_structure_get_string (s, "mode"),
      "voxels") == 0 ? RC_SPARSE_VOXELS : RC_SPARSE_PILLARS_10;
  info->params.max_voxels = (guint32) m;
  info->params.max_points = (guint32) k;
  info->channels = (guint) channels;
  gst_robocache_sparse_info_layout (info);
  return TRUE;

bad:
  return incomplete_caps (caps, GST_ROBOCACHE_SPARSE_MEDIA_TYPE,
      "channels, max-voxels, max-points, grid-x/y/z, origin-x/y/z, "
      "voxel-size-x/y/z", error);
}
