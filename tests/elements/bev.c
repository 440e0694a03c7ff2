/* robocachebev: a known wall lights up the pixels computed here, y up;
 * the picture's caps; the lidar through voxelize and bev into PNG; every
 * grid it cannot draw is an error naming what is accepted; on a GPU, the
 * same pixels as the CPU from system and CUDA memory. */
#include <gst/check/gstcheck.h>
#include <gst/check/gstharness.h>
#include <gst/app/gstappsink.h>
#include <gst/app/gstappsrc.h>
#include <gst/video/video.h>
#include <math.h>

#include "elementutil.h"
#include "testutil.h"

static GRand *rand_;

/* Nothing drawn over the view. */
#define PLAIN "range-rings=0 ego-marker=false scale-bar=0"

static GstCaps *
grid_caps (const rc_voxel_grid * grid, guint n_features, const gchar * names)
{
  return gst_robocache_voxels_caps_new (grid, n_features, names, FALSE);
}

/* A count grid 40 x 30 x 8 of 0.5 m from (-10, -5, -1) with a wall at
 * x = 5.2 m from y = @y0 to @y1 (random counts in random layers). */
static GstBuffer *
wall_grid (const rc_voxel_grid * g, gdouble x, gdouble y0, gdouble y1)
{
  gsize n = (gsize) g->dims[0] * g->dims[1] * g->dims[2];
  GstBuffer *buf = gst_buffer_new_allocate (NULL, n * 4, NULL);
  guint i = (guint) floor ((x - g->origin[0]) / g->voxel_size[0]);
  guint j0 = (guint) floor ((y0 - g->origin[1]) / g->voxel_size[1]);
  guint j1 = (guint) floor ((y1 - g->origin[1]) / g->voxel_size[1]);
  GstMapInfo map;
  guint32 *c;

  gst_buffer_map (buf, &map, GST_MAP_WRITE);
  c = (guint32 *) map.data;
  memset (c, 0, n * 4);
  for (guint j = j0; j <= j1; j++) {
    guint k = g_rand_int_range (rand_, 0, g->dims[2]);
    c[(k * g->dims[1] + j) * g->dims[0] + i] = g_rand_int_range (rand_, 1, 50);
  }
  gst_buffer_unmap (buf, &map);
  GST_BUFFER_PTS (buf) = 0;
  return buf;
}

GST_START_TEST (test_wall_pixels)
{
  rc_voxel_grid g = { {-10.0, -5.0, -1.0}, {0.5, 0.5, 0.5}, {40, 30, 8},
  RC_VOXEL_COUNT
  };
  GstHarness *h = gst_harness_new_parse ("robocachebev backend=cpu width=80 "
      "height=60 " PLAIN);
  GstBuffer *out;
  GstVideoFrame frame;
  GstVideoInfo info;
  GstCaps *caps;
  /* The wall's pixel columns and rows, from its metres: x = 5.2 m is
   * voxel 30, pixels 60 and 61; y from -4 to 9 m are voxels 2 to 28, rows
   * (29 - j) * 2 and the next. */
  guint px_lo = 60, px_hi = 61, py_lo = (29 - 28) * 2, py_hi = (29 - 2) * 2 + 1;

  gst_harness_set_src_caps (h, grid_caps (&g, 0, NULL));
  out = gst_harness_push_and_pull (h, wall_grid (&g, 5.2, -4.0, 9.0));
  fail_unless (out != NULL);
  caps = gst_pad_get_current_caps (h->sinkpad);
  fail_unless (gst_video_info_from_caps (&info, caps));
  fail_unless_equals_int (GST_VIDEO_INFO_FORMAT (&info), GST_VIDEO_FORMAT_RGBA);
  fail_unless_equals_int (info.width, 80);
  fail_unless_equals_int (info.height, 60);
  fail_unless_equals_int (info.par_n, 1);
  fail_unless_equals_int (info.par_d, 1);
  gst_caps_unref (caps);
  fail_unless (gst_video_frame_map (&frame, &info, out, GST_MAP_READ));
  for (guint py = 0; py < 60; py++) {
    const guint8 *row = (const guint8 *) GST_VIDEO_FRAME_PLANE_DATA (&frame,
        0) + py * GST_VIDEO_FRAME_PLANE_STRIDE (&frame, 0);
    for (guint px = 0; px < 80; px++) {
      gboolean lit = px >= px_lo && px <= px_hi && py >= py_lo && py <= py_hi;
      const guint8 *p = row + px * 4;
      gboolean black = p[0] == 0 && p[1] == 0 && p[2] == 0;

      fail_unless_equals_int (p[3], 255);
      fail_unless (lit != black, "pixel (%u, %u) lit %d", px, py, lit);
    }
  }
  gst_video_frame_unmap (&frame);
  gst_buffer_unref (out);
  gst_harness_teardown (h);
}

