/* robocachevoxelize: negotiation, properties, results against the kernel
 * reference, renegotiation, statistics and every bad input. */
#include <gst/check/gstcheck.h>
#include <gst/check/gstharness.h>
#include <glib/gstdio.h>
#include <math.h>

#include "elementutil.h"

#include <sys/resource.h>
#include "testutil.h"

/* 2 x 2 x 1 unit voxels from the origin: tiny grids whose every byte a test
 * can check. */
static GstHarness *
small_harness (const gchar * extra)
{
  gchar *desc = g_strdup_printf ("robocachevoxelize backend=cpu "
      "voxel-size=\"<1.0>\" origin=\"<0.0,0.0,0.0>\" dims=\"<2,2,1>\" %s",
      extra ? extra : "");
  GstHarness *h = gst_harness_new_parse (desc);

  g_free (desc);
  gst_harness_set_src_caps_str (h, XYZI_CAPS);
  return h;
}

/* The element inside a parsed harness (whose h->element is a bin). */
static GstElement *
voxelize_of (GstHarness * h)
{
  GstElement *e = gst_harness_find_element (h, "robocachevoxelize");

  fail_unless (e != NULL);
  gst_object_unref (e);         /* the harness keeps it alive */
  return e;
}

static const float sweep[] = {
  0.5f, 0.5f, 0.5f, 10.0f,      /* voxel 0 */
  1.5f, 0.5f, 0.5f, 20.0f,      /* voxel 1 */
  1.2f, 0.7f, 0.1f, 40.0f,      /* voxel 1 */
  0.5f, 1.5f, 0.5f, 5.0f,       /* voxel 2 */
  9.0f, 0.5f, 0.5f, 1.0f,       /* out of range */
  NAN, 0.5f, 0.5f, 1.0f,        /* invalid */
};

GST_START_TEST (test_occupancy_caps_and_values)
{
  GstHarness *h = small_harness (NULL);
  GstBuffer *out;
  GstCaps *caps;
  GstStructure *s;
  GstMapInfo map;
  gint gx = 0;
  gdouble size = 0;

  out = gst_harness_push_and_pull (h, xyzi_buffer (sweep, 6, 42 * GST_SECOND));
  fail_unless (out != NULL);
  caps = gst_pad_get_current_caps (h->srcpad);
  fail_unless (caps != NULL);
  gst_caps_unref (caps);
  caps = gst_pad_get_current_caps (h->sinkpad);
  s = gst_caps_get_structure (caps, 0);
  fail_unless (gst_structure_has_name (s, GST_ROBOCACHE_VOXELS_MEDIA_TYPE));
  fail_unless_equals_string (gst_structure_get_string (s, "mode"), "occupancy");
  fail_unless_equals_string (gst_structure_get_string (s, "format"), "uint8");
  fail_unless (gst_structure_get_int (s, "grid-x", &gx) && gx == 2);
  fail_unless (gst_structure_get_double (s, "voxel-size-z", &size) &&
      size == 1.0);
  fail_if (gst_robocache_caps_is_cuda (caps));
  gst_caps_unref (caps);

  fail_unless_equals_uint64 (GST_BUFFER_PTS (out), 42 * GST_SECOND);
  fail_unless_equals_uint64 (GST_BUFFER_DURATION (out), 100 * GST_MSECOND);
  fail_unless (gst_buffer_map (out, &map, GST_MAP_READ));
  fail_unless_equals_int (map.size, 4);
  fail_unless_equals_int (map.data[0], 1);
  fail_unless_equals_int (map.data[1], 1);
  fail_unless_equals_int (map.data[2], 1);
  fail_unless_equals_int (map.data[3], 0);
  gst_buffer_unmap (out, &map);
  gst_buffer_unref (out);
  gst_harness_teardown (h);
}

GST_END_TEST;

GST_START_TEST (test_count_and_mean)
{
  GstHarness *h = small_harness ("mode=count");
  GstBuffer *out;
  GstMapInfo map;
  const guint32 *counts;
  const float *means;

  out = gst_harness_push_and_pull (h, xyzi_buffer (sweep, 6, 0));
  fail_unless (gst_buffer_map (out, &map, GST_MAP_READ));
  fail_unless_equals_int (map.size, 16);
  counts = (const guint32 *) map.data;
  fail_unless_equals_int (counts[0], 1);
  fail_unless_equals_int (counts[1], 2);
  fail_unless_equals_int (counts[2], 1);
  fail_unless_equals_int (counts[3], 0);
  gst_buffer_unmap (out, &map);
  gst_buffer_unref (out);
  gst_harness_teardown (h);

  h = small_harness ("mode=mean features=intensity,x");
  out = gst_harness_push_and_pull (h, xyzi_buffer (sweep, 6, 0));
  fail_unless (gst_buffer_map (out, &map, GST_MAP_READ));
  fail_unless_equals_int (map.size, 2 * 4 * sizeof (float));
  means = (const float *) map.data;
  fail_unless_equals_float (means[0], 10.0f);
  fail_unless_equals_float (means[1], 30.0f);
  fail_unless_equals_float (means[2], 5.0f);
  fail_unless_equals_float (means[3], 0.0f);
  fail_unless (fabsf (means[4 + 1] - 1.35f) < 1e-6f);
  gst_buffer_unmap (out, &map);
  gst_buffer_unref (out);
  {
    GstCaps *caps = gst_pad_get_current_caps (h->sinkpad);
    gint n = 0;
    fail_unless (gst_structure_get_int (gst_caps_get_structure (caps, 0),
            "features", &n) && n == 2);
    gst_caps_unref (caps);
  }
  gst_harness_teardown (h);
}

