/* robocachebagsrc: bags written by the real rosbag writer
 * (tests/bag/make_bags.py, run at start into a temporary folder) played
 * through appsinks, voxelize and fuse; seeking; and broken bags. */
#include <gst/check/gstcheck.h>
#include <gst/app/gstappsink.h>
#include <gst/video/video.h>
#include <glib/gstdio.h>
#include <string.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif

#include "elementutil.h"
#include "testutil.h"
#include "gstrobocachefusedmeta.h"

#define N_MSGS 10
#define STEP (100 * GST_MSECOND)

static gchar *bag_dir;

static gchar *
bag_path (const gchar * name)
{
  return g_build_filename (bag_dir, name, NULL);
}

/* Runs make_bags.py with the first python that has rosbag; exits with
 * TEST_EXIT_SKIP, saying why, when none has. */
static void
make_bags (void)
{
  const gchar *script = g_getenv ("ROBOCACHE_MAKE_BAGS");
  const gchar *pythons[] = { "/usr/bin/python3", "python3" };
  GError *error = NULL;

  if (!script) {
    g_print ("SKIP: ROBOCACHE_MAKE_BAGS is not set (run through meson "
        "test)\n");
    exit (TEST_EXIT_SKIP);
  }
  for (guint i = 0; i < G_N_ELEMENTS (pythons); i++) {
    const gchar *check[] = { pythons[i], "-c",
      "import rosbag, sensor_msgs.msg", NULL
    };
    const gchar *run[] = { pythons[i], script, NULL, NULL };
    gint status = -1;
    gchar *err_out = NULL;

    if (!g_spawn_sync (NULL, (gchar **) check, NULL, G_SPAWN_SEARCH_PATH |
            G_SPAWN_STDERR_TO_DEV_NULL, NULL, NULL, NULL, NULL, &status, NULL)
        || !g_spawn_check_wait_status (status, NULL))
      continue;
    bag_dir = g_dir_make_tmp ("robocache-bags-XXXXXX", &error);
    g_assert_no_error (error);
    run[2] = bag_dir;
    if (!g_spawn_sync (NULL, (gchar **) run, NULL, G_SPAWN_SEARCH_PATH, NULL,
            NULL, NULL, &err_out, &status, &error) ||
        !g_spawn_check_wait_status (status, &error)) {
      g_printerr ("make_bags.py failed: %s\n%s\n", error->message,
          err_out ? err_out : "");
      exit (1);
    }
    g_free (err_out);
    return;
  }
  g_print ("SKIP: no python3 with rosbag and sensor_msgs (Debian: "
      "python3-rosbag python3-sensor-msgs, installed by tests/run.sh)\n");
  exit (TEST_EXIT_SKIP);
}

static void
remove_bags (void)
{
  test_remove_tree (bag_dir);
  g_free (bag_dir);
}

/* bagsrc with @n_pads pads, each through a queue into appsink s<N>. */
static GstElement *
bag_pipeline (const gchar * file, const gchar * props, guint n_pads)
{
  gchar *path = bag_path (file);
  GString *desc = g_string_new (NULL);
  GstElement *pipeline;
  GError *error = NULL;

  g_string_append_printf (desc, "robocachebagsrc name=b location=\"%s\" %s",
      path, props ? props : "");
  for (guint i = 0; i < n_pads; i++)
    g_string_append_printf (desc, " b.src_%u ! queue ! appsink name=s%u "
        "sync=false", i, i);
  pipeline = gst_parse_launch (desc->str, &error);
  g_assert_no_error (error);
  g_string_free (desc, TRUE);
  g_free (path);
  return pipeline;
}

static GstElement *
sink_of (GstElement * pipeline, guint i)
{
  gchar *name = g_strdup_printf ("s%u", i);
  GstElement *s = gst_bin_get_by_name (GST_BIN (pipeline), name);

  g_free (name);
  fail_unless (s != NULL);
  gst_object_unref (s);         /* the pipeline keeps it */
  return s;
}

/* Pulls every sample of every sink to EOS (the pipeline must be going to
 * PLAYING); fails on an error message.  The texts of the warnings, if any,
 * go to @warning (may be NULL), one a line, and the robocache-recovered
 * element message to @recovered (may be NULL). */
static GPtrArray **
pull_all_full (GstElement * pipeline, guint n_pads, gchar ** warning,
    GstStructure ** recovered)
{
  GPtrArray **out = g_new0 (GPtrArray *, n_pads);
  GstBus *bus = gst_element_get_bus (pipeline);
  GstMessage *msg;

  for (guint i = 0; i < n_pads; i++) {
    GstSample *sample;
    out[i] = g_ptr_array_new_with_free_func ((GDestroyNotify)
        gst_sample_unref);
    while ((sample = gst_app_sink_try_pull_sample (GST_APP_SINK (sink_of
                    (pipeline, i)), 20 * GST_SECOND)))
      g_ptr_array_add (out[i], sample);
    fail_unless (gst_app_sink_is_eos (GST_APP_SINK (sink_of (pipeline, i))),
        "no EOS on s%u", i);
  }
  while ((msg = gst_bus_pop_filtered (bus, GST_MESSAGE_ERROR |
              GST_MESSAGE_WARNING | GST_MESSAGE_ELEMENT))) {
    GError *err;

    if (GST_MESSAGE_TYPE (msg) == GST_MESSAGE_ELEMENT) {
      const GstStructure *s = gst_message_get_structure (msg);

      if (recovered && gst_structure_has_name (s, "robocache-recovered"))
        *recovered = gst_structure_copy (s);
      gst_message_unref (msg);
      continue;
    }
    if (GST_MESSAGE_TYPE (msg) == GST_MESSAGE_ERROR) {
      gst_message_parse_error (msg, &err, NULL);
      fail ("error: %s", err->message);
    }
    gst_message_parse_warning (msg, &err, NULL);
    if (warning) {
      gchar *all = g_strconcat (*warning ? *warning : "", err->message, "\n",
          NULL);

      g_free (*warning);
      *warning = all;
    }
    g_error_free (err);
    gst_message_unref (msg);
  }
  gst_object_unref (bus);
  return out;
}

static GPtrArray **
pull_all_warning (GstElement * pipeline, guint n_pads, gchar ** warning)
{
  return pull_all_full (pipeline, n_pads, warning, NULL);
}

static GPtrArray **
pull_all (GstElement * pipeline, guint n_pads)
{
  return pull_all_warning (pipeline, n_pads, NULL);
}

static void
free_samples (GPtrArray ** samples, guint n_pads)
{
  for (guint i = 0; i < n_pads; i++)
    g_ptr_array_unref (samples[i]);
  g_free (samples);
}

static const GstStructure *
sample_structure (GstSample * sample)
{
  return gst_caps_get_structure (gst_sample_get_caps (sample), 0);
}

