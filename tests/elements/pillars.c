/* robocachepillars: caps, the buffer layout against the kernel, counted
 * overflow, and each bad input (_n): a missing feature field, a bad grid,
 * a buffer that is not whole points.  With a GPU, backend=gpu gives the
 * bytes of backend=cpu. */
#include <gst/check/gstcheck.h>
#include <gst/check/gstharness.h>
#include <math.h>

#include "elementutil.h"
#include "testutil.h"

/* 4 x 4 x 1 pillars of 1 m, 2 voxels of 2 points. */
/* The harness, its element's errors posted on @bus where not NULL (set
 * before the caps: an error posted without a bus is lost, and the caps,
 * refused once, are not checked again). */
static GstHarness *
pillars_harness_on_bus (const gchar * backend, const gchar * extra,
    GstBus * bus)
{
  gchar *desc = g_strdup_printf ("robocachepillars backend=%s "
      "voxel-size=\"<1.0,1.0,4.0>\" origin=\"<0.0,0.0,-2.0>\" "
      "dims=\"<4,4,1>\" max-voxels=2 max-points-per-voxel=2 %s", backend,
      extra ? extra : "");
  GstHarness *h = gst_harness_new_parse (desc);

  g_free (desc);
  if (bus)
    gst_element_set_bus (h->element, bus);
  gst_harness_set_src_caps_str (h, XYZI_CAPS);
  return h;
}

static GstHarness *
pillars_harness (const gchar * backend, const gchar * extra)
{
  return pillars_harness_on_bus (backend, extra, NULL);
}

static const float sweep[] = {
  2.5f, 1.5f, 0.0f, 1.0f,       /* (2, 1): slot 0 */
  0.5f, 0.5f, 1.0f, 2.0f,       /* (0, 0): slot 1 */
  2.7f, 1.1f, 0.5f, 3.0f,       /* slot 0 */
  2.1f, 1.9f, 0.5f, 4.0f,       /* slot 0, beyond K: dropped */
  3.5f, 3.5f, 0.5f, 5.0f,       /* a third voxel: dropped */
  9.0f, 0.5f, 0.5f, 6.0f,       /* outside */
  NAN, 0.5f, 0.5f, 7.0f,        /* invalid */
};

static rc_sparse_params
harness_params (void)
{
  rc_sparse_params p = { {{0, 0, -2}, {1, 1, 4}, {4, 4, 1}, RC_VOXEL_COUNT},
  RC_SPARSE_PILLARS_10, 2, 2
  };
  return p;
}

/* The element's buffer against the kernel's arrays, laid out as
 * docs/media-types.md says. */
static void
check_against_kernel (GstBuffer * out, rc_sparse_mode mode)
{
  rc_point_layout layout = { 16, {0, RC_TYPE_FLOAT32}, {4, RC_TYPE_FLOAT32},
  {8, RC_TYPE_FLOAT32}, 1, {{12, RC_TYPE_FLOAT32}}
  };
  rc_sparse_params p = harness_params ();
  guint8 want[2 * 2 * 10 * 4 + 2 * 12 + 2 * 4 + 16];
  gint32 scratch[16];
  rc_sparse_output arrays;
  guint c;
  gsize f;

  p.mode = mode;
  c = rc_sparse_channels (&layout, &p);
  f = 2 * 2 * c * 4;
  memset (want, 0, sizeof (want));
  arrays.features = (float *) want;
  arrays.coords = (int32_t *) (want + f);
  arrays.num_points = (int32_t *) (want + f + 24);
  arrays.n_voxels = (int32_t *) (want + f + 32);
  fail_unless (rc_sparse_voxelize_cpu (&layout, &p, sweep, 7, &arrays,
          scratch, NULL) == RC_OK);
  fail_unless_equals_uint64 (gst_buffer_get_size (out), f + 48);
  fail_unless (gst_buffer_memcmp (out, 0, want, f + 48) == 0);
  fail_unless_equals_int (*arrays.n_voxels, 2);
}