GST_END_TEST;

static void
check_points_caps (GstHarness * h, gint step, const gchar * fields,
    gdouble voxel_size)
{
  GstCaps *caps = gst_pad_get_current_caps (h->sinkpad);
  GstStructure *s = gst_caps_get_structure (caps, 0);
  gint got_step = 0, gx = 0;
  gdouble size = 0;

  fail_unless (gst_structure_has_name (s, GST_ROBOCACHE_POINTS_MEDIA_TYPE));
  fail_unless (gst_structure_get_int (s, "point-step", &got_step));
  fail_unless_equals_int (got_step, step);
  fail_unless_equals_string (gst_structure_get_string (s, "fields"), fields);
  fail_unless (gst_structure_get_int (s, "grid-x", &gx) && gx == 2);
  fail_unless (gst_structure_get_double (s, "voxel-size-x", &size));
  fail_unless_equals_float (size, voxel_size);
  gst_caps_unref (caps);
}

/* Centroids: a point cloud of the occupied voxels, in voxel order, as
 * large as it needs to be; a new voxel size renegotiates. */
GST_START_TEST (test_centroids)
{
  GstHarness *h = small_harness ("mode=centroids features=x,y,z,intensity");
  const float want[3][4] = {
    {0.5f, 0.5f, 0.5f, 10.0f},
    {1.35f, 0.6f, 0.3f, 30.0f},
    {0.5f, 1.5f, 0.5f, 5.0f},
  };
  GstBuffer *out;
  GstMapInfo map;
  const float *p;

  out = gst_harness_push_and_pull (h, xyzi_buffer (sweep, 6, 0));
  check_points_caps (h, 16, GST_ROBOCACHE_FIELDS_XYZI, 1.0);
  fail_unless (gst_buffer_map (out, &map, GST_MAP_READ));
  fail_unless_equals_int (map.size, 3 * 16);
  p = (const float *) map.data;
  for (int i = 0; i < 3; i++) {
    for (int f = 0; f < 4; f++)
      fail_unless (fabsf (p[i * 4 + f] - want[i][f]) < 1e-6f,
          "point %d field %d: %g, expected %g", i, f, p[i * 4 + f], want[i][f]);
  }
  gst_buffer_unmap (out, &map);
  gst_buffer_unref (out);

  /* Voxels of 10 m: every valid point, the far one included, in one. */
  gst_util_set_object_arg (G_OBJECT (voxelize_of (h)), "voxel-size", "<10.0>");
  out = gst_harness_push_and_pull (h, xyzi_buffer (sweep, 6, GST_SECOND));
  check_points_caps (h, 16, GST_ROBOCACHE_FIELDS_XYZI, 10.0);
  fail_unless (gst_buffer_map (out, &map, GST_MAP_READ));
  fail_unless_equals_int (map.size, 16);
  p = (const float *) map.data;
  fail_unless (fabsf (p[0] - (0.5f + 1.5f + 1.2f + 0.5f + 9.0f) / 5) < 1e-5f);
  fail_unless (fabsf (p[3] - 76.0f / 5) < 1e-5f);
  gst_buffer_unmap (out, &map);
  gst_buffer_unref (out);

  /* An empty sweep: an empty cloud. */
  out = gst_harness_push_and_pull (h, gst_buffer_new ());
  fail_unless_equals_int (gst_buffer_get_size (out), 0);
  gst_buffer_unref (out);
  gst_harness_teardown (h);

  /* No features: the centroid, x, y, z. */
  h = small_harness ("mode=centroids");
  out = gst_harness_push_and_pull (h, xyzi_buffer (sweep, 6, 0));
  check_points_caps (h, 12, "x:float32:0,y:float32:4,z:float32:8", 1.0);
  fail_unless_equals_int (gst_buffer_get_size (out), 3 * 12);
  gst_buffer_unref (out);
  gst_harness_teardown (h);
}

GST_END_TEST;

/* A lidar sweep downsampled, then voxelized again: the second element
 * takes the first's centroids as any point cloud. */