static void
check_points (GPtrArray * samples, gboolean ring, GstClockTime offset, guint n)
{
  fail_unless_equals_int (samples->len, n);
  for (guint i = 0; i < samples->len; i++) {
    GstSample *sample = g_ptr_array_index (samples, i);
    GstBuffer *buf = gst_sample_get_buffer (sample);
    const GstStructure *s = sample_structure (sample);
    gint step = 0;
    GstMapInfo map;

    fail_unless (gst_structure_has_name (s, GST_ROBOCACHE_POINTS_MEDIA_TYPE));
    fail_unless (gst_structure_get_int (s, "point-step", &step));
    fail_unless_equals_int (step, ring ? 32 : 16);
    fail_unless_equals_string (gst_structure_get_string (s, "fields"),
        ring ? GST_ROBOCACHE_FIELDS_XYZI ",ring:uint16:16,time:float32:20" :
        GST_ROBOCACHE_FIELDS_XYZI);
    fail_unless_equals_uint64 (GST_BUFFER_PTS (buf), i * STEP + offset);
    fail_unless (gst_buffer_map (buf, &map, GST_MAP_READ));
    fail_unless_equals_int (map.size, 5 * step);
    for (guint k = 0; k < 5; k++) {
      const guint8 *p = map.data + k * step;
      float f[4];
      memcpy (f, p, sizeof (f));
      fail_unless (f[0] == i && f[1] == k && f[2] == 0.5f &&
          f[3] == 10 * i + k, "message %u point %u: %f %f %f %f", i, k,
          f[0], f[1], f[2], f[3]);
      if (ring) {
        guint16 r;
        float t;
        memcpy (&r, p + 16, 2);
        memcpy (&t, p + 20, 4);
        fail_unless_equals_int (r, k);
        fail_unless (t == (float) (k / 1000.0));
      }
    }
    gst_buffer_unmap (buf, &map);
  }
}

static void
check_joints (GPtrArray * samples, GstClockTime offset, guint n)
{
  fail_unless_equals_int (samples->len, n);
  for (guint i = 0; i < samples->len; i++) {
    GstSample *sample = g_ptr_array_index (samples, i);
    GstBuffer *buf = gst_sample_get_buffer (sample);
    const GstStructure *s = sample_structure (sample);
    gint channels = 0;
    gdouble v[6];

    fail_unless (gst_structure_has_name (s, GST_ROBOCACHE_VECTORS_MEDIA_TYPE));
    fail_unless (gst_structure_get_int (s, "channels", &channels));
    fail_unless_equals_int (channels, 6);
    fail_unless_equals_string (gst_structure_get_string (s, "format"),
        "float64");
    fail_unless_equals_string (gst_structure_get_string (s, "layout"),
        "sample");
    fail_unless_equals_string (gst_structure_get_string (s, "names"),
        "j0,j1,j2,j0.velocity,j1.velocity,j2.velocity");
    fail_unless_equals_uint64 (GST_BUFFER_PTS (buf), i * STEP + offset);
    fail_unless_equals_int (gst_buffer_get_size (buf), sizeof (v));
    gst_buffer_extract (buf, 0, v, sizeof (v));
    for (guint j = 0; j < 3; j++) {
      fail_unless (v[j] == i + j / 10.0);
      fail_unless (v[3 + j] == -(gdouble) j);
    }
  }
}

static void
check_image (GPtrArray * samples, gboolean rgb, GstClockTime offset, guint n)
{
  fail_unless_equals_int (samples->len, n);
  for (guint i = 0; i < samples->len; i++) {
    GstSample *sample = g_ptr_array_index (samples, i);
    GstBuffer *buf = gst_sample_get_buffer (sample);
    GstVideoInfo info;
    GstMapInfo map;

    fail_unless (gst_video_info_from_caps (&info,
            gst_sample_get_caps (sample)));
    fail_unless_equals_int (GST_VIDEO_INFO_FORMAT (&info), rgb ?
        GST_VIDEO_FORMAT_RGB : GST_VIDEO_FORMAT_GRAY16_LE);
    fail_unless_equals_int (GST_VIDEO_INFO_WIDTH (&info), 4);
    fail_unless_equals_int (GST_VIDEO_INFO_HEIGHT (&info), 2);
    fail_unless_equals_uint64 (GST_BUFFER_PTS (buf), i * STEP + offset);
    fail_unless (gst_buffer_map (buf, &map, GST_MAP_READ));
    for (guint b = 0; b < (rgb ? 24u : 8u); b++) {
      if (rgb) {
        fail_unless_equals_int (map.data[b], (i + b) % 256);
      } else {
        guint16 px = map.data[2 * b] | (map.data[2 * b + 1] << 8);
        fail_unless_equals_int (px, 100 * i + b);
      }
    }
    gst_buffer_unmap (buf, &map);
  }
}

#define ALL_TOPICS "topics=/velodyne_points,/points_ring,/joint_states," \
    "/camera/rgb,/camera/depth"

static void
play_and_check (const gchar * file, gboolean record)
{
  GstElement *p = bag_pipeline (file, record ? ALL_TOPICS
      " timestamps=record" : ALL_TOPICS, 5);
  GPtrArray **samples;
  /* make_bags.py records topic line L at stamp + 20 ms + 5 ms L; record
   * times count from the first record (line 0). */
  GstClockTime line = record ? 5 * GST_MSECOND : 0;

  gst_element_set_state (p, GST_STATE_PLAYING);
  samples = pull_all (p, 5);
  check_points (samples[0], FALSE, 0, N_MSGS);
  check_points (samples[1], TRUE, line, N_MSGS);
  check_joints (samples[2], 2 * line, N_MSGS);
  check_image (samples[3], TRUE, 3 * line, N_MSGS);
  check_image (samples[4], FALSE, 4 * line, N_MSGS);
  free_samples (samples, 5);
  gst_element_set_state (p, GST_STATE_NULL);
  gst_object_unref (p);
}

GST_START_TEST (test_uncompressed)
{
  play_and_check ("all-none.bag", FALSE);
}

GST_END_TEST;

/* A recording that rosbag split in two (a folder of split_0.bag and
 * split_1.bag): played from its folder as one. */
GST_START_TEST (test_split)
{
  play_and_check ("split", FALSE);
}

GST_END_TEST;

GST_START_TEST (test_bz2)
{
  play_and_check ("all-bz2.bag", FALSE);
}

GST_END_TEST;

GST_START_TEST (test_lz4)
{
  play_and_check ("all-lz4.bag", FALSE);
}

GST_END_TEST;

GST_START_TEST (test_record_timestamps)
{
  play_and_check ("all-lz4.bag", TRUE);
}

GST_END_TEST;

/* No topics: every supported one in name order, the String topic skipped
 * with a warning. */
GST_START_TEST (test_default_topics)
{
  GstElement *p = bag_pipeline ("all-none.bag", NULL, 5);
  GstElement *b = gst_bin_get_by_name (GST_BIN (p), "b");
  GPtrArray **samples;
  gchar *warning = NULL;

  gst_element_set_state (p, GST_STATE_PLAYING);
  samples = pull_all_warning (p, 5, &warning);
  check_image (samples[0], FALSE, 0, N_MSGS);   /* /camera/depth */
  check_image (samples[1], TRUE, 0, N_MSGS);    /* /camera/rgb */
  check_joints (samples[2], 0, N_MSGS);
  check_points (samples[3], TRUE, 0, N_MSGS);   /* /points_ring */
  check_points (samples[4], FALSE, 0, N_MSGS);  /* /velodyne_points */
  free_samples (samples, 5);
  fail_unless (warning && strstr (warning, "/rosout_text") != NULL, "%s",
      warning);
  g_free (warning);
  fail_unless_equals_int (b->numsrcpads, 5);
  {
    /* The last pad's title tag and stream-id name its topic. */
    GstPad *pad = gst_element_get_static_pad (b, "src_4");
    GstEvent *ev = gst_pad_get_sticky_event (pad, GST_EVENT_TAG, 0);
    GstTagList *tags;
    gchar *title = NULL;

    fail_unless (ev != NULL);
    gst_event_parse_tag (ev, &tags);
    fail_unless (gst_tag_list_get_string (tags, GST_TAG_TITLE, &title));
    fail_unless_equals_string (title, "/velodyne_points");
    g_free (title);
    gst_event_unref (ev);
    title = gst_pad_get_stream_id (pad);
    fail_unless (g_str_has_suffix (title, "/velodyne_points"), "%s", title);
    g_free (title);
    gst_object_unref (pad);
  }
  gst_object_unref (b);
  gst_element_set_state (p, GST_STATE_NULL);
  gst_object_unref (p);
}

