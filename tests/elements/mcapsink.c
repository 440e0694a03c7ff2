/* robocachemcapsink: random points, joint vectors, images and voxel grids
 * written through appsrc (and the synthetic sources, robocachepillars
 * too), then read back by third-party code: tests/mcap/dump.js
 * (@mcap/core and Foxglove's ROS 2 decoder), whose JSON lines are
 * compared value for value with what went in (sha256 of the data, names,
 * times, counts, topics, schemas).  SKIP (77) without node or the npm
 * packages of tests/mcap. */
#include <gst/check/gstcheck.h>
#include <gst/app/gstappsink.h>
#include <gst/app/gstappsrc.h>
#include <gst/video/video.h>
#include <glib/gstdio.h>
#include <string.h>

#include "elementutil.h"
#include "testutil.h"

#define BASE_TIME G_GUINT64_CONSTANT (1700000000000000000)
#define STEP (100 * GST_MSECOND)

static const gchar *dump_script;
static gchar *tmp_dir;
static GRand *rng;

/* Exits with TEST_EXIT_SKIP, saying why, when dump.js cannot run. */
static void
require_node (void)
{
  gchar *dir, *code;
  const gchar *argv[] = { "node", "-e", NULL, NULL };
  gint status = -1;
  gchar *err_out = NULL;

  dump_script = g_getenv ("ROBOCACHE_MCAP_DUMP");
  if (!dump_script) {
    g_print ("SKIP: ROBOCACHE_MCAP_DUMP is not set (run through meson "
        "test)\n");
    exit (TEST_EXIT_SKIP);
  }
  dir = g_path_get_dirname (dump_script);
  code = g_strdup_printf ("for (const m of ['@mcap/core', '@foxglove/rosmsg',"
      " '@foxglove/rosmsg2-serialization', '@foxglove/wasm-zstd', "
      "'@foxglove/wasm-lz4']) require.resolve(m, {paths: ['%s']})", dir);
  argv[2] = code;
  if (!g_spawn_sync (NULL, (gchar **) argv, NULL, G_SPAWN_SEARCH_PATH |
          G_SPAWN_STDOUT_TO_DEV_NULL, NULL, NULL, NULL, &err_out, &status,
          NULL)) {
    g_print ("SKIP: no node in PATH (Debian: nodejs)\n");
    exit (TEST_EXIT_SKIP);
  }
  if (!g_spawn_check_wait_status (status, NULL)) {
    g_print ("SKIP: the npm packages of %s are missing (cd %s && npm ci): "
        "%s\n", dir, dir, err_out);
    exit (TEST_EXIT_SKIP);
  }
  g_free (err_out);
  g_free (code);
  g_free (dir);
}

static gchar *
tmp_path (const gchar * name)
{
  return g_build_filename (tmp_dir, name, NULL);
}

/* dump.js's lines for @path; fails the test if it fails.  *@scanned (may
 * be NULL) tells whether it said it scanned the file. */
static gchar **
dump_lines (const gchar * path, gboolean * scanned)
{
  const gchar *argv[] = { "node", dump_script, path, NULL };
  gchar *out = NULL, *err_out = NULL, **lines;
  gint status = -1;
  GError *error = NULL;
  guint n;

  fail_unless (g_spawn_sync (NULL, (gchar **) argv, NULL,
          G_SPAWN_SEARCH_PATH, NULL, NULL, &out, &err_out, &status, &error));
  fail_unless (g_spawn_check_wait_status (status, NULL), "dump.js %s: %s",
      path, err_out);
  if (scanned)
    *scanned = strstr (err_out, "scanning") != NULL;
  lines = g_strsplit (out, "\n", -1);
  n = g_strv_length (lines);
  if (n > 0 && !*lines[n - 1]) {
    g_free (lines[n - 1]);
    lines[n - 1] = NULL;
  }
  fail_unless (lines[0] != NULL, "dump.js printed nothing");
  g_free (out);
  g_free (err_out);
  return lines;
}

/* Fails unless @line contains the printf-formatted text. */
static void
G_GNUC_PRINTF (2, 3)
expect (const gchar * line, const gchar * format, ...)
{
  va_list args;
  gchar *text;

  va_start (args, format);
  text = g_strdup_vprintf (format, args);
  va_end (args);
  fail_unless (strstr (line, text) != NULL, "expected %s in %s", text, line);
  g_free (text);
}

static gchar *
sha256 (const void *data, gsize size)
{
  return g_compute_checksum_for_data (G_CHECKSUM_SHA256, data, size);
}

/* "topic","log_time","publish_time" and header.stamp of a message. */
static void
expect_message (const gchar * line, const gchar * topic, guint64 t,
    const gchar * frame_id)
{
  expect (line, "{\"topic\":\"%s\",\"log_time\":\"%" G_GUINT64_FORMAT
      "\",\"publish_time\":\"%" G_GUINT64_FORMAT "\",\"msg\":{\"header\":"
      "{\"stamp\":{\"sec\":%u,\"nanosec\":%u},\"frame_id\":\"%s\"}", topic, t,
      t, (guint) (t / GST_SECOND), (guint) (t % GST_SECOND), frame_id);
}

static GstAppSrc *
app_src (GstElement * pipeline)
{
  GstElement *src = gst_bin_get_by_name (GST_BIN (pipeline), "src");

  gst_object_unref (src);       /* the pipeline keeps it */
  return GST_APP_SRC (src);
}

/* A pipeline of appsrc "src" (@caps) into robocachemcapsink "m". */
static GstElement *
appsrc_pipeline (const gchar * caps, const gchar * location,
    const gchar * sink_props)
{
  gchar *desc = g_strdup_printf ("appsrc name=src format=time ! "
      "robocachemcapsink name=m location=\"%s\" base-time=%" G_GUINT64_FORMAT
      " %s", location, BASE_TIME, sink_props ? sink_props : "");
  GError *error = NULL;
  GstElement *pipeline = gst_parse_launch (desc, &error);
  GstCaps *c = gst_caps_from_string (caps);

  g_assert_no_error (error);
  fail_unless (c != NULL, "bad caps %s", caps);
  g_object_set (app_src (pipeline), "caps", c, NULL);
  gst_caps_unref (c);
  g_free (desc);
  return pipeline;
}

/* Pushes @bufs (taken) with PTS i * STEP, then EOS, and runs to the end. */
static void
push_and_finish (GstElement * pipeline, GstBuffer ** bufs, guint n)
{
  GstMessage *msg;

  gst_element_set_state (pipeline, GST_STATE_PLAYING);
  for (guint i = 0; i < n; i++) {
    GST_BUFFER_PTS (bufs[i]) = i * STEP;
    fail_unless_equals_int (gst_app_src_push_buffer (app_src (pipeline),
            bufs[i]), GST_FLOW_OK);
  }
  gst_app_src_end_of_stream (app_src (pipeline));
  msg = run_to_end (pipeline, 60 * GST_SECOND);
  if (msg) {
    GError *err;
    gst_message_parse_error (msg, &err, NULL);
    fail ("error: %s", err->message);
  }
  gst_object_unref (pipeline);
}

/* ------------------------------------------------------------------ */
/* Points                                                              */
/* ------------------------------------------------------------------ */

#define RING_FIELDS GST_ROBOCACHE_FIELDS_XYZI ",ring:uint16:16"
#define RING_CAPS GST_ROBOCACHE_POINTS_MEDIA_TYPE ", point-step=(int)20, " \
    "fields=(string)\"" RING_FIELDS "\""

static GstBuffer *
random_points (guint n)
{
  GstBuffer *buf = gst_buffer_new_allocate (NULL, n * 20, NULL);
  GstMapInfo map;

  gst_buffer_map (buf, &map, GST_MAP_WRITE);
  for (guint i = 0; i < n; i++) {
    gfloat v[4];
    guint16 ring = g_rand_int_range (rng, 0, 64);

    for (guint c = 0; c < 4; c++)
      v[c] = g_rand_double_range (rng, -50, 50);
    memcpy (map.data + i * 20, v, 16);
    memcpy (map.data + i * 20 + 16, &ring, 2);
    map.data[i * 20 + 18] = map.data[i * 20 + 19] = 0;
  }
  gst_buffer_unmap (buf, &map);
  return buf;
}

