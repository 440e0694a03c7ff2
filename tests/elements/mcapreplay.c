/* Record with robocachemcapsink, replay with robocachemcapsrc: the
 * synthetic sensors (seeded afresh each run) come back with the same
 * bytes, caps and times; a replay voxelized twice gives the same grids,
 * byte for byte, and (built with REPLAY_GPU, on a GPU) the same on the GPU
 * as on the CPU.  Needs no Node.js: the files are robocache's own, read
 * back by robocache (tests/elements/mcapsrc.c reads third-party files). */
#include <gst/check/gstcheck.h>
#include <gst/app/gstappsink.h>
#include <glib/gstdio.h>
#include <string.h>

#include "elementutil.h"
#include "testutil.h"

static gchar *work_dir;
static guint seed;

#define N_SWEEPS 6
#define N_JOINTS 60

/* The samples of appsink @name after @pipeline ran to EOS. */
static GPtrArray *
pull (GstElement * pipeline, const gchar * name)
{
  GstElement *sink = gst_bin_get_by_name (GST_BIN (pipeline), name);
  GPtrArray *out = g_ptr_array_new_with_free_func ((GDestroyNotify)
      gst_sample_unref);
  GstSample *sample;

  while ((sample = gst_app_sink_try_pull_sample (GST_APP_SINK (sink),
              10 * GST_SECOND)))
    g_ptr_array_add (out, sample);
  fail_unless (gst_app_sink_is_eos (GST_APP_SINK (sink)), "no EOS on %s", name);
  gst_object_unref (sink);
  return out;
}

static GstElement *
launch (const gchar * desc)
{
  GError *error = NULL;
  GstElement *p = gst_parse_launch (desc, &error);

  g_assert_no_error (error);
  return p;
}

/* Runs @p to EOS; fails on an error. */
static void
run (GstElement * p)
{
  GstMessage *msg = run_to_end_or (p, 60 * GST_SECOND, 0);

  if (msg) {
    GError *err = NULL;

    gst_message_parse_error (msg, &err, NULL);
    fail ("%s", err ? err->message : "no EOS");
  }
}

static gchar *
recording (void)
{
  return g_build_filename (work_dir, "run.mcap", NULL);
}

#define LIDAR "robocachelidarsrc seed=%u num-buffers=" G_STRINGIFY (N_SWEEPS) \
  " points-per-sweep=4096 extended-fields=true"
#define JOINTS "robocachejointsrc seed=%u num-buffers=" \
  G_STRINGIFY (N_JOINTS) " rate=100/1 dof=7 format=float64"

/* The sensors into robocachemcapsink, with a fixed base-time; each test
 * records (in its own process: a pipeline run before check forks would
 * leave the children GStreamer's threads in an unknown state). */
static void
record (void)
{
  gchar *path = recording ();
  gchar *desc = g_strdup_printf ("robocachemcapsink name=m location=\"%s\" "
      "base-time=1700000000000000000 sink_0::topic=/lidar "
      "sink_1::topic=/joint_states " LIDAR " ! m.sink_0 " JOINTS " ! m.sink_1",
      path, seed, seed);
  GstElement *p = launch (desc);

  run (p);
  gst_object_unref (p);
  g_free (desc);
  g_free (path);
}

#ifndef REPLAY_GPU
/* What the sensors give, straight into appsinks. */
static void
sensors (GPtrArray ** lidar, GPtrArray ** joints)
{
  gchar *desc = g_strdup_printf (LIDAR " ! appsink name=l sync=false "
      JOINTS " ! appsink name=j sync=false", seed, seed);
  GstElement *p = launch (desc);

  gst_element_set_state (p, GST_STATE_PLAYING);
  *lidar = pull (p, "l");
  *joints = pull (p, "j");
  gst_element_set_state (p, GST_STATE_NULL);
  gst_object_unref (p);
  g_free (desc);
}