GST_END_TEST;

/* A flush seek to the middle: every pad restarts at the first message at
 * or after the target. */
GST_START_TEST (test_seek)
{
  GstElement *p = bag_pipeline ("big-none.bag",
      "topics=/velodyne_points,/joint_states", 2);
  GPtrArray **samples;
  gint64 dur = 0;

  fail_unless_equals_int (gst_element_set_state (p, GST_STATE_PAUSED),
      GST_STATE_CHANGE_ASYNC);
  fail_unless_equals_int (gst_element_get_state (p, NULL, NULL,
          GST_CLOCK_TIME_NONE), GST_STATE_CHANGE_SUCCESS);
  fail_unless (gst_element_query_duration (p, GST_FORMAT_TIME, &dur));
  fail_unless (dur >= (gint64) (99 * STEP));
  fail_unless (gst_element_seek_simple (p, GST_FORMAT_TIME,
          GST_SEEK_FLAG_FLUSH, 5 * GST_SECOND + 50 * GST_MSECOND));
  fail_unless_equals_int (gst_element_get_state (p, NULL, NULL,
          GST_CLOCK_TIME_NONE), GST_STATE_CHANGE_SUCCESS);
  gst_element_set_state (p, GST_STATE_PLAYING);
  samples = pull_all (p, 2);
  for (guint s = 0; s < 2; s++) {
    GstSample *head = g_ptr_array_index (samples[s], 0);
    const GstSegment *seg = gst_sample_get_segment (head);

    fail_unless_equals_int (samples[s]->len, 49);
    fail_unless_equals_uint64 (GST_BUFFER_PTS (gst_sample_get_buffer
            (head)), 51 * STEP);
    fail_unless_equals_uint64 (seg->start, 5 * GST_SECOND + 50 * GST_MSECOND);
  }
  free_samples (samples, 2);

  /* An exact message time gives that message. */
  gst_element_set_state (p, GST_STATE_PAUSED);
  gst_element_get_state (p, NULL, NULL, GST_CLOCK_TIME_NONE);
  fail_unless (gst_element_seek_simple (p, GST_FORMAT_TIME,
          GST_SEEK_FLAG_FLUSH, 2 * GST_SECOND));
  gst_element_get_state (p, NULL, NULL, GST_CLOCK_TIME_NONE);
  gst_element_set_state (p, GST_STATE_PLAYING);
  samples = pull_all (p, 2);
  fail_unless_equals_int (samples[0]->len, 80);
  fail_unless_equals_uint64 (GST_BUFFER_PTS (gst_sample_get_buffer
          (g_ptr_array_index (samples[0], 0))), 2 * GST_SECOND);
  free_samples (samples, 2);
  gst_element_set_state (p, GST_STATE_NULL);
  gst_object_unref (p);
}

GST_END_TEST;

/* What plays is settled at start: location, topics and timestamps set
 * while playing are refused with a warning, and the bag plays on as it
 * began, its 10 sweeps to EOS; stopped, the element takes them. */
GST_START_TEST (test_properties_refused_while_playing)
{
  GstElement *p = bag_pipeline ("all-none.bag", "topics=/velodyne_points",
      1);
  GstElement *b = by_name (p, "b");
  gchar *other = bag_path ("all-lz4.bag");
  GstSample *first;
  GPtrArray **samples;

  gst_element_set_state (p, GST_STATE_PLAYING);
  first = gst_app_sink_try_pull_sample (GST_APP_SINK (sink_of (p, 0)),
      20 * GST_SECOND);
  fail_unless (first != NULL);
  gst_sample_unref (first);
  check_set_refused (G_OBJECT (b), "location", other);
  check_set_refused (G_OBJECT (b), "topics", "/joint_states");
  check_set_refused (G_OBJECT (b), "timestamps", "record");
  samples = pull_all (p, 1);
  fail_unless_equals_int (samples[0]->len + 1, N_MSGS);
  free_samples (samples, 1);
  gst_element_set_state (p, GST_STATE_NULL);
  check_set_taken (G_OBJECT (b), "location", other);
  check_set_taken (G_OBJECT (b), "topics", "/joint_states");
  g_free (other);
  gst_object_unref (p);
}

GST_END_TEST;

/* The documented pipeline (docs/recording.md), and all three message
 * types through robocachefuse. */
GST_START_TEST (test_voxelize_and_fuse)
{
  const gchar *descs[] = {
    "robocachebagsrc location=\"%s\" topics=/velodyne_points,/joint_states "
        "name=b  b.src_0 ! robocachevoxelize backend=cpu ! f.sink_0  "
        "b.src_1 ! f.sink_1  robocachefuse name=f rate=10/1 ! "
        "appsink name=out sync=false",
    "robocachebagsrc location=\"%s\" topics=/velodyne_points,/joint_states,"
        "/camera/rgb name=b  b.src_0 ! robocachevoxelize backend=cpu ! "
        "f.sink_0  b.src_1 ! f.sink_1  b.src_2 ! f.sink_2  "
        "robocachefuse name=f rate=10/1 ! appsink name=out sync=false",
  };

  for (guint d = 0; d < G_N_ELEMENTS (descs); d++) {
    gchar *path = bag_path ("all-bz2.bag");
    gchar *desc = g_strdup_printf (descs[d], path);
    GError *error = NULL;
    GstElement *p = gst_parse_launch (desc, &error);
    GstElement *out;
    GstSample *sample;
    guint frames = 0;

    g_assert_no_error (error);
    out = gst_bin_get_by_name (GST_BIN (p), "out");
    gst_element_set_state (p, GST_STATE_PLAYING);
    while ((sample = gst_app_sink_try_pull_sample (GST_APP_SINK (out),
                20 * GST_SECOND))) {
      GstBuffer *buf = gst_sample_get_buffer (sample);
      GstRobocacheFusedMeta *meta = gst_buffer_get_robocache_fused_meta (buf);

      fail_unless (meta != NULL);
      fail_unless_equals_int (meta->n_streams, d == 0 ? 2 : 3);
      frames++;
      gst_sample_unref (sample);
    }
    fail_unless (gst_app_sink_is_eos (GST_APP_SINK (out)));
    fail_unless (frames >= N_MSGS - 1, "%u frames", frames);
    gst_element_set_state (p, GST_STATE_NULL);
    gst_object_unref (out);
    gst_object_unref (p);
    g_free (desc);
    g_free (path);
  }
}

GST_END_TEST;