/* Plays @pipeline and records one buffer of its appsrc, PTS 0: the
 * sink's pad has its caps and the file is open. */
static void
start_recording (GstElement * pipeline)
{
  GstBuffer *buf = random_points (10);

  gst_element_set_state (pipeline, GST_STATE_PLAYING);
  fail_unless_equals_int (gst_element_get_state (pipeline, NULL, NULL,
          10 * GST_SECOND), GST_STATE_CHANGE_SUCCESS);
  GST_BUFFER_PTS (buf) = 0;
  fail_unless_equals_int (gst_app_src_push_buffer (app_src (pipeline), buf),
      GST_FLOW_OK);
}

static void
expect_points (const gchar * line, GstBuffer * buf)
{
  GstMapInfo map;
  gchar *sum;

  gst_buffer_map (buf, &map, GST_MAP_READ);
  sum = sha256 (map.data, map.size);
  expect (line, "\"height\":1,\"width\":%u,\"fields\":[{\"name\":\"x\","
      "\"offset\":0,\"datatype\":7,\"count\":1},{\"name\":\"y\",\"offset\":4,"
      "\"datatype\":7,\"count\":1},{\"name\":\"z\",\"offset\":8,\"datatype\":"
      "7,\"count\":1},{\"name\":\"intensity\",\"offset\":12,\"datatype\":7,"
      "\"count\":1},{\"name\":\"ring\",\"offset\":16,\"datatype\":4,"
      "\"count\":1}],\"is_bigendian\":false,\"point_step\":20,\"row_step\":%u,"
      "\"data\":{\"length\":%u,\"sha256\":\"%s\"", (guint) map.size / 20,
      (guint) map.size, (guint) map.size, sum);
  g_free (sum);
  gst_buffer_unmap (buf, &map);
}

/* @n random clouds with @compression; small chunks: several of them. */
static void
check_points_file (const gchar * compression)
{
  const guint n = 12;
  gchar *path = tmp_path ("points.mcap");
  gchar *props = g_strdup_printf ("compression=%s chunk-size=8192",
      compression);
  GstBuffer *bufs[12], *kept[12];
  gchar **lines;
  guint64 size = 0;

  for (guint i = 0; i < n; i++) {
    bufs[i] = random_points (g_rand_int_range (rng, 100, 400));
    kept[i] = gst_buffer_ref (bufs[i]);
    size += gst_buffer_get_size (bufs[i]);
  }
  push_and_finish (appsrc_pipeline (RING_CAPS, path, props), bufs, n);
  lines = dump_lines (path, NULL);
  fail_unless_equals_int (g_strv_length (lines), n + 1);
  expect (lines[0], "{\"profile\":\"ros2\",\"library\":\"robocache\","
      "\"indexed\":true,\"channels\":[{\"id\":1,\"topic\":\"/points\","
      "\"message_encoding\":\"cdr\",\"schema_name\":"
      "\"sensor_msgs/msg/PointCloud2\",\"schema_encoding\":\"ros2msg\"");
  expect (lines[0], "\"statistics\":{\"message_count\":\"%u\","
      "\"schema_count\":1,\"channel_count\":1,", n);
  expect (lines[0], "\"message_start_time\":\"%" G_GUINT64_FORMAT "\","
      "\"message_end_time\":\"%" G_GUINT64_FORMAT "\",\"channel_message_"
      "counts\":{\"1\":\"%u\"}}", BASE_TIME, BASE_TIME + (n - 1) * STEP, n);
  /* More than one chunk: size / 8192 at least. */
  fail_if (strstr (lines[0], "\"chunk_count\":1,"), "one chunk for %"
      G_GUINT64_FORMAT " bytes", size);
  for (guint i = 0; i < n; i++) {
    expect_message (lines[i + 1], "/points", BASE_TIME + i * STEP, "map");
    expect_points (lines[i + 1], kept[i]);
    gst_buffer_unref (kept[i]);
  }
  g_strfreev (lines);
  g_free (props);
  g_free (path);
}

GST_START_TEST (test_points_zstd)
{
  check_points_file ("zstd");
}

GST_END_TEST;

GST_START_TEST (test_points_lz4)
{
  check_points_file ("lz4");
}

GST_END_TEST;

GST_START_TEST (test_points_none)
{
  check_points_file ("none");
}

GST_END_TEST;

/* ------------------------------------------------------------------ */
/* Joints                                                              */
/* ------------------------------------------------------------------ */

/* "first":[...] of doubles as JavaScript prints them is not checked;
 * the sha256 of their float64 bytes is. */
static void
expect_f64 (const gchar * line, const gchar * key, const gdouble * v, guint n)
{
  gchar *sum = sha256 (v, n * sizeof (gdouble));

  expect (line, "\"%s\":{\"length\":%u,\"sha256\":\"%s\"", key, n, sum);
  g_free (sum);
}

/* float32 samples of 3 joints with velocities, as robocachebagsrc names
 * them: positions and velocities come back apart. */
GST_START_TEST (test_joints_sample)
{
  const guint n = 15;
  gchar *path = tmp_path ("joints.mcap");
  gfloat values[15][6];
  GstBuffer *bufs[15];
  gchar **lines;

  for (guint i = 0; i < n; i++) {
    for (guint c = 0; c < 6; c++)
      values[i][c] = g_rand_double_range (rng, -3, 3);
    bufs[i] = gst_buffer_new_memdup (values[i], sizeof (values[i]));
  }
  push_and_finish (appsrc_pipeline (GST_ROBOCACHE_VECTORS_MEDIA_TYPE
          ", channels=(int)6, format=(string)float32, layout=(string)sample,"
          " names=(string)\"a,b,c,a.velocity,b.velocity,c.velocity\"",
          path, "compression=lz4"), bufs, n);
  lines = dump_lines (path, NULL);
  fail_unless_equals_int (g_strv_length (lines), n + 1);
  expect (lines[0], "\"schema_name\":\"sensor_msgs/msg/JointState\"");
  for (guint i = 0; i < n; i++) {
    gdouble d[6];

    for (guint c = 0; c < 6; c++)
      d[c] = values[i][c];
    expect_message (lines[i + 1], "/joints", BASE_TIME + i * STEP, "map");
    expect (lines[i + 1], "\"name\":[\"a\",\"b\",\"c\"]");
    expect_f64 (lines[i + 1], "position", d, 3);
    expect_f64 (lines[i + 1], "velocity", d + 3, 3);
    expect_f64 (lines[i + 1], "effort", NULL, 0);
  }
  g_strfreev (lines);
  g_free (path);
}

GST_END_TEST;

/* One float64 chunk of S samples: S messages, each at its own time. */
GST_START_TEST (test_joints_chunk)
{
  const guint s = 40, channels = 4;
  gchar *path = tmp_path ("chunk.mcap");
  gint64 times[40];
  gdouble values[40][4];
  GstBuffer *buf = gst_buffer_new_allocate (NULL, sizeof (times) +
      sizeof (values), NULL);
  gchar **lines;
  gint64 t = 0;

  for (guint i = 0; i < s; i++) {
    t += g_rand_int_range (rng, 1, 20) * GST_MSECOND;
    times[i] = t;
    for (guint c = 0; c < channels; c++)
      values[i][c] = g_rand_double_range (rng, -10, 10);
  }
  gst_buffer_fill (buf, 0, times, sizeof (times));
  gst_buffer_fill (buf, sizeof (times), values, sizeof (values));
  push_and_finish (appsrc_pipeline (GST_ROBOCACHE_VECTORS_MEDIA_TYPE
          ", channels=(int)4, format=(string)float64, layout=(string)chunk, "
          "batch=(int)1", path, "compression=none"), &buf, 1);
  lines = dump_lines (path, NULL);
  fail_unless_equals_int (g_strv_length (lines), s + 1);
  for (guint i = 0; i < s; i++) {
    expect_message (lines[i + 1], "/joints", BASE_TIME + times[i], "map");
    expect (lines[i + 1], "\"name\":[\"joint0\",\"joint1\",\"joint2\","
        "\"joint3\"]");
    expect_f64 (lines[i + 1], "position", values[i], channels);
    expect_f64 (lines[i + 1], "velocity", NULL, 0);
  }
  g_strfreev (lines);
  g_free (path);
}