GST_END_TEST;

/* Default size: one pixel per column, and the pixel aspect ratio of the
 * voxels' metres. */
GST_START_TEST (test_default_size_and_aspect)
{
  rc_voxel_grid g = { {0, 0, 0}, {0.2, 0.4, 1.0}, {30, 20, 2},
  RC_VOXEL_OCCUPANCY
  };
  GstHarness *h = gst_harness_new_parse ("robocachebev backend=cpu");
  GstBuffer *out;
  GstVideoInfo info;
  GstCaps *caps;

  gst_harness_set_src_caps (h, grid_caps (&g, 0, NULL));
  out = gst_harness_push_and_pull (h, gst_buffer_new_wrapped (g_malloc0
          (1200), 1200));
  caps = gst_pad_get_current_caps (h->sinkpad);
  fail_unless (gst_video_info_from_caps (&info, caps));
  fail_unless_equals_int (info.width, 30);
  fail_unless_equals_int (info.height, 20);
  fail_unless_equals_int (info.par_n, 1);
  fail_unless_equals_int (info.par_d, 2);
  gst_caps_unref (caps);
  gst_buffer_unref (out);
  gst_harness_teardown (h);
}

GST_END_TEST;

/* The scale bar of an empty 100 x 100 grid of 0.1 m: 2 m is 20 pixels,
 * from x = 10, with its end ticks (it was 21: both ends counted). */
GST_START_TEST (test_scale_bar_length)
{
  rc_voxel_grid g = { {0, 0, 0}, {0.1, 0.1, 1.0}, {100, 100, 1},
  RC_VOXEL_COUNT
  };
  GstHarness *h = gst_harness_new_parse ("robocachebev backend=cpu "
      "range-rings=0 ego-marker=false scale-bar=2");
  guint left = G_MAXUINT, right = 0, rows = 0;
  GstBuffer *out;
  GstMapInfo map;

  gst_harness_set_src_caps (h, grid_caps (&g, 0, NULL));
  out = gst_harness_push_and_pull (h, gst_buffer_new_wrapped (g_malloc0
          (40000), 40000));
  fail_unless (gst_buffer_map (out, &map, GST_MAP_READ));
  for (guint y = 0; y < 100; y++) {
    gboolean lit = FALSE;

    for (guint x = 0; x < 100; x++)
      if (map.data[(y * 100 + x) * 4] != 0) {
        left = MIN (left, x);
        right = MAX (right, x);
        lit = TRUE;
      }
    rows += lit;
  }
  fail_unless_equals_int (left, 10);
  fail_unless_equals_int (right - left + 1, 20);
  fail_unless_equals_int (rows, 7);
  gst_buffer_unmap (out, &map);
  gst_buffer_unref (out);
  gst_harness_teardown (h);
}

GST_END_TEST;

/* value is read at negotiation: set while playing it is refused with a
 * warning; width and height renegotiate, while playing too: the next
 * picture has the new size.  Stopped, value is taken. */