/* The number of (possibly overlapping) occurrences of @needle in @text. */
static guint
count_substrings (const gchar * text, const gchar * needle)
{
  guint n = 0;

  for (const gchar * p = text; (p = strstr (p, needle)); p++)
    n++;
  return n;
}

static guint64
stats_counter (GstElement * pipeline, const gchar * name)
{
  GstElement *b = gst_bin_get_by_name (GST_BIN (pipeline), "b");
  GstStructure *stats = NULL;
  guint64 v = G_MAXUINT64;

  g_object_get (b, "stats", &stats, NULL);
  fail_unless (stats != NULL);
  fail_unless (gst_structure_get_uint64 (stats, name, &v), "no %s", name);
  gst_structure_free (stats);
  gst_object_unref (b);
  return v;
}

/* make_bags.py's bad-points.bag: per topic (in name order) the field the
 * warning names.  Messages 0 and 2 are skipped, message 1 is played. */
GST_START_TEST (test_bad_point_fields)
{
  const gchar *topics[] = { "/bad/bigendian", "/bad/count", "/bad/count0",
    "/bad/datatype", "/bad/no_z", "/bad/offset", "/bad/overlap",
    "/bad/same_name", "/bad/step1"
  };
  const gchar *fields[] = { "big-endian", "\"intensity\"", "\"intensity\"",
    "\"x\"", "no field z", "\"intensity\"", "\"x\"", "named \"x\"",
    "\"x\""
  };
  guint n = G_N_ELEMENTS (topics);
  GstElement *p = bag_pipeline ("bad-points.bag", NULL, n);
  gchar *warnings = NULL, **lines;
  GPtrArray **samples;

  gst_element_set_state (p, GST_STATE_PLAYING);
  samples = pull_all_warning (p, n, &warnings);
  fail_unless (warnings != NULL);
  lines = g_strsplit (warnings, "\n", -1);
  for (guint t = 0; t < n; t++) {
    gchar *prefix = g_strconcat (topics[t], ": ", NULL);
    GstSample *sample;
    gboolean named = FALSE;

    fail_unless_equals_int (samples[t]->len, 1);
    sample = g_ptr_array_index (samples[t], 0);
    fail_unless_equals_string (gst_structure_get_string (sample_structure
            (sample), "fields"), GST_ROBOCACHE_FIELDS_XYZI);
    fail_unless_equals_uint64 (GST_BUFFER_PTS (gst_sample_get_buffer
            (sample)), STEP);
    /* Once per topic, naming the field. */
    fail_unless_equals_int (count_substrings (warnings, prefix), 1);
    for (gchar ** l = lines; *l; l++)
      named |= g_str_has_prefix (*l, prefix) && strstr (*l, fields[t]);
    fail_unless (named, "%s: %s", topics[t], warnings);
    g_free (prefix);
  }
  GST_INFO ("warnings:\n%s", warnings);
  /* The big-endian cloud is well laid out, but not supported. */
  fail_unless_equals_uint64 (stats_counter (p, "skipped-point-layout"),
      2 * (n - 1));
  fail_unless_equals_uint64 (stats_counter (p, "skipped-unsupported"), 2);
  g_strfreev (lines);
  g_free (warnings);
  free_samples (samples, n);
  gst_element_set_state (p, GST_STATE_NULL);
  gst_object_unref (p);
}

GST_END_TEST;

/* make_bags.py's bad-joints.bag: a JointState without one position per
 * name, and one of more than 65535 values, are skipped, counted and
 * warned about once a topic, saying what is accepted; the good message
 * between them plays. */
GST_START_TEST (test_bad_joint_states)
{
  const gchar *topics[] = { "/bad/many", "/bad/positions" };
  const gchar *says[] = { "90000 values", "3 names and 2 positions" };
  GstElement *p = bag_pipeline ("bad-joints.bag", NULL, 2);
  gchar *warnings = NULL;
  GPtrArray **samples;

  gst_element_set_state (p, GST_STATE_PLAYING);
  samples = pull_all_warning (p, 2, &warnings);
  fail_unless (warnings != NULL);
  for (guint t = 0; t < 2; t++) {
    gchar *prefix = g_strconcat (topics[t], ": ", NULL);
    GstBuffer *buf;
    gdouble v[6];

    fail_unless_equals_int (samples[t]->len, 1);
    buf = gst_sample_get_buffer (g_ptr_array_index (samples[t], 0));
    fail_unless_equals_uint64 (GST_BUFFER_PTS (buf), STEP);
    fail_unless_equals_int (gst_buffer_get_size (buf), sizeof (v));
    gst_buffer_extract (buf, 0, v, sizeof (v));
    for (guint j = 0; j < 3; j++)
      fail_unless (v[j] == 1 + j / 10.0 && v[3 + j] == -(gdouble) j);
    fail_unless_equals_int (count_substrings (warnings, prefix), 1);
    fail_unless (strstr (warnings, says[t]), "%s", warnings);
    g_free (prefix);
  }
  fail_unless_equals_uint64 (stats_counter (p, "skipped-unsupported"), 4);
  g_free (warnings);
  free_samples (samples, 2);
  gst_element_set_state (p, GST_STATE_NULL);
  gst_object_unref (p);
}

GST_END_TEST;

/* A skipped cloud never reaches voxelize: it plays the good one to EOS. */
GST_START_TEST (test_bad_point_fields_voxelize)
{
  gchar *path = bag_path ("bad-points.bag");
  gchar *desc = g_strdup_printf ("robocachebagsrc location=\"%s\" "
      "topics=/bad/overlap ! robocachevoxelize backend=cpu ! fakesink", path);
  GstElement *p = gst_parse_launch (desc, NULL);
  GstMessage *msg = run_to_end_or (p, 20 * GST_SECOND, 0);
  GError *err = NULL;

  if (msg)
    gst_message_parse_error (msg, &err, NULL);
  fail_unless (msg == NULL, "%s", err ? err->message : "");
  gst_object_unref (p);
  g_free (desc);
  g_free (path);
}

GST_END_TEST;

/* make_bags.py's odd-points.bag: PCL's padding fields "_" are passed
 * over, and a descriptor of 100 values makes 104 fields, which voxelize
 * reads as any other layout. */
