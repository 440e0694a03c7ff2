/* The embedding API (robocache.h): caps and buffers from ROS message
 * layouts, voxel centre listing, fused-frame helpers, the ROS time map,
 * and bad input (_n). */
#include <gst/app/gstappsrc.h>
#include <gst/check/gstcheck.h>
#include <gst/video/video.h>
#include <math.h>
#include <string.h>

#include "robocache.h"

/* A Velodyne-style PointCloud2 layout: x, y, z, intensity, ring (uint16),
 * time (float32) in 32-byte points. */
static const gchar *const velodyne_names[] =
    { "x", "y", "z", "intensity", "ring", "time" };
static const guint velodyne_offsets[] = { 0, 4, 8, 12, 16, 20 };

static const guint8 velodyne_types[] = { 7, 7, 7, 7, 4, 7 };

GST_START_TEST (test_points_caps_velodyne)
{
  GError *err = NULL;
  GstCaps *caps = robocache_points_caps_from_pointcloud2 (32, 6,
      velodyne_names, velodyne_offsets, velodyne_types, NULL, &err);
  GstStructure *s;
  rc_point_layout layout;
  gint step;

  fail_unless (caps != NULL, "%s", err ? err->message : "");
  s = gst_caps_get_structure (caps, 0);
  fail_unless (gst_structure_has_name (s, GST_ROBOCACHE_POINTS_MEDIA_TYPE));
  fail_unless (gst_structure_get_int (s, "point-step", &step));
  fail_unless_equals_int (step, 32);
  fail_unless_equals_string (gst_structure_get_string (s, "fields"),
      "x:float32:0,y:float32:4,z:float32:8,intensity:float32:12,"
      "ring:uint16:16,time:float32:20");
  /* The elements read it as they read their own caps. */
  fail_unless (gst_robocache_points_caps_parse (caps, "intensity,ring",
          &layout, NULL));
  fail_unless_equals_int (layout.point_step, 32);
  fail_unless_equals_int (layout.features[1].offset, 16);
  fail_unless_equals_int (layout.features[1].type, RC_TYPE_UINT16);
  gst_caps_unref (caps);
}

GST_END_TEST;

/* float64 xyz, counts 0 (taken as 1) and 2 (expanded). */
GST_START_TEST (test_points_caps_float64_counts)
{
  static const gchar *const names[] = { "x", "y", "z", "normal" };
  static const guint offsets[] = { 0, 8, 16, 24 };
  static const guint8 types[] = { 8, 8, 8, 7 };
  static const guint counts[] = { 1, 0, 1, 2 };
  GstCaps *caps = robocache_points_caps_from_pointcloud2 (32, 4, names,
      offsets, types, counts, NULL);

  fail_unless (caps != NULL);
  fail_unless_equals_string (gst_structure_get_string
      (gst_caps_get_structure (caps, 0), "fields"),
      "x:float64:0,y:float64:8,z:float64:16,normal_0:float32:24,"
      "normal_1:float32:28");
  gst_caps_unref (caps);
}

GST_END_TEST;

GST_START_TEST (test_points_buffer)
{
  guint8 data[2 * 40];
  GstBuffer *buf;
  GstMapInfo map;

  for (guint i = 0; i < sizeof (data); i++)
    data[i] = (guint8) i;
  buf = robocache_points_buffer_new (data, 64, 5 * GST_SECOND);
  fail_unless_equals_int (gst_buffer_get_size (buf), 64);
  fail_unless_equals_uint64 (GST_BUFFER_PTS (buf), 5 * GST_SECOND);
  gst_buffer_unref (buf);

  /* Two rows of one 32-byte point, row_step 40: packed to 64 bytes. */
  buf = robocache_points_buffer_new_rows (data, 1, 2, 32, 40, 0);
  fail_unless_equals_int (gst_buffer_get_size (buf), 64);
  gst_buffer_map (buf, &map, GST_MAP_READ);
  fail_unless (memcmp (map.data, data, 32) == 0);
  fail_unless (memcmp (map.data + 32, data + 40, 32) == 0);
  gst_buffer_unmap (buf, &map);
  gst_buffer_unref (buf);
}

GST_END_TEST;

GST_START_TEST (test_joints)
{
  static const gchar *const names[] = { "shoulder", "elbow", "wrist" };
  static const gdouble pos[] = { 0.5, -1.25, 3.0 };
  GstRobocacheVectorsInfo info;
  GstCaps *caps;
  GstBuffer *buf;
  GstMapInfo map;

  caps = robocache_joints_caps_new (3, names, TRUE, NULL);
  fail_unless (caps != NULL);
  fail_unless (gst_robocache_vectors_caps_parse (caps, &info, NULL));
  fail_unless_equals_int (info.channels, 3);
  fail_unless_equals_int (info.type, RC_TYPE_FLOAT64);
  fail_unless_equals_int (info.layout, GST_ROBOCACHE_VECTORS_LAYOUT_SAMPLE);
  fail_unless_equals_string (gst_structure_get_string
      (gst_caps_get_structure (caps, 0), "names"), "shoulder,elbow,wrist");
  gst_caps_unref (caps);

  buf = robocache_joints_buffer_new (pos, 3, TRUE, 7);
  fail_unless_equals_int (gst_buffer_get_size (buf), 24);
  fail_unless_equals_uint64 (GST_BUFFER_PTS (buf), 7);
  gst_buffer_map (buf, &map, GST_MAP_READ);
  fail_unless (memcmp (map.data, pos, 24) == 0);
  gst_buffer_unmap (buf, &map);
  gst_buffer_unref (buf);

  /* float32, no names. */
  caps = robocache_joints_caps_new (3, NULL, FALSE, NULL);
  fail_unless (gst_robocache_vectors_caps_parse (caps, &info, NULL));
  fail_unless_equals_int (info.type, RC_TYPE_FLOAT32);
  fail_unless (gst_structure_get_string (gst_caps_get_structure (caps, 0),
          "names") == NULL);
  gst_caps_unref (caps);
  buf = robocache_joints_buffer_new (pos, 3, FALSE, 0);
  gst_buffer_map (buf, &map, GST_MAP_READ);
  fail_unless_equals_int (map.size, 12);
  fail_unless_equals_float (((gfloat *) map.data)[1], -1.25f);
  gst_buffer_unmap (buf, &map);
  gst_buffer_unref (buf);
}

GST_END_TEST;

GST_START_TEST (test_image_encodings)
{
  static const struct
  {
    const gchar *encoding;
    const gchar *format;
    guint bpp;
  } cases[] = {
    {"rgb8", "RGB", 3}, {"bgr8", "BGR", 3}, {"mono8", "GRAY8", 1},
    {"mono16", "GRAY16_LE", 2}, {"rgba8", "RGBA", 4}, {"bgra8", "BGRA", 4},
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++) {
    GstCaps *caps = robocache_image_caps_from_ros (cases[i].encoding, 64, 48,
        64 * cases[i].bpp, NULL);
    GstStructure *s;
    gint w, h;

    fail_unless (caps != NULL, "%s", cases[i].encoding);
    s = gst_caps_get_structure (caps, 0);
    fail_unless (gst_structure_has_name (s, "video/x-raw"));
    fail_unless_equals_string (gst_structure_get_string (s, "format"),
        cases[i].format);
    fail_unless (gst_structure_get_int (s, "width", &w));
    fail_unless (gst_structure_get_int (s, "height", &h));
    fail_unless_equals_int (w, 64);
    fail_unless_equals_int (h, 48);
    gst_caps_unref (caps);
  }
}

GST_END_TEST;

/* A step other than the default stride: the buffer says so with a
 * GstVideoMeta; the default stride gets none. */
GST_START_TEST (test_image_stride)
{
  guint8 *data = g_malloc0 (100 * 4);
  GstVideoInfo info;
  GstVideoMeta *meta;
  GstBuffer *buf;

  /* 30 RGB pixels = 90 bytes, rows 100 bytes apart. */
  fail_unless (robocache_image_info_from_ros ("rgb8", 30, 4, 100, &info, NULL));
  buf = robocache_image_buffer_new (&info, 100, data, GST_SECOND);
  fail_unless_equals_int (gst_buffer_get_size (buf), 400);
  fail_unless_equals_uint64 (GST_BUFFER_PTS (buf), GST_SECOND);
  meta = gst_buffer_get_video_meta (buf);
  fail_unless (meta != NULL);
  fail_unless_equals_int (meta->stride[0], 100);
  fail_unless_equals_int (meta->width, 30);
  fail_unless_equals_int (meta->format, GST_VIDEO_FORMAT_RGB);
  gst_buffer_unref (buf);

  /* 32 GRAY8 pixels: the default stride is 32. */
  fail_unless (robocache_image_info_from_ros ("mono8", 32, 4, 32, &info, NULL));
  buf = robocache_image_buffer_new (&info, 32, data, 0);
  fail_unless (gst_buffer_get_video_meta (buf) == NULL);
  gst_buffer_unref (buf);
  g_free (data);
}