GST_START_TEST (test_properties_while_playing)
{
  rc_voxel_grid g = { {-10.0, -5.0, -1.0}, {0.5, 0.5, 0.5}, {40, 30, 8},
  RC_VOXEL_COUNT
  };
  GstHarness *h = gst_harness_new_parse ("robocachebev backend=cpu " PLAIN);
  GstElement *e = gst_harness_find_element (h, "robocachebev");
  GstVideoInfo info;
  GstCaps *caps;

  gst_harness_set_src_caps (h, grid_caps (&g, 0, NULL));
  gst_buffer_unref (gst_harness_push_and_pull (h, wall_grid (&g, 5.2, -4.0,
              9.0)));
  check_set_refused (G_OBJECT (e), "value", "height");
  check_set_taken (G_OBJECT (e), "width", "80");
  check_set_taken (G_OBJECT (e), "height", "60");
  gst_buffer_unref (gst_harness_push_and_pull (h, wall_grid (&g, 5.2, -4.0,
              9.0)));
  caps = gst_pad_get_current_caps (h->sinkpad);
  fail_unless (gst_video_info_from_caps (&info, caps));
  fail_unless_equals_int (info.width, 80);
  fail_unless_equals_int (info.height, 60);
  gst_caps_unref (caps);
  check_set_taken_stopped (h->element, G_OBJECT (e), "value", "height");
  gst_object_unref (e);
  gst_harness_teardown (h);
}

GST_END_TEST;

/* Runs appsrc (@caps, one zeroed buffer of @size) ! robocachebev @props !
 * fakesink; returns the error's text and debug, or NULL. */
static gchar *
pipeline_error (GstCaps * caps, const gchar * props, gsize size)
{
  gchar *desc = g_strdup_printf ("appsrc name=src ! robocachebev "
      "backend=cpu %s ! fakesink", props);
  GstElement *pipeline = gst_parse_launch (desc, NULL);
  GstElement *src = gst_bin_get_by_name (GST_BIN (pipeline), "src");
  GstMessage *msg;
  gchar *text = NULL;

  g_object_set (src, "caps", caps, "format", GST_FORMAT_TIME, NULL);
  gst_caps_unref (caps);
  gst_app_src_push_buffer (GST_APP_SRC (src), gst_buffer_new_wrapped
      (g_malloc0 (size), size));
  gst_app_src_end_of_stream (GST_APP_SRC (src));
  msg = run_to_end (pipeline, 30 * GST_SECOND);
  if (msg) {
    GError *err = NULL;
    gchar *debug = NULL;

    gst_message_parse_error (msg, &err, &debug);
    text = g_strdup_printf ("%s (%s)", err->message, debug ? debug : "");
    g_clear_error (&err);
    g_free (debug);
    gst_message_unref (msg);
  }
  gst_object_unref (src);
  gst_object_unref (pipeline);
  g_free (desc);
  return text;
}

GST_START_TEST (test_feature_of_count_grid_n)
{
  rc_voxel_grid g = { {0, 0, 0}, {1, 1, 1}, {4, 4, 2}, RC_VOXEL_COUNT };
  gchar *text = pipeline_error (grid_caps (&g, 0, NULL), "value=feature",
      128);

  fail_unless (text != NULL);
  fail_unless (strstr (text, "value=feature draws mean grids only") != NULL,
      "%s", text);
  fail_unless (strstr (text, "value=density or value=height") != NULL, "%s",
      text);
  g_free (text);
}

GST_END_TEST;

/* A picture size downstream does not take (a capsfilter after the
 * element, in an application's pipeline where the link came before the
 * caps): an error saying what the element makes and what downstream
 * takes; GstBaseTransform said only not-negotiated, from the source. */
GST_START_TEST (test_size_refused_downstream_n)
{
  rc_voxel_grid g = { {0, 0, 0}, {1, 1, 1}, {4, 4, 2}, RC_VOXEL_COUNT };
  gchar *text = pipeline_error (grid_caps (&g, 0, NULL), "width=64 "
      "height=64 ! video/x-raw,width=32", 128);

  fail_unless (text != NULL);
  fail_unless (strstr (text, "downstream takes nothing") &&
      strstr (text, "width=(int)64") && strstr (text, "width=(int)32"),
      "%s", text);
  g_free (text);
}