GST_START_TEST (test_odd_point_fields)
{
  const gchar *pcl_fields = "x:float32:0,y:float32:4,z:float32:8,"
      "normal_x:float32:16,normal_y:float32:20,normal_z:float32:24,"
      "curvature:float32:32";
  const guint pcl_offsets[] = { 0, 4, 8, 16, 20, 24, 32 };
  GstElement *p = bag_pipeline ("odd-points.bag",
      "topics=/points/pcl,/points/descriptor", 2);
  gchar *warnings = NULL, *desc, *path;
  GPtrArray **samples;
  GstMessage *msg;

  gst_element_set_state (p, GST_STATE_PLAYING);
  samples = pull_all_warning (p, 2, &warnings);
  fail_unless (warnings == NULL, "%s", warnings);
  fail_unless_equals_int (samples[0]->len, N_MSGS);
  fail_unless_equals_int (samples[1]->len, N_MSGS);
  for (guint i = 0; i < N_MSGS; i++) {
    GstSample *pcl = g_ptr_array_index (samples[0], i);
    GstSample *d = g_ptr_array_index (samples[1], i);
    const gchar *fields = gst_structure_get_string (sample_structure (d),
        "fields");
    gchar **names = g_strsplit (fields, ",", -1);
    GstMapInfo map;

    fail_unless_equals_string (gst_structure_get_string (sample_structure
            (pcl), "fields"), pcl_fields);
    fail_unless (gst_buffer_map (gst_sample_get_buffer (pcl), &map,
            GST_MAP_READ));
    fail_unless_equals_int (map.size, 3 * 48);
    for (guint k = 0; k < 3; k++) {
      for (guint f = 0; f < G_N_ELEMENTS (pcl_offsets); f++) {
        float v;

        memcpy (&v, map.data + 48 * k + pcl_offsets[f], sizeof (v));
        fail_unless (v == (float) (i + k / 10.0 + f), "%u %u %u: %f", i, k,
            f, v);
      }
      fail_unless_equals_int (map.data[48 * k + 12], 0x55);
    }
    gst_buffer_unmap (gst_sample_get_buffer (pcl), &map);

    fail_unless_equals_int (g_strv_length (names), 104);
    fail_unless_equals_string (names[4], "desc_0:uint8:16");
    fail_unless_equals_string (names[103], "desc_99:uint8:115");
    fail_unless (gst_buffer_map (gst_sample_get_buffer (d), &map,
            GST_MAP_READ));
    fail_unless_equals_int (map.size, 5 * 116);
    for (guint k = 0; k < 5; k++) {
      for (guint b = 0; b < 100; b++)
        fail_unless_equals_int (map.data[116 * k + 16 + b], (i + k + b) % 256);
    }
    gst_buffer_unmap (gst_sample_get_buffer (d), &map);
    g_strfreev (names);
  }
  free_samples (samples, 2);
  gst_element_set_state (p, GST_STATE_NULL);
  gst_object_unref (p);

  /* Both into voxelize, averaging a field of each. */
  path = bag_path ("odd-points.bag");
  desc = g_strdup_printf ("robocachebagsrc name=b location=\"%s\" "
      "topics=/points/pcl,/points/descriptor "
      "b.src_0 ! queue ! robocachevoxelize backend=cpu mode=mean "
      "features=curvature ! fakesink "
      "b.src_1 ! queue ! robocachevoxelize backend=cpu mode=mean "
      "features=desc_99 ! fakesink", path);
  p = gst_parse_launch (desc, NULL);
  msg = run_to_end_or (p, 20 * GST_SECOND, 0);
  if (msg) {
    GError *err = NULL;

    gst_message_parse_error (msg, &err, NULL);
    fail ("%s", err->message);
  }
  gst_object_unref (p);
  g_free (desc);
  g_free (path);
}

GST_END_TEST;

/* ------------------------------------------------------------------ */
/* Broken bags                                                         */
/* ------------------------------------------------------------------ */

static guint8 *
read_bag (const gchar * file, gsize * size)
{
  gchar *path = bag_path (file);
  gchar *data = NULL;

  fail_unless (g_file_get_contents (path, &data, size, NULL));
  g_free (path);
  return (guint8 *) data;
}

/* Plays @data (written as bad.bag) through all five topics; returns the
 * error message text (the test fails on EOS). */
static gchar *
play_bad (const guint8 * data, gsize size, const gchar * props)
{
  gchar *path = bag_path ("bad.bag");
  GstElement *p;
  GstMessage *msg;
  GError *err = NULL;
  gchar *text;

  fail_unless (g_file_set_contents (path, (const gchar *) data, size, NULL));
  p = bag_pipeline ("bad.bag", props ? props : ALL_TOPICS, 5);
  msg = run_to_end (p, 20 * GST_SECOND);
  fail_unless (msg != NULL, "no error from a broken bag");
  gst_message_parse_error (msg, &err, NULL);
  text = g_strdup (err->message);
  GST_INFO ("error: %s", text);
  g_error_free (err);
  gst_message_unref (msg);
  gst_object_unref (p);
  g_unlink (path);
  g_free (path);
  return text;
}

/* Offset of @needle in @data, failing the test if absent. */
static gsize
find_bytes (const guint8 * data, gsize size, const gchar * needle, gsize len)
{
  for (gsize i = 0; i + len <= size; i++) {
    if (!memcmp (data + i, needle, len))
      return i;
  }
  fail ("\"%s\" not found", needle);
  return 0;
}

/* Plays @file (all five topics) to EOS; the samples of each pad into
 * @samples, and the robocache-recovered message, whose message count
 * must be what played and whose warning must have been posted. */
static GstStructure *
play_recovered (const gchar * file, GPtrArray *** samples)
{
  GstElement *p = bag_pipeline (file, ALL_TOPICS, 5);
  gchar *warning = NULL;
  GstStructure *s = NULL;
  guint64 n = 0;
  guint played = 0;

  gst_element_set_state (p, GST_STATE_PLAYING);
  *samples = pull_all_full (p, 5, &warning, &s);
  fail_unless (s != NULL, "%s: no robocache-recovered message", file);
  gst_element_set_state (p, GST_STATE_NULL);
  gst_object_unref (p);
  fail_unless (gst_structure_get_uint64 (s, "messages", &n));
  for (guint i = 0; i < 5; i++)
    played += (*samples)[i]->len;
  /* /rosout_text is not played: 1 message in 6. */
  fail_unless (played <= n && n <= played + (played + 4) / 5, "%u played of "
      "%" G_GUINT64_FORMAT " recovered", played, n);
  fail_unless_equals_string (gst_structure_get_string (s, "format"), "ROS bag");
  fail_unless (warning && strstr (warning, "messages recovered: "),
      "%s", warning);
  g_free (warning);
  return s;
}

/* What a killed rosbag writer leaves (make_bags.py's killed-*.bag:
 * index_pos 0, the last chunk open): uncompressed, the 33 messages
 * written, byte for byte; compressed, those of the closed chunks. */
GST_START_TEST (test_recovered_killed)
{
  const gchar *files[] = { "killed-none.bag", "killed-bz2.bag",
    "killed-lz4.bag"
  };

  for (guint f = 0; f < G_N_ELEMENTS (files); f++) {
    GPtrArray **samples;
    GstStructure *s = play_recovered (files[f], &samples);
    gchar *path = bag_path (files[f]);
    GStatBuf st;
    guint64 n = 0, end = 0, size = 0;

    fail_unless (g_stat (path, &st) == 0);
    fail_unless (gst_structure_get_uint64 (s, "messages", &n));
    fail_unless (gst_structure_get_uint64 (s, "end-offset", &end));
    fail_unless (gst_structure_get_uint64 (s, "file-size", &size));
    fail_unless_equals_uint64 (size, st.st_size);
    fail_unless (strstr (gst_structure_get_string (s, "reason"),
            "index_pos 0") != NULL);
    if (f == 0) {
      /* Messages 0 to 4 of the six topics, then 5 of the first three;
       * the file ends after the last whole record. */
      fail_unless_equals_uint64 (n, 33);
      fail_unless_equals_uint64 (end, size);
      check_points (samples[0], FALSE, 0, 6);
      check_points (samples[1], TRUE, 0, 6);
      check_joints (samples[2], 0, 6);
      check_image (samples[3], TRUE, 0, 5);
      check_image (samples[4], FALSE, 0, 5);
    } else {
      fail_unless (n > 0 && n < 33, "%" G_GUINT64_FORMAT " recovered", n);
      fail_unless (end < size);
    }
    free_samples (samples, 5);
    gst_structure_free (s);
    g_free (path);
  }
}