GST_START_TEST (test_layout_and_stats)
{
  GstHarness *h = pillars_harness ("cpu", NULL);
  GstBuffer *out = gst_harness_push_and_pull (h, xyzi_buffer (sweep, 7, 0));
  GstCaps *caps = gst_pad_get_current_caps (h->sinkpad);
  GstRobocacheSparseInfo info;
  GstStructure *stats;
  GstElement *e;
  guint64 v = 0;

  fail_unless (gst_robocache_sparse_caps_parse (caps, &info, NULL));
  fail_unless_equals_int (info.channels, 10);
  fail_unless_equals_int (info.params.max_voxels, 2);
  fail_unless_equals_string (gst_structure_get_string
      (gst_caps_get_structure (caps, 0), "channel-names"),
      "x,y,z,intensity,xc,yc,zc,xp,yp,zp");
  check_against_kernel (out, RC_SPARSE_PILLARS_10);
  e = gst_harness_find_element (h, "robocachepillars");
  g_object_get (e, "stats", &stats, NULL);
  gst_object_unref (e);
  fail_unless (gst_structure_get_uint64 (stats, "dropped-voxels", &v));
  fail_unless_equals_uint64 (v, 1);
  fail_unless (gst_structure_get_uint64 (stats, "dropped-points", &v));
  fail_unless_equals_uint64 (v, 2);
  fail_unless (gst_structure_get_uint64 (stats, "overflowed-sweeps", &v));
  fail_unless_equals_uint64 (v, 1);
  fail_unless (gst_structure_get_uint64 (stats, "invalid", &v));
  fail_unless_equals_uint64 (v, 1);
  gst_structure_free (stats);
  gst_caps_unref (caps);
  gst_buffer_unref (out);
  gst_harness_teardown (h);
}

GST_END_TEST;

/* A new grid while playing applies from the next sweep (the base
 * renegotiates): with dims <1,1,1> one point of the sweep is in it. */
GST_START_TEST (test_grid_while_playing)
{
  GstHarness *h = pillars_harness ("cpu", NULL);
  GstElement *e = gst_harness_find_element (h, "robocachepillars");
  GstStructure *stats;
  guint64 v = 0;

  gst_buffer_unref (gst_harness_push_and_pull (h, xyzi_buffer (sweep, 7, 0)));
  gst_util_set_object_arg (G_OBJECT (e), "dims", "<1,1,1>");
  gst_buffer_unref (gst_harness_push_and_pull (h, xyzi_buffer (sweep, 7,
              GST_SECOND)));
  g_object_get (e, "stats", &stats, NULL);
  fail_unless (gst_structure_get_uint64 (stats, "last-voxels", &v));
  fail_unless_equals_uint64 (v, 1);
  fail_unless (gst_structure_get_uint64 (stats, "in-grid", &v));
  fail_unless_equals_uint64 (v, 5 + 1);
  fail_unless (gst_structure_get_uint64 (stats, "sweeps", &v));
  fail_unless_equals_uint64 (v, 2);
  gst_structure_free (stats);
  gst_object_unref (e);
  gst_harness_teardown (h);
}

GST_END_TEST;

/* A grid set again while the base renegotiates for the one set before
 * (between transform_caps and set_caps, as an application's thread may):
 * the sweep is binned on the grid its caps name (the voxels were those
 * of the newer grid under caps naming the older one), and the next
 * renegotiation takes the newer grid. */