GST_END_TEST;

/* One refused caps, one error: the base transform tries set_caps again
 * with every buffer that follows, and each try posted the error again. */
GST_START_TEST (test_refusal_posted_once_n)
{
  GstElement *pipeline = gst_parse_launch ("robocachelidarsrc num-buffers=5 "
      "points-per-sweep=1024 ! robocachevoxelize backend=cpu mode=count "
      "dims=\"<16,16,4>\" ! robocachebev name=b backend=cpu value=feature "
      "! fakesink", NULL);
  GstBus *bus = gst_element_get_bus (pipeline);
  GstMessage *msg;
  guint n = 0;

  fail_unless (pipeline != NULL);
  gst_element_set_state (pipeline, GST_STATE_PLAYING);
  /* Every error the run brings, until the bus has been quiet a while. */
  while ((msg = gst_bus_timed_pop_filtered (bus, n ? 500 * GST_MSECOND :
              30 * GST_SECOND, GST_MESSAGE_ERROR | GST_MESSAGE_EOS))) {
    gboolean eos = GST_MESSAGE_TYPE (msg) == GST_MESSAGE_EOS;

    if (!eos && g_str_equal (GST_OBJECT_NAME (GST_MESSAGE_SRC (msg)), "b")) {
      GError *err = NULL;

      gst_message_parse_error (msg, &err, NULL);
      fail_unless (strstr (err->message, "value=feature draws mean grids "
              "only") != NULL, "%s", err->message);
      g_clear_error (&err);
      n++;
    }
    gst_message_unref (msg);
    if (eos)
      break;
  }
  fail_unless_equals_int (n, 1);
  gst_element_set_state (pipeline, GST_STATE_NULL);
  gst_object_unref (bus);
  gst_object_unref (pipeline);
}

GST_END_TEST;

GST_START_TEST (test_unknown_feature_n)
{
  rc_voxel_grid g = { {0, 0, 0}, {1, 1, 1}, {4, 4, 2}, RC_VOXEL_MEAN };
  gchar *text = pipeline_error (grid_caps (&g, 2, "z,intensity"),
      "value=feature feature=ring", 256);

  fail_unless (text != NULL);
  fail_unless (strstr (text, "feature \"ring\" is not one of the grid's "
          "features (z,intensity)") != NULL, "%s", text);
  g_free (text);
}

GST_END_TEST;

GST_START_TEST (test_grid_too_large_n)
{
  rc_voxel_grid g = { {0, 0, 0}, {1, 1, 1}, {20000, 2, 1},
  RC_VOXEL_OCCUPANCY
  };
  gchar *text = pipeline_error (grid_caps (&g, 0, NULL), "", 40000);

  fail_unless (text != NULL);
  fail_unless (strstr (text, "a grid of 20000 x 2 columns is too large to "
          "draw: grid-x and grid-y up to 16384 are accepted") != NULL, "%s",
      text);
  g_free (text);

  /* Columns that fit, voxels that do not: said so (by the caps' own
   * rule, which every reader of voxels caps applies), not "cannot draw". */
  g.dims[0] = g.dims[1] = 256;
  g.dims[2] = G_MAXINT32;
  text = pipeline_error (grid_caps (&g, 0, NULL), "", 64);
  fail_unless (text && strstr (text, "grid-z=(int)2147483647")
      && strstr (text, "fewer than 2^32 voxels in all"), "%s",
      GST_STR_NULL (text));
  g_free (text);
}

GST_END_TEST;

/* A mean grid that is all NaN: a black picture (with its overlay), no
 * error. */