GST_END_TEST;

/* A killed `rosbag record --split` leaves its finished splits and the
 * one it was writing, still named .bag.active: the folder plays them all,
 * the last recovered (was: "no recording files" for a folder of the
 * .active alone; beside finished splits, left out without a word). */
GST_START_TEST (test_recovered_active)
{
  gchar *dir = bag_path ("active"), *from = bag_path ("killed-none.bag");
  gchar *to = g_build_filename (dir, "run_0.bag.active", NULL), *data;
  GPtrArray **samples;
  GstStructure *s;
  guint64 n = 0;
  gsize size;

  g_mkdir (dir, 0755);
  fail_unless (g_file_get_contents (from, &data, &size, NULL));
  fail_unless (g_file_set_contents (to, data, size, NULL));
  s = play_recovered ("active", &samples);
  fail_unless (gst_structure_get_uint64 (s, "messages", &n));
  fail_unless_equals_uint64 (n, 33);
  check_points (samples[0], FALSE, 0, 6);
  check_joints (samples[2], 0, 6);
  free_samples (samples, 5);
  gst_structure_free (s);
  g_free (data);
  g_free (to);
  g_free (from);
  g_free (dir);
}

GST_END_TEST;

/* A bag cut inside its bag header is an error; cut after, what is whole
 * before the cut plays (tests/formats/reader.c checks every offset; here,
 * cuts late enough that each topic has a message). */
GST_START_TEST (test_truncated)
{
  const gchar *files[] = { "all-none.bag", "all-bz2.bag", "all-lz4.bag" };

  for (guint f = 0; f < G_N_ELEMENTS (files); f++) {
    gsize size;
    guint8 *data = read_bag (files[f], &size);
    gsize cuts[] = { 0, 5, 13, 20, 100, 4116, size / 2, 3 * size / 4,
      size - 100, size - 1
    };

    for (guint c = 0; c < G_N_ELEMENTS (cuts); c++) {
      gchar *path = bag_path ("cut.bag");
      GPtrArray **samples;

      if (cuts[c] <= 4116) {
        g_free (play_bad (data, cuts[c], NULL));
        g_free (path);
        continue;
      }
      fail_unless (g_file_set_contents (path, (const gchar *) data, cuts[c],
              NULL));
      g_free (path);
      gst_structure_free (play_recovered ("cut.bag", &samples));
      for (guint i = 0; i < 5; i++)
        fail_unless (samples[i]->len > 0 && samples[i]->len <= N_MSGS,
            "cut at %" G_GSIZE_FORMAT ": %u messages on pad %u", cuts[c],
            samples[i]->len, i);
      free_samples (samples, 5);
    }
    g_free (data);
  }
}

GST_END_TEST;

/* A bag cut inside its first chunk, before any message: the error names
 * the missing topic, or that none is left, and that the file ends early
 * (the warning that says so is lost where the error stops gst-launch). */
GST_START_TEST (test_cut_before_messages_n)
{
  const gchar *files[] = { "all-none.bag", "all-bz2.bag", "all-lz4.bag" };

  for (guint f = 0; f < G_N_ELEMENTS (files); f++) {
    gsize size;
    guint8 *data = read_bag (files[f], &size);
    gchar *text = play_bad (data, 4200, NULL);

    fail_unless (strstr (text, "topic /velodyne_points is not in") &&
        strstr (text, "ends early"), "%s: %s", files[f], text);
    g_free (text);
    text = play_bad (data, 4200, "");
    fail_unless (strstr (text, "has no topic to play") &&
        strstr (text, "ends early"), "%s: %s", files[f], text);
    g_free (text);
    if (f == 0) {
      /* Cut after /velodyne_points' connection record, before its first
       * message (the record after it, whose header starts with its op
       * field, 8 bytes into the record): known, but none of it there. */
      gsize conn = find_bytes (data, size, "topic=/velodyne_points", 22);
      gsize message = conn + find_bytes (data + conn, size - conn,
          "op=\002", 4);

      text = play_bad (data, message - 8, NULL);
      fail_unless (strstr (text, "topic /velodyne_points is not in") &&
          strstr (text, "no message of it") && strstr (text, "ends early"),
          "%s", text);
      g_free (text);
    }
    /* Whole, neither says so. */
    text = play_bad (data, size, "topics=/nothing");
    fail_unless (strstr (text, "ends early") == NULL, "%s", text);
    g_free (text);
    g_free (data);
  }
}

GST_END_TEST;

GST_START_TEST (test_corrupt_chunk_n)
{
  const gchar *files[] = { "all-bz2.bag", "all-lz4.bag" };
  /* The compressed data begins with the stream magic. */
  const gchar *magic[] = { "BZh", "\x04\x22\x4d\x18" };

  for (guint f = 0; f < G_N_ELEMENTS (files); f++) {
    gsize size;
    guint8 *data = read_bag (files[f], &size);
    gsize at = find_bytes (data, size, magic[f], strlen (magic[f]));
    guint8 *copy = g_memdup2 (data, size);
    gchar *text;

    /* The first chunk (read when the element starts) ... */
    memset (copy + at + 12, 0xff, 40);
    text = play_bad (copy, size, NULL);
    fail_unless (strstr (text, "corrupt") != NULL, "%s", text);
    g_free (text);
    g_free (copy);

    /* ... and the last one (read while playing). */
    for (gsize i = at + 1; i + strlen (magic[f]) <= size; i++) {
      if (!memcmp (data + i, magic[f], strlen (magic[f])))
        at = i;
    }
    memset (data + at + 12, 0xff, 40);
    text = play_bad (data, size, NULL);
    fail_unless (strstr (text, "corrupt") != NULL, "%s", text);
    g_free (text);
    g_free (data);
  }
}

GST_END_TEST;

GST_START_TEST (test_wrong_version_n)
{
  gsize size;
  guint8 *data = read_bag ("all-none.bag", &size);
  gchar *text;

  memcpy (data + 9, "1.2", 3);
  text = play_bad (data, size, NULL);
  fail_unless (strstr (text, "1.2") != NULL, "%s", text);
  g_free (text);
  text = play_bad ((const guint8 *) "hello world, not a bag", 22, NULL);
  fail_unless (strstr (text, "not a ROS bag") != NULL, "%s", text);
  g_free (text);
  g_free (data);
}

GST_END_TEST;

static void
set_u32 (guint8 * p, guint32 v)
{
  p[0] = v;
  p[1] = v >> 8;
  p[2] = v >> 16;
  p[3] = v >> 24;
}

