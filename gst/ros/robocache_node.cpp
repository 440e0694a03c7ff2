// robocache_node: a ROS 1 node around a robocache pipeline.
//
// Subscribes to a sensor_msgs/PointCloud2 topic (~cloud_topic) and a
// sensor_msgs/JointState topic (~joint_topic), runs
//
//   appsrc cloud ! robocachevoxelize ! queue ! robocachefuse ! appsink
//   appsrc joints ---------------------------^
//
// and publishes /robocache/voxels (PointCloud2 of occupied voxel centres,
// float32 x, y, z; one per new cloud, at most one per tick, stamped with
// the cloud's stamp) and /robocache/fused (sensor_msgs/JointState: the
// joint vector fused at ~rate, stamped with the tick's time).  Built only
// on robocache.h and GStreamer's public API.  Queues are bounded: each
// appsrc keeps at most ~queue buffers and drops the oldest (counted,
// logged on exit).
//
// Parameters: ~cloud_topic (/points), ~joint_topic (/joint_states), ~rate
// (Hz, 10), ~voxel_size (m, 0.2), ~dims ([256, 256, 32]), ~origin ([-25.6,
// -25.6, -3.2]), ~backend (auto|cpu|gpu), ~latency (s, 0.1), ~queue (2),
// ~frame_id (default: the cloud's), ~joints (default: none, every
// message's own joints).  See docs/ros.md.
//
// ~joints lists the joints to fuse, in order: a joint topic that two
// drivers share (an arm's and a gripper's) would otherwise switch the
// joint set, and so restart the fused stream, at every message.  With it,
// messages that lack a listed joint (the other driver's) are skipped and
// counted as other joint sets, not as bad.
//
// Malformed messages (sizes that do not add up, a layout robocache does
// not read, bad joint names) are dropped, counted as bad and warned about
// through ROS: a publisher's mistake must not reach a robocache call as a
// programming error (a critical) or stop the node.

#include <gst/app/gstappsink.h>
#include <gst/app/gstappsrc.h>
#include <gst/gst.h>

#include <ros/ros.h>
#include <sensor_msgs/JointState.h>
#include <sensor_msgs/PointCloud2.h>

#include <robocache.h>

#include <algorithm>
#include <atomic>
#include <csignal>
#include <cstdarg>
#include <mutex>
#include <sstream>
#include <string>
#include <vector>

namespace {

std::atomic<bool> g_stop{ false };

void
on_signal (int)
{
  g_stop = true;
}

struct Params
{
  std::string cloud_topic = "/points";
  std::string joint_topic = "/joint_states";
  double rate = 10.0;
  double voxel_size = 0.2;
  std::vector<int> dims{ 256, 256, 32 };
  std::vector<double> origin{ -25.6, -25.6, -3.2 };
  std::string backend = "auto";
  double latency = 0.1;
  int queue = 2;
  std::string frame_id;
  std::vector<std::string> joints; // empty: each message's own
};

// Sets a GstValueArray property of three ints or doubles.
void
set_triple (GstElement *element, const char *name, const double *v,
    bool integer)
{
  GValue array = G_VALUE_INIT;
  gst_value_array_init (&array, 3);
  for (int a = 0; a < 3; a++) {
    GValue item = G_VALUE_INIT;
    if (integer) {
      g_value_init (&item, G_TYPE_INT);
      g_value_set_int (&item, (int) v[a]);
    } else {
      g_value_init (&item, G_TYPE_DOUBLE);
      g_value_set_double (&item, v[a]);
    }
    gst_value_array_append_and_take_value (&array, &item);
  }
  g_object_set_property (G_OBJECT (element), name, &array);
  g_value_unset (&array);
}

// Joint vector caps naming @names; NULL with @err set for names robocache
// refuses (none, too many, an empty name, a ',').
GstCaps *
joint_caps_new (const std::vector<std::string> &names, GError **err)
{
  std::vector<const gchar *> cnames;
  for (const auto &s : names)
    cnames.push_back (s.c_str ());
  return robocache_joints_caps_new (names.size (), cnames.data (), TRUE, err);
}

// The two inputs, indexing the per-input counters.
enum Input { CLOUD, JOINTS };

class Bridge
{
 public:
  explicit Bridge (const Params &p) : p_ (p)
  {}
  ~Bridge ()
  {
    stop ();
  }