GST_END_TEST;

/* The time map round-trips every stamp exactly, and a stamp 30 days of
 * 10 Hz ticks later lands exactly where integer arithmetic puts it. */
GST_START_TEST (test_time_map)
{
  RobocacheTimeMap map;
  const guint32 sec0 = 1700000000, nsec0 = 123456789;
  const GstClockTime base = 3 * GST_SECOND + 17;
  guint32 sec, nsec;
  guint64 step = 100 * GST_MSECOND + 1; /* an awkward period */
  guint64 n = 30ull * 24 * 3600 * 10;   /* 30 days at ~10 Hz */

  memset (&map, 0, sizeof (map));
  fail_unless (!GST_CLOCK_TIME_IS_VALID (robocache_time_map_to_running
          (&map, sec0, nsec0)));
  robocache_time_map_init (&map, sec0, nsec0, base);
  fail_unless_equals_uint64 (robocache_time_map_to_running (&map, sec0,
          nsec0), base);
  fail_unless (robocache_time_map_to_ros (&map, base, &sec, &nsec));
  fail_unless_equals_int (sec, sec0);
  fail_unless_equals_int (nsec, nsec0);

  for (guint64 k = 0; k <= n; k += 997) {
    gint64 ns = robocache_ros_to_ns (sec0, nsec0) + (gint64) (k * step);
    guint32 s = (guint32) (ns / GST_SECOND), ss = (guint32) (ns % GST_SECOND);
    GstClockTime running = robocache_time_map_to_running (&map, s, ss);

    /* Exact: base + k * step, no accumulated error. */
    fail_unless_equals_uint64 (running, base + k * step);
    fail_unless (robocache_time_map_to_ros (&map, running, &sec, &nsec));
    fail_unless_equals_int (sec, s);
    fail_unless_equals_int (nsec, ss);
  }
  /* The last stamp of the 30 days, directly. */
  {
    gint64 ns = robocache_ros_to_ns (sec0, nsec0) + (gint64) (n * step);
    fail_unless_equals_uint64 (robocache_time_map_to_running (&map,
            (guint32) (ns / GST_SECOND), (guint32) (ns % GST_SECOND)),
        base + n * step);
  }

  /* Before running time 0: none; nsec above 1e9 normalised. */
  fail_unless (!GST_CLOCK_TIME_IS_VALID (robocache_time_map_to_running
          (&map, sec0 - 4, nsec0)));
  fail_unless_equals_uint64 (robocache_time_map_to_running (&map, sec0 - 1,
          nsec0 + 1000000000u), base);
  fail_unless (!robocache_time_map_to_ros (&map, GST_CLOCK_TIME_NONE, &sec,
          &nsec));
  /* Running 0 maps 3 s + 17 ns before the first stamp. */
  fail_unless (robocache_time_map_to_ros (&map, 0, &sec, &nsec));
  fail_unless_equals_int (sec, sec0 - 3);
  fail_unless_equals_int (nsec, nsec0 - 17);

  /* A running base above G_MAXINT64 is no running time (it wrapped to a
   * small one); near it, a later stamp maps to none rather than wrap. */
  ASSERT_CRITICAL (robocache_time_map_init (&map, sec0, nsec0,
          G_MAXUINT64 - 1));
  robocache_time_map_init (&map, sec0, nsec0, G_MAXINT64 - GST_SECOND);
  fail_unless_equals_uint64 (robocache_time_map_to_running (&map, sec0,
          nsec0), G_MAXINT64 - GST_SECOND);
  fail_unless (!GST_CLOCK_TIME_IS_VALID (robocache_time_map_to_running
          (&map, sec0 + 2, nsec0)));
}

GST_END_TEST;

/* A hand-made 4 x 3 x 2 grid: occupancy and count give the centres of
 * the set voxels in storage order; mean mode any non-zero feature. */
GST_START_TEST (test_voxel_centres)
{
  GstCaps *caps = gst_caps_from_string (GST_ROBOCACHE_VOXELS_MEDIA_TYPE
      ", layout=(string)dense, mode=(string)occupancy, format=(string)uint8, "
      "grid-x=(int)4, grid-y=(int)3, grid-z=(int)2, origin-x=(double)-1.0, "
      "origin-y=(double)0.0, origin-z=(double)2.0, "
      "voxel-size-x=(double)0.5, voxel-size-y=(double)0.25, "
      "voxel-size-z=(double)1.0");
  RobocacheVoxelsInfo info;
  guint8 occ[24] = { 0, };
  guint32 count[24] = { 0, };
  gfloat mean[2 * 24] = { 0, };
  gfloat xyz[3 * 4];

  fail_unless (robocache_voxels_info_from_caps (caps, &info, NULL));
  fail_unless_equals_int (info.dims[0], 4);
  fail_unless_equals_int (info.dims[2], 2);
  fail_unless_equals_uint64 (info.n_voxels, 24);
  fail_unless_equals_int (robocache_voxels_size (&info), 24);
  gst_caps_unref (caps);

  /* (1, 0, 0) -> index 1; (3, 2, 1) -> (1 * 3 + 2) * 4 + 3 = 23. */
  occ[1] = 1;
  occ[23] = 1;
  fail_unless_equals_uint64 (robocache_voxels_list_centres (&info, occ, 24,
          xyz, 4), 2);
  fail_unless_equals_float (xyz[0], -0.25f);
  fail_unless_equals_float (xyz[1], 0.125f);
  fail_unless_equals_float (xyz[2], 2.5f);
  fail_unless_equals_float (xyz[3], 0.75f);
  fail_unless_equals_float (xyz[4], 0.625f);
  fail_unless_equals_float (xyz[5], 3.5f);
  /* Counting only, and a short buffer. */
  fail_unless_equals_uint64 (robocache_voxels_list_centres (&info, occ, 24,
          NULL, 0), 2);
  fail_unless_equals_uint64 (robocache_voxels_list_centres (&info, occ, 20,
          xyz, 4), 0);

  info.mode = RC_VOXEL_COUNT;
  count[5] = 7;
  fail_unless_equals_uint64 (robocache_voxels_list_centres (&info,
          (guint8 *) count, sizeof (count), xyz, 4), 1);
  /* 5 = (0 * 3 + 1) * 4 + 1: (1, 1, 0). */
  fail_unless_equals_float (xyz[0], -0.25f);
  fail_unless_equals_float (xyz[1], 0.375f);

  info.mode = RC_VOXEL_MEAN;
  info.n_features = 2;
  mean[24 + 10] = 0.5f;         /* feature 1 of voxel 10 */
  fail_unless_equals_uint64 (robocache_voxels_list_centres (&info,
          (guint8 *) mean, sizeof (mean), xyz, 4), 1);
}

GST_END_TEST;

/* The fused helpers on a hand-made fused buffer. */
GST_START_TEST (test_fused_helpers)
{
  GstBuffer *buf = gst_buffer_new ();
  GstRobocacheFusedMeta *meta = gst_buffer_add_robocache_fused_meta (buf, 1);
  const gfloat flat[] = { 1.5f, -2.0f };
  gfloat out[2] = { 0, };

  meta->streams[0].name = g_strdup ("joints");
  meta->streams[0].pts = 42;
  meta->streams[0].memory_index = 0;
  gst_buffer_append_memory (buf, gst_memory_new_wrapped (0, (gpointer) flat,
          sizeof (flat), 0, sizeof (flat), NULL, NULL));
  meta->flat_memory_index = 0;
  meta->flat_channels = 2;

  fail_unless_equals_uint64 (robocache_fused_stream_pts (buf, "joints"), 42);
  fail_unless (!GST_CLOCK_TIME_IS_VALID (robocache_fused_stream_pts (buf,
              "camera")));
  fail_unless_equals_int (robocache_fused_copy_flat (buf, out, 2), 2);
  fail_unless_equals_float (out[0], 1.5f);
  fail_unless_equals_float (out[1], -2.0f);
  gst_buffer_unref (buf);
}

GST_END_TEST;

GST_START_TEST (test_points_bad_datatype_n)
{
  static const guint8 types[] = { 7, 7, 9 };
  static const guint8 zero_type[] = { 0 };
  GError *err = NULL;

  fail_unless (robocache_points_caps_from_pointcloud2 (16, 3, velodyne_names,
          velodyne_offsets, types, NULL, &err) == NULL);
  fail_unless (g_error_matches (err, ROBOCACHE_ERROR, ROBOCACHE_ERROR_INVALID));
  fail_unless (strstr (err->message, "datatype 9") != NULL, "%s", err->message);
  g_clear_error (&err);

  /* 0 is not a datatype either. */
  fail_unless (robocache_points_caps_from_pointcloud2 (16, 1, velodyne_names,
          velodyne_offsets, zero_type, NULL, &err) == NULL);
  g_clear_error (&err);
}