GST_END_TEST;

/* ------------------------------------------------------------------ */
/* Images and voxels                                                   */
/* ------------------------------------------------------------------ */

/* Random frames of @format, @width wide (an odd width: GStreamer pads the
 * rows, ROS images do not); frame-id from the pad property. */
static void
check_image (const gchar * format, const gchar * encoding, guint bpp)
{
  const guint n = 4, width = 33, height = 7;
  gchar *path = tmp_path ("image.mcap");
  gchar *caps = g_strdup_printf ("video/x-raw, format=(string)%s, "
      "width=(int)%u, height=(int)%u, framerate=(fraction)10/1", format,
      width, height);
  GstElement *pipeline = appsrc_pipeline (caps, path, "compression=zstd");
  GstElement *sink = gst_bin_get_by_name (GST_BIN (pipeline), "m");
  GstPad *pad = gst_element_get_static_pad (sink, "sink_0");
  guint8 packed[4][33 * 7 * 3];
  GstBuffer *bufs[4];
  GstVideoInfo info;
  gchar **lines;

  g_object_set (pad, "frame-id", "camera", NULL);
  gst_object_unref (pad);
  gst_object_unref (sink);
  gst_video_info_set_format (&info, gst_video_format_from_string (format),
      width, height);
  for (guint i = 0; i < n; i++) {
    bufs[i] = gst_buffer_new_allocate (NULL, info.size, NULL);
    for (guint r = 0; r < height; r++) {
      for (guint b = 0; b < width * bpp; b++)
        packed[i][r * width * bpp + b] = g_rand_int (rng);
      gst_buffer_fill (bufs[i], r * info.stride[0], packed[i] +
          r * width * bpp, width * bpp);
    }
  }
  push_and_finish (pipeline, bufs, n);
  lines = dump_lines (path, NULL);
  fail_unless_equals_int (g_strv_length (lines), n + 1);
  expect (lines[0], "\"topic\":\"/image\",\"message_encoding\":\"cdr\","
      "\"schema_name\":\"sensor_msgs/msg/Image\"");
  for (guint i = 0; i < n; i++) {
    gchar *sum = sha256 (packed[i], width * height * bpp);

    expect_message (lines[i + 1], "/image", BASE_TIME + i * STEP, "camera");
    expect (lines[i + 1], "\"height\":%u,\"width\":%u,\"encoding\":\"%s\","
        "\"is_bigendian\":0,\"step\":%u,\"data\":{\"length\":%u,\"sha256\":"
        "\"%s\"", height, width, encoding, width * bpp, width * height * bpp,
        sum);
    g_free (sum);
  }
  g_strfreev (lines);
  g_free (caps);
  g_free (path);
}

GST_START_TEST (test_image_rgb)
{
  check_image ("RGB", "rgb8", 3);
}

GST_END_TEST;

GST_START_TEST (test_image_gray16)
{
  check_image ("GRAY16_LE", "mono16", 2);
}

GST_END_TEST;

/* A random grid of @mode (a third of the voxels empty): a cloud of the
 * occupied centres and their values, in index order; @fields is what the
 * cloud's fields must be after x, y, z. */
static void
check_voxels (const gchar * mode, const gchar * fields)
{
  const guint dims[3] = { 5, 4, 3 }, n_voxels = 60, n_features = 2;
  const gdouble origin[3] = { -1.5, 2.0, -0.25 }, size[3] = { 0.5, 0.25, 1 };
  gboolean mean = !strcmp (mode, "mean"), occ = !strcmp (mode, "occupancy");
  gchar *path = tmp_path ("voxels.mcap");
  gchar *caps = g_strdup_printf (GST_ROBOCACHE_VOXELS_MEDIA_TYPE ", "
      "layout=(string)dense, mode=(string)%s, format=(string)%s, "
      "grid-x=(int)5, grid-y=(int)4, grid-z=(int)3, origin-x=(double)-1.5, "
      "origin-y=(double)2.0, origin-z=(double)-0.25, voxel-size-x=(double)"
      "0.5, voxel-size-y=(double)0.25, voxel-size-z=(double)1.0%s", mode,
      mean ? "float32" : occ ? "uint8" : "uint32", mean ? ", features=(int)2,"
      " feature-names=(string)\"x,intensity\"" : "");
  guint32 grid[60 * 2];         /* counts, bytes or two float planes */
  guint8 *bytes = (guint8 *) grid;
  GByteArray *expected = g_byte_array_new ();
  guint step = mean ? 20 : 16, v = 0;
  GstBuffer *buf;
  gchar **lines, *sum;

  memset (grid, 0, sizeof (grid));
  for (guint i = 0; i < n_voxels; i++) {
    gboolean full = g_rand_int_range (rng, 0, 3) != 0;
    gfloat f[2] = { g_rand_double_range (rng, 1, 9),
      g_rand_double_range (rng, -9, -1)
    };
    if (occ)
      bytes[i] = full;
    else if (!mean)
      grid[i] = full ? g_rand_int_range (rng, 1, 1000) : 0;
    for (guint k = 0; mean && full && k < n_features; k++)
      memcpy (&grid[k * n_voxels + i], &f[k], 4);
  }
  for (guint k = 0; k < dims[2]; k++)
    for (guint j = 0; j < dims[1]; j++)
      for (guint i = 0; i < dims[0]; i++, v++) {
        gfloat point[5] = { origin[0] + (i + 0.5) * size[0],
          origin[1] + (j + 0.5) * size[1], origin[2] + (k + 0.5) * size[2]
        };
        guint32 value = occ ? bytes[v] : grid[v];
        if (!value)
          continue;
        memcpy (&point[3], &value, 4);
        if (mean)
          memcpy (&point[4], &grid[n_voxels + v], 4);
        g_byte_array_append (expected, (guint8 *) point, step);
      }
  buf = gst_buffer_new_memdup (grid, mean ? 2 * 4 * n_voxels : occ ? 60 :
      4 * n_voxels);
  push_and_finish (appsrc_pipeline (caps, path, NULL), &buf, 1);
  lines = dump_lines (path, NULL);
  fail_unless_equals_int (g_strv_length (lines), 2);
  sum = sha256 (expected->data, expected->len);
  expect_message (lines[1], "/voxels", BASE_TIME, "map");
  expect (lines[1], "\"width\":%u,\"fields\":[{\"name\":\"x\",\"offset\":0,"
      "\"datatype\":7,\"count\":1},{\"name\":\"y\",\"offset\":4,\"datatype\":"
      "7,\"count\":1},{\"name\":\"z\",\"offset\":8,\"datatype\":7,\"count\":1}"
      ",%s],\"is_bigendian\":false,\"point_step\":%u,\"row_step\":%u,\"data\":"
      "{\"length\":%u,\"sha256\":\"%s\"", expected->len / step, fields, step,
      expected->len, expected->len, sum);
  g_free (sum);
  g_byte_array_unref (expected);
  g_strfreev (lines);
  g_free (caps);
  g_free (path);
}

GST_START_TEST (test_voxels)
{
  check_voxels ("count", "{\"name\":\"count\",\"offset\":12,\"datatype\":6,"
      "\"count\":1}");
  check_voxels ("occupancy", "{\"name\":\"occupancy\",\"offset\":12,"
      "\"datatype\":2,\"count\":1}");
  check_voxels ("mean", "{\"name\":\"mean_x\",\"offset\":12,\"datatype\":7,"
      "\"count\":1},{\"name\":\"mean_intensity\",\"offset\":16,"
      "\"datatype\":7,\"count\":1}");
}

GST_END_TEST;

/* ------------------------------------------------------------------ */
/* Several pads, rosbag2, stops, bad caps and bad locations            */
/* ------------------------------------------------------------------ */

/* Lines of @lines (after the first) whose topic is @topic. */
static GPtrArray *
lines_of_topic (gchar ** lines, const gchar * topic)
{
  GPtrArray *out = g_ptr_array_new ();
  gchar *key = g_strdup_printf ("{\"topic\":\"%s\",", topic);

  for (guint i = 1; lines[i]; i++) {
    if (g_str_has_prefix (lines[i], key))
      g_ptr_array_add (out, lines[i]);
  }
  g_free (key);
  return out;
}

