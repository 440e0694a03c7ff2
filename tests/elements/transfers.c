/* System memory to and from the GPU: page-locked memory offered upstream and
 * used for outputs, bounded by max-pinned-memory and released at stop, and
 * several sweeps in flight (pipeline-depth) without changing their order,
 * content or timestamps, through flushes and EOS.  Every GPU grid is
 * compared with the CPU element's on fresh random sweeps.  Skipped (exit
 * 77) without a GPU. */
#include <gst/check/gstcheck.h>
#include <gst/check/gstharness.h>
#include <gst/app/gstappsink.h>
#include <glib/gstdio.h>

#include "elementutil.h"
#include "testutil.h"

#define GRID_PROPS "mode=count voxel-size=\"<0.5>\" dims=\"<64,64,16>\" " \
    "origin=\"<-16,-16,-4>\""
#define VOXELS_CAPS GST_ROBOCACHE_VOXELS_MEDIA_TYPE
#define SWEEP_STEP (100 * GST_MSECOND)

/* @n sweeps of random sizes (0 to 40,000 points) and coordinates, partly
 * outside the grid, one NaN point in each non-empty one. */
static GPtrArray *
random_sweeps (GRand * rand, guint n)
{
  GPtrArray *sweeps = g_ptr_array_new_with_free_func ((GDestroyNotify)
      gst_buffer_unref);

  for (guint i = 0; i < n; i++) {
    guint points = i == 3 ? 0 : (guint) g_rand_int_range (rand, 1, 40000);
    gfloat *xyzi = g_new (gfloat, (gsize) points * 4 + 4);

    for (guint p = 0; p < points * 4; p++)
      xyzi[p] = (gfloat) g_rand_double_range (rand, -20.0, 20.0);
    if (points > 0)
      xyzi[g_rand_int_range (rand, 0, points) * 4] = NAN;
    g_ptr_array_add (sweeps, xyzi_buffer (xyzi, points, i * SWEEP_STEP));
    g_free (xyzi);
  }
  return sweeps;
}

static GstHarness *
voxelize_harness (const gchar * props)
{
  gchar *desc = g_strdup_printf ("robocachevoxelize " GRID_PROPS " %s", props);
  GstHarness *h = gst_harness_new_parse (desc);

  gst_harness_set_caps_str (h, XYZI_CAPS, VOXELS_CAPS);
  g_free (desc);
  return h;
}

/* Pushes @sweeps through @h and then EOS, and returns every output. */
static GPtrArray *
run_sweeps (GstHarness * h, GPtrArray * sweeps)
{
  GPtrArray *out = g_ptr_array_new_with_free_func ((GDestroyNotify)
      gst_buffer_unref);
  GstBuffer *buf;

  for (guint i = 0; i < sweeps->len; i++) {
    fail_unless_equals_int (gst_harness_push (h,
            gst_buffer_ref (g_ptr_array_index (sweeps, i))), GST_FLOW_OK);
    while ((buf = gst_harness_try_pull (h)))
      g_ptr_array_add (out, buf);
  }
  fail_unless (gst_harness_push_event (h, gst_event_new_eos ()));
  while ((buf = gst_harness_try_pull (h)))
    g_ptr_array_add (out, buf);
  return out;
}

/* The grids the CPU element makes of @sweeps. */
static GPtrArray *
cpu_grids (GPtrArray * sweeps)
{
  GstHarness *h = voxelize_harness ("backend=cpu");
  GPtrArray *out = run_sweeps (h, sweeps);

  gst_harness_teardown (h);
  fail_unless_equals_int (out->len, sweeps->len);
  return out;
}

/* @got against @want from its @skipped-th grid on.  (Not "first":
 * fail_unless_equals_int declares a local of that name.) */
static void
assert_same_grids (GPtrArray * got, GPtrArray * want, guint skipped)
{
  fail_unless_equals_int (got->len, want->len - skipped);
  for (guint i = 0; i < got->len; i++) {
    GstBuffer *a = g_ptr_array_index (got, i);
    GstBuffer *b = g_ptr_array_index (want, skipped + i);

    fail_unless_equals_uint64 (GST_BUFFER_PTS (a), GST_BUFFER_PTS (b));
    fail_unless_equals_uint64 (gst_buffer_get_size (a),
        gst_buffer_get_size (b));
    {
      GstMapInfo ma, mb;

      fail_unless (gst_buffer_map (a, &ma, GST_MAP_READ));
      fail_unless (gst_buffer_map (b, &mb, GST_MAP_READ));
      fail_unless (memcmp (ma.data, mb.data, ma.size) == 0,
          "grid %u differs from the CPU's", skipped + i);
      gst_buffer_unmap (a, &ma);
      gst_buffer_unmap (b, &mb);
    }
  }
}