  bool start ();
  void stop ();
  void on_cloud (const sensor_msgs::PointCloud2::ConstPtr &msg);
  void on_joints (const sensor_msgs::JointState::ConstPtr &msg);
  // Pulls fused frames and publishes them; returns FALSE on a pipeline
  // error.
  bool poll (GstClockTime timeout);
  void report () const;

  ros::Publisher voxels_pub, fused_pub;

 private:
  void configure (GstBin *bin);
  GstClockTime running_time (Input in, const ros::Time &stamp);
  void bad (Input in, const char *format, ...) G_GNUC_PRINTF (3, 4);
  void push (Input in, GstBuffer *buf);
  void publish (GstSample *sample);
  std::string take_error ();

  Params p_;
  GstElement *pipeline_ = nullptr, *cloud_src_ = nullptr, *joint_src_ = nullptr,
             *sink_ = nullptr;
  std::mutex mutex_; // time map and caps
  RobocacheTimeMap map_{};
  // Per input: the newest stamp (ns) and the pass it belongs to (0: no
  // message yet); pass_now_ counts the times time went back, from 1.
  gint64 newest_[2]{ 0, 0 };
  guint pass_[2]{ 0, 0 };
  guint pass_now_ = 1;
  GstCaps *cloud_caps_ = nullptr, *joint_caps_ = nullptr;
  std::vector<std::string> joint_names_; // those of joint_caps_
  std::string frame_id_;
  GstClockTime last_voxels_pts_ = GST_CLOCK_TIME_NONE;
  // Per Input: dropped by a full appsrc, malformed.
  std::atomic<guint64> drops_[2]{ { 0 }, { 0 } }, bad_[2]{ { 0 }, { 0 } };
  std::atomic<guint64> late_{ 0 }, fused_{ 0 }, voxel_msgs_{ 0 };
  std::atomic<guint64> other_sets_{ 0 }; // joint states without ~joints
  std::atomic<guint64> time_restarts_{ 0 }; // stamps that went back
};

// The node's parameters onto the parsed pipeline's fuse (its rate, its
// pads' stream names and policies) and voxelizer (the grid).
void
Bridge::configure (GstBin *bin)
{
  GstElement *fuse = gst_bin_get_by_name (bin, "fuse");
  gint n, d;
  gst_util_double_to_fraction (p_.rate, &n, &d);
  {
    GValue v = G_VALUE_INIT;
    g_value_init (&v, GST_TYPE_FRACTION);
    gst_value_set_fraction (&v, n, d);
    g_object_set_property (G_OBJECT (fuse), "rate", &v);
    g_value_unset (&v);
  }
  const char *names[] = { "voxels", "joints" };
  for (int i = 0; i < 2; i++) {
    gchar *pad_name = g_strdup_printf ("sink_%d", i);
    GstPad *pad = gst_element_get_static_pad (fuse, pad_name);
    g_free (pad_name);
    if (pad) {
      g_object_set (pad, "stream-name", names[i], nullptr);
      gst_util_set_object_arg (
          G_OBJECT (pad), "policy", i == 0 ? "previous" : "interpolate");
      gst_object_unref (pad);
    }
  }
  gst_object_unref (fuse);

  GstElement *vox = gst_bin_get_by_name (bin, "vox");
  const double size[3] = { p_.voxel_size, p_.voxel_size, p_.voxel_size };
  const double dims[3] = { (double) p_.dims[0], (double) p_.dims[1],
    (double) p_.dims[2] };
  set_triple (vox, "voxel-size", size, false);
  set_triple (vox, "dims", dims, true);
  set_triple (vox, "origin", p_.origin.data (), false);
  gst_object_unref (vox);
}

bool
Bridge::start ()
{
  gchar *desc = g_strdup_printf (
      "robocachefuse name=fuse flat-output=true latency=%" G_GUINT64_FORMAT
      " ! appsink name=sink sync=false max-buffers=4 drop=true "
      "appsrc name=cloud is-live=true format=time max-buffers=%d "
      "leaky-type=downstream ! robocachevoxelize name=vox mode=occupancy "
      "backend=%s ! queue max-size-buffers=2 max-size-bytes=0 "
      "max-size-time=0 leaky=downstream ! fuse.sink_0 "
      "appsrc name=joints is-live=true format=time max-buffers=%d "
      "leaky-type=downstream ! fuse.sink_1",
      (guint64)(p_.latency * GST_SECOND), p_.queue, p_.backend.c_str (),
      4 * p_.queue);
  GError *err = nullptr;
  pipeline_ = gst_parse_launch (desc, &err);
  g_free (desc);
  // A pipeline with an error set is missing a property or an element.
  if (!pipeline_ || err) {
    ROS_FATAL ("robocache pipeline: %s", err ? err->message : "?");
    g_clear_error (&err);
    if (pipeline_)
      gst_clear_object (&pipeline_);
    return false;
  }
  GstBin *bin = GST_BIN (pipeline_);
  cloud_src_ = gst_bin_get_by_name (bin, "cloud");
  joint_src_ = gst_bin_get_by_name (bin, "joints");
  sink_ = gst_bin_get_by_name (bin, "sink");

  configure (bin);

  // A fixed joint set has its caps once, before any message: bad names
  // in ~joints stop the node here rather than drop every message.
  if (!p_.joints.empty ()) {
    GError *err = nullptr;
    joint_caps_ = joint_caps_new (p_.joints, &err);
    if (!joint_caps_) {
      ROS_FATAL ("robocache_node: ~joints: %s", err->message);
      g_clear_error (&err);
      return false;
    }
    gst_app_src_set_caps (GST_APP_SRC (joint_src_), joint_caps_);
    joint_names_ = p_.joints;
  }

  if (gst_element_set_state (pipeline_, GST_STATE_PLAYING) ==
      GST_STATE_CHANGE_FAILURE) {
    ROS_FATAL ("robocache pipeline does not start: %s",
               take_error ().c_str ());
    return false;
  }
  return true;
}

// A stamp this far before its input's newest is not a late message but
// time starting again: `rosbag play -l` looping, a /clock reset.
static const gint64 kTimeWentBack = GST_SECOND;

// Running time of @stamp, a message of input @in.  The first stamp seen
// maps to the pipeline's running time now, and so does the first after
// time went back (else every later message would map before what the
// fuse has had, and be dropped as out of order).  Each input's messages
// come in order, from its own queue, but not in step with the other's: an
// input's messages of the pass before, arriving after the other input
// began the new pass, are dropped (NONE), not mapped seconds ahead of it.
GstClockTime
Bridge::running_time (Input in, const ros::Time &stamp)
{
  std::lock_guard<std::mutex> lock (mutex_);
  gint64 ns = robocache_ros_to_ns (stamp.sec, stamp.nsec);

  if (pass_[in] > 0 && ns < newest_[in] - kTimeWentBack) {
    // The first input to go back starts the new pass.
    if (pass_[in] == pass_now_) {
      ROS_WARN ("robocache: header stamps went back %.3f s (rosbag play "
                "-l looping, or /clock reset): mapped to the pipeline's "
                "time afresh",
                (newest_[in] - ns) / 1e9);
      time_restarts_++;
      pass_now_++;
      map_.valid = FALSE;
    }
    pass_[in] = pass_now_;
    newest_[in] = ns;
  } else if (pass_[in] == 0) {
    pass_[in] = pass_now_;
  } else if (pass_[in] != pass_now_) {
    return GST_CLOCK_TIME_NONE;
  }
  newest_[in] = MAX (newest_[in], ns);
  if (!map_.valid) {
    GstClock *clock = gst_element_get_clock (pipeline_);
    if (!clock)
      return GST_CLOCK_TIME_NONE;
    GstClockTime now =
        gst_clock_get_time (clock) - gst_element_get_base_time (pipeline_);
    gst_object_unref (clock);
    robocache_time_map_init (&map_, stamp.sec, stamp.nsec, now);
  }
  return robocache_time_map_to_running (&map_, stamp.sec, stamp.nsec);
}

// Counts a malformed message and says what was wrong with it; at most a
// warning every 5 s per input, so that a broken publisher cannot flood the
// log, nor hide the other input's warnings.
void
Bridge::bad (Input in, const char *format, ...)
{
  va_list args;
  va_start (args, format);
  gchar *why = g_strdup_vprintf (format, args);
  va_end (args);
  guint64 n = ++bad_[in];
  if (in == CLOUD)
    ROS_WARN_THROTTLE (5,
        "robocache: dropping a malformed cloud (%" G_GUINT64_FORMAT
        " so far): %s",
        n, why);
  else
    ROS_WARN_THROTTLE (5,
        "robocache: dropping a malformed joint state (%" G_GUINT64_FORMAT
        " so far): %s",
        n, why);
  g_free (why);
}

void
Bridge::push (Input in, GstBuffer *buf)
{
  // The checks before should leave no message robocache refuses; should
  // one slip through, a NULL must not reach appsrc.
  if (!buf) {
    bad (in, "robocache made no buffer of it");
    return;
  }
  GstAppSrc *app = GST_APP_SRC (in == CLOUD ? cloud_src_ : joint_src_);
  // leaky-type=downstream: a full queue drops its oldest buffer.
  if (gst_app_src_get_current_level_buffers (app) >=
      gst_app_src_get_max_buffers (app))
    drops_[in]++;
  gst_app_src_push_buffer (app, buf);
}

void
Bridge::on_cloud (const sensor_msgs::PointCloud2::ConstPtr &msg)
{
  const size_t nf = msg->fields.size ();
  std::vector<const gchar *> names (nf);
  std::vector<guint> offsets (nf), counts (nf);
  std::vector<guint8> types (nf);
  for (size_t i = 0; i < nf; i++) {
    names[i] = msg->fields[i].name.c_str ();
    offsets[i] = msg->fields[i].offset;
    types[i] = msg->fields[i].datatype;
    counts[i] = msg->fields[i].count;
  }
  if (msg->is_bigendian) {
    bad (CLOUD, "big-endian data; only little-endian is read");
    return;
  }
  // In 64 bits: both products of two uint32 can pass 2^32 (a width of
  // 0x10000001 and a point_step of 16 wrap to 16 in 32).
  const guint64 row = (guint64)msg->width * msg->point_step;
  const guint64 rows = (guint64)msg->row_step * msg->height;
  if (msg->row_step < row) {
    bad (CLOUD,
        "row_step %u is shorter than a row (width %u x point_step %u = "
        "%" G_GUINT64_FORMAT " bytes)",
        msg->row_step, msg->width, msg->point_step, row);
    return;
  }
  if (msg->data.size () < rows) {
    bad (CLOUD,
        "%zu bytes of data for %u rows of row_step %u (%" G_GUINT64_FORMAT
        " bytes)",
        msg->data.size (), msg->height, msg->row_step, rows);
    return;
  }
  // point_step 0 or above 65535, an unknown datatype, a field beyond
  // point_step or over another, no float x, y, z: refused here with a
  // GError.  An empty cloud (width or height 0) of a good layout goes on:
  // robocachevoxelize makes an empty grid of it, published as an empty
  // voxel cloud with its stamp.
  GError *err = nullptr;
  GstCaps *caps = robocache_points_caps_from_pointcloud2 (msg->point_step, nf,
      names.data (), offsets.data (), types.data (), counts.data (), &err);
  if (!caps) {
    bad (CLOUD, "%s", err->message);
    g_clear_error (&err);
    return;
  }
  GstClockTime pts = running_time (CLOUD, msg->header.stamp);
  if (!GST_CLOCK_TIME_IS_VALID (pts)) {
    late_++;
    gst_caps_unref (caps);
    return;
  }
  {
    std::lock_guard<std::mutex> lock (mutex_);
    if (!cloud_caps_ || !gst_caps_is_equal (caps, cloud_caps_)) {
      gst_app_src_set_caps (GST_APP_SRC (cloud_src_), caps);
      gst_caps_replace (&cloud_caps_, caps);
    }
    frame_id_ = p_.frame_id.empty () ? msg->header.frame_id : p_.frame_id;
  }
  gst_caps_unref (caps);
  push (CLOUD,
      robocache_points_buffer_new_rows (msg->data.data (), msg->width,
          msg->height, msg->point_step, msg->row_step, pts));
}

void
Bridge::on_joints (const sensor_msgs::JointState::ConstPtr &msg)
{
  // ROS arrays hold at most 2^32 - 1 elements: n is exact.
  const guint n = msg->position.size ();
  if (n == 0) {
    bad (JOINTS, "no positions");
    return;
  }
  if (!msg->name.empty () && msg->name.size () != n) {
    bad (JOINTS, "%zu names for %u positions", msg->name.size (), n);
    return;
  }
  // The joints fused: ~joints, picked by name, or all the message's.
  std::vector<std::string> own;
  std::vector<double> picked;
  if (p_.joints.empty ()) {
    own = msg->name;
    for (guint i = own.size (); i < n; i++)
      own.push_back ("joint" + std::to_string (i));
  } else if (msg->name.empty ()) {
    bad (JOINTS, "no names; ~joints needs them to find its joints");
    return;
  } else {
    for (const auto &joint : p_.joints) {
      auto it = std::find (msg->name.begin (), msg->name.end (), joint);
      // Another driver's joints: not this set, and not malformed.
      if (it == msg->name.end ()) {
        other_sets_++;
        return;
      }
      if (std::find (it + 1, msg->name.end (), joint) != msg->name.end ()) {
        bad (JOINTS, "joint \"%s\" named twice", joint.c_str ());
        return;
      }
      picked.push_back (msg->position[it - msg->name.begin ()]);
    }
  }
  const std::vector<std::string> &names = p_.joints.empty () ? own : p_.joints;
  const std::vector<double> &positions =
      p_.joints.empty () ? msg->position : picked;
  {
    std::lock_guard<std::mutex> lock (mutex_);
    // Another joint set (count or names) is new caps: robocachefuse then
    // starts the stream afresh rather than mix the two.  The caps check
    // the names (too many joints, an empty name, a ','), before
    // running_time so that a refused message does not fix the time map.
    // With ~joints the caps are made once, in start.
    if (!joint_caps_ || names != joint_names_) {
      GError *err = nullptr;
      GstCaps *caps = joint_caps_new (names, &err);
      if (!caps) {
        bad (JOINTS, "%s", err->message);
        g_clear_error (&err);
        return;
      }
      gst_app_src_set_caps (GST_APP_SRC (joint_src_), caps);
      gst_caps_take (&joint_caps_, caps);
      joint_names_ = names;
    }
  }
  GstClockTime pts = running_time (JOINTS, msg->header.stamp);
  if (!GST_CLOCK_TIME_IS_VALID (pts)) {
    late_++;
    return;
  }
  // NaN and Inf positions go on as values (a driver's "unknown"):
  // robocachefuse interpolates each joint apart, so one touches only its
  // own joint next to that sample; dropping the message would lose the
  // other joints too, and every message of a driver that always sends one
  // joint as NaN.
  push (JOINTS, robocache_joints_buffer_new (positions.data (),
                    positions.size (), TRUE, pts));
}

void
Bridge::publish (GstSample *sample)
{
  GstBuffer *buf = gst_sample_get_buffer (sample);
  GstRobocacheFusedMeta *meta = gst_buffer_get_robocache_fused_meta (buf);
  RobocacheTimeMap map;
  std::string frame_id;
  {
    std::lock_guard<std::mutex> lock (mutex_);
    map = map_;
    frame_id = frame_id_;
  }
  if (!meta)
    return;

  // Voxels: once per new cloud, stamped with the cloud's stamp.
  const GstRobocacheFusedStream *vs =
      gst_robocache_fused_meta_find (meta, "voxels");
  guint32 sec, nsec;
  if (vs && !vs->stale && vs->memory_index >= 0 &&
      vs->pts != last_voxels_pts_ &&
      robocache_time_map_to_ros (&map, vs->pts, &sec, &nsec)) {
    RobocacheVoxelsInfo info;
    GstMapInfo m;
    if (robocache_voxels_info_from_caps (vs->caps, &info, nullptr) &&
        gst_robocache_fused_map_stream (buf, "voxels", &m, FALSE)) {
      guint64 n =
          robocache_voxels_list_centres (&info, m.data, m.size, nullptr, 0);
      sensor_msgs::PointCloud2 out;
      out.header.stamp = ros::Time (sec, nsec);
      out.header.frame_id = frame_id;
      out.height = 1;
      out.width = n;
      const char *axes[] = { "x", "y", "z" };
      for (int a = 0; a < 3; a++) {
        sensor_msgs::PointField f;
        f.name = axes[a];
        f.offset = 4 * a;
        f.datatype = sensor_msgs::PointField::FLOAT32;
        f.count = 1;
        out.fields.push_back (f);
      }
      out.is_bigendian = false;
      out.point_step = 12;
      out.row_step = 12 * n;
      out.is_dense = true;
      out.data.resize (12 * n);
      robocache_voxels_list_centres (&info, m.data, m.size,
          reinterpret_cast<gfloat *> (out.data.data ()), n);
      gst_memory_unmap (m.memory, &m);
      voxels_pub.publish (out);
      voxel_msgs_++;
      last_voxels_pts_ = vs->pts;
    }
  }

  // The fused vector, stamped with the tick; none while the joints are
  // stale (older than the pad's max-age, 0.5 s).
  const GstRobocacheFusedStream *js =
      gst_robocache_fused_meta_find (meta, "joints");
  if (js && !js->stale && js->memory_index >= 0 &&
      robocache_time_map_to_ros (&map, GST_BUFFER_PTS (buf), &sec, &nsec)) {
    std::vector<gfloat> flat (meta->flat_channels);
    guint n = robocache_fused_copy_flat (buf, flat.data (), flat.size ());
    sensor_msgs::JointState out;
    out.header.stamp = ros::Time (sec, nsec);
    // The names of the frame's own caps: the joint set may have changed
    // since (on_joints), and the names must be those of these values.
    const gchar *names = nullptr;
    if (js->caps)
      names = gst_structure_get_string (
          gst_caps_get_structure (js->caps, 0), "names");
    gchar **split = g_strsplit (names ? names : "", ",", -1);
    for (gchar **name = split; *name; name++)
      out.name.push_back (*name);
    g_strfreev (split);
    out.name.resize (n);
    out.position.assign (flat.begin (), flat.begin () + MIN (n, flat.size ()));
    fused_pub.publish (out);
    fused_++;
  }
}

bool
Bridge::poll (GstClockTime timeout)
{
  GstSample *sample =
      gst_app_sink_try_pull_sample (GST_APP_SINK (sink_), timeout);
  if (sample) {
    publish (sample);
    gst_sample_unref (sample);
  }
  GstBus *bus = gst_element_get_bus (pipeline_);
  GstMessage *msg;
  // The elements' warnings (a buffer dropped as out of order or of the
  // wrong size, once per cause): logged, and not left to pile up.
  while ((msg = gst_bus_pop_filtered (bus, GST_MESSAGE_WARNING))) {
    GError *err = nullptr;
    gst_message_parse_warning (msg, &err, nullptr);
    ROS_WARN ("robocache pipeline (%s): %s", GST_MESSAGE_SRC_NAME (msg),
              err->message);
    g_clear_error (&err);
    gst_message_unref (msg);
  }
  gst_object_unref (bus);
  std::string error = take_error ();
  if (!error.empty ()) {
    ROS_ERROR ("robocache pipeline: %s", error.c_str ());
    return false;
  }
  return true;
}

// The first error on the pipeline's bus, "message (detail)"; empty where
// none was posted.
std::string
Bridge::take_error ()
{
  GstBus *bus = gst_element_get_bus (pipeline_);
  GstMessage *msg = gst_bus_pop_filtered (bus, GST_MESSAGE_ERROR);
  gst_object_unref (bus);
  if (!msg)
    return "";
  GError *err = nullptr;
  gchar *dbg = nullptr;
  gst_message_parse_error (msg, &err, &dbg);
  std::string text = err->message;
  text += " (";
  text += dbg ? dbg : "";
  text += ")";
  g_clear_error (&err);
  g_free (dbg);
  gst_message_unref (msg);
  return text;
}

void
Bridge::stop ()
{
  if (!pipeline_)
    return;
  // EOS through the pipeline (bounded wait), then NULL.
  gst_app_src_end_of_stream (GST_APP_SRC (cloud_src_));
  gst_app_src_end_of_stream (GST_APP_SRC (joint_src_));
  GstBus *bus = gst_element_get_bus (pipeline_);
  GstMessage *msg = gst_bus_timed_pop_filtered (bus, 2 * GST_SECOND,
      (GstMessageType)(GST_MESSAGE_EOS | GST_MESSAGE_ERROR));
  if (msg)
    gst_message_unref (msg);
  gst_object_unref (bus);
  gst_element_set_state (pipeline_, GST_STATE_NULL);
  gst_object_unref (cloud_src_);
  gst_object_unref (joint_src_);
  gst_object_unref (sink_);
  gst_object_unref (pipeline_);
  pipeline_ = nullptr;
  gst_clear_caps (&cloud_caps_);
  gst_clear_caps (&joint_caps_);
}

void
Bridge::report () const
{
  ROS_INFO ("robocache_node: %" G_GUINT64_FORMAT " fused, %" G_GUINT64_FORMAT
            " voxel grids published; dropped %" G_GUINT64_FORMAT
            " clouds, %" G_GUINT64_FORMAT
            " joint states (queue full), %" G_GUINT64_FORMAT
            " too early, %" G_GUINT64_FORMAT
            " other joint sets, %" G_GUINT64_FORMAT " bad (%" G_GUINT64_FORMAT
            " clouds, %" G_GUINT64_FORMAT " joint states); time went back %"
            G_GUINT64_FORMAT " times",
      fused_.load (), voxel_msgs_.load (), drops_[CLOUD].load (),
      drops_[JOINTS].load (), late_.load (), other_sets_.load (),
      bad_[CLOUD].load () + bad_[JOINTS].load (), bad_[CLOUD].load (),
      bad_[JOINTS].load (), time_restarts_.load ());
}

// One item of a list parameter's text: numbers are read as doubles (an
// int list takes "8.0"), names as they are.
template <typename T>
bool
read_item (const std::string &text, T &out)
{
  std::istringstream in (text);
  double v;
  if (!(in >> v) || !(in >> std::ws).eof ())
    return false;
  out = static_cast<T> (v);
  return true;
}

bool
read_item (const std::string &text, std::string &out)
{
  out = text;
  return true;
}

// @text without the spaces around it, nor the quotes YAML would take off
// ('b' and "b" are b).
std::string
bare_item (const std::string &text)
{
  const char *space = " \t\n";
  size_t first = text.find_first_not_of (space);
  if (first == std::string::npos)
    return "";
  std::string item =
      text.substr (first, text.find_last_not_of (space) - first + 1);
  if (item.size () >= 2 && (item[0] == '\'' || item[0] == '"') &&
      item.back () == item[0])
    item = item.substr (1, item.size () - 2);
  return item;
}

// The items of a list parameter's text: "[a, 'b']" and "a,b" split at the
// commas (an empty item kept, for the checks that refuse it), "8 8 4" at
// the spaces.
std::vector<std::string>
list_items (std::string text)
{
  std::vector<std::string> items;
  for (char &c : text)
    if (c == '[' || c == ']')
      c = ' ';
  if (text.find (',') == std::string::npos) {
    std::istringstream in (text);
    std::string word;
    while (in >> word)
      items.push_back (bare_item (word));
    return items;
  }
  for (size_t at = 0;;) {
    size_t comma = text.find (',', at);
    items.push_back (bare_item (text.substr (at, comma - at)));
    if (comma == std::string::npos)
      break;
    at = comma + 1;
  }
  return items;
}

// A list parameter: a YAML list (rosparam, launch files) or a string
// "8,8,4" / "[8, 8, 4]" (roscpp reads _dims:=... on the command line as a
// string).  FALSE when it is there but unreadable.
template <typename T>
bool
param_list (ros::NodeHandle &nh, const std::string &name, std::vector<T> &out)
{
  if (!nh.hasParam (name))
    return true;
  if (nh.getParam (name, out))
    return true;
  std::string text;
  if (!nh.getParam (name, text))
    return false;
  std::vector<T> values;
  for (const std::string &item : list_items (text)) {
    T v;
    if (!read_item (item, v))
      return false;
    values.push_back (v);
  }
  out = values;
  return true;
}

} // namespace