/* How many messages of @topic the file at @path holds (dump.js). */
static guint
messages_on_topic (const gchar * path, const gchar * topic)
{
  gchar **lines = dump_lines (path, NULL);
  GPtrArray *msgs = lines_of_topic (lines, topic);
  guint n = msgs->len;

  g_ptr_array_unref (msgs);
  g_strfreev (lines);
  return n;
}

/* sha256 of each sweep robocachelidarsrc gives with @seed. */
static gchar **
lidar_sums (guint seed, guint n)
{
  gchar *desc = g_strdup_printf ("robocachelidarsrc seed=%u num-buffers=%u "
      "points-per-sweep=500 ! appsink name=s sync=false", seed, n);
  GstElement *pipeline = gst_parse_launch (desc, NULL);
  GstElement *sink = gst_bin_get_by_name (GST_BIN (pipeline), "s");
  gchar **sums = g_new0 (gchar *, n + 1);
  GstSample *sample;
  guint i = 0;

  gst_element_set_state (pipeline, GST_STATE_PLAYING);
  while ((sample = gst_app_sink_pull_sample (GST_APP_SINK (sink)))) {
    GstMapInfo map;

    fail_unless (i < n);
    gst_buffer_map (gst_sample_get_buffer (sample), &map, GST_MAP_READ);
    sums[i++] = sha256 (map.data, map.size);
    gst_buffer_unmap (gst_sample_get_buffer (sample), &map);
    gst_sample_unref (sample);
  }
  fail_unless_equals_int (i, n);
  gst_element_set_state (pipeline, GST_STATE_NULL);
  gst_object_unref (sink);
  gst_object_unref (pipeline);
  g_free (desc);
  return sums;
}

/* Two lidars (one with a topic set, one on the default /points) and a
 * joint source, in one file. */
GST_START_TEST (test_sources)
{
  const guint seed0 = g_rand_int (rng), seed1 = g_rand_int (rng);
  gchar *path = tmp_path ("sources.mcap");
  gchar *desc = g_strdup_printf ("robocachelidarsrc seed=%u num-buffers=3 "
      "points-per-sweep=500 ! m.sink_0 robocachelidarsrc seed=%u "
      "num-buffers=4 points-per-sweep=500 ! m.sink_1 robocachejointsrc "
      "dof=5 num-buffers=10 ! m.sink_2 robocachemcapsink name=m "
      "location=\"%s\" chunk-size=4096", seed0, seed1, path);
  GstElement *pipeline = gst_parse_launch (desc, NULL);
  GstElement *sink = gst_bin_get_by_name (GST_BIN (pipeline), "m");
  GstPad *pad = gst_element_get_static_pad (sink, "sink_0");
  gchar **sums0 = lidar_sums (seed0, 3), **sums1 = lidar_sums (seed1, 4);
  gchar **lines;
  GPtrArray *lidar, *points, *joints;

  g_object_set (pad, "topic", "/lidar", NULL);
  fail_unless (play_to_end (pipeline));
  lines = dump_lines (path, NULL);
  lidar = lines_of_topic (lines, "/lidar");
  points = lines_of_topic (lines, "/points");
  joints = lines_of_topic (lines, "/joints");
  fail_unless_equals_int (lidar->len, 3);
  fail_unless_equals_int (points->len, 4);
  fail_unless_equals_int (joints->len, 10);
  fail_unless_equals_int (g_strv_length (lines), 1 + 3 + 4 + 10);
  expect (lines[0], "\"message_count\":\"17\",\"schema_count\":2,"
      "\"channel_count\":3");
  for (guint i = 0; i < 3; i++)
    expect (g_ptr_array_index (lidar, i), "\"sha256\":\"%s\"", sums0[i]);
  for (guint i = 0; i < 4; i++)
    expect (g_ptr_array_index (points, i), "\"sha256\":\"%s\"", sums1[i]);
  for (guint i = 0; i < 10; i++)
    expect (g_ptr_array_index (joints, i), "\"position\":{\"length\":5,");
  g_ptr_array_unref (lidar);
  g_ptr_array_unref (points);
  g_ptr_array_unref (joints);
  g_strfreev (sums0);
  g_strfreev (sums1);
  g_strfreev (lines);
  gst_object_unref (pad);
  gst_object_unref (sink);
  g_free (desc);
  g_free (path);
}

GST_END_TEST;

GST_START_TEST (test_rosbag2)
{
  gchar *dir = tmp_path ("run");
  gchar *file = g_build_filename (dir, "run_0.mcap", NULL);
  gchar *yaml_path = g_build_filename (dir, "metadata.yaml", NULL);
  gchar *desc =
      g_strdup_printf ("robocachejointsrc num-buffers=7 rate=10 jitter=0 "
      "dropout=0 ! " "robocachemcapsink rosbag2=true base-time=%"
      G_GUINT64_FORMAT " location=\"%s\"", BASE_TIME, dir);
  gchar *yaml = NULL, **lines;

  fail_unless (play_to_end (gst_parse_launch (desc, NULL)));
  fail_unless (g_file_get_contents (yaml_path, &yaml, NULL, NULL));
  expect (yaml, "rosbag2_bagfile_information:\n  version: 5\n"
      "  storage_identifier: mcap\n  duration:\n    nanoseconds: %"
      G_GUINT64_FORMAT "\n  starting_time:\n    nanoseconds_since_epoch: %"
      G_GUINT64_FORMAT "\n  message_count: 7\n", 6 * STEP, BASE_TIME);
  expect (yaml, "    - topic_metadata:\n        name: /joints\n"
      "        type: sensor_msgs/msg/JointState\n"
      "        serialization_format: cdr\n"
      "        offered_qos_profiles: \"\"\n      message_count: 7\n");
  expect (yaml, "  relative_file_paths:\n    - run_0.mcap\n  files:\n"
      "    - path: run_0.mcap\n");
  lines = dump_lines (file, NULL);
  fail_unless_equals_int (g_strv_length (lines), 8);
  expect_message (lines[7], "/joints", BASE_TIME + 6 * STEP, "map");
  g_strfreev (lines);
  g_free (yaml);
  g_free (desc);
  g_free (yaml_path);
  g_free (file);
  g_free (dir);
}

GST_END_TEST;

/* A pipeline set to NULL before EOS: the file is finished all the same. */
GST_START_TEST (test_stopped)
{
  gchar *path = tmp_path ("stopped.mcap");
  gchar *desc = g_strdup_printf ("robocachelidarsrc points-per-sweep=2000 ! "
      "robocachemcapsink chunk-size=65536 location=\"%s\"", path);
  GstElement *pipeline = gst_parse_launch (desc, NULL);
  gchar **lines, *count;
  guint n;

  gst_element_set_state (pipeline, GST_STATE_PLAYING);
  g_usleep (300 * 1000);
  gst_element_set_state (pipeline, GST_STATE_NULL);
  gst_object_unref (pipeline);
  lines = dump_lines (path, NULL);
  n = g_strv_length (lines) - 1;
  fail_unless (n > 0, "no message written in 300 ms");
  expect (lines[0], "\"indexed\":true");
  count = g_strdup_printf ("\"message_count\":\"%u\"", n);
  expect (lines[0], "%s", count);
  g_free (count);
  g_strfreev (lines);
  g_free (desc);
  g_free (path);
}

GST_END_TEST;

/* location is read when the file is opened, a pad's topic when its
 * first caps arrive: set while playing (after them) they are refused
 * with a warning, and the messages go on to the same file and topic; a
 * pad requested while playing takes its topic before its caps.  A pad's
 * frame-id, read per message, is taken while playing.  Stopped, the
 * element and the pad take location and topic. */