GST_END_TEST;

GST_START_TEST (test_points_outside_step_n)
{
  static const guint counts[] = { 1, 1, 1, 1, 1, 4 };
  GError *err = NULL;

  /* time (float32 at 20) does not fit in a 22-byte point. */
  fail_unless (robocache_points_caps_from_pointcloud2 (22, 6, velodyne_names,
          velodyne_offsets, velodyne_types, NULL, &err) == NULL);
  fail_unless (g_error_matches (err, ROBOCACHE_ERROR, ROBOCACHE_ERROR_INVALID));
  fail_unless (strstr (err->message, "time") != NULL, "%s", err->message);
  g_clear_error (&err);

  /* A count that runs past the point. */
  fail_unless (robocache_points_caps_from_pointcloud2 (32, 6, velodyne_names,
          velodyne_offsets, velodyne_types, counts, &err) == NULL);
  g_clear_error (&err);

  /* point_step 0. */
  fail_unless (robocache_points_caps_from_pointcloud2 (0, 6, velodyne_names,
          velodyne_offsets, velodyne_types, NULL, &err) == NULL);
  g_clear_error (&err);
}

GST_END_TEST;

/* An offset beyond 2^64 (found by tests/fuzz/fuzz_caps_fields.c): strtoull
 * saturates, offset + size wrapped round and the field was accepted at
 * offset 0xFFFFFFFF, read past the point by the mean voxelizer. */
GST_START_TEST (test_points_huge_offset_n)
{
  static const gchar *const offsets[] = { "18446744073709551615",
    "99999999999999999999999", "4294967292"
  };
  rc_point_layout layout;

  for (guint i = 0; i < G_N_ELEMENTS (offsets); i++) {
    gchar *fields = g_strdup_printf ("x:float32:0,y:float32:4,z:float32:8,"
        "intensity:float32:%s", offsets[i]);
    GstCaps *caps = gst_caps_new_simple (GST_ROBOCACHE_POINTS_MEDIA_TYPE,
        "point-step", G_TYPE_INT, 16, "fields", G_TYPE_STRING, fields, NULL);
    GError *err = NULL;

    fail_if (gst_robocache_points_caps_parse (caps, "intensity", &layout,
            &err), "%s accepted", fields);
    fail_unless (strstr (err->message, "does not fit in point-step 16"),
        "%s", err->message);
    g_clear_error (&err);
    gst_caps_unref (caps);
    g_free (fields);
  }
}

GST_END_TEST;

GST_START_TEST (test_points_no_xyz_n)
{
  static const guint8 types[] = { 7, 7, 5 };    /* z as int32 */
  static const gchar *const bad_names[] = { "x", "y", "z:1" };
  GError *err = NULL;

  /* No z at all. */
  fail_unless (robocache_points_caps_from_pointcloud2 (16, 2, velodyne_names,
          velodyne_offsets, velodyne_types, NULL, &err) == NULL);
  fail_unless (g_error_matches (err, ROBOCACHE_ERROR, ROBOCACHE_ERROR_INVALID));
  fail_unless (strstr (err->message, "lack z") != NULL, "%s", err->message);
  g_clear_error (&err);
  /* z not floating point. */
  fail_unless (robocache_points_caps_from_pointcloud2 (16, 3, velodyne_names,
          velodyne_offsets, types, NULL, &err) == NULL);
  fail_unless (err != NULL);
  g_clear_error (&err);
  /* A name the fields string cannot carry. */
  fail_unless (robocache_points_caps_from_pointcloud2 (16, 3, bad_names,
          velodyne_offsets, velodyne_types, NULL, &err) == NULL);
  g_clear_error (&err);
}

GST_END_TEST;

GST_START_TEST (test_image_encoding_n)
{
  GError *err = NULL;
  GstVideoInfo info;

  fail_unless (robocache_image_caps_from_ros ("bayer_rggb8", 64, 48, 64,
          &err) == NULL);
  fail_unless (g_error_matches (err, ROBOCACHE_ERROR,
          ROBOCACHE_ERROR_UNSUPPORTED));
  fail_unless (strstr (err->message, "bayer_rggb8") != NULL);
  g_clear_error (&err);
  fail_unless (robocache_image_caps_from_ros ("yuv422", 64, 48, 128,
          &err) == NULL);
  g_clear_error (&err);
  /* A step below width x 3. */
  fail_unless (!robocache_image_info_from_ros ("rgb8", 64, 48, 100, &info,
          &err));
  fail_unless (g_error_matches (err, ROBOCACHE_ERROR, ROBOCACHE_ERROR_INVALID));
  g_clear_error (&err);
  fail_unless (!robocache_image_info_from_ros ("rgb8", 0, 48, 0, &info, &err));
  g_clear_error (&err);
}

GST_END_TEST;

/* Steps that would fail or overflow later are refused up front: an odd
 * step of 16-bit samples, a step above G_MAXINT (a negative gint stride);
 * robocache_image_buffer_new refuses a step shorter than a row.  The
 * unsupported-encoding error lists every accepted encoding. */
GST_START_TEST (test_image_step_n)
{
  GError *err = NULL;
  GstVideoInfo info;
  GstBuffer *buf = NULL;
  guint8 data[64] = { 0, };

  fail_if (robocache_image_info_from_ros ("mono16", 4, 4, 9, &info, &err));
  fail_unless (g_error_matches (err, ROBOCACHE_ERROR, ROBOCACHE_ERROR_INVALID));
  fail_unless (strstr (err->message, "not a multiple of its 2-byte samples")
      != NULL, "%s", err->message);
  g_clear_error (&err);
  fail_if (robocache_image_info_from_ros ("16UC1", 4, 4, 9, &info, &err));
  g_clear_error (&err);
  fail_unless (robocache_image_info_from_ros ("mono16", 4, 4, 10, &info,
          &err));
  fail_unless (robocache_image_info_from_ros ("mono8", 4, 4, 7, &info, &err));

  fail_if (robocache_image_info_from_ros ("mono8", 4, 4,
          (guint) G_MAXINT + 1, &info, &err));
  fail_unless (g_error_matches (err, ROBOCACHE_ERROR, ROBOCACHE_ERROR_INVALID));
  fail_unless (strstr (err->message, "the largest row stride") != NULL, "%s",
      err->message);
  g_clear_error (&err);

  fail_unless (robocache_image_info_from_ros ("rgb8", 4, 4, 12, &info, &err));
  ASSERT_CRITICAL (buf = robocache_image_buffer_new (&info, 2, data, 0));
  fail_unless (buf == NULL);
  buf = robocache_image_buffer_new (&info, 16, data, 0);
  fail_unless (buf != NULL);
  gst_buffer_unref (buf);

  fail_if (robocache_image_info_from_ros ("bgr16", 4, 4, 24, &info, &err));
  fail_unless (strstr (err->message, "accepted: rgb8, bgr8, rgba8, bgra8, "
          "mono8, 8UC1, mono16, 16UC1") != NULL, "%s", err->message);
  g_clear_error (&err);
}

GST_END_TEST;

GST_START_TEST (test_joints_n)
{
  static const gchar *const comma[] = { "a", "b,c" };
  static const gchar *const empty[] = { "a", "" };
  GError *err = NULL;

  fail_unless (robocache_joints_caps_new (0, NULL, TRUE, &err) == NULL);
  fail_unless (g_error_matches (err, ROBOCACHE_ERROR, ROBOCACHE_ERROR_INVALID));
  g_clear_error (&err);
  fail_unless (robocache_joints_caps_new (2, comma, TRUE, &err) == NULL);
  g_clear_error (&err);
  fail_unless (robocache_joints_caps_new (2, empty, TRUE, &err) == NULL);
  g_clear_error (&err);
}

GST_END_TEST;

GST_START_TEST (test_voxels_info_n)
{
  GError *err = NULL;
  RobocacheVoxelsInfo info;
  GstCaps *caps = gst_caps_from_string (GST_ROBOCACHE_POINTS_MEDIA_TYPE
      ", point-step=(int)16");

  fail_unless (!robocache_voxels_info_from_caps (caps, &info, &err));
  fail_unless (g_error_matches (err, ROBOCACHE_ERROR, ROBOCACHE_ERROR_INVALID));
  g_clear_error (&err);
  gst_caps_unref (caps);
}

GST_END_TEST;

/* Voxels caps against docs/media-types.md's rules: a voxel size that is
 * not a finite number > 0, an origin that is not finite, an unknown mode,
 * a format not the mode's; each refused, naming what is accepted. */