int
main (int argc, char **argv)
{
  gst_init (&argc, &argv);
  ros::init (argc, argv, "robocache_node", ros::init_options::NoSigintHandler);
  std::signal (SIGINT, on_signal);
  std::signal (SIGTERM, on_signal);

  ros::NodeHandle nh, pnh ("~");
  Params p;
  pnh.param ("cloud_topic", p.cloud_topic, p.cloud_topic);
  pnh.param ("joint_topic", p.joint_topic, p.joint_topic);
  pnh.param ("rate", p.rate, p.rate);
  pnh.param ("voxel_size", p.voxel_size, p.voxel_size);
  bool lists_ok = param_list (pnh, "dims", p.dims) &&
      param_list (pnh, "origin", p.origin) &&
      param_list (pnh, "joints", p.joints);
  pnh.param ("backend", p.backend, p.backend);
  pnh.param ("latency", p.latency, p.latency);
  pnh.param ("queue", p.queue, p.queue);
  pnh.param ("frame_id", p.frame_id, p.frame_id);
  if (!lists_ok || p.dims.size () != 3 || p.origin.size () != 3 ||
      p.rate <= 0 || p.voxel_size <= 0 || p.queue < 1 || p.latency < 0) {
    ROS_FATAL ("robocache_node: ~dims and ~origin need 3 values; ~rate, "
               "~voxel_size, ~queue must be > 0, ~latency >= 0; ~joints is "
               "a list of names");
    return 1;
  }
  for (auto it = p.joints.begin (); it != p.joints.end (); ++it)
    if (std::find (it + 1, p.joints.end (), *it) != p.joints.end ()) {
      ROS_FATAL ("robocache_node: ~joints names \"%s\" twice", it->c_str ());
      return 1;
    }

  Bridge bridge (p);
  if (!bridge.start ())
    return 1;
  bridge.voxels_pub =
      nh.advertise<sensor_msgs::PointCloud2> ("/robocache/voxels", 2);
  bridge.fused_pub =
      nh.advertise<sensor_msgs::JointState> ("/robocache/fused", 10);
  // Small subscriber queues: roscpp drops the oldest when they are full.
  ros::Subscriber cloud_sub = nh.subscribe (p.cloud_topic, 2, &Bridge::on_cloud,
      &bridge, ros::TransportHints ().tcpNoDelay ());
  ros::Subscriber joint_sub = nh.subscribe (p.joint_topic, 20,
      &Bridge::on_joints, &bridge, ros::TransportHints ().tcpNoDelay ());
  ros::AsyncSpinner spinner (1);
  spinner.start ();
  ROS_INFO ("robocache_node: %s + %s -> /robocache/voxels, /robocache/fused "
            "at %g Hz; grid %dx%dx%d voxels of %g m from (%g, %g, %g)",
      p.cloud_topic.c_str (), p.joint_topic.c_str (), p.rate, p.dims[0],
      p.dims[1], p.dims[2], p.voxel_size, p.origin[0], p.origin[1],
      p.origin[2]);

  int ret = 0;
  while (!g_stop && ros::ok ()) {
    if (!bridge.poll (50 * GST_MSECOND)) {
      ret = 1;
      break;
    }
  }
  cloud_sub.shutdown ();
  joint_sub.shutdown ();
  spinner.stop ();
  bridge.stop ();
  bridge.report ();
  ros::shutdown ();
  return ret;
}