static gboolean
is_pinned (GstBuffer * buf)
{
  return gst_buffer_n_memory (buf) == 1
      && g_strcmp0 (gst_buffer_peek_memory (buf, 0)->allocator->mem_type,
      "robocache.pinned.memory") == 0;
}

/* Order, content and timestamps at every depth, from pageable sweeps (the
 * staging path) and from sweeps in the page-locked memory voxelize offers
 * (the direct path); grids in system memory are page-locked. */
GST_START_TEST (test_depths_match_cpu)
{
  GRand *rand = test_rand_new ();
  GPtrArray *sweeps = random_sweeps (rand, 24);
  GPtrArray *want = cpu_grids (sweeps);

  for (guint depth = 1; depth <= 4; depth++) {
    for (guint pinned_in = 0; pinned_in < 2; pinned_in++) {
      gchar *props = g_strdup_printf ("backend=gpu pipeline-depth=%u", depth);
      GstHarness *h = voxelize_harness (props);
      GPtrArray *in = sweeps, *got;

      if (pinned_in) {
        GstAllocator *allocator = proposed_allocator (h, XYZI_CAPS, NULL);

        fail_unless_equals_string (allocator->mem_type,
            "robocache.pinned.memory");
        in = g_ptr_array_new_with_free_func ((GDestroyNotify)
            gst_buffer_unref);
        for (guint i = 0; i < sweeps->len; i++) {
          GstBuffer *from = g_ptr_array_index (sweeps, i);
          gsize size = gst_buffer_get_size (from);
          GstBuffer *buf = gst_buffer_new_allocate (allocator, size, NULL);

          if (size > 0) {
            GstMapInfo map;

            fail_unless (gst_buffer_map (from, &map, GST_MAP_READ));
            gst_buffer_fill (buf, 0, map.data, map.size);
            gst_buffer_unmap (from, &map);
          }
          gst_buffer_copy_into (buf, from, GST_BUFFER_COPY_TIMESTAMPS, 0, -1);
          fail_unless (size == 0 || is_pinned (buf));
          g_ptr_array_add (in, buf);
        }
        gst_object_unref (allocator);
      }
      got = run_sweeps (h, in);
      assert_same_grids (got, want, 0);
      for (guint i = 0; i < got->len; i++)
        fail_unless (is_pinned (g_ptr_array_index (got, i)),
            "grid %u not in page-locked memory", i);
      g_ptr_array_unref (got);
      if (in != sweeps)
        g_ptr_array_unref (in);
      gst_harness_teardown (h);
      g_free (props);
    }
  }
  g_ptr_array_unref (want);
  g_ptr_array_unref (sweeps);
  g_rand_free (rand);
}

GST_END_TEST;

/* With depth 4 and nothing downstream yet: three sweeps are held, a flush
 * drops them, and the sweeps after it leave complete, in order, at EOS. */
GST_START_TEST (test_flush_and_eos_in_flight)
{
  GRand *rand = test_rand_new ();
  GPtrArray *sweeps = random_sweeps (rand, 8);
  GPtrArray *want = cpu_grids (sweeps);
  GstHarness *h = voxelize_harness ("backend=gpu pipeline-depth=4");
  GPtrArray *got = g_ptr_array_new_with_free_func ((GDestroyNotify)
      gst_buffer_unref);
  GstSegment segment;
  GstBuffer *buf;

  for (guint i = 0; i < 3; i++)
    fail_unless_equals_int (gst_harness_push (h,
            gst_buffer_ref (g_ptr_array_index (sweeps, i))), GST_FLOW_OK);
  fail_unless (gst_harness_try_pull (h) == NULL, "a sweep left before the "
      "ring was full");
  fail_unless (gst_harness_push_event (h, gst_event_new_flush_start ()));
  fail_unless (gst_harness_push_event (h, gst_event_new_flush_stop (TRUE)));
  gst_segment_init (&segment, GST_FORMAT_TIME);
  fail_unless (gst_harness_push_event (h, gst_event_new_segment (&segment)));
  while ((buf = gst_harness_try_pull (h)))
    g_ptr_array_add (got, buf);
  fail_unless_equals_int (got->len, 0);

  for (guint i = 3; i < sweeps->len; i++)
    fail_unless_equals_int (gst_harness_push (h,
            gst_buffer_ref (g_ptr_array_index (sweeps, i))), GST_FLOW_OK);
  fail_unless (gst_harness_push_event (h, gst_event_new_eos ()));
  while ((buf = gst_harness_try_pull (h)))
    g_ptr_array_add (got, buf);
  assert_same_grids (got, want, 3);

  g_ptr_array_unref (got);
  gst_harness_teardown (h);
  g_ptr_array_unref (want);
  g_ptr_array_unref (sweeps);
  g_rand_free (rand);
}