GST_START_TEST (test_centroids_pipeline)
{
  GstElement *pipeline = gst_parse_launch ("robocachelidarsrc num-buffers=3 "
      "points-per-sweep=20000 seed=5 ! robocachevoxelize name=down "
      "backend=cpu mode=centroids ! robocachevoxelize name=count backend=cpu "
      "mode=count ! fakesink", NULL);
  GstElement *down = gst_bin_get_by_name (GST_BIN (pipeline), "down");
  GstElement *count = gst_bin_get_by_name (GST_BIN (pipeline), "count");
  GstStructure *down_stats, *count_stats;
  guint64 in = 0, occupied = 0, points = 0, in_grid = 0, last = 0;

  fail_unless (run_to_end (pipeline, 60 * GST_SECOND) == NULL);
  g_object_get (down, "stats", &down_stats, NULL);
  g_object_get (count, "stats", &count_stats, NULL);
  gst_structure_get (down_stats, "in-grid", G_TYPE_UINT64, &in,
      "last-occupied", G_TYPE_UINT64, &occupied, NULL);
  gst_structure_get (count_stats, "points", G_TYPE_UINT64, &points,
      "in-grid", G_TYPE_UINT64, &in_grid, "last-occupied", G_TYPE_UINT64,
      &last, NULL);
  /* Fewer points than went in; each centroid lies in its own voxel of the
   * same grid, so all are in it and occupy as many voxels. */
  fail_unless (occupied > 100 && points < in, "%" G_GUINT64_FORMAT " of %"
      G_GUINT64_FORMAT, points, in);
  fail_unless_equals_uint64 (in_grid, points);
  fail_unless_equals_uint64 (last, occupied);
  gst_structure_free (down_stats);
  gst_structure_free (count_stats);
  gst_object_unref (down);
  gst_object_unref (count);
  gst_object_unref (pipeline);
}

GST_END_TEST;

GST_START_TEST (test_stats_and_messages)
{
  GstHarness *h = small_harness ("post-messages=true");
  GstBus *bus = gst_bus_new ();
  GstStructure *stats = NULL;
  GstMessage *msg;
  guint64 v = 0;

  gst_element_set_bus (h->element, bus);
  gst_buffer_unref (gst_harness_push_and_pull (h, xyzi_buffer (sweep, 6, 0)));
  gst_buffer_unref (gst_harness_push_and_pull (h, xyzi_buffer (sweep, 6,
              GST_SECOND)));
  g_object_get (voxelize_of (h), "stats", &stats, NULL);
  fail_unless (gst_structure_get_uint64 (stats, "sweeps", &v) && v == 2);
  fail_unless (gst_structure_get_uint64 (stats, "points", &v) && v == 12);
  fail_unless (gst_structure_get_uint64 (stats, "in-grid", &v) && v == 8);
  fail_unless (gst_structure_get_uint64 (stats, "out-of-range", &v) && v == 2);
  fail_unless (gst_structure_get_uint64 (stats, "invalid", &v) && v == 2);
  fail_unless (gst_structure_get_uint64 (stats, "last-occupied", &v) && v == 3);
  gst_structure_free (stats);

  msg = pop_message (bus, GST_MESSAGE_ELEMENT);
  fail_unless (msg != NULL);
  fail_unless (gst_structure_get_uint64 (gst_message_get_structure (msg),
          "occupied", &v) && v == 3);
  gst_message_unref (msg);
  gst_element_set_bus (h->element, NULL);
  gst_object_unref (bus);
  gst_harness_teardown (h);
}

GST_END_TEST;

GST_START_TEST (test_properties)
{
  GstElement *e = gst_element_factory_make ("robocachevoxelize", NULL);
  GValue arr = G_VALUE_INIT;
  gchar *str;
  gint mode;

  fail_unless (e != NULL);
  gst_util_set_object_arg (G_OBJECT (e), "voxel-size", "<0.5,0.25,0.125>");
  gst_util_set_object_arg (G_OBJECT (e), "dims", "<10,20,30>");
  gst_util_set_object_arg (G_OBJECT (e), "mode", "count");
  g_value_init (&arr, GST_TYPE_ARRAY);
  g_object_get_property (G_OBJECT (e), "voxel-size", &arr);
  str = gst_value_serialize (&arr);
  fail_unless_equals_string (str, "< (double)0.5, (double)0.25, "
      "(double)0.125 >");
  g_free (str);
  g_value_unset (&arr);
  g_value_init (&arr, GST_TYPE_ARRAY);
  g_object_get_property (G_OBJECT (e), "dims", &arr);
  str = gst_value_serialize (&arr);
  fail_unless_equals_string (str, "< (int)10, (int)20, (int)30 >");
  g_free (str);
  g_value_unset (&arr);
  g_object_get (e, "mode", &mode, NULL);
  fail_unless_equals_int (mode, 1);
  gst_object_unref (e);
}

GST_END_TEST;

/* A new grid while playing gives new caps on the next sweep. */
GST_START_TEST (test_renegotiate_while_playing)
{
  GstHarness *h = small_harness (NULL);
  GstBuffer *out;

  out = gst_harness_push_and_pull (h, xyzi_buffer (sweep, 6, 0));
  fail_unless_equals_int (gst_buffer_get_size (out), 4);
  gst_buffer_unref (out);
  gst_util_set_object_arg (G_OBJECT (voxelize_of (h)), "dims", "<4,4,2>");
  out = gst_harness_push_and_pull (h, xyzi_buffer (sweep, 6, GST_SECOND));
  fail_unless_equals_int (gst_buffer_get_size (out), 32);
  gst_buffer_unref (out);
  {
    GstCaps *caps = gst_pad_get_current_caps (h->sinkpad);
    gint z = 0;
    fail_unless (gst_structure_get_int (gst_caps_get_structure (caps, 0),
            "grid-z", &z) && z == 2);
    gst_caps_unref (caps);
  }
  gst_harness_teardown (h);
}