GST_START_TEST (test_all_nan_means)
{
  rc_voxel_grid g = { {-2, -2, 0}, {1, 1, 1}, {4, 4, 2}, RC_VOXEL_MEAN };
  GstHarness *h = gst_harness_new_parse ("robocachebev backend=cpu "
      "value=feature " PLAIN);
  float nan[32];
  GstBuffer *out;
  GstMapInfo map;

  for (guint i = 0; i < 32; i++)
    nan[i] = NAN;
  gst_harness_set_src_caps (h, grid_caps (&g, 1, "intensity"));
  out = gst_harness_push_and_pull (h, gst_buffer_new_memdup (nan,
          sizeof (nan)));
  fail_unless (gst_buffer_map (out, &map, GST_MAP_READ));
  fail_unless_equals_int (map.size, 4 * 4 * 4);
  for (guint i = 0; i < map.size; i++)
    fail_unless_equals_int (map.data[i], i % 4 == 3 ? 255 : 0);
  gst_buffer_unmap (out, &map);
  gst_buffer_unref (out);
  gst_harness_teardown (h);
}

GST_END_TEST;

/* The demo's pipeline: the synthetic lidar through voxelize and bev into
 * PNG, to EOS. */
GST_START_TEST (test_lidar_to_png)
{
  GstElement *pipeline;

  if (!gst_registry_check_feature_version (gst_registry_get (), "pngenc", 1,
          0, 0)) {
    g_print ("pngenc not installed: test_lidar_to_png not run\n");
    return;
  }
  pipeline = gst_parse_launch ("robocachelidarsrc num-buffers=2 "
      "points-per-sweep=20000 ! robocachevoxelize backend=cpu mode=count ! "
      "robocachebev backend=cpu value=height ! pngenc ! fakesink", NULL);
  fail_unless (play_to_end (pipeline));
}

GST_END_TEST;

/* Frames of "robocachelidarsrc ! robocachevoxelize ! robocachebev @bev ...
 * ! appsink", packed rows one after another.  A feature is drawn from a
 * mean grid, which the GPU sums in another order than the CPU, so that a
 * mean may differ in its last bit and a colour, at a boundary, by one:
 * its grids are always the CPU's, the bev on @backend (run 198's whole
 * suite once found such a pixel). */
static GByteArray *
run_frames (const gchar * backend, const gchar * bev, const gchar * tail)
{
  gboolean feature = strstr (bev, "feature") != NULL;
  gchar *desc = g_strdup_printf ("robocachelidarsrc num-buffers=3 seed=%u ! "
      "robocachevoxelize backend=%s mode=%s ! robocachebev backend=%s %s ! "
      "%s appsink name=sink sync=false", g_rand_int (rand_) % 1000,
      feature ? "cpu" : backend, feature ? "mean features=intensity" :
      "count", backend, bev, tail);
  GstElement *pipeline = gst_parse_launch (desc, NULL);
  GstElement *sink = gst_bin_get_by_name (GST_BIN (pipeline), "sink");
  GByteArray *bytes = g_byte_array_new ();
  GstSample *sample;

  gst_element_set_state (pipeline, GST_STATE_PLAYING);
  while ((sample = gst_app_sink_pull_sample (GST_APP_SINK (sink)))) {
    GstVideoInfo info;
    GstVideoFrame frame;

    fail_unless (gst_video_info_from_caps (&info,
            gst_sample_get_caps (sample)));
    fail_unless (gst_video_frame_map (&frame, &info,
            gst_sample_get_buffer (sample), GST_MAP_READ));
    for (gint y = 0; y < info.height; y++)
      g_byte_array_append (bytes, (const guint8 *)
          GST_VIDEO_FRAME_PLANE_DATA (&frame, 0) + y *
          GST_VIDEO_FRAME_PLANE_STRIDE (&frame, 0), info.width * 4);
    gst_video_frame_unmap (&frame);
    gst_sample_unref (sample);
  }
  gst_element_set_state (pipeline, GST_STATE_NULL);
  gst_object_unref (sink);
  gst_object_unref (pipeline);
  g_free (desc);
  return bytes;
}

/* On a GPU: the same pixels as the CPU, in system memory and through
 * GStreamer's CUDA memory and cudadownload; count grids from the GPU's
 * voxelize, the mean grid of the feature from the CPU's (run_frames). */