GST_START_TEST (test_properties_while_playing)
{
  gchar *path = tmp_path ("playing.mcap"), *other = tmp_path ("other.mcap");
  GstElement *pipeline = appsrc_pipeline (RING_CAPS, path, NULL);
  GstElement *sink = gst_bin_get_by_name (GST_BIN (pipeline), "m");
  GstPad *pad = gst_element_get_static_pad (sink, "sink_0"), *late;
  gchar *topic;
  GstBuffer *buf;
  GstMessage *msg;
  gchar **lines;

  start_recording (pipeline);
  check_set_refused (G_OBJECT (sink), "location", other);
  for (guint i = 0; i < 1000 && !gst_pad_has_current_caps (pad); i++)
    g_usleep (10 * 1000);
  ASSERT_WARNING (g_object_set (pad, "topic", "/lidar", NULL));
  g_object_get (pad, "topic", &topic, NULL);
  fail_unless (topic == NULL, "topic %s taken after the pad's caps", topic);
  check_set_taken (G_OBJECT (pad), "frame-id", "lidar");
  /* A pad requested now has no caps: its topic is still to be read. */
  late = gst_element_request_pad_simple (sink, "sink_%u");
  check_set_taken (G_OBJECT (late), "topic", "/late");
  gst_element_release_request_pad (sink, late);
  gst_object_unref (late);
  buf = random_points (10);
  GST_BUFFER_PTS (buf) = STEP;
  fail_unless_equals_int (gst_app_src_push_buffer (app_src (pipeline), buf),
      GST_FLOW_OK);
  gst_app_src_end_of_stream (app_src (pipeline));
  msg = run_to_end (pipeline, 60 * GST_SECOND);
  fail_unless (msg == NULL, "no EOS");
  fail_if (g_file_test (other, G_FILE_TEST_EXISTS));
  lines = dump_lines (path, NULL);
  fail_unless_equals_int (g_strv_length (lines), 3);
  expect (lines[0], "\"topic\":\"/points\"");
  expect_message (lines[2], "/points", BASE_TIME + STEP, "lidar");
  g_strfreev (lines);
  check_set_taken (G_OBJECT (sink), "location", other);
  check_set_taken (G_OBJECT (pad), "topic", "/lidar");
  gst_object_unref (pad);
  gst_object_unref (sink);
  gst_object_unref (pipeline);
  g_free (other);
  g_free (path);
}

GST_END_TEST;

/* A stream added to a running recording: a pad requested while the sink
 * plays, given its topic before its caps, records into the same file
 * beside the first stream. */
GST_START_TEST (test_pad_added_while_recording)
{
  gchar *path = tmp_path ("added.mcap");
  GstElement *pipeline = appsrc_pipeline (RING_CAPS, path, NULL);
  GstElement *sink = gst_bin_get_by_name (GST_BIN (pipeline), "m");
  GstElement *late_src = gst_element_factory_make ("appsrc", NULL);
  GstCaps *caps = gst_caps_from_string (RING_CAPS);
  GstPad *late, *late_out;
  GstBuffer *buf;
  GstMessage *msg;
  gchar **lines;
  /* Not "first": gstcheck's fail_unless_equals_int declares one. */
  guint n_first = 0, n_added = 0;

  start_recording (pipeline);

  late = gst_element_request_pad_simple (sink, "sink_%u");
  g_object_set (late, "topic", "/added", NULL);
  g_object_set (late_src, "format", GST_FORMAT_TIME, "caps", caps, NULL);
  gst_bin_add (GST_BIN (pipeline), late_src);
  late_out = gst_element_get_static_pad (late_src, "src");
  fail_unless_equals_int (gst_pad_link (late_out, late), GST_PAD_LINK_OK);
  fail_unless (gst_element_sync_state_with_parent (late_src));
  for (guint i = 1; i <= 2; i++) {
    buf = random_points (10);
    GST_BUFFER_PTS (buf) = i * STEP;
    fail_unless_equals_int (gst_app_src_push_buffer (GST_APP_SRC (late_src),
            buf), GST_FLOW_OK);
  }
  gst_app_src_end_of_stream (GST_APP_SRC (late_src));
  gst_app_src_end_of_stream (app_src (pipeline));
  msg = run_to_end (pipeline, 60 * GST_SECOND);
  fail_unless (msg == NULL, "no EOS");

  lines = dump_lines (path, NULL);
  for (guint i = 1; lines[i]; i++) {
    n_first += strstr (lines[i], "{\"topic\":\"/points\"") != NULL;
    n_added += strstr (lines[i], "{\"topic\":\"/added\"") != NULL;
  }
  fail_unless_equals_int (n_first, 1);
  fail_unless_equals_int (n_added, 2);
  g_strfreev (lines);
  gst_object_unref (late_out);
  gst_object_unref (late);
  gst_caps_unref (caps);
  gst_object_unref (sink);
  gst_object_unref (pipeline);
  g_free (path);
}

GST_END_TEST;

/* LATENCY over every pad (the largest minimum: here the resampled
 * branch's, which waits for its next input), not live, as a sink that
 * does not wait for the clock answers it; the first pad's peer answered
 * alone, live. */
GST_START_TEST (test_latency_all_pads)
{
  gchar *path = tmp_path ("latency.mcap");
  gchar *desc = g_strdup_printf ("robocachejointsrc is-live=true rate=100/1 "
      "! queue ! m.sink_0 robocachejointsrc is-live=true rate=10/1 ! queue "
      "! robocacheresample rate=10 ! m.sink_1 robocachemcapsink name=m "
      "location=\"%s\" sink_0::topic=/fast sink_1::topic=/slow", path);
  GstElement *pipeline = gst_parse_launch (desc, NULL);
  GstElement *sink = gst_bin_get_by_name (GST_BIN (pipeline), "m");
  GstQuery *query = gst_query_new_latency ();
  GstClockTime min, most = 0;
  gboolean live;

  gst_element_set_state (pipeline, GST_STATE_PLAYING);
  gst_element_get_state (pipeline, NULL, NULL, 10 * GST_SECOND);
  for (GList * l = GST_ELEMENT (sink)->sinkpads; l; l = l->next) {
    GstQuery *peer = gst_query_new_latency ();

    fail_unless (gst_pad_peer_query (l->data, peer));
    gst_query_parse_latency (peer, NULL, &min, NULL);
    most = MAX (most, min);
    gst_query_unref (peer);
  }
  fail_unless (gst_element_query (sink, query));
  gst_query_parse_latency (query, &live, &min, NULL);
  fail_if (live);
  fail_unless (most > 0);
  fail_unless_equals_clocktime (min, most);
  gst_element_set_state (pipeline, GST_STATE_NULL);
  gst_query_unref (query);
  gst_object_unref (sink);
  gst_object_unref (pipeline);
  g_free (desc);
  g_free (path);
}

GST_END_TEST;

/* Pads asked for by name (gst-launch's m.sink_0) and as sink_%u mix: the
 * numbered ones come after the highest named (sink_%u after sink_0 was
 * sink_0 again: a critical and no pad).  A name taken is GStreamer's
 * own warning, before the element is asked. */
GST_START_TEST (test_pad_names)
{
  GstElement *sink = gst_element_factory_make ("robocachemcapsink", NULL);
  const gchar *asked[] = { "sink_0", "sink_%u", "sink_5", "sink_%u",
    "sink_3", "sink_%u"
  };
  const gchar *made[] = { "sink_0", "sink_1", "sink_5", "sink_6",
    "sink_3", "sink_7"
  };

  for (guint i = 0; i < G_N_ELEMENTS (asked); i++) {
    GstPad *pad = gst_element_request_pad_simple (sink, asked[i]);

    fail_unless (pad != NULL, "no pad for %s", asked[i]);
    fail_unless_equals_string (GST_OBJECT_NAME (pad), made[i]);
    gst_object_unref (pad);
  }
  fail_unless_equals_int (GST_ELEMENT (sink)->numsinkpads, 6);
  gst_object_unref (sink);
}

GST_END_TEST;

/* A file cut short, as a recording killed mid-way leaves it: no summary,
 * but a scan finds the messages of every whole chunk, unchanged. */