GST_END_TEST;

/* backend and pipeline-depth are settled as the stream starts: set while
 * playing they are refused with a warning and the sweeps go on as before;
 * mode is taken while playing and renegotiates (count: 4 bytes a voxel).
 * Stopped, backend is taken. */
GST_START_TEST (test_start_properties_refused_while_playing)
{
  GstHarness *h = small_harness (NULL);
  GstElement *e = voxelize_of (h);
  static const guint32 counts[4] = { 1, 2, 1, 0 };
  GstBuffer *out;

  gst_buffer_unref (gst_harness_push_and_pull (h, xyzi_buffer (sweep, 6, 0)));
  check_set_refused (G_OBJECT (e), "backend", "gpu");
  check_set_refused (G_OBJECT (e), "pipeline-depth", "2");
  check_set_taken (G_OBJECT (e), "mode", "count");
  out = gst_harness_push_and_pull (h, xyzi_buffer (sweep, 6, GST_SECOND));
  fail_unless_equals_int (gst_buffer_get_size (out), sizeof (counts));
  fail_unless (gst_buffer_memcmp (out, 0, counts, sizeof (counts)) == 0);
  gst_buffer_unref (out);
  check_set_taken_stopped (h->element, G_OBJECT (e), "backend", "gpu");
  gst_harness_teardown (h);
}

GST_END_TEST;

/* An empty sweep is a valid sweep that saw nothing: an empty grid. */
GST_START_TEST (test_empty_sweep)
{
  GstHarness *h = small_harness (NULL);
  GstBuffer *out;
  GstStructure *stats;
  GstMapInfo map;
  guint64 v = 0;

  out = gst_harness_push_and_pull (h, gst_buffer_new ());
  fail_unless (gst_buffer_map (out, &map, GST_MAP_READ));
  for (gsize i = 0; i < map.size; i++)
    fail_unless_equals_int (map.data[i], 0);
  gst_buffer_unmap (out, &map);
  gst_buffer_unref (out);
  g_object_get (voxelize_of (h), "stats", &stats, NULL);
  fail_unless (gst_structure_get_uint64 (stats, "empty-sweeps", &v) && v == 1);
  gst_structure_free (stats);
  gst_harness_teardown (h);
}

GST_END_TEST;

/* A buffer that is not a whole number of points: dropped, counted, one
 * warning; the stream goes on. */
GST_START_TEST (test_partial_point_dropped_n)
{
  GstHarness *h = small_harness (NULL);
  GstBus *bus = gst_bus_new ();
  GstBuffer *bad = gst_buffer_new_allocate (NULL, 16 * 3 + 5, NULL);
  GstStructure *stats;
  GstMessage *msg;
  guint64 v = 0;

  gst_element_set_bus (h->element, bus);
  gst_buffer_memset (bad, 0, 0x3f, 16 * 3 + 5);
  fail_unless_equals_int (gst_harness_push (h, gst_buffer_copy (bad)),
      GST_FLOW_OK);
  fail_unless_equals_int (gst_harness_push (h, bad), GST_FLOW_OK);
  fail_unless_equals_int (gst_harness_buffers_received (h), 0);
  gst_buffer_unref (gst_harness_push_and_pull (h, xyzi_buffer (sweep, 6, 0)));

  g_object_get (voxelize_of (h), "stats", &stats, NULL);
  fail_unless (gst_structure_get_uint64 (stats, "dropped-buffers", &v) &&
      v == 2);
  gst_structure_free (stats);
  msg = pop_message (bus, GST_MESSAGE_WARNING);
  fail_unless (msg != NULL);
  gst_message_unref (msg);
  msg = pop_message (bus, GST_MESSAGE_WARNING);
  fail_unless (msg == NULL, "warned twice");
  gst_element_set_bus (h->element, NULL);
  gst_object_unref (bus);
  gst_harness_teardown (h);
}

GST_END_TEST;

/* Pushes one sweep with @caps through an element described by @desc and
 * returns the error text posted (owned by the caller), or NULL. */
static gchar *
error_for (const gchar * desc, const gchar * caps)
{
  GstHarness *h = gst_harness_new_parse (desc);
  GstBus *bus = gst_bus_new ();
  GstMessage *msg;
  GError *err = NULL;
  gchar *text = NULL;

  gst_element_set_bus (h->element, bus);
  gst_harness_set_src_caps_str (h, caps);
  gst_harness_push (h, xyzi_buffer (sweep, 6, 0));
  msg = pop_message (bus, GST_MESSAGE_ERROR);
  if (msg) {
    gst_message_parse_error (msg, &err, NULL);
    text = g_strdup (err->message);
    g_clear_error (&err);
    gst_message_unref (msg);
  }
  gst_element_set_bus (h->element, NULL);
  gst_object_unref (bus);
  gst_harness_teardown (h);
  return text;
}

