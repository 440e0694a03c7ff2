/* libFuzzer target over the points caps' fields string parser
 * (gst_robocache_points_caps_parse in gst/gstrobocachecaps.c), as an
 * element's accept_caps and set_caps run it.  Input: two bytes of
 * point-step (little-endian), then the fields string, then after the first
 * newline the feature names (voxelize's feature-fields property).  A parsed
 * layout is checked to lie inside point-step (tests/elements/embed.c
 * test_points_huge_offset_n is what it found).  Built with meson -Dfuzz=true
 * and clang; see docs/fuzzing.md. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <gst/gst.h>

#include "gstrobocachecaps.h"

int LLVMFuzzerTestOneInput (const uint8_t * data, size_t size);

/* Aborts (a crash the fuzzer reports) when @f does not fit in a point. */
static void
check_field (const rc_field * f, uint32_t point_step)
{
  size_t s = rc_scalar_type_size (f->type);

  if (s == 0 || (uint64_t) f->offset + s > point_step)
    abort ();
}

int
LLVMFuzzerTestOneInput (const uint8_t * data, size_t size)
{
  static gboolean inited;
  rc_point_layout layout;
  GstCaps *caps;
  gchar *text, *names;
  gint point_step;

  if (!inited) {
    gst_init (NULL, NULL);
    inited = TRUE;
  }
  if (size < 2)
    return 0;
  point_step = data[0] | (data[1] << 8);
  text = g_strndup ((const gchar *) data + 2, size - 2);
  /* GStreamer keeps only UTF-8 strings in caps (and properties). */
  if (!g_utf8_validate (text, -1, NULL)) {
    g_free (text);
    return 0;
  }
  names = strchr (text, '\n');
  if (names)
    *names++ = '\0';
  caps = gst_caps_new_simple (GST_ROBOCACHE_POINTS_MEDIA_TYPE,
      "point-step", G_TYPE_INT, point_step, "fields", G_TYPE_STRING, text,
      NULL);
  if (gst_robocache_points_caps_parse (caps, names, &layout, NULL)) {
    if (layout.point_step != (uint32_t) point_step ||
        layout.n_features > RC_VOXELIZE_MAX_FEATURES)
      abort ();
    check_field (&layout.x, layout.point_step);
    check_field (&layout.y, layout.point_step);
    check_field (&layout.z, layout.point_step);
    for (uint32_t i = 0; i < layout.n_features; i++)
      check_field (&layout.features[i], layout.point_step);
  }
  gst_caps_unref (caps);
  g_free (text);
  return 0;
}