GST_START_TEST (test_gpu_same_pixels)
{
  static const gchar *bevs[] = { "", "value=height width=512 height=512",
    "value=feature colormap=density width=97 height=45",
    "value=height auto-range=false range-min=-2 range-max=2",
  };

  if (!ROBOCACHE_HAVE_CUDA || rc_device_count (NULL) == 0) {
    g_print ("no GPU: test_gpu_same_pixels not run\n");
    return;
  }
  for (guint b = 0; b < G_N_ELEMENTS (bevs); b++) {
    guint32 seed = g_rand_int (rand_);
    GByteArray *cpu, *gpu, *cuda;

    g_rand_set_seed (rand_, seed);
    cpu = run_frames ("cpu", bevs[b], "");
    g_rand_set_seed (rand_, seed);
    gpu = run_frames ("gpu", bevs[b], "video/x-raw ! ");
    g_rand_set_seed (rand_, seed);
    cuda = run_frames ("gpu", bevs[b], "video/x-raw(memory:CUDAMemory) ! "
        "cudadownload ! video/x-raw ! ");
    fail_unless (cpu->len > 0);
    fail_unless (cpu->len == gpu->len && memcmp (cpu->data, gpu->data,
            cpu->len) == 0, "%s: GPU pixels differ", bevs[b]);
    fail_unless (cpu->len == cuda->len && memcmp (cpu->data, cuda->data,
            cpu->len) == 0, "%s: CUDA memory pixels differ", bevs[b]);
    g_byte_array_unref (cpu);
    g_byte_array_unref (gpu);
    g_byte_array_unref (cuda);
  }
}

GST_END_TEST;

/* Its overlay, frames in flight and scratch are checked against
 * max-memory at negotiation (gstrobocachememory.h). */
GST_START_TEST (test_max_memory_n)
{
  gchar *text;

  check_max_memory ("robocachelidarsrc num-buffers=2 points-per-sweep=64 ! "
      "robocachevoxelize backend=cpu dims=\"<64,64,8>\" ! robocachebev "
      "backend=cpu width=64 height=48 %s ! fakesink");
  /* The scratch is a grid column's 8 bytes: a fine grid at a small
   * picture is refused naming the grid, not the picture alone. */
  text = launch_error ("robocachelidarsrc num-buffers=1 points-per-sweep=64 "
      "! robocachevoxelize backend=cpu mode=occupancy dims=\"<2048,2048,1>\" "
      "! robocachebev backend=cpu width=16 height=16 max-memory=1000000 ! "
      "fakesink", TRUE);
  fail_unless (text && strstr (text, "the grid's columns (grid-x × grid-y)"),
      "%s", text);
  g_free (text);
}

GST_END_TEST;

static Suite *
bev_suite (void)
{
  Suite *s = suite_create ("elements-bev");
  TCase *tc = tcase_create ("bev");

  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_wall_pixels);
  tcase_add_test (tc, test_default_size_and_aspect);
  tcase_add_test (tc, test_scale_bar_length);
  tcase_add_test (tc, test_properties_while_playing);
  tcase_add_test (tc, test_feature_of_count_grid_n);
  tcase_add_test (tc, test_size_refused_downstream_n);
  tcase_add_test (tc, test_unknown_feature_n);
  tcase_add_test (tc, test_refusal_posted_once_n);
  tcase_add_test (tc, test_grid_too_large_n);
  tcase_add_test (tc, test_all_nan_means);
  tcase_add_test (tc, test_lidar_to_png);
  tcase_add_test (tc, test_gpu_same_pixels);
  tcase_add_test (tc, test_max_memory_n);
  return s;
}

int
main (int argc, char **argv)
{
  const char *why = NULL;

  /* CUDA cannot be used in a child forked after it was initialised. */
  if (ROBOCACHE_HAVE_CUDA && rc_device_count (&why) > 0)
    g_setenv ("CK_FORK", "no", TRUE);
  gst_check_init (&argc, &argv);
  rand_ = test_rand_new ();
  return gst_check_run_suite (bev_suite (), "elements-bev", __FILE__);
}