GST_START_TEST (test_grid_set_during_negotiation)
{
  GstHarness *h = pillars_harness ("cpu", NULL);
  GstElement *e = gst_harness_find_element (h, "robocachepillars");
  /* Four points of the sweep in the first, one in the second. */
  const gchar *dims[] = { "<3,2,1>", "<2,2,1>" };

  gst_buffer_unref (gst_harness_push_and_pull (h, xyzi_buffer (sweep, 7, 0)));
  gst_util_set_object_arg (G_OBJECT (e), "dims", dims[0]);
  set_at_accept_caps (h->sinkpad, e, "dims", dims[1]);
  for (guint i = 0; i < 2; i++) {
    GstBuffer *out = gst_harness_push_and_pull (h, xyzi_buffer (sweep, 7,
            (i + 1) * GST_SECOND));
    GstCaps *caps = gst_pad_get_current_caps (h->sinkpad);
    gchar *desc = g_strdup_printf ("dims=\"%s\"", dims[i]);
    GstHarness *ref = pillars_harness ("cpu", desc);
    GstBuffer *want = gst_harness_push_and_pull (ref, xyzi_buffer (sweep, 7,
            0));
    gint gx = 0;

    fail_unless (gst_structure_get_int (gst_caps_get_structure (caps, 0),
            "grid-x", &gx));
    fail_unless_equals_int (gx, 3 - i);
    fail_unless (buffers_equal (out, want), "sweep %u: not the voxels of "
        "its caps' grid %s", i, dims[i]);
    gst_buffer_unref (want);
    gst_harness_teardown (ref);
    g_free (desc);
    gst_caps_unref (caps);
    gst_buffer_unref (out);
  }
  gst_object_unref (e);
  gst_harness_teardown (h);
}

GST_END_TEST;

/* max-voxels sizes the output at negotiation: set while playing it is
 * refused with a warning, and the next buffer still holds 2 voxels (the
 * kernel's, as negotiated); stopped, the element takes it. */
GST_START_TEST (test_max_voxels_refused_while_playing)
{
  GstHarness *h = pillars_harness ("cpu", NULL);
  GstElement *e = gst_harness_find_element (h, "robocachepillars");
  GstBuffer *out;

  gst_buffer_unref (gst_harness_push_and_pull (h, xyzi_buffer (sweep, 7, 0)));
  check_set_refused (G_OBJECT (e), "max-voxels", "3");
  check_set_refused (G_OBJECT (e), "features", "");
  out = gst_harness_push_and_pull (h, xyzi_buffer (sweep, 7, GST_SECOND));
  check_against_kernel (out, RC_SPARSE_PILLARS_10);
  gst_buffer_unref (out);
  check_set_taken_stopped (h->element, G_OBJECT (e), "max-voxels", "3");
  gst_object_unref (e);
  gst_harness_teardown (h);
}

GST_END_TEST;

GST_START_TEST (test_voxels_mode_and_empty_sweep)
{
  GstHarness *h = pillars_harness ("cpu", "mode=voxels");
  GstBuffer *out = gst_harness_push_and_pull (h, xyzi_buffer (sweep, 7, 0));
  GstMapInfo map;
  guint8 zeros[2 * 2 * 4 * 4 + 48];

  check_against_kernel (out, RC_SPARSE_VOXELS);
  gst_buffer_unref (out);
  out = gst_harness_push_and_pull (h, gst_buffer_new ());
  memset (zeros, 0, sizeof (zeros));
  fail_unless (gst_buffer_map (out, &map, GST_MAP_READ));
  fail_unless_equals_uint64 (map.size, sizeof (zeros));
  fail_unless (memcmp (map.data, zeros, map.size) == 0);
  gst_buffer_unmap (out, &map);
  gst_buffer_unref (out);
  gst_harness_teardown (h);
}

GST_END_TEST;