GST_END_TEST;

/* max-pinned-memory bounds what is page-locked: past it buffers are plain
 * system memory and the grids are still right; after stop the allocator
 * keeps nothing and gives plain memory. */
GST_START_TEST (test_pinned_memory_bounded)
{
  GRand *rand = test_rand_new ();
  GPtrArray *sweeps = random_sweeps (rand, 6);
  GPtrArray *want = cpu_grids (sweeps);
  /* A grid is 64 * 64 * 16 * 4 = 256 KiB: room for one. */
  GstHarness *h = voxelize_harness ("backend=gpu pipeline-depth=3 "
      "max-pinned-memory=300000");
  GPtrArray *got;
  GstAllocator *allocator = proposed_allocator (h, XYZI_CAPS, NULL);
  GstBuffer *big;
  guint pinned = 0;

  got = run_sweeps (h, sweeps);
  assert_same_grids (got, want, 0);
  for (guint i = 0; i < got->len; i++)
    pinned += is_pinned (g_ptr_array_index (got, i));
  fail_unless (pinned <= 1, "%u grids of 256 KiB page-locked under a "
      "300,000-byte limit", pinned);
  /* Larger than the limit: plain memory at once. */
  big = gst_buffer_new_allocate (allocator, 1 << 20, NULL);
  fail_if (is_pinned (big));
  gst_buffer_unref (big);
  g_ptr_array_unref (got);

  gst_harness_teardown (h);
  big = gst_buffer_new_allocate (allocator, 4096, NULL);
  fail_if (is_pinned (big), "page-locked memory handed out after stop");
  gst_buffer_unref (big);
  gst_object_unref (allocator);
  g_ptr_array_unref (want);
  g_ptr_array_unref (sweeps);
  g_rand_free (rand);
}

GST_END_TEST;

/* A live source: one sweep in flight by default, so no added latency; with
 * pipeline-depth=3 the two held sweeps' periods are reported. */
GST_START_TEST (test_live_latency)
{
  for (guint depth = 0; depth <= 3; depth += 3) {
    gchar *desc = g_strdup_printf ("robocachelidarsrc is-live=true "
        "rate=20 points-per-sweep=2048 num-buffers=12 ! robocachevoxelize "
        "name=v backend=gpu pipeline-depth=%u " GRID_PROPS " ! fakesink "
        "name=sink sync=true", depth);
    GstElement *pipeline = gst_parse_launch (desc, NULL);
    GstElement *sink = gst_bin_get_by_name (GST_BIN (pipeline), "sink");
    GstPad *pad = gst_element_get_static_pad (sink, "sink");
    GstQuery *query = gst_query_new_latency ();
    GstClockTime min = 0;
    gboolean live = FALSE;

    fail_unless (pipeline != NULL);
    gst_element_set_state (pipeline, GST_STATE_PLAYING);
    g_usleep (400 * G_TIME_SPAN_MILLISECOND);
    fail_unless (gst_pad_peer_query (pad, query));
    gst_query_parse_latency (query, &live, &min, NULL);
    fail_unless (live);
    /* The source reports one 50 ms period; depth 3 adds two. */
    if (depth == 0)
      fail_unless (min < 60 * GST_MSECOND, "latency %" GST_TIME_FORMAT,
          GST_TIME_ARGS (min));
    else
      fail_unless (min >= 140 * GST_MSECOND, "latency %" GST_TIME_FORMAT,
          GST_TIME_ARGS (min));
    run_to_end (pipeline, 10 * GST_SECOND);
    gst_element_set_state (pipeline, GST_STATE_NULL);
    gst_query_unref (query);
    gst_object_unref (pad);
    gst_object_unref (sink);
    gst_object_unref (pipeline);
    g_free (desc);
  }
}

GST_END_TEST;

static GstPadProbeReturn
count_pinned (GstPad * pad, GstPadProbeInfo * info, gpointer data)
{
  guint *counts = data;

  counts[0]++;
  counts[1] += is_pinned (GST_PAD_PROBE_INFO_BUFFER (info));
  return GST_PAD_PROBE_OK;
}

/* A recording replayed into voxelize on the GPU: robocachemcapsrc writes
 * each sweep into the page-locked memory voxelize proposes (all but the
 * first, made before the stream's caps reached voxelize), and the grids
 * are those of the CPU. */
