/* Several GPUs in one host (docs/elements.md, cuda-device-id): the same
 * inputs on device 0 and device 1 give the same bytes, a pipeline whose
 * elements sit on two devices gives what the one-device pipeline gives
 * (its CUDA buffers cross devices), two pipelines on two devices run at
 * once without disturbing each other, robocachefuse makes frames on its
 * own device of streams from two, and a device id the machine does not
 * have is an error at start.  Skipped (exit 77) without a GPU; the cases
 * that need two devices say so and pass with one. */
#include <gst/check/gstcheck.h>
#include <string.h>

#include "elementutil.h"
#include "gstrobocachegpu.h"
#include "testutil.h"

#define SINK "appsink name=sink sync=false"
#define CUDA_VOXELS GST_ROBOCACHE_VOXELS_MEDIA_TYPE "(" \
    GST_ROBOCACHE_CAPS_FEATURE_CUDA ")"

static gint n_devices;

/* TRUE when the machine has two devices; else says why the case does
 * nothing. */
static gboolean
two_devices (const gchar * test)
{
  if (n_devices >= 2)
    return TRUE;
  g_print ("%s: needs two CUDA devices, this machine has %d: not run\n",
      test, n_devices);
  return FALSE;
}

/* Every buffer of a pipeline ending in appsink "sink", as host bytes. */
static GPtrArray *
collect (const gchar * desc)
{
  GstElement *pipeline = gst_parse_launch (desc, NULL);
  GPtrArray *out;

  fail_unless (pipeline != NULL, "cannot parse %s", desc);
  out = pull_all_bytes (pipeline, desc);
  gst_object_unref (pipeline);
  return out;
}

static void
assert_same (GPtrArray * a, GPtrArray * b, const gchar * what)
{
  fail_unless (a->len > 0 && a->len == b->len, "%s: %u vs %u buffers", what,
      a->len, b->len);
  for (guint i = 0; i < a->len; i++)
    fail_unless (g_bytes_equal (a->pdata[i], b->pdata[i]),
        "%s: buffer %u differs", what, i);
}

/* A sweep voxelized, then drawn as a bird's-eye view, each element on
 * its device. */
static gchar *
lidar_to_bev (guint seed, gint voxelize_device, gint bev_device)
{
  return g_strdup_printf ("robocachelidarsrc seed=%u num-buffers=8 "
      "points-per-sweep=32768 ! robocachevoxelize backend=gpu mode=count "
      "cuda-device-id=%d ! " CUDA_VOXELS " ! robocachebev backend=gpu "
      "cuda-device-id=%d width=256 height=256 ! " SINK, seed,
      voxelize_device, bev_device);
}

/* Two sweeps voxelized, each on its device, fused by robocachefuse on
 * device 0, one frame per sweep of sink_0. */
static gchar *
lidars_to_fuse (guint seed, gint device_a, gint device_b)
{
  return g_strdup_printf ("robocachefuse name=f backend=gpu cuda-device-id=0 "
      "rate=0/1 ! " SINK " "
      "robocachelidarsrc seed=%u num-buffers=8 points-per-sweep=32768 ! "
      "robocachevoxelize backend=gpu mode=count cuda-device-id=%d ! "
      CUDA_VOXELS " ! f.sink_0 "
      "robocachelidarsrc seed=%u num-buffers=8 points-per-sweep=32768 ! "
      "robocachevoxelize backend=gpu mode=count cuda-device-id=%d ! "
      CUDA_VOXELS " ! f.sink_1", seed, device_a, seed + 1, device_b);
}

/* Every fused frame of @desc as the bytes of its memories in order, each
 * memory checked to be robocache CUDA memory on device 0 (mapped one by
 * one: mapping the whole buffer would merge them into system memory). */