/* The input lacks the field the features property asks for. */
GST_START_TEST (test_missing_feature_n)
{
  GstBus *bus = gst_bus_new ();
  GstHarness *h = pillars_harness_on_bus ("cpu", "features=ring", bus);
  GstMessage *msg;
  GError *err = NULL;

  fail_unless (gst_harness_push (h, xyzi_buffer (sweep, 7, 0)) != GST_FLOW_OK);
  msg = gst_bus_pop_filtered (bus, GST_MESSAGE_ERROR);
  fail_unless (msg != NULL);
  gst_message_parse_error (msg, &err, NULL);
  fail_unless (strstr (err->message, "ring") != NULL, "%s", err->message);
  g_clear_error (&err);
  gst_message_unref (msg);
  gst_element_set_bus (h->element, NULL);
  gst_object_unref (bus);
  gst_harness_teardown (h);
}

GST_END_TEST;

/* A zero voxel size is refused at start, with its reason. */
GST_START_TEST (test_bad_grid_n)
{
  GstElement *e = gst_element_factory_make ("robocachepillars", NULL);
  GstBus *bus = gst_bus_new ();
  GstMessage *msg;

  gst_element_set_bus (e, bus);
  gst_util_set_object_arg (G_OBJECT (e), "voxel-size", "<0.0>");
  fail_unless (gst_element_set_state (e, GST_STATE_PAUSED) ==
      GST_STATE_CHANGE_FAILURE);
  msg = gst_bus_pop_filtered (bus, GST_MESSAGE_ERROR);
  fail_unless (msg != NULL);
  gst_message_unref (msg);
  gst_element_set_state (e, GST_STATE_NULL);
  gst_element_set_bus (e, NULL);
  gst_object_unref (bus);
  gst_object_unref (e);
}

GST_END_TEST;

/* max-voxels x max-points-per-voxel so large that the features' size
 * would overflow: an error at negotiation naming both and what is
 * accepted. */
GST_START_TEST (test_output_too_large_n)
{
  gchar *text = launch_error ("robocachelidarsrc num-buffers=1 "
      "points-per-sweep=64 ! robocachepillars backend=cpu "
      "max-voxels=2147483647 max-points-per-voxel=2147483647 ! fakesink",
      FALSE);

  fail_unless (text && strstr (text, "max-voxels 2147483647 x "
          "max-points-per-voxel 2147483647 x 10 channels of 4 bytes is too "
          "large an output: accepted are at most 2^62 bytes"), "%s",
      GST_STR_NULL (text));
  g_free (text);
}

GST_END_TEST;

/* Not a whole number of points: dropped and counted, a warning once. */
GST_START_TEST (test_partial_point_n)
{
  GstHarness *h = pillars_harness ("cpu", NULL);
  GstBuffer *bad = gst_buffer_new_memdup (sweep, 20);
  GstStructure *stats;
  GstElement *e;
  guint64 v = 0;

  fail_unless_equals_int (gst_harness_push (h, bad), GST_FLOW_OK);
  fail_unless_equals_int (gst_harness_buffers_in_queue (h), 0);
  e = gst_harness_find_element (h, "robocachepillars");
  g_object_get (e, "stats", &stats, NULL);
  gst_object_unref (e);
  fail_unless (gst_structure_get_uint64 (stats, "dropped-buffers", &v));
  fail_unless_equals_uint64 (v, 1);
  gst_structure_free (stats);
  gst_harness_teardown (h);
}

GST_END_TEST;

/* backend=gpu: the same bytes as the CPU (skipped without a GPU). */
GST_START_TEST (test_gpu_equals_cpu)
{
  const gchar *why = NULL;
  GstHarness *h;
  GstBuffer *out;

  if (rc_device_count (&why) == 0) {
    g_print ("no usable CUDA device (%s): test_gpu_equals_cpu not run\n",
        why ? why : "unknown");
    return;
  }
  h = pillars_harness ("gpu", NULL);
  out = gst_harness_push_and_pull (h, xyzi_buffer (sweep, 7, 0));
  check_against_kernel (out, RC_SPARSE_PILLARS_10);
  gst_buffer_unref (out);
  gst_harness_teardown (h);
}

GST_END_TEST;

/* Its scratch and outputs in flight are checked against max-memory at
 * negotiation (gstrobocachememory.h). */