GST_START_TEST (test_huge_length_n)
{
  gsize size, at;
  guint8 *data = read_bag ("all-lz4.bag", &size);
  guint8 *copy;
  gchar *text;

  /* The bag header's header length. */
  copy = g_memdup2 (data, size);
  set_u32 (copy + 13, 0xfffffff0);
  text = play_bad (copy, size, NULL);
  fail_unless (strstr (text, "exceeds") != NULL, "%s", text);
  g_free (text);
  g_free (copy);

  /* A chunk's decompressed size: 2 GiB. */
  copy = g_memdup2 (data, size);
  at = find_bytes (copy, size, "size=", 5);
  set_u32 (copy + at + 5, 0x7fffffff);
  text = play_bad (copy, size, NULL);
  fail_unless (strstr (text, "above the limit") != NULL, "%s", text);
  g_free (text);
  g_free (copy);
  g_free (data);

  /* A message's data length inside an uncompressed chunk. */
  data = read_bag ("all-none.bag", &size);
  at = find_bytes (data, size, "op=\x02", 4);
  {
    /* rosbag writes op first: the record starts with the header length,
     * then op's field length, then "op=". */
    guint8 *rec = data + at - 8;
    guint32 hl = rec[0] | (rec[1] << 8) | (rec[2] << 16) | (rec[3] << 24);

    fail_unless (hl > 0 && hl < 200, "header length %u", hl);
    set_u32 (rec + 4 + hl, 0x7ffffff0);
  }
  text = play_bad (data, size, NULL);
  fail_unless (strstr (text, "exceeds") != NULL, "%s", text);
  g_free (text);
  g_free (data);
}

GST_END_TEST;

/* make_bags.py's odd-images.bag: a frame whose step is not the caps'
 * stride is copied row by row with the padding after each row zero, not
 * the allocator's bytes (glibc's M_PERTURB fills new memory with other
 * bytes here); empty frames (0 x 0) are skipped and counted, the others
 * of their topic played. */
GST_START_TEST (test_odd_images)
{
  GstElement *p = bag_pipeline ("odd-images.bag",
      "topics=/camera/padded,/camera/lossy", 2);
  gchar *warnings = NULL;
  GPtrArray **samples;

#ifdef M_PERTURB
  mallopt (M_PERTURB, 0x5a);
#endif
  gst_element_set_state (p, GST_STATE_PLAYING);
  samples = pull_all_warning (p, 2, &warnings);
  fail_unless_equals_int (samples[0]->len, N_MSGS);
  for (guint i = 0; i < N_MSGS; i++) {
    GstSample *sample = g_ptr_array_index (samples[0], i);
    GstBuffer *buf = gst_sample_get_buffer (sample);
    GstVideoInfo info;
    GstMapInfo map;

    fail_unless (gst_video_info_from_caps (&info,
            gst_sample_get_caps (sample)));
    fail_unless_equals_int (GST_VIDEO_INFO_WIDTH (&info), 5);
    fail_unless_equals_int (GST_VIDEO_INFO_PLANE_STRIDE (&info, 0), 16);
    fail_unless (gst_buffer_map (buf, &map, GST_MAP_READ));
    fail_unless_equals_int (map.size, 48);
    for (guint r = 0; r < 3; r++) {
      for (guint b = 0; b < 15; b++)
        fail_unless_equals_int (map.data[16 * r + b], (i + 15 * r + b) % 256);
      fail_unless_equals_int (map.data[16 * r + 15], 0);
    }
    gst_buffer_unmap (buf, &map);
  }
  fail_unless_equals_int (samples[1]->len, N_MSGS / 2);
  for (guint k = 0; k < N_MSGS / 2; k++) {
    GstBuffer *buf = gst_sample_get_buffer (g_ptr_array_index (samples[1],
            k));
    const guint i = 2 * k + 1;
    GstMapInfo map;

    fail_unless_equals_uint64 (GST_BUFFER_PTS (buf), i * STEP);
    fail_unless (gst_buffer_map (buf, &map, GST_MAP_READ));
    fail_unless_equals_int (map.size, 24);
    for (guint b = 0; b < 24; b++)
      fail_unless_equals_int (map.data[b], (i + b) % 256);
    gst_buffer_unmap (buf, &map);
  }
  fail_unless (warnings && strstr (warnings, "/camera/lossy: ") &&
      strstr (warnings, "empty image"), "%s", warnings);
  fail_unless_equals_uint64 (stats_counter (p, "skipped-unsupported"),
      N_MSGS / 2);
#ifdef M_PERTURB
  mallopt (M_PERTURB, 0);
#endif
  g_free (warnings);
  free_samples (samples, 2);
  gst_element_set_state (p, GST_STATE_NULL);
  gst_object_unref (p);
}

GST_END_TEST;

/* The bytes of the first frame @launch's appsink "s" gets, and its
 * size. */
static GBytes *
first_frame (const gchar * launch, gint * width, gint * height)
{
  GstCaps *caps = NULL;
  GBytes *bytes = first_buffer_bytes (launch, &caps);
  GstVideoInfo info;

  fail_unless (gst_video_info_from_caps (&info, caps));
  *width = GST_VIDEO_INFO_WIDTH (&info);
  *height = GST_VIDEO_INFO_HEIGHT (&info);
  gst_caps_unref (caps);
  return bytes;
}

/* make_bags.py's compressed-images.bag: CompressedImage JPEG and PNG
 * topics play as image/jpeg and image/png, the encoded bytes, which
 * GStreamer's decoders take (the PNG decodes to the frame encoded, pixel
 * for pixel); compressedDepth and a format its bytes belie are skipped,
 * counted and warned about. */
GST_START_TEST (test_compressed_images)
{
  const gchar *media[] = { NULL, "image/jpeg", NULL, "image/png",
    "image/jpeg"
  };
  GstElement *p = bag_pipeline ("compressed-images.bag", NULL, 5);
  gchar *warnings = NULL, *path, *launch;
  GBytes *want, *got;
  gint w = 0, h = 0;
  GPtrArray **samples;

  gst_element_set_state (p, GST_STATE_PLAYING);
  samples = pull_all_warning (p, 5, &warnings);
  /* Default topics in name order: depth, jpeg, mislabeled, png, unnamed
   * (an empty format over a JPEG). */
  for (guint t = 0; t < 5; t++) {
    fail_unless_equals_int (samples[t]->len, media[t] ? N_MSGS : 0);
    for (guint i = 0; i < samples[t]->len; i++) {
      GstSample *sample = g_ptr_array_index (samples[t], i);

      fail_unless (gst_structure_has_name (sample_structure (sample),
              media[t]));
      fail_unless_equals_string (gst_structure_get_string (sample_structure
              (sample), "frame-id"), "camera");
      fail_unless_equals_uint64 (GST_BUFFER_PTS (gst_sample_get_buffer
              (sample)), i * STEP);
    }
  }
  fail_unless (warnings && strstr (warnings, "/camera/depth: ") &&
      strstr (warnings, "compressedDepth is not supported") &&
      strstr (warnings, "/camera/mislabeled: ") &&
      strstr (warnings, "its bytes do not start as its format says"),
      "%s", warnings);
  fail_unless_equals_uint64 (stats_counter (p, "skipped-unsupported"),
      2 * N_MSGS);
  g_free (warnings);
  free_samples (samples, 5);
  gst_element_set_state (p, GST_STATE_NULL);
  gst_object_unref (p);

  want = first_frame ("videotestsrc num-buffers=1 ! video/x-raw,format=RGB,"
      "width=32,height=24 ! appsink name=s", &w, &h);
  path = bag_path ("compressed-images.bag");
  launch = g_strdup_printf ("robocachebagsrc location=\"%s\" "
      "topics=/camera/png ! pngdec ! videoconvert ! video/x-raw,format=RGB ! "
      "appsink name=s", path);
  got = first_frame (launch, &w, &h);
  fail_unless (w == 32 && h == 24 && g_bytes_equal (want, got));
  g_bytes_unref (got);
  g_free (launch);
  launch = g_strdup_printf ("robocachebagsrc location=\"%s\" "
      "topics=/camera/jpeg ! jpegdec ! videoconvert ! video/x-raw,format=RGB "
      "! appsink name=s", path);
  got = first_frame (launch, &w, &h);
  fail_unless (w == 32 && h == 24 && g_bytes_get_size (got) ==
      g_bytes_get_size (want));
  g_bytes_unref (got);
  g_bytes_unref (want);
  g_free (launch);
  g_free (path);
}