GST_START_TEST (test_voxels_caps_rules_n)
{
  static const struct
  {
    const gchar *field;
    GType type;
    gdouble number;
    const gchar *text;
  } bad[] = {
    {"voxel-size-x", G_TYPE_DOUBLE, 0.0, NULL},
    {"voxel-size-y", G_TYPE_DOUBLE, -1.0, NULL},
    {"voxel-size-z", G_TYPE_DOUBLE, INFINITY, NULL},
    {"origin-x", G_TYPE_DOUBLE, NAN, NULL},
    {"mode", G_TYPE_STRING, 0, "median"},
    {"format", G_TYPE_STRING, 0, "float32"},
    /* 4 x 2^21 x 2^22: 2^45 voxels (with 2^22 x 2^21 x 2^21 the count
     * wrapped to 0 and listing the centres read past the grid). */
    {"grid-x", G_TYPE_INT, 4194304, NULL},
    {"grid-y", G_TYPE_INT, 2097152, NULL},
  };
  RobocacheVoxelsInfo info;

  for (guint i = 0; i < G_N_ELEMENTS (bad); i++) {
    GstCaps *caps = gst_caps_from_string (GST_ROBOCACHE_VOXELS_MEDIA_TYPE
        ", layout=dense, mode=count, format=uint32, grid-x=4, grid-y=4, "
        "grid-z=2, origin-x=0.0, origin-y=0.0, origin-z=0.0, "
        "voxel-size-x=0.5, voxel-size-y=0.5, voxel-size-z=0.5");
    GError *err = NULL;

    fail_unless (robocache_voxels_info_from_caps (caps, &info, NULL));
    if (bad[i].type == G_TYPE_DOUBLE)
      gst_caps_set_simple (caps, bad[i].field, G_TYPE_DOUBLE, bad[i].number,
          NULL);
    else if (bad[i].type == G_TYPE_INT)
      gst_caps_set_simple (caps, bad[i].field, G_TYPE_INT,
          (gint) bad[i].number, "grid-z", G_TYPE_INT, 2097152, NULL);
    else
      gst_caps_set_simple (caps, bad[i].field, G_TYPE_STRING, bad[i].text,
          NULL);
    fail_if (robocache_voxels_info_from_caps (caps, &info, &err),
        "%s accepted", bad[i].field);
    fail_unless (strstr (err->message, "voxel-size-x/y/z finite and > 0") &&
        strstr (err->message, "format uint8, uint32 or float32 to match") &&
        strstr (err->message, "fewer than 2^32 voxels"),
        "%s: %s", bad[i].field, err->message);
    g_clear_error (&err);
    gst_caps_unref (caps);
  }
}

GST_END_TEST;

/* Points caps whose fields share a name or bytes: a reader would take
 * one for the other. */
GST_START_TEST (test_points_fields_distinct_n)
{
  static const struct
  {
    const gchar *fields, *said;
  } bad[] = {
    {"x:float32:0,y:float32:4,z:float32:8,x:float32:12", "named twice"},
    {"x:float32:0,y:float32:2,z:float32:8", "overlap"},
    {"x:float32:0,y:float32:4,z:float32:8,t:float64:6", "overlap"},
  };
  rc_point_layout layout;

  for (guint i = 0; i < G_N_ELEMENTS (bad); i++) {
    GstCaps *caps = gst_caps_new_simple (GST_ROBOCACHE_POINTS_MEDIA_TYPE,
        "point-step", G_TYPE_INT, 16, "fields", G_TYPE_STRING, bad[i].fields,
        NULL);
    GError *err = NULL;

    fail_if (gst_robocache_points_caps_parse (caps, NULL, &layout, &err),
        "%s accepted", bad[i].fields);
    fail_unless (strstr (err->message, bad[i].said), "%s", err->message);
    g_clear_error (&err);
    gst_caps_unref (caps);
  }
}

GST_END_TEST;

/* ---- robocache_align ------------------------------------------------ */

#define MS (GST_MSECOND)

/* Pushes a buffer of @n float32 values, each @value * (c + 1), at @pts
 * (GST_CLOCK_TIME_NONE: untimed). */
static void
push_values (GstElement * src, GstClockTime pts, gfloat value, guint n)
{
  GstBuffer *buffer = gst_buffer_new_allocate (NULL, n * sizeof (gfloat),
      NULL);
  GstMapInfo map;
  guint c;

  gst_buffer_map (buffer, &map, GST_MAP_WRITE);
  for (c = 0; c < n; c++)
    ((gfloat *) map.data)[c] = value * (c + 1);
  gst_buffer_unmap (buffer, &map);
  GST_BUFFER_PTS (buffer) = pts;
  fail_unless_equals_int (gst_app_src_push_buffer (GST_APP_SRC (src),
          buffer), GST_FLOW_OK);
}

static GstElement *
align_pipeline (void)
{
  GstElement *pipeline = gst_parse_launch ("appsrc name=lead format=time "
      "caps=other/x-test ! appsink name=lead_sink sync=false "
      "appsrc name=vec format=time caps=\"" GST_ROBOCACHE_VECTORS_MEDIA_TYPE
      ",channels=(int)2,format=(string)float32,layout=(string)sample\" "
      "! appsink name=vec_sink sync=false "
      "appsrc name=cam format=time caps=other/x-test "
      "! appsink name=cam_sink sync=false", NULL);

  fail_unless (pipeline != NULL);
  return pipeline;
}

static GstElement *
by_name (GstElement * pipeline, const gchar * name)
{
  GstElement *element = gst_bin_get_by_name (GST_BIN (pipeline), name);

  fail_unless (element != NULL);
  gst_object_unref (element);   /* the pipeline holds it */
  return element;
}

/* robocache_merge: three streams in PTS order, ties in the order of the
 * appsinks, an untimed buffer as soon as it is pulled, then END. */
GST_START_TEST (test_merge_order)
{
  static const gint lead_ms[] = { 100, 200, 300 };
  static const gint vec_ms[] = { 0, 100, 250, 300 };
  static const gint cam_ms[] = { 50, 100, 400 };
  /* (appsink, ms); the untimed lead comes first: it is pulled at once. */
  static const gint want[][2] = { {0, -1}, {1, 0}, {2, 50}, {0, 100},
  {1, 100}, {2, 100}, {0, 200}, {1, 250}, {0, 300}, {1, 300}, {2, 400}
  };
  GstElement *pipeline = align_pipeline ();
  GstElement *srcs[3], *sinks[3];
  const gint *times[3] = { lead_ms, vec_ms, cam_ms };
  const guint counts[3] = { 3, 4, 3 };
  RobocacheMerge *merge;
  GstSample *sample;
  guint i, k, index;

  srcs[0] = by_name (pipeline, "lead");
  srcs[1] = by_name (pipeline, "vec");
  srcs[2] = by_name (pipeline, "cam");
  sinks[0] = by_name (pipeline, "lead_sink");
  sinks[1] = by_name (pipeline, "vec_sink");
  sinks[2] = by_name (pipeline, "cam_sink");
  push_values (srcs[0], GST_CLOCK_TIME_NONE, 0, 1);
  for (i = 0; i < 3; i++) {
    for (k = 0; k < counts[i]; k++)
      push_values (srcs[i], times[i][k] * MS, 1, i == 1 ? 2 : 1);
    gst_app_src_end_of_stream (GST_APP_SRC (srcs[i]));
  }
  merge = robocache_merge_new (sinks, 3);
  gst_element_set_state (pipeline, GST_STATE_PLAYING);
  for (i = 0; i < G_N_ELEMENTS (want); i++) {
    GstClockTime pts;

    fail_unless_equals_int (robocache_merge_next (merge, 10 * GST_SECOND,
            &sample, &index), ROBOCACHE_MERGE_SAMPLE);
    pts = GST_BUFFER_PTS (gst_sample_get_buffer (sample));
    fail_unless_equals_int (index, want[i][0]);
    if (want[i][1] < 0)
      fail_unless (pts == GST_CLOCK_TIME_NONE);
    else
      fail_unless_equals_uint64 (pts, want[i][1] * MS);
    gst_sample_unref (sample);
  }
  fail_unless_equals_int (robocache_merge_next (merge, GST_CLOCK_TIME_NONE,
          &sample, &index), ROBOCACHE_MERGE_END);
  for (i = 0; i < 3; i++)
    fail_unless (robocache_merge_ended (merge, i));
  robocache_merge_free (merge);
  gst_element_set_state (pipeline, GST_STATE_NULL);
  gst_object_unref (pipeline);
}

GST_END_TEST;

/* A stream with nothing waiting holds the others back, until a GAP event
 * says how far it has come: then what is before the GAP's end comes, and
 * what is at or after it waits again. */