static void
assert_error (const gchar * desc, const gchar * caps, const gchar * needle)
{
  gchar *text = error_for (desc, caps);

  fail_unless (text != NULL, "no error for %s", desc);
  fail_unless (strstr (text, needle) != NULL, "error \"%s\" lacks \"%s\"",
      text, needle);
  g_free (text);
}

GST_START_TEST (test_missing_xyz_n)
{
  assert_error ("robocachevoxelize backend=cpu",
      GST_ROBOCACHE_POINTS_MEDIA_TYPE ", point-step=(int)16, "
      "fields=(string)\"x:float32:0,y:float32:4,intensity:float32:12\"",
      "lack z");
  assert_error ("robocachevoxelize backend=cpu",
      GST_ROBOCACHE_POINTS_MEDIA_TYPE ", point-step=(int)16, "
      "fields=(string)\"x:float32:0,y:float32:4,z:float32:14\"",
      "does not fit");
  assert_error ("robocachevoxelize backend=cpu",
      GST_ROBOCACHE_POINTS_MEDIA_TYPE ", point-step=(int)16, "
      "fields=(string)\"x:int32:0,y:float32:4,z:float32:8\"",
      "float32 or float64");
  assert_error ("robocachevoxelize backend=cpu",
      GST_ROBOCACHE_POINTS_MEDIA_TYPE ", point-step=(int)16, "
      "fields=(string)\"x:float16:0,y:float32:4,z:float32:8\"", "unknown type");
  assert_error ("robocachevoxelize backend=cpu mode=mean features=ring",
      XYZI_CAPS, "not among the point fields");
}

GST_END_TEST;

/* Runs robocachelidarsrc ! @desc ! fakesink and returns the first error's
 * text (owned by the caller), or NULL; counts the errors @desc's element
 * posted in *n_errors. */
static gchar *
pipeline_error (const gchar * desc, guint * n_errors)
{
  gchar *launch = g_strdup_printf ("robocachelidarsrc num-buffers=2 "
      "points-per-sweep=64 ! %s name=v ! fakesink", desc);
  GstElement *pipeline = gst_parse_launch (launch, NULL);
  GstBus *bus = gst_element_get_bus (pipeline);
  GstMessage *msg;
  GError *err = NULL;
  gchar *text = NULL;
  guint n = 0;

  fail_unless (pipeline != NULL, "cannot parse %s", launch);
  gst_element_set_state (pipeline, GST_STATE_PLAYING);
  while ((msg = gst_bus_timed_pop_filtered (bus, 10 * GST_SECOND,
              GST_MESSAGE_ERROR | GST_MESSAGE_EOS))) {
    if (GST_MESSAGE_TYPE (msg) == GST_MESSAGE_EOS) {
      gst_message_unref (msg);
      break;
    }
    if (g_str_equal (GST_OBJECT_NAME (GST_MESSAGE_SRC (msg)), "v")) {
      n++;
      gst_message_parse_error (msg, &err, NULL);
      if (!text)
        text = g_strdup (err->message);
      g_clear_error (&err);
    }
    gst_message_unref (msg);
    /* Let the other errors of the same failure come in. */
    if (text && !gst_bus_have_pending (bus))
      g_usleep (20000);
    if (text && !gst_bus_have_pending (bus))
      break;
  }
  gst_element_set_state (pipeline, GST_STATE_NULL);
  gst_object_unref (bus);
  gst_object_unref (pipeline);
  g_free (launch);
  if (n_errors)
    *n_errors = n;
  return text;
}

/* Bad grid properties are element errors at start, whatever GLib's own
 * ranges would have said, and never a run on the default grid. */
GST_START_TEST (test_bad_grid_properties_n)
{
  static const struct
  {
    const gchar *props;
    const gchar *needle;
  } cases[] = {
    {"voxel-size=\"<0.0>\"", "voxel-size along x is 0"},
    {"voxel-size=\"<0.1,-0.2,0.1>\"", "voxel-size along y is -0.2"},
    {"voxel-size=\"<nan>\"", "voxel-size along x is nan"},
    {"voxel-size=\"<0.1,0.1,inf>\"", "voxel-size along z is inf"},
    {"origin=\"<0,nan,0>\"", "origin along y is nan"},
    {"dims=\"<0,256,32>\"", "dims along x is 0"},
    {"dims=\"<256,-4,32>\"", "dims along y is -4"},
    {"dims=\"<2,3>\"", "one value for all axes or three"},
    {"dims=\"<4096,4096,4096>\"", "too large"},
    /* Exactly 2^32 voxels: one too many for 32-bit voxel indices. */
    {"dims=\"<65536,65536,1>\"", "fewer than 2^32"},
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++) {
    gchar *desc = g_strdup_printf ("robocachevoxelize backend=cpu %s",
        cases[i].props);
    guint n = 0;
    gchar *text = pipeline_error (desc, &n);

    fail_unless (text != NULL, "no error for %s", desc);
    fail_unless (strstr (text, cases[i].needle) != NULL,
        "error \"%s\" lacks \"%s\"", text, cases[i].needle);
    fail_unless_equals_int (n, 1);
    g_free (text);
    g_free (desc);
  }
}