GST_START_TEST (test_truncated)
{
  const guint n = 20;
  gchar *path = tmp_path ("cut.mcap");
  GstBuffer *bufs[20], *kept[20];
  gchar *data, **lines;
  gsize size;
  gboolean scanned = FALSE;
  guint found;

  for (guint i = 0; i < n; i++) {
    bufs[i] = random_points (200);
    kept[i] = gst_buffer_ref (bufs[i]);
  }
  push_and_finish (appsrc_pipeline (RING_CAPS, path, "chunk-size=8192"),
      bufs, n);
  fail_unless (g_file_get_contents (path, &data, &size, NULL));
  fail_unless (g_file_set_contents (path, data, size * 6 / 10, NULL));
  lines = dump_lines (path, &scanned);
  fail_unless (scanned, "dump.js did not scan the cut file");
  expect (lines[0], "\"indexed\":false");
  found = g_strv_length (lines) - 1;
  fail_unless (found > 0 && found < n, "%u of %u messages", found, n);
  for (guint i = 0; i < found; i++) {
    expect_message (lines[i + 1], "/points", BASE_TIME + i * STEP, "map");
    expect_points (lines[i + 1], kept[i]);
  }
  for (guint i = 0; i < n; i++)
    gst_buffer_unref (kept[i]);
  g_strfreev (lines);
  g_free (data);
  g_free (path);
}

GST_END_TEST;

/* Runs an appsrc pipeline with @caps to its error; returns its text. */
static gchar *
refused_error (const gchar * caps, GQuark * domain)
{
  gchar *path = tmp_path ("refused.mcap");
  GstElement *pipeline = appsrc_pipeline (caps, path, NULL);
  GstMessage *msg;
  GError *err = NULL;
  gchar *text, *debug = NULL;

  gst_element_set_state (pipeline, GST_STATE_PLAYING);
  gst_app_src_push_buffer (app_src (pipeline), gst_buffer_new_allocate (NULL,
          48, NULL));
  gst_app_src_end_of_stream (app_src (pipeline));
  msg = run_to_end (pipeline, 20 * GST_SECOND);
  fail_unless (msg != NULL, "caps %s were accepted", caps);
  gst_message_parse_error (msg, &err, &debug);
  text = g_strdup_printf ("%s %s", err->message, debug ? debug : "");
  *domain = err->domain;
  g_error_free (err);
  g_free (debug);
  gst_message_unref (msg);
  gst_object_unref (pipeline);
  g_free (path);
  return text;
}

GST_START_TEST (test_refused_caps)
{
  const gchar *refused[] = {
    GST_ROBOCACHE_POINTS_MEDIA_TYPE ", point-step=(int)12, fields=(string)"
        "\"x:bfloat16:0,y:float32:4,z:float32:8\"",
    GST_ROBOCACHE_POINTS_MEDIA_TYPE ", point-step=(int)8, fields=(string)"
        "\"x:float32:0,y:float32:4,z:float32:8\"",
    GST_ROBOCACHE_VECTORS_MEDIA_TYPE ", channels=(int)3, "
        "format=(string)float32, layout=(string)chunk, batch=(int)2",
  };
  gchar *text;
  GQuark domain;

  for (guint i = 0; i < G_N_ELEMENTS (refused); i++) {
    text = refused_error (refused[i], &domain);
    fail_unless (domain == GST_STREAM_ERROR, "%s", text);
    fail_unless (strstr (text, "accepted") != NULL, "%s", text);
    g_free (text);
  }
  /* CUDA memory: not in the template. */
  text = refused_error (GST_ROBOCACHE_POINTS_MEDIA_TYPE
      "(memory:CUDAMemory), point-step=(int)16, fields=(string)\""
      GST_ROBOCACHE_FIELDS_XYZI "\"", &domain);
  g_free (text);
}

GST_END_TEST;

/* One type a topic, as ROS 2 records it: a second stream of another type
 * on a topic is refused, naming both; one of the same type shares the
 * topic's channel, with one sequence, and the file plays as one topic. */
GST_START_TEST (test_one_type_a_topic)
{
  gchar *path = tmp_path ("one-topic.mcap");
  gchar *desc = g_strdup_printf ("robocachemcapsink name=m location=\"%s\" "
      "sink_0::topic=/x sink_1::topic=/x robocachejointsrc num-buffers=10 ! "
      "m.sink_0 robocachelidarsrc num-buffers=2 points-per-sweep=100 ! "
      "m.sink_1", path);
  gchar *text = launch_error (desc, FALSE);
  guint64 seen = 0;
  gchar **lines;

  fail_unless (text != NULL, "two types recorded on /x");
  fail_unless (strstr (text, "/x") && strstr (text, "one type a topic"),
      "%s", text);
  g_free (text);
  g_free (desc);
  desc = g_strdup_printf ("robocachemcapsink name=m location=\"%s\" "
      "sink_0::topic=/x sink_1::topic=/x robocachejointsrc num-buffers=10 ! "
      "m.sink_0 robocachejointsrc num-buffers=10 seed=2 ! m.sink_1", path);
  text = launch_error (desc, FALSE);
  fail_unless (text == NULL, "%s", text);
  g_free (desc);
  desc = g_strdup_printf ("robocachemcapsrc location=\"%s\" topics=/x ! "
      "fakesink", path);
  text = launch_error (desc, FALSE);
  fail_unless (text == NULL, "%s", text);
  g_free (desc);
  /* One publisher's sequence for the channel: 0 to 19, each once (each
   * pad counted its own, 0 to 9 twice). */
  lines = dump_lines (path, NULL);
  fail_unless_equals_int (g_strv_length (lines), 21);
  for (guint i = 1; lines[i]; i++) {
    const gchar *at = strstr (lines[i], "\"sequence\":");

    fail_unless (at != NULL, "%s", lines[i]);
    seen |= G_GUINT64_CONSTANT (1) << atoi (at + strlen ("\"sequence\":"));
  }
  fail_unless_equals_uint64 (seen, (G_GUINT64_CONSTANT (1) << 20) - 1);
  g_strfreev (lines);
  g_free (path);
}

GST_END_TEST;

/* As a GStreamer sink: a pipeline paused, seeked to 2 s and played
 * records from 2 s (PAUSED holds buffers back); the seek reaches the
 * source through the sink; LATENCY is taken; the position is the stream
 * time last written. */
GST_START_TEST (test_paused_seek_play)
{
  gchar *source = tmp_path ("seek-source.mcap");
  gchar *path = tmp_path ("seek.mcap");
  gchar *desc = g_strdup_printf ("robocachejointsrc num-buffers=300 "
      "rate=100/1 dof=3 ! robocachemcapsink location=\"%s\"", source);
  GstElement *pipeline, *sink;
  GstMessage *msg;
  gint64 position = -1;

  fail_unless (play_to_end (gst_parse_launch (desc, NULL)));
  g_free (desc);
  desc = g_strdup_printf ("robocachemcapsrc location=\"%s\" topics=/joints "
      "! robocachemcapsink name=m location=\"%s\"", source, path);
  pipeline = gst_parse_launch (desc, NULL);
  sink = gst_bin_get_by_name (GST_BIN (pipeline), "m");
  fail_unless (gst_element_set_state (pipeline, GST_STATE_PAUSED) !=
      GST_STATE_CHANGE_FAILURE);
  fail_unless (gst_element_get_state (pipeline, NULL, NULL, 10 * GST_SECOND)
      != GST_STATE_CHANGE_FAILURE);
  /* Time for the source to push all it would while PAUSED. */
  g_usleep (G_USEC_PER_SEC / 2);
  fail_unless (gst_element_seek_simple (pipeline, GST_FORMAT_TIME,
          GST_SEEK_FLAG_FLUSH, 2 * GST_SECOND), "the seek was refused");
  fail_unless (gst_element_send_event (sink, gst_event_new_latency (0)));
  gst_element_set_state (pipeline, GST_STATE_PLAYING);
  msg = gst_bus_timed_pop_filtered (GST_ELEMENT_BUS (pipeline),
      60 * GST_SECOND, GST_MESSAGE_EOS | GST_MESSAGE_ERROR);
  fail_unless (msg && GST_MESSAGE_TYPE (msg) == GST_MESSAGE_EOS);
  gst_message_unref (msg);
  fail_unless (gst_element_query_position (pipeline, GST_FORMAT_TIME,
          &position));
  /* The last sample's time: 2.99 s give or take jointsrc's jitter. */
  fail_unless (position > 2980 * GST_MSECOND && position < 3 * GST_SECOND,
      "position %" G_GINT64_FORMAT, position);
  gst_element_set_state (pipeline, GST_STATE_NULL);
  gst_object_unref (sink);
  gst_object_unref (pipeline);

  fail_unless_equals_int (messages_on_topic (path, "/joints"), 100);
  g_free (desc);
  g_free (path);
  g_free (source);
}