GST_END_TEST;

/* make_bags.py's encrypted.bag: refused, naming the encryption, not
 * taken for a file cut off. */
GST_START_TEST (test_encrypted_n)
{
  gsize size;
  guint8 *data = read_bag ("encrypted.bag", &size);
  gchar *text = play_bad (data, size, NULL);

  fail_unless (strstr (text, "is encrypted") &&
      strstr (text, "rosbag/AesCbcEncryptor") && !strstr (text, "ends early"),
      "%s", text);
  g_free (text);
  g_free (data);
}

GST_END_TEST;

/* A message whose lengths do not fit its bytes (all-none.bag's first
 * /velodyne_points cloud, its width set to 2^31 - 1): an error that names
 * the topic and the message's record time, where the clouds are. */
GST_START_TEST (test_malformed_message_n)
{
  gsize size;
  guint8 *data = read_bag ("all-none.bag", &size);
  /* ROS 1: the frame_id's length and bytes, then height and width. */
  gsize at = find_bytes (data, size, "\010\000\000\000velodyne", 12);
  gchar *text;

  set_u32 (data + at + 16, 0x7fffffff);
  text = play_bad (data, size, NULL);
  fail_unless (strstr (text, "topic /velodyne_points, the message recorded "
          "at 1000.020000000 s: PointCloud2") != NULL, "%s", text);
  g_free (text);
  g_free (data);
}

GST_END_TEST;

GST_START_TEST (test_bad_topic_n)
{
  gsize size;
  guint8 *data = read_bag ("all-none.bag", &size);
  gchar *text;

  text = play_bad (data, size, "topics=/nothing");
  /* Naming what the bag holds, so that a misspelt topic is plain. */
  fail_unless (strstr (text, "/nothing") && strstr (text, "its topics: ")
      && strstr (text, "/velodyne_points") && strstr (text, "/joint_states"),
      "%s", text);
  g_free (text);
  text = play_bad (data, size, "topics=/rosout_text");
  fail_unless (strstr (text, "std_msgs/String") != NULL, "%s", text);
  g_free (text);
  text = play_bad (data, size, "topics=/joint_states,/joint_states");
  fail_unless (strstr (text, "twice") != NULL, "%s", text);
  g_free (text);
  g_free (data);
}

GST_END_TEST;

/* make_bags.py's mixed-connections.bag without topics: /joint_states (two
 * connections of one definition, every message) and /velodyne_points
 * play; /mixed (JointState, then PointCloud2) and /stale_md5 (two
 * md5sums) are skipped, named in a warning and counted. */
GST_START_TEST (test_mixed_connections)
{
  GstElement *p = bag_pipeline ("mixed-connections.bag", NULL, 2);
  GstElement *b = gst_bin_get_by_name (GST_BIN (p), "b");
  GPtrArray **samples;
  gchar *warning = NULL;

  gst_element_set_state (p, GST_STATE_PLAYING);
  samples = pull_all_warning (p, 2, &warning);
  check_joints (samples[0], 0, N_MSGS);
  check_points (samples[1], FALSE, 0, N_MSGS);
  free_samples (samples, 2);
  fail_unless (warning && strstr (warning, "several definitions") &&
      strstr (warning, "/mixed (sensor_msgs/JointState (md5sum") &&
      strstr (warning, "sensor_msgs/PointCloud2 (md5sum") &&
      strstr (warning, "/stale_md5"), "%s", warning);
  g_free (warning);
  fail_unless_equals_int (b->numsrcpads, 2);
  fail_unless_equals_uint64 (stats_counter (p, "skipped-other-types"),
      2 * N_MSGS);
  gst_object_unref (b);
  gst_element_set_state (p, GST_STATE_NULL);
  gst_object_unref (p);
}

GST_END_TEST;

/* Naming a topic of two definitions is an error that names it, its
 * definitions and what is played, whichever connection comes first. */
GST_START_TEST (test_mixed_topic_n)
{
  const gchar *topics[] = { "/mixed", "/stale_md5" };
  gsize size;
  guint8 *data = read_bag ("mixed-connections.bag", &size);

  for (guint i = 0; i < G_N_ELEMENTS (topics); i++) {
    gchar *props = g_strdup_printf ("topics=/joint_states,%s", topics[i]);
    gchar *text = play_bad (data, size, props);

    fail_unless (strstr (text, topics[i]) &&
        strstr (text, "2 different definitions") &&
        strstr (text, "sensor_msgs/JointState (md5sum 3066dcd7") &&
        strstr (text, "share one definition"), "%s", text);
    g_free (text);
    g_free (props);
  }
  g_free (data);
}

GST_END_TEST;

GST_START_TEST (test_missing_file_n)
{
  GstElement *p = gst_parse_launch ("robocachebagsrc "
      "location=/nonexistent/x.bag ! fakesink", NULL);
  GstMessage *msg = run_to_end (p, 5 * GST_SECOND);

  fail_unless (msg != NULL);
  gst_message_unref (msg);
  gst_object_unref (p);
}

GST_END_TEST;

static Suite *
bagsrc_suite (void)
{
  Suite *s = suite_create ("robocachebagsrc");
  TCase *tc = tcase_create ("general");

  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_uncompressed);
  tcase_add_test (tc, test_split);
  tcase_add_test (tc, test_bz2);
  tcase_add_test (tc, test_lz4);
  tcase_add_test (tc, test_record_timestamps);
  tcase_add_test (tc, test_default_topics);
  tcase_add_test (tc, test_seek);
  tcase_add_test (tc, test_properties_refused_while_playing);
  tcase_add_test (tc, test_voxelize_and_fuse);
  tcase_add_test (tc, test_bad_point_fields);
  tcase_add_test (tc, test_bad_point_fields_voxelize);
  tcase_add_test (tc, test_bad_joint_states);
  tcase_add_test (tc, test_odd_point_fields);
  tcase_add_test (tc, test_odd_images);
  tcase_add_test (tc, test_compressed_images);
  tcase_add_test (tc, test_encrypted_n);
  tcase_add_test (tc, test_recovered_killed);
  tcase_add_test (tc, test_recovered_active);
  tcase_add_test (tc, test_cut_before_messages_n);
  tcase_add_test (tc, test_truncated);
  tcase_add_test (tc, test_corrupt_chunk_n);
  tcase_add_test (tc, test_wrong_version_n);
  tcase_add_test (tc, test_huge_length_n);
  tcase_add_test (tc, test_malformed_message_n);
  tcase_add_test (tc, test_bad_topic_n);
  tcase_add_test (tc, test_mixed_connections);
  tcase_add_test (tc, test_mixed_topic_n);
  tcase_add_test (tc, test_missing_file_n);
  return s;
}

int
main (int argc, char **argv)
{
  int ret;

  make_bags ();
  gst_check_init (&argc, &argv);
  ret = gst_check_run_suite (bagsrc_suite (), "robocachebagsrc", __FILE__);
  remove_bags ();
  return ret;
}