GST_START_TEST (test_recording_into_pinned)
{
  gchar *dir = g_dir_make_tmp ("robocache-transfers-XXXXXX", NULL);
  gchar *path = g_build_filename (dir, "lidar.mcap", NULL);
  gchar *desc = g_strdup_printf ("robocachelidarsrc num-buffers=6 "
      "points-per-sweep=20000 seed=%u ! robocachemcapsink location=\"%s\"",
      g_random_int (), path);
  guint counts[2] = { 0, 0 };
  GPtrArray *grids[2];

  fail_unless (run_pipeline (desc));
  g_free (desc);
  for (guint gpu = 0; gpu < 2; gpu++) {
    GstElement *pipeline, *vox, *sink;
    GstPad *pad;
    GstSample *sample;

    desc = g_strdup_printf ("robocachemcapsrc location=\"%s\" ! "
        "robocachevoxelize name=v backend=%s " GRID_PROPS " ! "
        VOXELS_CAPS " ! appsink name=sink sync=false", path,
        gpu ? "gpu" : "cpu");
    pipeline = gst_parse_launch (desc, NULL);
    fail_unless (pipeline != NULL, "%s", desc);
    vox = gst_bin_get_by_name (GST_BIN (pipeline), "v");
    sink = gst_bin_get_by_name (GST_BIN (pipeline), "sink");
    pad = gst_element_get_static_pad (vox, "sink");
    if (gpu)
      gst_pad_add_probe (pad, GST_PAD_PROBE_TYPE_BUFFER, count_pinned,
          counts, NULL);
    grids[gpu] = g_ptr_array_new_with_free_func ((GDestroyNotify)
        gst_buffer_unref);
    gst_element_set_state (pipeline, GST_STATE_PLAYING);
    while ((sample = gst_app_sink_pull_sample (GST_APP_SINK (sink)))) {
      g_ptr_array_add (grids[gpu], gst_buffer_copy_deep
          (gst_sample_get_buffer (sample)));
      gst_sample_unref (sample);
    }
    gst_element_set_state (pipeline, GST_STATE_NULL);
    gst_object_unref (pad);
    gst_object_unref (sink);
    gst_object_unref (vox);
    gst_object_unref (pipeline);
    g_free (desc);
  }
  fail_unless_equals_int (grids[0]->len, 6);
  assert_same_grids (grids[1], grids[0], 0);
  fail_unless_equals_int (counts[0], 6);
  fail_unless (counts[1] >= 5, "%u of 6 sweeps in page-locked memory",
      counts[1]);
  g_ptr_array_unref (grids[0]);
  g_ptr_array_unref (grids[1]);
  g_unlink (path);
  g_rmdir (dir);
  g_free (path);
  g_free (dir);
}

GST_END_TEST;

/* Camera frames into robocachefuse on the GPU come in the page-locked
 * memory fuse proposes (videotestsrc's pool takes its allocator). */
GST_START_TEST (test_fuse_camera_into_pinned)
{
  GstElement *pipeline = gst_parse_launch ("videotestsrc num-buffers=8 ! "
      "video/x-raw,format=RGB,width=640,height=480,framerate=30/1 ! "
      "robocachefuse name=f backend=gpu rate=0/1 ! fakesink", NULL);
  GstElement *fuse = gst_bin_get_by_name (GST_BIN (pipeline), "f");
  GstPad *pad = gst_element_get_static_pad (fuse, "sink_0");
  guint counts[2] = { 0, 0 };

  fail_unless (pad != NULL);
  gst_pad_add_probe (pad, GST_PAD_PROBE_TYPE_BUFFER, count_pinned, counts,
      NULL);
  fail_unless (play_to_end (pipeline));
  fail_unless_equals_int (counts[0], 8);
  fail_unless_equals_int (counts[1], 8);
  gst_object_unref (pad);
  gst_object_unref (fuse);
}

GST_END_TEST;

static Suite *
transfers_suite (void)
{
  Suite *s = suite_create ("robocache-transfers");
  TCase *tc = tcase_create ("gpu");

  suite_add_tcase (s, tc);
  tcase_set_timeout (tc, 120);
  tcase_add_test (tc, test_depths_match_cpu);
  tcase_add_test (tc, test_flush_and_eos_in_flight);
  tcase_add_test (tc, test_pinned_memory_bounded);
  tcase_add_test (tc, test_live_latency);
  tcase_add_test (tc, test_recording_into_pinned);
  tcase_add_test (tc, test_fuse_camera_into_pinned);
  return s;
}

int
main (int argc, char **argv)
{
  test_require_gpu ();
  gst_check_init (&argc, &argv);
  return gst_check_run_suite (transfers_suite (), "robocache-transfers",
      __FILE__);
}