GST_END_TEST;

/* A flush that began (FLUSH_START) and never stopped before the element
 * went down does not hold back the next run's buffers. */
GST_START_TEST (test_flush_left_open)
{
  gchar *path = tmp_path ("after-flush.mcap");
  gchar *desc = g_strdup_printf ("robocachejointsrc num-buffers=20 dof=2 ! "
      "robocachemcapsink name=m location=\"%s\"", path);
  GstElement *pipeline = gst_parse_launch (desc, NULL);
  GstElement *sink = gst_bin_get_by_name (GST_BIN (pipeline), "m");
  GstPad *pad = gst_element_get_static_pad (sink, "sink_0");

  gst_element_set_state (pipeline, GST_STATE_PAUSED);
  fail_unless (gst_element_get_state (pipeline, NULL, NULL, 10 * GST_SECOND)
      != GST_STATE_CHANGE_FAILURE);
  fail_unless (gst_pad_send_event (pad, gst_event_new_flush_start ()));
  gst_element_set_state (pipeline, GST_STATE_NULL);
  fail_unless (play_to_end (gst_object_ref (pipeline)));
  fail_unless_equals_int (messages_on_topic (path, "/joints"), 20);
  gst_object_unref (pad);
  gst_object_unref (sink);
  gst_object_unref (pipeline);
  g_free (desc);
  g_free (path);
}

GST_END_TEST;

/* Topics rosbag2 could not record (or YAML would read as null) are
 * refused, naming the topic and what is accepted. */
GST_START_TEST (test_bad_topic_names_n)
{
  const gchar *bad[] = { "null", "/a:b", "/a//b", "/a/", "/1a", "/" };
  gchar *path = tmp_path ("bad-topic.mcap");

  for (guint i = 0; i < G_N_ELEMENTS (bad); i++) {
    gchar *desc = g_strdup_printf ("robocachemcapsink name=m "
        "location=\"%s\" sink_0::topic=\"%s\" robocachejointsrc "
        "num-buffers=2 ! m.sink_0", path, bad[i]);
    gchar *text = launch_error (desc, FALSE);

    fail_unless (text != NULL, "topic %s was written", bad[i]);
    fail_unless (strstr (text, "not a ROS 2 topic name"), "%s", text);
    g_free (text);
    g_free (desc);
  }
  g_free (path);
}

GST_END_TEST;

/* A stamp past 2038 wraps in a ROS 2 header's int32 seconds: refused,
 * saying so, rather than written as 1901. */
GST_START_TEST (test_stamp_after_2038_n)
{
  gchar *path = tmp_path ("y2040.mcap");
  gchar *desc = g_strdup_printf ("robocachejointsrc num-buffers=3 ! "
      "robocachemcapsink location=\"%s\" base-time=2500000000000000000",
      path);
  gchar *text = launch_error (desc, FALSE);

  fail_unless (text != NULL, "a stamp after 2038 was written");
  fail_unless (strstr (text, "2038") != NULL, "%s", text);
  g_free (text);
  g_free (desc);
  g_free (path);
}

GST_END_TEST;

/* A segment in bytes (filesrc's) has no running time for the stamps:
 * refused at the segment, naming its format and TIME, with no
 * GStreamer-CRITICAL (gst-check fails on one), and no message written
 * for the stream. */
GST_START_TEST (test_bytes_segment_n)
{
  gchar *points = tmp_path ("points.bin");
  gchar *path = tmp_path ("bytes-segment.mcap");
  GstBuffer *buf = random_points (400);
  GstMapInfo map;
  gchar *desc;
  GstElement *pipeline, *filter;
  GstCaps *caps = gst_caps_from_string (RING_CAPS);
  GstMessage *msg;
  GError *err = NULL;

  gst_buffer_map (buf, &map, GST_MAP_READ);
  fail_unless (g_file_set_contents (points, (const gchar *) map.data,
          map.size, NULL));
  gst_buffer_unmap (buf, &map);
  gst_buffer_unref (buf);
  desc = g_strdup_printf ("filesrc location=\"%s\" blocksize=4000 ! "
      "capsfilter name=f ! robocachemcapsink location=\"%s\" "
      "sink_0::topic=/cloud", points, path);
  pipeline = gst_parse_launch (desc, NULL);
  filter = gst_bin_get_by_name (GST_BIN (pipeline), "f");
  g_object_set (filter, "caps", caps, NULL);
  msg = run_to_end (pipeline, 20 * GST_SECOND);
  fail_unless (msg != NULL, "a bytes segment was recorded");
  gst_message_parse_error (msg, &err, NULL);
  fail_unless (err->domain == GST_STREAM_ERROR, "%s", err->message);
  fail_unless (strstr (err->message, "sink_0") &&
      strstr (err->message, "/cloud") &&
      strstr (err->message, "a bytes segment") &&
      strstr (err->message, "only TIME segments are accepted"), "%s",
      err->message);
  fail_unless_equals_int (messages_on_topic (path, "/cloud"), 0);
  g_error_free (err);
  gst_message_unref (msg);
  gst_object_unref (filter);
  gst_object_unref (pipeline);
  gst_caps_unref (caps);
  g_free (desc);
  g_free (path);
  g_free (points);
}

GST_END_TEST;

static void
check_unwritable (const gchar * location)
{
  gchar *desc = g_strdup_printf ("robocachejointsrc num-buffers=3 ! "
      "robocachemcapsink location=\"%s\"", location);
  GstElement *pipeline = gst_parse_launch (desc, NULL);
  GstBus *bus = gst_element_get_bus (pipeline);
  GstMessage *msg;
  GError *err = NULL;

  fail_unless_equals_int (gst_element_set_state (pipeline,
          GST_STATE_PLAYING), GST_STATE_CHANGE_FAILURE);
  msg = gst_bus_pop_filtered (bus, GST_MESSAGE_ERROR);
  fail_unless (msg != NULL);
  gst_message_parse_error (msg, &err, NULL);
  fail_unless (err->domain == GST_RESOURCE_ERROR, "%s", err->message);
  fail_unless (strstr (err->message, location) != NULL, "%s", err->message);
  g_error_free (err);
  gst_message_unref (msg);
  gst_element_set_state (pipeline, GST_STATE_NULL);
  gst_object_unref (bus);
  gst_object_unref (pipeline);
  g_free (desc);
}

GST_START_TEST (test_unwritable)
{
  gchar *missing = tmp_path ("no-such-dir/a.mcap");

  check_unwritable (missing);
  /* Opens, but the header's write fails (ENOSPC). */
  if (g_file_test ("/dev/full", G_FILE_TEST_EXISTS))
    check_unwritable ("/dev/full");
  g_free (missing);
}

GST_END_TEST;

/* ------------------------------------------------------------------ */
/* Pillars                                                             */
/* ------------------------------------------------------------------ */

#define PILLARS_PROPS "backend=cpu dims=\"<40,32,1>\" " \
    "voxel-size=\"<0.75,1.0,8.0>\" origin=\"<-15.0,-16.5,-4.0>\" " \
    "max-voxels=300 max-points-per-voxel=4"
#define PILLARS_ORIGIN_X -15.0
#define PILLARS_ORIGIN_Y -16.5
#define PILLARS_ORIGIN_Z -4.0

/* The cloud robocachemcapsink must write for one pillars buffer of
 * @max_voxels slots with @channels channels: each used slot's centre
 * (computed here from the coordinates, x = origin + (i + 0.5) * size) and
 * its point count. */