GST_START_TEST (test_merge_gap)
{
  GstElement *pipeline = align_pipeline ();
  GstElement *sinks[2];
  GstElement *lead = by_name (pipeline, "lead");
  GstElement *vec = by_name (pipeline, "vec");
  RobocacheMerge *merge;
  GstSample *sample;
  GstPad *pad;
  guint index, k;

  sinks[0] = by_name (pipeline, "lead_sink");
  sinks[1] = by_name (pipeline, "vec_sink");
  for (k = 0; k < 4; k++)
    push_values (lead, k * 100 * MS, 1, 1);
  push_values (vec, 0, 1, 2);
  /* The third stream of the pipeline ends at once, so that it prerolls. */
  gst_app_src_end_of_stream (GST_APP_SRC (by_name (pipeline, "cam")));
  merge = robocache_merge_new (sinks, 2);
  gst_element_set_state (pipeline, GST_STATE_PLAYING);
  for (k = 0; k < 2; k++) {
    fail_unless_equals_int (robocache_merge_next (merge, 10 * GST_SECOND,
            &sample, &index), ROBOCACHE_MERGE_SAMPLE);
    fail_unless_equals_int (index, k);  /* lead 0, then vec 0 (a tie) */
    gst_sample_unref (sample);
  }
  /* Lead 100 ms: the vectors may still bring something before it. */
  fail_unless_equals_int (robocache_merge_next (merge, 50 * MS, &sample,
          &index), ROBOCACHE_MERGE_WAITING);
  /* Into the sink, as if from upstream: appsrc would hold it until its
   * next buffer. */
  pad = gst_element_get_static_pad (sinks[1], "sink");
  fail_unless (gst_pad_send_event (pad, gst_event_new_gap (0, 250 * MS)));
  gst_object_unref (pad);
  for (k = 1; k < 3; k++) {
    fail_unless_equals_int (robocache_merge_next (merge, 10 * GST_SECOND,
            &sample, &index), ROBOCACHE_MERGE_SAMPLE);
    fail_unless_equals_int (index, 0);
    fail_unless_equals_uint64 (GST_BUFFER_PTS (gst_sample_get_buffer
            (sample)), k * 100 * MS);
    gst_sample_unref (sample);
  }
  /* Lead 300 ms is past the gap's end. */
  fail_unless_equals_int (robocache_merge_next (merge, 50 * MS, &sample,
          &index), ROBOCACHE_MERGE_WAITING);
  push_values (vec, 280 * MS, 1, 2);
  fail_unless_equals_int (robocache_merge_next (merge, 10 * GST_SECOND,
          &sample, &index), ROBOCACHE_MERGE_SAMPLE);
  fail_unless_equals_int (index, 1);
  gst_sample_unref (sample);
  robocache_merge_free (merge);
  gst_element_set_state (pipeline, GST_STATE_NULL);
  gst_object_unref (pipeline);
}

GST_END_TEST;

/* NULL where a pointer is required: a critical and a refusal, never a
 * crash. */
GST_START_TEST (test_null_args_n)
{
  GstCaps *caps = gst_caps_from_string (GST_ROBOCACHE_VOXELS_MEDIA_TYPE
      ",layout=dense,mode=occupancy,format=uint8,grid-x=2,grid-y=2,"
      "grid-z=2,origin-x=0.0,origin-y=0.0,origin-z=0.0,voxel-size-x=1.0,"
      "voxel-size-y=1.0,voxel-size-z=1.0");
  GstElement *sink = gst_element_factory_make ("appsink", NULL);
  RobocacheAlign *align = robocache_align_new (sink, NULL, NULL, 0, 0);
  RobocacheTimeMap map;
  guint32 sec;
  gboolean ok = TRUE;
  GstBuffer *buf = NULL;
  gsize size = 1;

  fail_unless (caps != NULL && align != NULL);
  ASSERT_CRITICAL (ok = robocache_voxels_info_from_caps (caps, NULL, NULL));
  fail_if (ok);
  ASSERT_CRITICAL (size = robocache_voxels_size (NULL));
  fail_unless_equals_int (size, 0);
  ASSERT_CRITICAL (buf = robocache_points_buffer_new_rows (NULL, 2, 2, 16,
          40, 0));
  fail_unless (buf == NULL);
  robocache_time_map_init (&map, 10, 0, 0);
  ok = TRUE;
  ASSERT_CRITICAL (ok = robocache_time_map_to_ros (&map, 5, NULL, NULL));
  fail_if (ok);
  ok = TRUE;
  ASSERT_CRITICAL (ok = robocache_time_map_to_ros (&map, 5, &sec, NULL));
  fail_if (ok);
  ok = TRUE;
  ASSERT_CRITICAL (ok = robocache_image_info_from_ros ("rgb8", 2, 2, 6,
          NULL, NULL));
  fail_if (ok);
  ASSERT_CRITICAL (robocache_align_set_patience (NULL, 0));
  size = 1;
  ASSERT_CRITICAL (size = robocache_align_get_untimed (NULL));
  fail_unless_equals_int (size, 0);
  /* Empty rows need no data. */
  buf = robocache_points_buffer_new_rows (NULL, 0, 2, 16, 40, 0);
  fail_unless (buf != NULL);
  gst_buffer_unref (buf);
  robocache_align_free (align);
  gst_object_unref (sink);
  gst_caps_unref (caps);
}

GST_END_TEST;

/* Caps that are not fixed, or none: the error holds the caps as text (not
 * a pointer printed by a printf that knows no GST_PTR_FORMAT). */
GST_START_TEST (test_array_unfixed_caps_n)
{
  GstBuffer *buf = gst_buffer_new_allocate (NULL, 8, NULL);
  GstCaps *caps = gst_caps_from_string (GST_ROBOCACHE_VECTORS_MEDIA_TYPE
      ",channels=1,format={float32,float64},layout=sample");
  rc_dl_managed_tensor *array = NULL;
  GError *err = NULL;
  const gchar *c;

  fail_if (robocache_buffer_to_array (buf, caps, &array, &err));
  fail_unless (err != NULL);
  fail_unless (strstr (err->message, "format=(string){ float32, float64 }")
      != NULL, "%s", err->message);
  for (c = err->message; *c; c++)
    fail_if ((guchar) * c < 0x20, "control byte in \"%s\"", err->message);
  g_clear_error (&err);
  fail_if (robocache_buffer_to_array (buf, NULL, &array, &err));
  fail_unless (strstr (err->message, "got no caps") != NULL, "%s",
      err->message);
  g_clear_error (&err);
  gst_caps_unref (caps);
  gst_buffer_unref (buf);
}

GST_END_TEST;

/* Two joint sources, 10 and 4 buffers, not live. */
static GstElement *
joints_pipeline (GstElement * sinks[2])
{
  GstElement *pipeline = gst_parse_launch ("robocachejointsrc is-live=false "
      "num-buffers=10 rate=100 ! appsink name=a sync=false "
      "robocachejointsrc is-live=false num-buffers=4 rate=40 "
      "! appsink name=b sync=false", NULL);

  fail_unless (pipeline != NULL);
  sinks[0] = by_name (pipeline, "a");
  sinks[1] = by_name (pipeline, "b");
  return pipeline;
}

/* Drains @merge: the samples count, in PTS order, then END. */
static guint
merge_drain (RobocacheMerge * merge)
{
  GstClockTime last = 0;
  RobocacheMergeResult result;
  GstSample *sample;
  guint n = 0, index;

  while ((result = robocache_merge_next (merge, 10 * GST_SECOND, &sample,
              &index)) == ROBOCACHE_MERGE_SAMPLE) {
    GstClockTime pts = GST_BUFFER_PTS (gst_sample_get_buffer (sample));

    fail_unless (pts >= last);
    last = pts;
    n++;
    gst_sample_unref (sample);
  }
  fail_unless_equals_int (result, ROBOCACHE_MERGE_END);
  return n;
}

static gpointer
play_later (gpointer pipeline)
{
  g_usleep (100 * G_TIME_SPAN_MILLISECOND);
  gst_element_set_state (pipeline, GST_STATE_PLAYING);
  return NULL;
}

/* Asked before the pipeline starts, the merge waits: an appsink not yet
 * started is not at EOS (gst_app_sink_is_eos says TRUE for it). */
GST_START_TEST (test_merge_before_start)
{
  GstElement *sinks[2];
  GstElement *pipeline = joints_pipeline (sinks);
  RobocacheMerge *merge = robocache_merge_new (sinks, 2);
  GstSample *sample;
  GThread *thread;
  guint index;

  fail_unless_equals_int (robocache_merge_next (merge, 50 * MS, &sample,
          &index), ROBOCACHE_MERGE_WAITING);
  fail_unless_equals_int (robocache_merge_next (merge, 0, &sample,
          &index), ROBOCACHE_MERGE_WAITING);
  fail_if (robocache_merge_ended (merge, 0));
  fail_if (robocache_merge_ended (merge, 1));
  /* Without a timeout it waits for the start, then the samples come. */
  thread = g_thread_new ("play-later", play_later, pipeline);
  fail_unless_equals_int (robocache_merge_next (merge, GST_CLOCK_TIME_NONE,
          &sample, &index), ROBOCACHE_MERGE_SAMPLE);
  gst_sample_unref (sample);
  g_thread_join (thread);
  fail_unless_equals_int (merge_drain (merge), 13);
  fail_unless (robocache_merge_ended (merge, 0));
  fail_unless (robocache_merge_ended (merge, 1));
  robocache_merge_free (merge);
  gst_element_set_state (pipeline, GST_STATE_NULL);
  gst_object_unref (pipeline);
}