static GstClockTime
first_pts (GPtrArray * samples)
{
  return GST_BUFFER_PTS (gst_sample_get_buffer (g_ptr_array_index (samples,
              0)));
}

/* @back, replayed, is @sent and the frame the recorder wrote (its
 * default, map, as the sensors name none). */
static void
check_same_caps (GstCaps * sent, GstCaps * back)
{
  GstCaps *plain = gst_caps_copy (back);
  gchar *a = gst_caps_to_string (sent), *b = gst_caps_to_string (back);

  fail_unless_equals_string (gst_structure_get_string
      (gst_caps_get_structure (back, 0), "frame-id"), "map");
  gst_structure_remove_field (gst_caps_get_structure (plain, 0), "frame-id");
  fail_unless (gst_caps_is_equal (sent, plain), "%s vs %s", a, b);
  gst_caps_unref (plain);
  g_free (a);
  g_free (b);
}

/* @got as replayed from @want: the same bytes (and caps), times counted
 * from @base, the first message of the recording. */
static void
check_same (GPtrArray * want, GPtrArray * got, GstClockTime base,
    gboolean with_caps)
{
  fail_unless_equals_int (got->len, want->len);
  for (guint i = 0; i < want->len; i++) {
    GstSample *a = g_ptr_array_index (want, i), *b = g_ptr_array_index (got, i);
    GstBuffer *x = gst_sample_get_buffer (a), *y = gst_sample_get_buffer (b);
    GstMapInfo mx, my;

    fail_unless_equals_uint64 (GST_BUFFER_PTS (y), GST_BUFFER_PTS (x) - base);
    fail_unless (gst_buffer_map (x, &mx, GST_MAP_READ));
    fail_unless (gst_buffer_map (y, &my, GST_MAP_READ));
    fail_unless_equals_int (my.size, mx.size);
    fail_unless (memcmp (mx.data, my.data, mx.size) == 0, "buffer %u differs",
        i);
    gst_buffer_unmap (x, &mx);
    gst_buffer_unmap (y, &my);
    if (with_caps)
      check_same_caps (gst_sample_get_caps (a), gst_sample_get_caps (b));
  }
}

/* Points and joint vectors come back as they went in: the points with
 * their caps (fields ring and time kept), the joints as JointState
 * positions with the same names. */
GST_START_TEST (test_round_trip)
{
  GPtrArray *lidar, *joints, *lidar_back, *joints_back;
  gchar *path = recording ();
  gchar *desc = g_strdup_printf ("robocachemcapsrc name=m location=\"%s\" "
      "topics=/lidar,/joint_states m.src_0 ! queue ! appsink name=l "
      "sync=false m.src_1 ! queue ! appsink name=j sync=false", path);
  GstElement *p;
  const GstStructure *s;
  GstClockTime base;

  record ();
  p = launch (desc);
  sensors (&lidar, &joints);
  gst_element_set_state (p, GST_STATE_PLAYING);
  lidar_back = pull (p, "l");
  joints_back = pull (p, "j");
  gst_element_set_state (p, GST_STATE_NULL);
  /* The replay's times count from the first message of either stream. */
  base = MIN (first_pts (lidar), first_pts (joints));
  check_same (lidar, lidar_back, base, TRUE);
  check_same (joints, joints_back, base, FALSE);
  s = gst_caps_get_structure (gst_sample_get_caps (g_ptr_array_index
          (joints_back, 0)), 0);
  fail_unless_equals_string (gst_structure_get_string (s, "names"),
      gst_structure_get_string (gst_caps_get_structure (gst_sample_get_caps
              (g_ptr_array_index (joints, 0)), 0), "names"));
  g_ptr_array_unref (lidar);
  g_ptr_array_unref (joints);
  g_ptr_array_unref (lidar_back);
  g_ptr_array_unref (joints_back);
  gst_object_unref (p);
  g_free (desc);
  g_free (path);
}