static GByteArray *
expected_pillars (GstBuffer * buf, guint max_voxels, guint k, guint channels)
{
  const gdouble origin[3] = { PILLARS_ORIGIN_X, PILLARS_ORIGIN_Y,
    PILLARS_ORIGIN_Z
  }, size[3] = { 0.75, 1.0, 8.0 };
  gsize coords_at = (gsize) max_voxels * k * channels * 4;
  gsize counts_at = coords_at + max_voxels * 12;
  GByteArray *out = g_byte_array_new ();
  GstMapInfo map;
  gint32 n;

  gst_buffer_map (buf, &map, GST_MAP_READ);
  fail_unless_equals_uint64 (map.size, counts_at + max_voxels * 4 + 16);
  memcpy (&n, map.data + counts_at + max_voxels * 4, 4);
  fail_unless (n > 0 && n <= (gint32) max_voxels, "%d voxels", n);
  for (gint32 s = 0; s < n; s++) {
    gint32 zyx[3];
    gfloat point[4];

    memcpy (zyx, map.data + coords_at + 12 * s, 12);
    for (guint a = 0; a < 3; a++)
      point[a] = origin[a] + (zyx[2 - a] + 0.5) * size[a];
    memcpy (&point[3], map.data + counts_at + 4 * s, 4);
    g_byte_array_append (out, (guint8 *) point, 16);
  }
  gst_buffer_unmap (buf, &map);
  return out;
}

/* robocachelidarsrc ! robocachepillars into the sink (default topic
 * /pillars): each message is the pillars' centres and counts, checked
 * against a tee'd copy of what robocachepillars pushed. */
GST_START_TEST (test_pillars)
{
  gchar *path = tmp_path ("pillars.mcap");
  gchar *desc = g_strdup_printf ("robocachelidarsrc seed=%u num-buffers=3 "
      "points-per-sweep=1500 ! robocachepillars " PILLARS_PROPS " ! "
      "tee name=t t. ! queue ! robocachemcapsink location=\"%s\" "
      "base-time=%" G_GUINT64_FORMAT " t. ! queue ! appsink name=copy "
      "sync=false", g_rand_int (rng), path, BASE_TIME);
  GstElement *pipeline = gst_parse_launch (desc, NULL);
  GstElement *copy = gst_bin_get_by_name (GST_BIN (pipeline), "copy");
  GPtrArray *pushed = g_ptr_array_new_with_free_func ((GDestroyNotify)
      gst_sample_unref);
  GstSample *sample;
  GPtrArray *msgs;
  gchar **lines;

  gst_element_set_state (pipeline, GST_STATE_PLAYING);
  while ((sample = gst_app_sink_pull_sample (GST_APP_SINK (copy))))
    g_ptr_array_add (pushed, sample);
  fail_unless (run_to_end (pipeline, 60 * GST_SECOND) == NULL);
  fail_unless_equals_int (pushed->len, 3);
  lines = dump_lines (path, NULL);
  msgs = lines_of_topic (lines, "/pillars");
  fail_unless_equals_int (msgs->len, 3);
  expect (lines[0], "\"message_count\":\"3\"");
  for (guint i = 0; i < 3; i++) {
    GByteArray *e = expected_pillars (gst_sample_get_buffer (pushed->pdata[i]),
        300, 4, 10);
    gchar *sum = sha256 (e->data, e->len);

    expect (g_ptr_array_index (msgs, i), "\"width\":%u,\"fields\":[{\"name\":"
        "\"x\",\"offset\":0,\"datatype\":7,\"count\":1},{\"name\":\"y\","
        "\"offset\":4,\"datatype\":7,\"count\":1},{\"name\":\"z\",\"offset\""
        ":8,\"datatype\":7,\"count\":1},{\"name\":\"count\",\"offset\":12,"
        "\"datatype\":6,\"count\":1}],\"is_bigendian\":false,\"point_step\""
        ":16,\"row_step\":%u,\"data\":{\"length\":%u,\"sha256\":\"%s\"",
        e->len / 16, e->len, e->len, sum);
    g_free (sum);
    g_byte_array_unref (e);
  }
  g_ptr_array_unref (msgs);
  g_ptr_array_unref (pushed);
  g_strfreev (lines);
  gst_object_unref (copy);
  gst_object_unref (pipeline);
  g_free (desc);
  g_free (path);
}

GST_END_TEST;


/* A pillars buffer claiming more voxels than max-voxels: an error naming
 * the count and what is accepted. */
GST_START_TEST (test_pillars_bad_count_n)
{
  gchar *path = tmp_path ("bad-pillars.mcap");
  /* M = K = 1, C = 4: 16 + 12 + 4 + 16 = 48 bytes. */
  GstElement *pipeline = appsrc_pipeline (GST_ROBOCACHE_SPARSE_MEDIA_TYPE
      ", mode=(string)voxels, channels=(int)4, max-voxels=(int)1, "
      "max-points=(int)1, channel-names=(string)\"x,y,z,intensity\", "
      "grid-x=(int)4, grid-y=(int)4, grid-z=(int)1, origin-x=(double)0, "
      "origin-y=(double)0, origin-z=(double)0, voxel-size-x=(double)1, "
      "voxel-size-y=(double)1, voxel-size-z=(double)1", path, NULL);
  gint32 bytes[12] = { 0 };
  GstMessage *msg;
  GError *err = NULL;

  bytes[8] = 2;                 /* n_voxels */
  gst_element_set_state (pipeline, GST_STATE_PLAYING);
  gst_app_src_push_buffer (app_src (pipeline), gst_buffer_new_memdup (bytes,
          sizeof (bytes)));
  gst_app_src_end_of_stream (app_src (pipeline));
  msg = run_to_end (pipeline, 20 * GST_SECOND);
  fail_unless (msg != NULL, "a count above max-voxels was written");
  gst_message_parse_error (msg, &err, NULL);
  fail_unless (strstr (err->message, "using 2 voxels") &&
      strstr (err->message, "max-voxels (1)"), "%s", err->message);
  g_error_free (err);
  gst_message_unref (msg);
  gst_object_unref (pipeline);
  g_free (path);
}

GST_END_TEST;

static void
add_file_tests (TCase * tc)
{
  tcase_add_test (tc, test_sources);
  tcase_add_test (tc, test_pillars);
  tcase_add_test (tc, test_pillars_bad_count_n);
  tcase_add_test (tc, test_rosbag2);
  tcase_add_test (tc, test_stopped);
  tcase_add_test (tc, test_properties_while_playing);
  tcase_add_test (tc, test_pad_added_while_recording);
  tcase_add_test (tc, test_pad_names);
  tcase_add_test (tc, test_latency_all_pads);
  tcase_add_test (tc, test_truncated);
  tcase_add_test (tc, test_refused_caps);
  tcase_add_test (tc, test_one_type_a_topic);
  tcase_add_test (tc, test_paused_seek_play);
  tcase_add_test (tc, test_flush_left_open);
  tcase_add_test (tc, test_stamp_after_2038_n);
  tcase_add_test (tc, test_bad_topic_names_n);
  tcase_add_test (tc, test_bytes_segment_n);
  tcase_add_test (tc, test_unwritable);
}

static Suite *
mcapsink_suite (void)
{
  Suite *s = suite_create ("robocachemcapsink");
  TCase *tc = tcase_create ("general");

  tcase_set_timeout (tc, 120);
  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_points_zstd);
  tcase_add_test (tc, test_points_lz4);
  tcase_add_test (tc, test_points_none);
  tcase_add_test (tc, test_joints_sample);
  tcase_add_test (tc, test_joints_chunk);
  tcase_add_test (tc, test_image_rgb);
  tcase_add_test (tc, test_image_gray16);
  tcase_add_test (tc, test_voxels);
  add_file_tests (tc);
  return s;
}

int
main (int argc, char **argv)
{
  Suite *s;
  SRunner *sr;
  int failed;
  GError *error = NULL;

  gst_check_init (&argc, &argv);
  require_node ();
  rng = test_rand_new ();
  tmp_dir = g_dir_make_tmp ("robocache-mcap-XXXXXX", &error);
  g_assert_no_error (error);
  s = mcapsink_suite ();
  sr = srunner_create (s);
  srunner_run_all (sr, CK_NORMAL);
  failed = srunner_ntests_failed (sr);
  srunner_free (sr);
  test_remove_tree (tmp_dir);
  g_free (tmp_dir);
  g_rand_free (rng);
  return failed == 0 ? 0 : 1;
}
