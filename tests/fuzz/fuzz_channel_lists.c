/* libFuzzer target over the channel-list parsers of vectors caps and of
 * robocacheresample's quaternions and angles properties
 * (gst_robocache_vectors_parse_quaternions / _angles in
 * gst/gstrobocachecaps.c), and over vectors caps carrying them.  Input: two
 * bytes of channels (little-endian), a byte choosing quaternions (even) or
 * angles (odd), then the list.  A parsed list must lie inside the channels,
 * not overlap, and read back the same from its own string.  Built with
 * meson -Dfuzz=true and clang; see docs/fuzzing.md. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <gst/gst.h>

#include "gstrobocachecaps.h"

int LLVMFuzzerTestOneInput (const uint8_t * data, size_t size);

/* Aborts unless @ranges are inside @channels and apart. */
static void
check_ranges (const rc_channel_range * ranges, guint n, guint channels)
{
  if (n > RC_RESAMPLE_MAX_GROUPS)
    abort ();
  for (guint i = 0; i < n; i++) {
    if (ranges[i].count == 0 ||
        (guint64) ranges[i].first + ranges[i].count > channels)
      abort ();
    for (guint j = 0; j < i; j++) {
      if (ranges[i].first < ranges[j].first + ranges[j].count &&
          ranges[j].first < ranges[i].first + ranges[i].count)
        abort ();
    }
  }
}

/* Parses @text as a quaternions or angles list into @ranges. */
static gboolean
parse_list (const gchar * text, guint channels, gboolean angles,
    rc_channel_range * ranges, guint * n)
{
  guint32 first[RC_RESAMPLE_MAX_GROUPS];

  if (angles)
    return gst_robocache_vectors_parse_angles (text, channels, n, ranges, NULL);
  if (!gst_robocache_vectors_parse_quaternions (text, channels, n, first, NULL))
    return FALSE;
  for (guint i = 0; i < *n; i++) {
    ranges[i].first = first[i];
    ranges[i].count = 4;
  }
  return TRUE;
}

/* The list written back as a string must parse to the same ranges. */
static void
check_round_trip (const rc_channel_range * ranges, guint n, guint channels,
    gboolean angles)
{
  rc_channel_range again[RC_RESAMPLE_MAX_GROUPS];
  guint32 first[RC_RESAMPLE_MAX_GROUPS];
  guint n_again = 0;
  gchar *str;

  for (guint i = 0; i < n; i++)
    first[i] = ranges[i].first;
  str = angles ? gst_robocache_vectors_angles_to_string (n, ranges) :
      gst_robocache_vectors_quaternions_to_string (n, first);
  if (!parse_list (str, channels, angles, again, &n_again) || n_again != n ||
      memcmp (again, ranges, n * sizeof (*ranges)) != 0)
    abort ();
  g_free (str);
}

/* The same list as a field of vectors caps. */
static void
parse_caps (const gchar * text, guint channels, gboolean angles, gboolean ok)
{
  GstRobocacheVectorsInfo info;
  GstCaps *caps = gst_caps_new_simple (GST_ROBOCACHE_VECTORS_MEDIA_TYPE,
      "channels", G_TYPE_INT, (gint) channels, "format", G_TYPE_STRING,
      "float32", "layout", G_TYPE_STRING, "sample",
      angles ? "angles" : "quaternions", G_TYPE_STRING, text, NULL);

  if (gst_robocache_vectors_caps_parse (caps, &info, NULL) !=
      (ok && channels >= 1))
    abort ();
  gst_caps_unref (caps);
}

int
LLVMFuzzerTestOneInput (const uint8_t * data, size_t size)
{
  static gboolean inited;
  rc_channel_range ranges[RC_RESAMPLE_MAX_GROUPS];
  guint channels, n = 0;
  gboolean angles, ok;
  gchar *text;

  if (!inited) {
    gst_init (NULL, NULL);
    inited = TRUE;
  }
  if (size < 3)
    return 0;
  channels = data[0] | (data[1] << 8);
  angles = data[2] & 1;
  text = g_strndup ((const gchar *) data + 3, size - 3);
  ok = parse_list (text, channels, angles, ranges, &n);
  if (ok) {
    check_ranges (ranges, n, channels);
    check_round_trip (ranges, n, channels, angles);
  }
  /* GStreamer keeps only UTF-8 strings in caps (and properties). */
  if (g_utf8_validate (text, -1, NULL))
    parse_caps (text, channels, angles, ok);
  g_free (text);
  return 0;
}