static GPtrArray *
collect_fused_on_device_0 (const gchar * desc)
{
  GstElement *pipeline = gst_parse_launch (desc, NULL);
  GstElement *sink;
  GPtrArray *out = g_ptr_array_new_with_free_func ((GDestroyNotify)
      g_bytes_unref);
  GstSample *sample;
  GstMessage *msg;

  fail_unless (pipeline != NULL, "cannot parse %s", desc);
  tracked (pipeline);
  sink = by_name (pipeline, "sink");
  gst_element_set_state (pipeline, GST_STATE_PLAYING);
  while ((sample = gst_app_sink_try_pull_sample (GST_APP_SINK (sink),
              60 * GST_SECOND))) {
    GstBuffer *buf = gst_sample_get_buffer (sample);
    GByteArray *bytes = g_byte_array_new ();

    fail_unless_equals_int (gst_buffer_n_memory (buf), 2);
    for (guint m = 0; m < gst_buffer_n_memory (buf); m++) {
      GstMemory *mem = gst_buffer_peek_memory (buf, m);
      GstMapInfo map;
      int device = -1;

      fail_unless (gst_memory_is_type (mem, GST_ROBOCACHE_CUDA_MEMORY_TYPE),
          "frame %u, memory %u: %s, not robocache CUDA memory", out->len, m,
          mem->allocator->mem_type);
      fail_unless (gst_memory_map (mem, &map, GST_MAP_READ |
              GST_ROBOCACHE_MAP_CUDA));
      fail_unless_equals_int (rc_pointer_device (map.data, &device), RC_OK);
      GST_INFO ("frame %u, memory %u: %" G_GSIZE_FORMAT " bytes at %p on "
          "device %d", out->len, m, map.size, map.data, device);
      gst_memory_unmap (mem, &map);
      fail_unless (device == 0, "frame %u, memory %u: on device %d",
          out->len, m, device);
      fail_unless (gst_memory_map (mem, &map, GST_MAP_READ));
      g_byte_array_append (bytes, map.data, map.size);
      gst_memory_unmap (mem, &map);
    }
    g_ptr_array_add (out, g_byte_array_free_to_bytes (bytes));
    gst_sample_unref (sample);
  }
  msg = pop_message (GST_ELEMENT_BUS (pipeline), GST_MESSAGE_ERROR);
  if (msg) {
    GError *err = NULL;

    gst_message_parse_error (msg, &err, NULL);
    fail ("%s: %s", desc, err->message);
  }
  fail_unless (gst_app_sink_is_eos (GST_APP_SINK (sink)), "%s: no EOS", desc);
  gst_element_set_state (pipeline, GST_STATE_NULL);
  untrack (pipeline);
  gst_object_unref (pipeline);
  fail_unless_equals_int (out->len, 8);
  return out;
}

typedef GPtrArray *(*Collector) (const gchar * desc);

/* A pipeline of sweeps of @seed (and seeds just above it), its elements on
 * @device_a and @device_b. */
typedef gchar *(*Describer) (guint seed, gint device_a, gint device_b);

/* Collects (through @collect_with) @describe's pipeline on @device_a and
 * @device_b, said first so that a tool's reports (compute-sanitizer's) can
 * be told apart by configuration. */
static GPtrArray *
collect_on (Collector collect_with, Describer describe, guint seed,
    gint device_a, gint device_b, const gchar * what)
{
  gchar *desc = describe (seed, device_a, device_b);
  GPtrArray *out;

  g_print ("%s: %s\n", what, desc);
  out = collect_with (desc);
  g_free (desc);
  return out;
}

/* Checks that two pipelines across devices (@what_a on @a0 and @a1, @what_b
 * on @b0 and @b1) give what the same pipelines give on device 0 alone.
 * Each has seeds of its own, and both run before the references: memory
 * a copy between devices failed to write cannot then hold the right bytes
 * left by an earlier run (freed device memory is handed out again as it
 * was). */
static void
assert_same_as_one (Collector collect_with, Describer describe,
    gint a0, gint a1, const gchar * what_a, gint b0, gint b1,
    const gchar * what_b)
{
  /* Far enough apart that no two pipelines share a sweep's seed (the
   * fuse's take the seed and the one above it). */
  guint seed_a = g_random_int_range (1, 100000);
  guint seed_b = seed_a + 2;
  GPtrArray *got_a, *got_b, *want_a, *want_b;

  got_a = collect_on (collect_with, describe, seed_a, a0, a1, what_a);
  got_b = collect_on (collect_with, describe, seed_b, b0, b1, what_b);
  want_a = collect_on (collect_with, describe, seed_a, 0, 0, "one device");
  want_b = collect_on (collect_with, describe, seed_b, 0, 0, "one device");

  assert_same (want_a, got_a, what_a);
  assert_same (want_b, got_b, what_b);
  g_ptr_array_unref (want_a);
  g_ptr_array_unref (want_b);
  g_ptr_array_unref (got_a);
  g_ptr_array_unref (got_b);
}

GST_START_TEST (test_unknown_device_id_n)
{
  for (gint i = 0; i < 2; i++) {
    const gchar *backend = i == 0 ? "gpu" : "auto";
    gchar *desc = g_strdup_printf ("robocachelidarsrc num-buffers=1 ! "
        "robocachevoxelize backend=%s cuda-device-id=%d ! fakesink", backend,
        n_devices);
    gchar *text = launch_error (desc, FALSE);
    gchar *want = g_strdup_printf ("cuda-device-id is %d, but this machine "
        "has %d CUDA device", n_devices, n_devices);

    fail_unless (text != NULL, "%s: played", desc);
    fail_unless (strstr (text, want) != NULL, "%s: %s", desc, text);
    g_free (want);
    g_free (text);
    g_free (desc);
  }
}

GST_END_TEST;

GST_START_TEST (test_same_bytes_on_each_device)
{
  guint seed = g_random_int_range (1, 100000);
  gchar *on0, *on1;
  GPtrArray *a, *b;

  if (!two_devices ("test_same_bytes_on_each_device"))
    return;
  on0 = lidar_to_bev (seed, 0, 0);
  on1 = lidar_to_bev (seed, 1, 1);
  a = collect (on0);
  b = collect (on1);
  assert_same (a, b, "device 0 against device 1");
  g_ptr_array_unref (a);
  g_ptr_array_unref (b);
  g_free (on0);
  g_free (on1);
}