GST_END_TEST;

static gpointer
stop_later (gpointer pipeline)
{
  g_usleep (200 * G_TIME_SPAN_MILLISECOND);
  gst_element_set_state (pipeline, GST_STATE_NULL);
  return NULL;
}

/* A live pipeline stopped from another thread (a node shutting down)
 * while the merge waits without a timeout ends the merge: END, not a wait
 * for a start that will not come. */
GST_START_TEST (test_merge_stopped_while_waiting)
{
  GstElement *pipeline = gst_parse_launch ("robocachejointsrc is-live=true "
      "rate=10 ! appsink name=a sync=false", NULL);
  GstElement *sink = by_name (pipeline, "a");
  RobocacheMerge *merge = robocache_merge_new (&sink, 1);
  RobocacheMergeResult result;
  GstSample *sample;
  GThread *thread;
  guint index;

  gst_element_set_state (pipeline, GST_STATE_PLAYING);
  thread = g_thread_new ("stop-later", stop_later, pipeline);
  while ((result = robocache_merge_next (merge, GST_CLOCK_TIME_NONE,
              &sample, &index)) == ROBOCACHE_MERGE_SAMPLE)
    gst_sample_unref (sample);
  fail_unless_equals_int (result, ROBOCACHE_MERGE_END);
  fail_unless (robocache_merge_ended (merge, 0));
  g_thread_join (thread);
  robocache_merge_free (merge);
  gst_object_unref (pipeline);
}

GST_END_TEST;

/* After END, the merge stays at END while the pipeline is stopped; a
 * restart brings the new run's samples through the same merge. */
GST_START_TEST (test_merge_restart)
{
  GstElement *sinks[2];
  GstElement *pipeline = joints_pipeline (sinks);
  RobocacheMerge *merge = robocache_merge_new (sinks, 2);
  GstSample *sample;
  guint index, run;

  for (run = 0; run < 2; run++) {
    gst_element_set_state (pipeline, GST_STATE_PLAYING);
    fail_unless_equals_int (merge_drain (merge), 14);
    gst_element_set_state (pipeline, GST_STATE_NULL);
    fail_unless_equals_int (robocache_merge_next (merge, 0, &sample,
            &index), ROBOCACHE_MERGE_END);
  }
  robocache_merge_free (merge);
  gst_object_unref (pipeline);
}

GST_END_TEST;

/* robocache_align asked before the start waits too, and runs again after
 * a restart with none of the first run's vectors. */
GST_START_TEST (test_align_restart)
{
  GstElement *pipeline = gst_parse_launch ("robocachejointsrc "
      "is-live=false num-buffers=3 rate=10 ! appsink name=lead sync=false "
      "robocachejointsrc is-live=false num-buffers=30 rate=100 "
      "! appsink name=vec sync=false", NULL);
  RobocacheAlign *align = robocache_align_new (by_name (pipeline, "lead"),
      by_name (pipeline, "vec"), NULL, -50 * MS, 50 * MS);
  RobocacheAligned out;
  GError *err = NULL;
  guint run, items;

  fail_unless_equals_int (robocache_align_next (align, 50 * MS, &out, &err),
      ROBOCACHE_ALIGN_WAITING);
  for (run = 0; run < 2; run++) {
    RobocacheAlignResult result;

    gst_element_set_state (pipeline, GST_STATE_PLAYING);
    items = 0;
    while ((result = robocache_align_next (align, 10 * GST_SECOND, &out,
                &err)) == ROBOCACHE_ALIGN_ITEM) {
      /* The source stamps with jitter: about every 100 ms from 0. */
      fail_unless (out.time < (items + 1) * 100 * MS);
      /* From 50 ms before to 50 ms after: this run's vectors only. */
      fail_unless (out.n_vectors > 0);
      fail_unless ((gint64) out.vector_times[0] >= (gint64) out.time - 60 * MS);
      fail_unless (out.vector_times[out.n_vectors - 1] <=
          (gint64) (out.time + 60 * MS));
      gst_sample_unref (out.lead);
      items++;
    }
    fail_unless_equals_int (result, ROBOCACHE_ALIGN_END);
    fail_unless_equals_int (items, 3);
    gst_element_set_state (pipeline, GST_STATE_NULL);
  }
  robocache_align_free (align);
  gst_object_unref (pipeline);
}

GST_END_TEST;

/* Leads at 100, 200 and 300 ms, vectors every 40 ms with 200 missing
 * and 40 late,
 * frames at 90, 130, 210, 260 ms, one untimed buffer in each stream; a
 * window of (-50, +50) ms. */
GST_START_TEST (test_align_windows)
{
  /* 40 comes after 80 (a late stamp): it is put in its place. */
  static const guint64 vector_ms[] = { 0, 80, 40, 120, 160, 240, 280, 320,
    360, 400
  };
  static const guint64 frame_ms[] = { 90, 130, 210, 260 };
  static const guint64 want_first[] = { 40, 120, 240 };
  static const guint64 want_frame[] = { 90, 210, 260 };
  GstElement *pipeline = align_pipeline ();
  GstElement *lead = by_name (pipeline, "lead");
  GstElement *vec = by_name (pipeline, "vec");
  GstElement *cam = by_name (pipeline, "cam");
  RobocacheAlign *align;
  RobocacheAligned out;
  GError *err = NULL;
  guint i, k;

  push_values (lead, GST_CLOCK_TIME_NONE, 0, 1);
  for (i = 1; i <= 3; i++)
    push_values (lead, i * 100 * MS, i, 1);
  push_values (vec, GST_CLOCK_TIME_NONE, 0, 2);
  for (i = 0; i < G_N_ELEMENTS (vector_ms); i++)
    push_values (vec, vector_ms[i] * MS, vector_ms[i], 2);
  for (i = 0; i < G_N_ELEMENTS (frame_ms); i++)
    push_values (cam, frame_ms[i] * MS, 0, 1);
  push_values (cam, GST_CLOCK_TIME_NONE, 0, 1);
  gst_app_src_end_of_stream (GST_APP_SRC (lead));
  gst_app_src_end_of_stream (GST_APP_SRC (vec));
  gst_app_src_end_of_stream (GST_APP_SRC (cam));

  align = robocache_align_new (by_name (pipeline, "lead_sink"),
      by_name (pipeline, "vec_sink"), by_name (pipeline, "cam_sink"),
      -50 * MS, 50 * MS);
  fail_unless (align != NULL);
  fail_unless (gst_element_set_state (pipeline, GST_STATE_PLAYING)
      != GST_STATE_CHANGE_FAILURE);
  for (i = 0; i < 3; i++) {
    fail_unless_equals_int (robocache_align_next (align, 10 * GST_SECOND,
            &out, &err), ROBOCACHE_ALIGN_ITEM);
    fail_unless_equals_uint64 (out.time, (i + 1) * 100 * MS);
    fail_unless_equals_uint64 (GST_BUFFER_PTS (gst_sample_get_buffer
            (out.lead)), out.time);
    /* From the last vector at or before time - 50 ms to the first at or
     * after time + 50 ms: four each. */
    fail_unless_equals_int (out.n_vectors, 4);
    fail_unless_equals_int (out.channels, 2);
    fail_unless_equals_uint64 (out.vector_times[0], want_first[i] * MS);
    for (k = 0; k < out.n_vectors; k++) {
      gdouble ms = out.vector_times[k] / (gdouble) MS;

      fail_unless (out.vector_times[k] != 200 * MS);
      if (k > 0)
        fail_unless (out.vector_times[k] > out.vector_times[k - 1]);
      fail_unless_equals_float (out.vector_values[2 * k], ms);
      fail_unless_equals_float (out.vector_values[2 * k + 1], 2 * ms);
    }
    fail_unless (out.frame != NULL);
    fail_unless_equals_uint64 (out.frame_time, want_frame[i] * MS);
    gst_sample_unref (out.lead);
    gst_sample_unref (out.frame);
  }
  /* Without a timeout: every stream ended, so it returns. */
  fail_unless_equals_int (robocache_align_next (align, GST_CLOCK_TIME_NONE,
          &out, &err), ROBOCACHE_ALIGN_END);
  fail_unless (err == NULL);
  fail_unless_equals_uint64 (robocache_align_get_untimed (align), 3);

  robocache_align_free (align);
  gst_element_set_state (pipeline, GST_STATE_NULL);
  gst_object_unref (pipeline);
}

GST_END_TEST;