GST_END_TEST;

/* A grid of 2^32 voxels or more cannot be addressed; just under, 4 GiB
 * (16 GiB in flight) is above the default max-memory (1 GiB), and so are
 * 2^32 - 1 voxels of 8 float means: all are refused at negotiation, before
 * anything is allocated (issue 21: the CPU ran such grids with 8.4 GB
 * resident and no word). */
GST_START_TEST (test_grid_too_large_for_memory_n)
{
  guint n = 0;
  gchar *text = launch_error ("robocachelidarsrc num-buffers=2 ! "
      "robocachevoxelize backend=cpu dims=\"<2048,2048,1024>\" ! fakesink",
      FALSE);

  fail_unless (text && strstr (text, "fewer than 2^32 voxels are accepted"),
      "%s", text);
  g_free (text);
  text = launch_error ("robocachelidarsrc num-buffers=2 ! robocachevoxelize "
      "backend=cpu dims=\"<2048,2048,1023>\" ! fakesink", TRUE);
  fail_unless (text && strstr (text, "4 voxel grids of 4290772992 bytes in "
          "flight and the counts would take 17163091968 bytes of host "
          "memory, above the 1073741824 the element is allowed: set its "
          "max-memory property to at least 17163091968, or make the grid "
          "(dims, voxel-size, mode, features) smaller"), "%s", text);
  g_free (text);
  text = launch_error ("robocachelidarsrc num-buffers=2 ! robocachevoxelize "
      "backend=cpu dims=\"<65535,65537,1>\" mode=mean "
      "features=x,y,z,intensity,x,y,z,intensity ! fakesink", TRUE);
  fail_unless (text && strstr (text, "max-memory") != NULL, "%s", text);
  g_free (text);
  /* Said once, though the source sends its caps again (was twice). */
  text = pipeline_error ("robocachevoxelize backend=cpu mode=count "
      "dims=\"<2048,2048,256>\"", &n);
  fail_unless (text && strstr (text, "max-memory") != NULL, "%s", text);
  fail_unless_equals_int (n, 1);
  g_free (text);
}

GST_END_TEST;

/* max-memory raised lets a grid above the default through, exactly as far
 * as the refusals said: counts need only their grids, known at
 * negotiation; a mean on the CPU also a table row for each voxel its
 * sweep can reach, known when the sweep comes, so its first buffer is
 * refused once more, naming that scratch. */
GST_START_TEST (test_max_memory_n)
{
  gchar *text;

  fail_unless_equals_int (check_max_memory ("robocachelidarsrc num-buffers=2 "
          "points-per-sweep=64 ! robocachevoxelize backend=cpu "
          "dims=\"<128,128,16>\" mode=count %s ! fakesink"), 1);
  fail_unless_equals_int (check_max_memory ("robocachelidarsrc num-buffers=2 "
          "points-per-sweep=64 ! robocachevoxelize backend=cpu "
          "dims=\"<128,128,16>\" mode=mean features=intensity %s ! "
          "fakesink"), 2);
  /* 4 MiB of grids in flight and 1 MiB of mask and words a voxel at
   * negotiation (5,275,648 bytes), then 4,096 rows of 12 bytes. */
  text = launch_error ("robocachelidarsrc num-buffers=2 points-per-sweep=4096 "
      "! robocachevoxelize backend=cpu dims=\"<128,128,16>\" mode=mean "
      "features=intensity max-memory=5275648 ! fakesink", TRUE);
  fail_unless (text && strstr (text, "the outputs in flight and the "
          "scratch for this sweep's points would take 5324800 bytes of host "
          "memory"), "%s", text);
  g_free (text);
  /* Centroids in system memory are a sweep's room each, not a point per
   * voxel: README's PCL-like downsampling (16.7 M voxels, whose room
   * would be 1 GiB in flight) runs within the default. */
  fail_unless_equals_int (check_max_memory ("robocachelidarsrc "
          "num-buffers=2 points-per-sweep=4096 ! robocachevoxelize "
          "backend=cpu mode=centroids features=x,y,z,intensity "
          "voxel-size=\"<0.1>\" dims=\"<512,512,64>\" %s ! fakesink"), 2);
  text = launch_error ("robocachelidarsrc num-buffers=2 ! robocachevoxelize "
      "backend=cpu mode=centroids features=x,y,z,intensity "
      "voxel-size=\"<0.1>\" dims=\"<512,512,64>\" ! fakesink", TRUE);
  fail_unless (text == NULL, "%s", text);
}

GST_END_TEST;