GST_END_TEST;

/* The grids cross from device 0 to device 1 and back. */
GST_START_TEST (test_pipeline_across_devices)
{
  if (!two_devices ("test_pipeline_across_devices"))
    return;
  assert_same_as_one (collect, lidar_to_bev, 0, 1, "voxelize on 0, bev on 1",
      1, 0, "voxelize on 1, bev on 0");
}

GST_END_TEST;

/* Two pipelines at once, one on each device (pulled in turn from this
 * thread), give what each gives alone. */
GST_START_TEST (test_two_pipelines_at_once)
{
  gint64 give_up = g_get_monotonic_time () + 120 * G_USEC_PER_SEC;
  GstElement *pipelines[2], *sinks[2];
  GPtrArray *got[2];
  gchar *descs[2];
  gboolean done[2] = { FALSE, FALSE };

  if (!two_devices ("test_two_pipelines_at_once"))
    return;
  for (gint d = 0; d < 2; d++) {
    descs[d] = lidar_to_bev (g_random_int_range (1, 100000), d, d);
    pipelines[d] = gst_parse_launch (descs[d], NULL);
    fail_unless (pipelines[d] != NULL, "cannot parse %s", descs[d]);
    tracked (pipelines[d]);
    sinks[d] = gst_bin_get_by_name (GST_BIN (pipelines[d]), "sink");
    got[d] = g_ptr_array_new_with_free_func ((GDestroyNotify) g_bytes_unref);
  }
  for (gint d = 0; d < 2; d++)
    gst_element_set_state (pipelines[d], GST_STATE_PLAYING);
  while (!(done[0] && done[1]) && g_get_monotonic_time () < give_up) {
    for (gint d = 0; d < 2; d++) {
      GstSample *sample = done[d] ? NULL :
          gst_app_sink_try_pull_sample (GST_APP_SINK (sinks[d]),
          GST_MSECOND * 10);
      GstMapInfo map;

      fail_if (pop_message (GST_ELEMENT_BUS (pipelines[d]),
              GST_MESSAGE_ERROR) != NULL, "%s: an error", descs[d]);
      if (!sample) {
        done[d] = done[d] || gst_app_sink_is_eos (GST_APP_SINK (sinks[d]));
        continue;
      }
      fail_unless (gst_buffer_map (gst_sample_get_buffer (sample), &map,
              GST_MAP_READ));
      g_ptr_array_add (got[d], g_bytes_new (map.data, map.size));
      gst_buffer_unmap (gst_sample_get_buffer (sample), &map);
      gst_sample_unref (sample);
    }
  }
  fail_unless (done[0] && done[1], "the two pipelines did not end in 120 s");
  for (gint d = 0; d < 2; d++) {
    GPtrArray *alone;

    gst_element_set_state (pipelines[d], GST_STATE_NULL);
    untrack (pipelines[d]);
    gst_object_unref (sinks[d]);
    gst_object_unref (pipelines[d]);
    alone = collect (descs[d]);
    assert_same (got[d], alone, "at once against alone");
    g_ptr_array_unref (alone);
    g_ptr_array_unref (got[d]);
    g_free (descs[d]);
  }
}

GST_END_TEST;

/* One device: the fused frames reference the grids where they are. */
GST_START_TEST (test_fuse_on_one_device)
{
  gchar *desc = lidars_to_fuse (g_random_int_range (1, 100000), 0, 0);

  g_ptr_array_unref (collect_fused_on_device_0 (desc));
  g_free (desc);
}

GST_END_TEST;

/* The grids of device 1 are copied onto the fuse's device 0 (one stream's,
 * then both): the frames lie on device 0 and hold what the one-device
 * pipeline's hold. */
GST_START_TEST (test_fuse_across_devices)
{
  if (!two_devices ("test_fuse_across_devices"))
    return;
  assert_same_as_one (collect_fused_on_device_0, lidars_to_fuse, 0, 1,
      "voxelize on 0 and 1, fuse on 0", 1, 1, "voxelize on 1, fuse on 0");
}

GST_END_TEST;

static Suite *
multigpu_suite (void)
{
  Suite *s = suite_create ("robocache-multigpu");
  TCase *tc = tcase_create ("devices");

  suite_add_tcase (s, tc);
  tcase_set_timeout (tc, 300);
  tcase_add_checked_fixture (tc, NULL, stop_tracked_pipelines);
  tcase_add_test (tc, test_unknown_device_id_n);
  tcase_add_test (tc, test_same_bytes_on_each_device);
  tcase_add_test (tc, test_pipeline_across_devices);
  tcase_add_test (tc, test_two_pipelines_at_once);
  tcase_add_test (tc, test_fuse_on_one_device);
  tcase_add_test (tc, test_fuse_across_devices);
  return s;
}

int
main (int argc, char **argv)
{
  test_require_gpu ();
  n_devices = rc_device_count (NULL);
  g_print ("CUDA devices: %d\n", n_devices);
  gst_check_init (&argc, &argv);
  return gst_check_run_suite (multigpu_suite (), "robocache-multigpu",
      __FILE__);
}