/* robocache_align_write must refuse @out with an error that says @what. */
static void
check_write_refused (RobocacheAlign * align, const RobocacheAligned * item,
    const RobocacheAlignOutput * out, const gchar * what)
{
  GError *err = NULL;

  fail_if (robocache_align_write (align, item, out, &err));
  fail_unless (err && strstr (err->message, what), "wanted \"%s\", got %s",
      what, err ? err->message : "no error");
  g_error_free (err);
}

/* A lead of count voxels (random counts), vectors every 20 ms and an RGB
 * frame 5 pixels wide (rows padded to 16 bytes) written as host tensors:
 * the counts as float32, the vectors resampled (the end held), the
 * frame's pixels packed; then sizes and places it refuses. */
GST_START_TEST (test_align_write)
{
  const rc_voxel_grid grid = { {0, 0, 0}, {1, 1, 1}, {4, 3, 2},
  RC_VOXEL_COUNT
  };
  static const gint64 targets[] = { 50 * MS, 100 * MS, 150 * MS, 300 * MS };
  /* The span is 40 .. 160 ms (the window is +-50 ms); 300 ms holds 160. */
  static const gdouble want_ms[] = { 50, 100, 150, 160 };
  GstElement *pipeline = gst_parse_launch ("appsrc name=lead format=time "
      "! appsink name=lead_sink sync=false "
      "appsrc name=vec format=time caps=\"" GST_ROBOCACHE_VECTORS_MEDIA_TYPE
      ",channels=(int)2,format=(string)float32,layout=(string)sample\" "
      "! appsink name=vec_sink sync=false "
      "appsrc name=cam format=time caps=\"video/x-raw,format=RGB,width=5,"
      "height=3,framerate=0/1\" ! appsink name=cam_sink sync=false", NULL);
  GstCaps *caps = gst_robocache_voxels_caps_new (&grid, 0, NULL, FALSE);
  guint32 counts[24];
  guint8 pixels[3 * 16], frame[45], frame_small[44];
  gfloat lead[24], vectors[8];
  RobocacheAlignOutput out = { -1, NULL, lead, 24, targets, 4,
    RC_INTERP_LINEAR, vectors, frame, sizeof (frame)
  };
  RobocacheAlignOutput bad;
  RobocacheArrayInfo info;
  RobocacheAlign *align;
  RobocacheAligned item;
  GstBuffer *buffer;
  GError *err = NULL;
  guint i, r;

  fail_unless (pipeline != NULL);
  g_object_set (by_name (pipeline, "lead"), "caps", caps, NULL);
  gst_caps_unref (caps);
  for (i = 0; i < G_N_ELEMENTS (counts); i++)
    counts[i] = g_random_int_range (0, 1 << 30);
  buffer = gst_buffer_new_memdup (counts, sizeof (counts));
  GST_BUFFER_PTS (buffer) = 100 * MS;
  gst_app_src_push_buffer (GST_APP_SRC (by_name (pipeline, "lead")), buffer);
  for (i = 0; i <= 10; i++)
    push_values (by_name (pipeline, "vec"), i * 20 * MS, i * 20, 2);
  for (i = 0; i < sizeof (pixels); i++)
    pixels[i] = g_random_int_range (0, 256);
  buffer = gst_buffer_new_memdup (pixels, sizeof (pixels));
  GST_BUFFER_PTS (buffer) = 90 * MS;
  gst_app_src_push_buffer (GST_APP_SRC (by_name (pipeline, "cam")), buffer);
  gst_app_src_end_of_stream (GST_APP_SRC (by_name (pipeline, "lead")));
  gst_app_src_end_of_stream (GST_APP_SRC (by_name (pipeline, "vec")));
  gst_app_src_end_of_stream (GST_APP_SRC (by_name (pipeline, "cam")));

  align = robocache_align_new (by_name (pipeline, "lead_sink"),
      by_name (pipeline, "vec_sink"), by_name (pipeline, "cam_sink"),
      -50 * MS, 50 * MS);
  gst_element_set_state (pipeline, GST_STATE_PLAYING);
  fail_unless_equals_int (robocache_align_next (align, 10 * GST_SECOND,
          &item, &err), ROBOCACHE_ALIGN_ITEM);
  fail_unless (item.frame != NULL);

  fail_unless (robocache_sample_array_info (item.lead, &info, &err));
  fail_unless_equals_int (info.ndim, 3);
  fail_unless_equals_int (info.shape[0], 2);
  fail_unless_equals_int (info.shape[2], 4);
  fail_unless_equals_int (info.dtype.bits, 32);
  fail_unless_equals_int (info.device.device_type, RC_DL_CPU);
  fail_unless (robocache_sample_array_info (item.frame, &info, &err));
  fail_unless_equals_int (info.ndim, 3);
  fail_unless_equals_int (info.shape[0] * info.shape[1] * info.shape[2], 45);

  fail_unless (robocache_align_write (align, &item, &out, &err));
  fail_unless (err == NULL);
  for (i = 0; i < G_N_ELEMENTS (counts); i++)
    fail_unless_equals_float (lead[i], (gfloat) counts[i]);
  for (i = 0; i < G_N_ELEMENTS (want_ms); i++) {
    fail_unless_equals_float (vectors[2 * i], want_ms[i]);
    fail_unless_equals_float (vectors[2 * i + 1], 2 * want_ms[i]);
  }
  for (r = 0; r < 3; r++)
    fail_unless (memcmp (frame + r * 15, pixels + r * 16, 15) == 0);

  /* Room for one value less; a frame a byte short; outputs away from the
   * lead (no such device here, or not the lead's); an interpolation that
   * does not exist; a frame the item has not. */
  bad = out;
  bad.lead_count = 23;
  check_write_refused (align, &item, &bad, "room for 23");
  bad = out;
  bad.frame = frame_small;
  bad.frame_size = sizeof (frame_small);
  check_write_refused (align, &item, &bad, "frame holds 45 bytes");
  bad = out;
  bad.device = 0;
  check_write_refused (align, &item, &bad, "CUDA device");
  bad = out;
  bad.method = 17;
  check_write_refused (align, &item, &bad, "interpolation method 17 is "
      "unknown; accepted: 0 (RC_INTERP_LINEAR), 1 (RC_INTERP_NEAREST), 2 "
      "(RC_INTERP_PREVIOUS), 3 (RC_INTERP_CUBIC)");
  bad = out;
  bad.targets = NULL;
  check_write_refused (align, &item, &bad, "with targets = NULL; accepted: "
      "targets holding n_targets >= 1 times");
  bad = out;
  bad.n_targets = 0;
  check_write_refused (align, &item, &bad, "with n_targets = 0");
  gst_sample_unref (item.frame);
  item.frame = NULL;
  check_write_refused (align, &item, &out, "no frame");

  gst_sample_unref (item.lead);
  robocache_align_free (align);
  gst_element_set_state (pipeline, GST_STATE_NULL);
  gst_object_unref (pipeline);
}

GST_END_TEST;

/* Vectors at 0, 40, 80, 120 ms, then none until 3000 and 3040 ms (a
 * drop-out); leads every 100 ms from 100 to 2900 ms; window (-50, +50)
 * ms.  With the default patience (1 s) the first lead is handed out
 * before the vector after the drop-out comes, so without it; waiting for
 * ever, it gets it. */
static void
check_drop_out (GstClockTime patience, guint want_first_n)
{
  static const guint64 vector_ms[] = { 0, 40, 80, 120, 3000, 3040 };
  GstElement *pipeline = align_pipeline ();
  GstElement *lead = by_name (pipeline, "lead");
  GstElement *vec = by_name (pipeline, "vec");
  RobocacheAlign *align;
  RobocacheAligned out;
  GError *err = NULL;
  guint i;

  for (i = 1; i <= 29; i++)
    push_values (lead, i * 100 * MS, i, 1);
  for (i = 0; i < G_N_ELEMENTS (vector_ms); i++)
    push_values (vec, vector_ms[i] * MS, vector_ms[i], 2);
  gst_app_src_end_of_stream (GST_APP_SRC (lead));
  gst_app_src_end_of_stream (GST_APP_SRC (vec));
  gst_app_src_end_of_stream (GST_APP_SRC (by_name (pipeline, "cam")));
  align = robocache_align_new (by_name (pipeline, "lead_sink"),
      by_name (pipeline, "vec_sink"), NULL, -50 * MS, 50 * MS);
  if (patience != GST_SECOND)
    robocache_align_set_patience (align, patience);
  gst_element_set_state (pipeline, GST_STATE_PLAYING);
  for (i = 1; i <= 29; i++) {
    fail_unless_equals_int (robocache_align_next (align, 10 * GST_SECOND,
            &out, &err), ROBOCACHE_ALIGN_ITEM);
    fail_unless_equals_uint64 (out.time, i * 100 * MS);
    if (i == 1) {
      /* 40, 80, 120 and, waiting for ever, 3000. */
      fail_unless_equals_int (out.n_vectors, want_first_n);
      fail_unless_equals_uint64 (out.vector_times[0], 40 * MS);
    }
    if (i == 29) {
      /* From 120 (the last at or before 2850) to 3000. */
      fail_unless_equals_int (out.n_vectors, 2);
      fail_unless_equals_uint64 (out.vector_times[1], 3000 * MS);
    }
    fail_unless (out.n_vectors > 0);
    gst_sample_unref (out.lead);
  }
  fail_unless_equals_int (robocache_align_next (align, 10 * GST_SECOND, &out,
          &err), ROBOCACHE_ALIGN_END);
  robocache_align_free (align);
  gst_element_set_state (pipeline, GST_STATE_NULL);
  gst_object_unref (pipeline);
}