/* max-memory=0 leaves the memory the process can have as the limit: with
 * RLIMIT_DATA 256 MiB above what it uses, a grid of 1 GiB (4 GiB in
 * flight) is refused, naming that limit. */
GST_START_TEST (test_grid_above_available_memory_n)
{
  glong data_kib = test_proc_status_kib ("VmData");
  guint64 data = (guint64) data_kib * 1024;
  struct rlimit old, lim;
  gchar *text;

  fail_unless (data_kib >= 0, "no VmData in /proc/self/status");
  fail_unless (getrlimit (RLIMIT_DATA, &old) == 0);
  lim = old;
  lim.rlim_cur = data + (256 << 20);
  if (old.rlim_max != RLIM_INFINITY && old.rlim_max < lim.rlim_cur)
    lim.rlim_cur = old.rlim_max;
  fail_unless (setrlimit (RLIMIT_DATA, &lim) == 0);
  text = launch_error ("robocachelidarsrc num-buffers=2 ! robocachevoxelize "
      "backend=cpu max-memory=0 dims=\"<1024,1024,1024>\" ! fakesink", TRUE);
  fail_unless (setrlimit (RLIMIT_DATA, &old) == 0);
  fail_unless (text && strstr (text, "would take 4294967296 bytes of host "
          "memory, more than the ") && strstr (text, " available "
          "(RLIMIT_DATA): make the grid (dims, voxel-size, mode, features) "
          "smaller"), "%s", text);
  g_free (text);
}

GST_END_TEST;

/* Caps the element cannot read are refused where negotiation asks, with one
 * error, however often upstream re-sends them; many runs never hang. */
GST_START_TEST (test_refused_caps_once_n)
{
  static const gchar *fields[] = {
    "x:float32:0,y:float32:4",
    "x:float16:0,y:float32:4,z:float32:8",
    "x:float32:4294967292,y:float32:4,z:float32:8",
  };
  gchar *path = g_build_filename (g_get_tmp_dir (), "robocache-refused.bin",
      NULL);
  guint8 data[1600];
  /* Fewer under a slow wrapper (compute-sanitizer, valgrind). */
  const gchar *runs_env = g_getenv ("ROBOCACHE_REFUSED_RUNS");
  guint runs = runs_env ? (guint) g_ascii_strtoull (runs_env, NULL, 10) : 200;

  for (guint i = 0; i < sizeof (data); i++)
    data[i] = (guint8) (i * 37 + 11);
  fail_unless (g_file_set_contents (path, (const gchar *) data,
          sizeof (data), NULL));

  for (guint run = 0; run < runs; run++) {
    const gchar *f = fields[run % G_N_ELEMENTS (fields)];
    gchar *launch = g_strdup_printf ("filesrc location=%s ! "
        "other/x-robocache-points,point-step=16,fields=\"%s\" ! "
        "robocachevoxelize name=v backend=cpu ! fakesink", path, f);
    GstElement *pipeline = gst_parse_launch (launch, NULL);
    GstBus *bus = gst_element_get_bus (pipeline);
    GstMessage *msg;
    guint from_v = 0;

    gst_element_set_state (pipeline, GST_STATE_PLAYING);
    msg = gst_bus_timed_pop_filtered (bus, 10 * GST_SECOND,
        GST_MESSAGE_ERROR | GST_MESSAGE_EOS);
    fail_unless (msg != NULL, "run %u hung", run);
    fail_unless_equals_int (GST_MESSAGE_TYPE (msg), GST_MESSAGE_ERROR);
    gst_message_unref (msg);
    fail_unless_equals_int (gst_element_set_state (pipeline,
            GST_STATE_NULL), GST_STATE_CHANGE_SUCCESS);
    /* Everything posted by then: the voxelizer's refusal came once. */
    while ((msg = gst_bus_pop_filtered (bus, GST_MESSAGE_ERROR))) {
      from_v += g_str_equal (GST_OBJECT_NAME (GST_MESSAGE_SRC (msg)), "v");
      gst_message_unref (msg);
    }
    fail_unless (from_v <= 1, "run %u: %u errors from the voxelizer", run,
        from_v);
    gst_object_unref (bus);
    gst_object_unref (pipeline);
    g_free (launch);
  }
  g_unlink (path);
  g_free (path);
}

GST_END_TEST;

/* backend=gpu is an error that says why when no GPU can be used. */
GST_START_TEST (test_backend_gpu_without_gpu_n)
{
  GstElement *pipeline;
  GstMessage *msg;
  GError *err = NULL;

  if (rc_device_count (NULL) > 0) {
    g_print ("a GPU is present: nothing to check here\n");
    return;
  }
  pipeline = gst_parse_launch ("robocachelidarsrc num-buffers=1 "
      "points-per-sweep=64 ! robocachevoxelize backend=gpu ! fakesink", NULL);
  msg = run_to_end (pipeline, 10 * GST_SECOND);
  fail_unless (msg != NULL);
  gst_message_parse_error (msg, &err, NULL);
  fail_unless (strstr (err->message, "backend=gpu") != NULL, "%s",
      err->message);
  g_clear_error (&err);
  gst_message_unref (msg);
  gst_object_unref (pipeline);
}