GST_START_TEST (test_max_memory_n)
{
  check_max_memory ("robocachelidarsrc num-buffers=2 points-per-sweep=64 ! "
      "robocachepillars backend=cpu max-voxels=1000 dims=\"<64,64,1>\" %s ! "
      "fakesink");
}

GST_END_TEST;

/* The CPU's slot per grid voxel (64 MiB for 2048 x 2048 x 4) is scratch
 * the base owns: given back at stop, allocated afresh at the next start,
 * where the second run voxelizes its sweeps as the first did. */
GST_START_TEST (test_scratch_given_back_at_stop)
{
  GstElement *pipeline = gst_parse_launch ("robocachelidarsrc "
      "num-buffers=2 points-per-sweep=1024 ! robocachepillars name=p "
      "backend=cpu dims=\"<2048,2048,4>\" max-voxels=16 "
      "max-points-per-voxel=1 ! fakesink", NULL);
  GstBus *bus = gst_element_get_bus (pipeline);

  /* AddressSanitizer and valgrind keep freed memory in quarantine. */
  if (g_getenv ("ROBOCACHE_SANITIZER") || RUNNING_ON_VALGRIND) {
    g_print ("left out under a sanitizer: it holds freed memory\n");
    gst_object_unref (bus);
    gst_object_unref (pipeline);
    return;
  }
  for (gint run = 0; run < 2; run++) {
    GstMessage *msg;
    GstStructure *stats;
    glong playing_kib, stopped_kib;
    guint64 sweeps = 0;

    gst_element_set_state (pipeline, GST_STATE_PLAYING);
    msg = gst_bus_timed_pop_filtered (bus, 60 * GST_SECOND,
        GST_MESSAGE_EOS | GST_MESSAGE_ERROR);
    fail_unless (msg && GST_MESSAGE_TYPE (msg) == GST_MESSAGE_EOS,
        "run %d did not reach EOS", run);
    gst_message_unref (msg);
    g_object_get (by_name (pipeline, "p"), "stats", &stats, NULL);
    gst_structure_get_uint64 (stats, "sweeps", &sweeps);
    gst_structure_free (stats);
    fail_unless_equals_uint64 (sweeps, 2);
    playing_kib = test_proc_status_kib ("VmRSS");
    gst_element_set_state (pipeline, GST_STATE_NULL);
    stopped_kib = test_proc_status_kib ("VmRSS");
    fail_unless (playing_kib > 0 && stopped_kib > 0);
    fail_unless (playing_kib - stopped_kib >= 48 * 1024,
        "run %d: %ld KiB resident at EOS, %ld KiB once stopped: the 64 MiB "
        "scratch was not given back", run, playing_kib, stopped_kib);
  }
  gst_object_unref (bus);
  gst_object_unref (pipeline);
}

GST_END_TEST;

static Suite *
pillars_suite (void)
{
  Suite *s = suite_create ("elements-pillars");
  TCase *tc = tcase_create ("general");

  if (rc_device_count (NULL) > 0)
    g_setenv ("CK_FORK", "no", TRUE);
  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_layout_and_stats);
  tcase_add_test (tc, test_grid_while_playing);
  tcase_add_test (tc, test_grid_set_during_negotiation);
  tcase_add_test (tc, test_max_voxels_refused_while_playing);
  tcase_add_test (tc, test_voxels_mode_and_empty_sweep);
  tcase_add_test (tc, test_missing_feature_n);
  tcase_add_test (tc, test_bad_grid_n);
  tcase_add_test (tc, test_output_too_large_n);
  tcase_add_test (tc, test_partial_point_n);
  tcase_add_test (tc, test_gpu_equals_cpu);
  tcase_add_test (tc, test_max_memory_n);
  tcase_add_test (tc, test_scratch_given_back_at_stop);
  return s;
}

GST_CHECK_MAIN (pillars);