GST_START_TEST (test_align_drop_out)
{
  check_drop_out (GST_SECOND, 3);
  check_drop_out (GST_CLOCK_TIME_NONE, 4);
}

GST_END_TEST;

/* Nothing comes: WAITING within the timeout, not a hang. */
GST_START_TEST (test_align_waiting)
{
  GstElement *pipeline = align_pipeline ();
  RobocacheAlign *align = robocache_align_new (by_name (pipeline,
          "lead_sink"), by_name (pipeline, "vec_sink"), NULL, 0, 0);
  RobocacheAligned out;
  GError *err = NULL;

  gst_element_set_state (pipeline, GST_STATE_PLAYING);
  /* Not aligned, but the pipeline prerolls only once it ends. */
  gst_app_src_end_of_stream (GST_APP_SRC (by_name (pipeline, "cam")));
  push_values (by_name (pipeline, "lead"), 100 * MS, 1, 1);
  fail_unless_equals_int (robocache_align_next (align, 50 * MS, &out, &err),
      ROBOCACHE_ALIGN_WAITING);
  fail_unless (err == NULL);
  robocache_align_free (align);
  gst_element_set_state (pipeline, GST_STATE_NULL);
  gst_object_unref (pipeline);
}

GST_END_TEST;

static gpointer
push_later (gpointer pipeline)
{
  g_usleep (100 * G_TIME_SPAN_MILLISECOND);
  push_values (by_name (pipeline, "vec"), 150 * MS, 1, 2);
  gst_app_src_end_of_stream (GST_APP_SRC (by_name (pipeline, "lead")));
  gst_app_src_end_of_stream (GST_APP_SRC (by_name (pipeline, "vec")));
  return NULL;
}

/* Without a timeout, the call waits for what comes later. */
GST_START_TEST (test_align_no_timeout)
{
  GstElement *pipeline = align_pipeline ();
  RobocacheAlign *align = robocache_align_new (by_name (pipeline,
          "lead_sink"), by_name (pipeline, "vec_sink"), NULL, 0, 0);
  RobocacheAligned out;
  GError *err = NULL;
  GThread *thread;

  gst_element_set_state (pipeline, GST_STATE_PLAYING);
  gst_app_src_end_of_stream (GST_APP_SRC (by_name (pipeline, "cam")));
  push_values (by_name (pipeline, "lead"), 100 * MS, 1, 1);
  thread = g_thread_new ("push-later", push_later, pipeline);
  fail_unless_equals_int (robocache_align_next (align, GST_CLOCK_TIME_NONE,
          &out, &err), ROBOCACHE_ALIGN_ITEM);
  fail_unless_equals_int (out.n_vectors, 1);
  fail_unless_equals_uint64 (out.vector_times[0], 150 * MS);
  gst_sample_unref (out.lead);
  g_thread_join (thread);
  robocache_align_free (align);
  gst_element_set_state (pipeline, GST_STATE_NULL);
  gst_object_unref (pipeline);
}

GST_END_TEST;

/* Sets the caps of appsrc @vec: @n float32 channels named @names (NULL:
 * none). */
static void
set_vector_caps (GstElement * vec, guint n, const gchar * names)
{
  GstCaps *caps = gst_caps_new_simple (GST_ROBOCACHE_VECTORS_MEDIA_TYPE,
      "channels", G_TYPE_INT, n, "format", G_TYPE_STRING, "float32",
      "layout", G_TYPE_STRING, "sample", NULL);

  if (names)
    gst_caps_set_simple (caps, "names", G_TYPE_STRING, names, NULL);
  gst_app_src_set_caps (GST_APP_SRC (vec), caps);
  gst_caps_unref (caps);
}

/* Vectors naming other channels than the first (a JointState naming other
 * joints: one more, or another in a joint's place) are skipped and
 * counted, never kept under the first ones' names; those of the first
 * channels around them are kept. */
GST_START_TEST (test_align_other_channels)
{
  GstElement *pipeline = align_pipeline ();
  GstElement *vec = by_name (pipeline, "vec");
  RobocacheAlign *align = robocache_align_new (by_name (pipeline,
          "lead_sink"), by_name (pipeline, "vec_sink"), NULL, 0, 0);
  RobocacheAligned out;
  GError *err = NULL;

  gst_element_set_state (pipeline, GST_STATE_PLAYING);
  /* Not aligned, but the pipeline prerolls only once it ends. */
  gst_app_src_end_of_stream (GST_APP_SRC (by_name (pipeline, "cam")));
  push_values (by_name (pipeline, "lead"), 100 * MS, 1, 1);
  gst_app_src_end_of_stream (GST_APP_SRC (by_name (pipeline, "lead")));
  set_vector_caps (vec, 2, "a,b");
  push_values (vec, 50 * MS, 1, 2);
  set_vector_caps (vec, 3, "a,b,c");
  push_values (vec, 90 * MS, 7, 3);
  set_vector_caps (vec, 2, "a,c");
  push_values (vec, 110 * MS, 9, 2);
  set_vector_caps (vec, 2, "a,b");
  push_values (vec, 150 * MS, 2, 2);
  gst_app_src_end_of_stream (GST_APP_SRC (vec));
  fail_unless_equals_int (robocache_align_next (align, 10 * GST_SECOND, &out,
          &err), ROBOCACHE_ALIGN_ITEM);
  /* The vectors at 50 and 150 ms around the lead at 100 ms. */
  fail_unless_equals_int (out.n_vectors, 2);
  fail_unless_equals_int (out.channels, 2);
  fail_unless_equals_uint64 (out.vector_times[0], 50 * MS);
  fail_unless_equals_uint64 (out.vector_times[1], 150 * MS);
  fail_unless_equals_float (out.vector_values[0], 1);
  fail_unless_equals_float (out.vector_values[3], 4);
  gst_sample_unref (out.lead);
  fail_unless_equals_int (robocache_align_next (align, 10 * GST_SECOND, &out,
          &err), ROBOCACHE_ALIGN_END);
  fail_unless_equals_uint64 (robocache_align_get_other_channels (align), 2);
  robocache_align_free (align);
  gst_element_set_state (pipeline, GST_STATE_NULL);
  gst_object_unref (pipeline);
}

GST_END_TEST;

static Suite *
embed_suite (void)
{
  Suite *s = suite_create ("embed");
  TCase *tc = tcase_create ("general");

  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_points_caps_velodyne);
  tcase_add_test (tc, test_points_caps_float64_counts);
  tcase_add_test (tc, test_points_buffer);
  tcase_add_test (tc, test_joints);
  tcase_add_test (tc, test_image_encodings);
  tcase_add_test (tc, test_image_stride);
  tcase_add_test (tc, test_time_map);
  tcase_add_test (tc, test_voxel_centres);
  tcase_add_test (tc, test_fused_helpers);
  tcase_add_test (tc, test_points_bad_datatype_n);
  tcase_add_test (tc, test_points_outside_step_n);
  tcase_add_test (tc, test_points_huge_offset_n);
  tcase_add_test (tc, test_points_no_xyz_n);
  tcase_add_test (tc, test_image_encoding_n);
  tcase_add_test (tc, test_image_step_n);
  tcase_add_test (tc, test_joints_n);
  tcase_add_test (tc, test_voxels_info_n);
  tcase_add_test (tc, test_voxels_caps_rules_n);
  tcase_add_test (tc, test_points_fields_distinct_n);
  tcase_add_test (tc, test_null_args_n);
  tcase_add_test (tc, test_array_unfixed_caps_n);
  tcase_add_test (tc, test_merge_order);
  tcase_add_test (tc, test_merge_gap);
  tcase_add_test (tc, test_merge_before_start);
  tcase_add_test (tc, test_merge_restart);
  tcase_add_test (tc, test_merge_stopped_while_waiting);
  tcase_add_test (tc, test_align_restart);
  tcase_add_test (tc, test_align_windows);
  tcase_add_test (tc, test_align_drop_out);
  tcase_add_test (tc, test_align_waiting);
  tcase_add_test (tc, test_align_no_timeout);
  tcase_add_test (tc, test_align_other_channels);
  tcase_add_test (tc, test_align_write);
  return s;
}

GST_CHECK_MAIN (embed);