GST_END_TEST;

/* A parsed pipeline from the synthetic lidar: every sweep comes out, with
 * points counted as the kernel counts them. */
GST_START_TEST (test_pipeline_from_lidarsrc)
{
  GstElement *pipeline = gst_parse_launch ("robocachelidarsrc num-buffers=4 "
      "points-per-sweep=8192 seed=7 ! robocachevoxelize name=v mode=count ! "
      "fakesink", NULL);
  GstElement *v = gst_bin_get_by_name (GST_BIN (pipeline), "v");
  GstStructure *stats;
  guint64 sweeps = 0, points = 0, in = 0, out = 0, invalid = 0;
  GstMessage *msg;

  msg = run_to_end (pipeline, 60 * GST_SECOND);
  fail_unless (msg == NULL);
  g_object_get (v, "stats", &stats, NULL);
  gst_structure_get (stats, "sweeps", G_TYPE_UINT64, &sweeps, "points",
      G_TYPE_UINT64, &points, "in-grid", G_TYPE_UINT64, &in, "out-of-range",
      G_TYPE_UINT64, &out, "invalid", G_TYPE_UINT64, &invalid, NULL);
  fail_unless_equals_uint64 (sweeps, 4);
  fail_unless_equals_uint64 (points, 4 * 8192);
  fail_unless_equals_uint64 (in + out + invalid, points);
  fail_unless (in > points / 4, "only %" G_GUINT64_FORMAT " in grid", in);
  fail_unless (invalid > 0);
  gst_structure_free (stats);
  gst_object_unref (v);
  gst_object_unref (pipeline);
}

GST_END_TEST;

/* features set again while the base renegotiates for the value set
 * before (between transform_caps and set_caps, as an application's thread
 * may): the grid holds the means its caps name, of the same size (the
 * new features' means came under caps naming the old, twice the size or,
 * at an equal count, other values under their names), and the next
 * renegotiation takes the newer value. */
GST_START_TEST (test_features_set_during_negotiation)
{
  GstHarness *h = small_harness ("mode=mean features=intensity");
  const gchar *features[][2] = { {"z", "intensity,z"}, {"x", "y"} };

  gst_buffer_unref (gst_harness_push_and_pull (h, xyzi_buffer (sweep, 6, 0)));
  for (guint k = 0; k < G_N_ELEMENTS (features); k++) {
    g_object_set (voxelize_of (h), "features", features[k][0], NULL);
    set_at_accept_caps (h->sinkpad, voxelize_of (h), "features",
        features[k][1]);
    for (guint i = 0; i < 2; i++) {
      GstBuffer *out = gst_harness_push_and_pull (h, xyzi_buffer (sweep, 6,
              (2 * k + i + 1) * GST_SECOND));
      GstCaps *caps = gst_pad_get_current_caps (h->sinkpad);
      gchar *desc = g_strdup_printf ("mode=mean features=%s",
          features[k][i]);
      GstHarness *ref = small_harness (desc);
      GstBuffer *want = gst_harness_push_and_pull (ref, xyzi_buffer (sweep, 6,
              0));

      fail_unless_equals_string (gst_structure_get_string
          (gst_caps_get_structure (caps, 0), "feature-names"),
          features[k][i]);
      fail_unless (buffers_equal (out, want), "not the means of %s",
          features[k][i]);
      gst_buffer_unref (want);
      gst_harness_teardown (ref);
      g_free (desc);
      gst_caps_unref (caps);
      gst_buffer_unref (out);
    }
  }
  gst_harness_teardown (h);
}

GST_END_TEST;

static Suite *
voxelize_suite (void)
{
  Suite *s = suite_create ("robocachevoxelize");
  TCase *tc = tcase_create ("general");

  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_features_set_during_negotiation);
  tcase_add_test (tc, test_occupancy_caps_and_values);
  tcase_add_test (tc, test_count_and_mean);
  tcase_add_test (tc, test_centroids);
  tcase_add_test (tc, test_centroids_pipeline);
  tcase_add_test (tc, test_stats_and_messages);
  tcase_add_test (tc, test_properties);
  tcase_add_test (tc, test_renegotiate_while_playing);
  tcase_add_test (tc, test_start_properties_refused_while_playing);
  tcase_add_test (tc, test_empty_sweep);
  tcase_add_test (tc, test_partial_point_dropped_n);
  tcase_add_test (tc, test_missing_xyz_n);
  tcase_add_test (tc, test_bad_grid_properties_n);
  tcase_add_test (tc, test_grid_too_large_for_memory_n);
  tcase_add_test (tc, test_max_memory_n);
  tcase_add_test (tc, test_grid_above_available_memory_n);
  tcase_add_test (tc, test_refused_caps_once_n);
  tcase_add_test (tc, test_backend_gpu_without_gpu_n);
  tcase_add_test (tc, test_pipeline_from_lidarsrc);
  return s;
}

GST_CHECK_MAIN (voxelize);