GST_END_TEST;
#endif

/* The replay voxelized on @backend, as one checksum of times and grids. */
static gchar *
voxelized (const gchar * backend)
{
  gchar *path = recording ();
  gchar *desc = g_strdup_printf ("robocachemcapsrc location=\"%s\" "
      "topics=/lidar ! robocachevoxelize backend=%s mode=count "
      "! appsink name=g sync=false", path, backend);
  GstElement *p = launch (desc);
  GChecksum *sum = g_checksum_new (G_CHECKSUM_SHA256);
  GPtrArray *grids;
  gchar *hex;

  gst_element_set_state (p, GST_STATE_PLAYING);
  grids = pull (p, "g");
  gst_element_set_state (p, GST_STATE_NULL);
  fail_unless_equals_int (grids->len, N_SWEEPS);
  for (guint i = 0; i < grids->len; i++) {
    GstBuffer *buf = gst_sample_get_buffer (g_ptr_array_index (grids, i));
    GstClockTime pts = GST_BUFFER_PTS (buf);
    GstMapInfo map;
    guint64 points = 0;

    fail_unless (gst_buffer_map (buf, &map, GST_MAP_READ));
    for (gsize k = 0; k + 4 <= map.size; k += 4)
      points += *(const guint32 *) (map.data + k);
    /* Not an empty grid: most of each sweep falls inside it. */
    fail_unless (points > 1000, "sweep %u: %" G_GUINT64_FORMAT " points", i,
        points);
    g_checksum_update (sum, (const guchar *) &pts, sizeof (pts));
    g_checksum_update (sum, map.data, map.size);
    gst_buffer_unmap (buf, &map);
  }
  hex = g_strdup (g_checksum_get_string (sum));
  g_checksum_free (sum);
  g_ptr_array_unref (grids);
  gst_object_unref (p);
  g_free (desc);
  g_free (path);
  return hex;
}

GST_START_TEST (test_replay_twice)
{
  const gchar *backend = g_getenv ("REPLAY_BACKEND");
  gchar *a, *b;

  record ();
  a = voxelized (backend ? backend : "cpu");
  b = voxelized (backend ? backend : "cpu");

  fail_unless_equals_string (a, b);
  g_free (a);
  g_free (b);
}

GST_END_TEST;

#ifdef REPLAY_GPU
GST_START_TEST (test_gpu_as_cpu)
{
  gchar *cpu, *gpu;

  record ();
  cpu = voxelized ("cpu");
  gpu = voxelized ("gpu");

  fail_unless_equals_string (gpu, cpu);
  g_free (cpu);
  g_free (gpu);
}

GST_END_TEST;
#endif

static Suite *
mcapreplay_suite (void)
{
  Suite *s = suite_create ("mcapreplay");
  TCase *tc = tcase_create ("general");

  suite_add_tcase (s, tc);
#ifdef REPLAY_GPU
  g_setenv ("REPLAY_BACKEND", "gpu", TRUE);
  tcase_add_test (tc, test_gpu_as_cpu);
#else
  tcase_add_test (tc, test_round_trip);
#endif
  tcase_add_test (tc, test_replay_twice);
  return s;
}

int
main (int argc, char **argv)
{
  GError *error = NULL;
  GRand *rand;
  gchar *path;
  int ret;

#ifdef REPLAY_GPU
  test_require_gpu ();
#endif
  rand = test_rand_new ();
  seed = g_rand_int (rand);
  g_rand_free (rand);
  gst_check_init (&argc, &argv);
  work_dir = g_dir_make_tmp ("robocache-replay-XXXXXX", &error);
  g_assert_no_error (error);
  ret = gst_check_run_suite (mcapreplay_suite (), "mcapreplay", __FILE__);
  path = recording ();
  g_unlink (path);
  g_free (path);
  g_rmdir (work_dir);
  g_free (work_dir);
  return ret;
}
