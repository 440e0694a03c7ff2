/* Embedding robocache with only robocache.h and GStreamer's public API:
 * a PointCloud2-shaped cloud (x, y, z, intensity, ring, time in 32-byte
 * points) goes through appsrc ! robocachevoxelize ! appsink, and the
 * occupied voxel centres are read back.  Exits 0 when they are the
 * expected ones; the test "examples-embed" runs it.
 *
 *   cc embed.c $(pkg-config --cflags --libs robocache-1.0 gstreamer-app-1.0)
 */
#include <gst/gst.h>
#include <gst/app/gstappsrc.h>
#include <gst/app/gstappsink.h>
#include <math.h>
#include <string.h>

#include <robocache.h>

#define POINT_STEP 32

typedef struct
{
  gfloat x, y, z, intensity;
  guint16 ring;
  guint8 pad[2];
  gfloat time;
  guint8 pad2[8];
} Point;

G_STATIC_ASSERT (sizeof (Point) == POINT_STEP);

int
main (int argc, char **argv)
{
  /* The PointCloud2 layout as a ROS message gives it. */
  static const gchar *const names[] =
      { "x", "y", "z", "intensity", "ring", "time" };
  static const guint offsets[] = { 0, 4, 8, 12, 16, 20 };
  static const guint8 datatypes[] = { ROBOCACHE_POINT_FLOAT32,
    ROBOCACHE_POINT_FLOAT32, ROBOCACHE_POINT_FLOAT32,
    ROBOCACHE_POINT_FLOAT32, ROBOCACHE_POINT_UINT16, ROBOCACHE_POINT_FLOAT32
  };
  static const guint counts[] = { 1, 1, 1, 1, 1, 1 };
  /* Grid: 8 x 8 x 4 voxels of 0.5 m from (-2, -2, -1). */
  static const float xyz[][3] = { {0.1f, 0.2f, 0.3f}, {0.2f, 0.1f, 0.4f},
  {-1.9f, -1.9f, -0.9f}, {1.6f, -0.4f, 0.6f}, {1.9f, 1.9f, 0.9f},
  {50.0f, 0.0f, 0.0f}, {NAN, 0.0f, 0.0f}
  };
  static const float expected[][3] = { {-1.75f, -1.75f, -0.75f},
  {0.25f, 0.25f, 0.25f}, {1.75f, -0.25f, 0.75f}, {1.75f, 1.75f, 0.75f}
  };
  Point points[G_N_ELEMENTS (xyz)];
  GError *err = NULL;
  GstCaps *caps;
  GstElement *pipeline, *src, *sink;
  GstSample *sample;
  RobocacheVoxelsInfo info;
  GstMapInfo map;
  gfloat centres[3 * 16];
  guint64 n;
  int ret = 0;

  gst_init (&argc, &argv);

  caps = robocache_points_caps_from_pointcloud2 (POINT_STEP, 6, names,
      offsets, datatypes, counts, &err);
  if (!caps) {
    g_printerr ("caps: %s\n", err->message);
    return 1;
  }
  pipeline = gst_parse_launch ("appsrc name=src format=time ! "
      "robocachevoxelize backend=cpu voxel-size=\"<0.5,0.5,0.5>\" "
      "dims=\"<8,8,4>\" origin=\"<-2.0,-2.0,-1.0>\" ! "
      "appsink name=sink sync=false", &err);
  if (!pipeline || err) {
    g_printerr ("pipeline: %s\n", err ? err->message : "?");
    return 1;
  }
  src = gst_bin_get_by_name (GST_BIN (pipeline), "src");
  sink = gst_bin_get_by_name (GST_BIN (pipeline), "sink");
  gst_app_src_set_caps (GST_APP_SRC (src), caps);
  gst_caps_unref (caps);
  gst_element_set_state (pipeline, GST_STATE_PLAYING);

  memset (points, 0, sizeof (points));
  for (guint i = 0; i < G_N_ELEMENTS (xyz); i++) {
    points[i].x = xyz[i][0];
    points[i].y = xyz[i][1];
    points[i].z = xyz[i][2];
    points[i].intensity = 1.0f;
    points[i].ring = (guint16) i;
  }
  gst_app_src_push_buffer (GST_APP_SRC (src),
      robocache_points_buffer_new ((const guint8 *) points, sizeof (points),
          0));
  gst_app_src_end_of_stream (GST_APP_SRC (src));

  sample = gst_app_sink_try_pull_sample (GST_APP_SINK (sink), 10 * GST_SECOND);
  if (!sample) {
    g_printerr ("no voxel grid came out\n");
    return 1;
  }
  if (!robocache_voxels_info_from_caps (gst_sample_get_caps (sample), &info,
          &err)) {
    g_printerr ("voxels caps: %s\n", err->message);
    return 1;
  }
  gst_buffer_map (gst_sample_get_buffer (sample), &map, GST_MAP_READ);
  n = robocache_voxels_list_centres (&info, map.data, map.size, centres, 16);
  gst_buffer_unmap (gst_sample_get_buffer (sample), &map);

  g_print ("%" G_GUINT64_FORMAT " occupied voxels:", n);
  for (guint64 i = 0; i < MIN (n, 16); i++)
    g_print (" (%g, %g, %g)", centres[3 * i], centres[3 * i + 1],
        centres[3 * i + 2]);
  g_print ("\n");
  if (n != G_N_ELEMENTS (expected))
    ret = 1;
  for (guint i = 0; !ret && i < n; i++) {
    for (guint a = 0; a < 3; a++) {
      if (fabsf (centres[3 * i + a] - expected[i][a]) > 1e-5f)
        ret = 1;
    }
  }
  if (ret)
    g_printerr ("unexpected voxel centres\n");

  gst_sample_unref (sample);
  gst_element_set_state (pipeline, GST_STATE_NULL);
  gst_object_unref (src);
  gst_object_unref (sink);
  gst_object_unref (pipeline);
  return ret;
}
