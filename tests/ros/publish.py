#!/usr/bin/env python3
"""Feeds robocache_node a known PointCloud2 (10 Hz, /test/points) and
JointState (100 Hz, /test/joints) and checks what it publishes: the
occupied voxel centres of the known cloud, stamped with the clouds'
stamps; the fused joint vector (positions linear in time, so the fused
values must equal them at the tick's stamp) at the node's rate, stamps
increasing and within the input stamps.  Exits 0 when everything holds,
1 with the reasons otherwise.

  publish.py [--rate R ...]           publish live for --seconds, check
  publish.py --write-bag run.bag      write the same messages to a bag
  publish.py --check-bag run.bag      listen --seconds while the bag is
                                      played, check against its stamps
  publish.py --malformed              as live, with malformed messages
                                      between the good ones (BAD_CLOUDS,
                                      BAD_JOINTS), and odd but valid ones
                                      (empty clouds, another point layout,
                                      NaN and Inf positions, a fourth
                                      joint); prints how many it sent of
                                      those the node must count as bad
  publish.py --two-drivers j2,j0,j1   as live, with a second driver (a
                                      gripper's joint, 30 Hz) on the joint
                                      topic, for a node run with ~joints
                                      the given arm joints: checks the
                                      fused vector holds those in that
                                      order; one arm message without names
                                      among them; prints how many gripper
                                      messages it sent, and the one bad"""
import argparse
import bisect
import math
import struct
import sys
import time

import rospy
from sensor_msgs.msg import JointState, PointCloud2, PointField


# Joint positions linear in the stamp (t: seconds from the first joint
# stamp): the fused vector at a tick must be these at the tick's stamp.
def positions(t):
    return [0.5 + 0.25 * t, -1.0, 2.0 - 0.5 * t]


# x, y, z, intensity, ring, time in a 32-byte point (as Velodyne drivers
# write it), plus an out-of-grid point and a NaN one.
POINTS = [(0.1, 0.2, 0.3), (0.2, 0.1, 0.4), (-1.9, -1.9, -0.9),
          (1.6, -0.4, 0.6), (1.9, 1.9, 0.9), (50.0, 0.0, 0.0),
          (float("nan"), 0.0, 0.0)]


def expected_centres():
    out = set()
    for p in POINTS:
        idx = [math.floor((p[a] - ORIGIN[a]) / VOXEL) if math.isfinite(p[a])
               else -1 for a in range(3)]
        if all(0 <= idx[a] < DIMS[a] for a in range(3)):
            out.add(tuple(round(ORIGIN[a] + (idx[a] + 0.5) * VOXEL, 4)
                          for a in range(3)))
    return out


def make_cloud(stamp, packed=False):
    """The Velodyne-like cloud; @packed: the same points as float64 x, y,
    z in 24 bytes (another layout: the node's caps change)."""
    msg = PointCloud2()
    msg.header.stamp = stamp
    msg.header.frame_id = "lidar"
    msg.height, msg.width = 1, len(POINTS)
    msg.is_bigendian = False
    msg.is_dense = False
    if packed:
        msg.fields = [PointField("x", 0, PointField.FLOAT64, 1),
                      PointField("y", 8, PointField.FLOAT64, 1),
                      PointField("z", 16, PointField.FLOAT64, 1)]
        msg.point_step, msg.row_step = 24, 24 * len(POINTS)
        msg.data = b"".join(struct.pack("<ddd", *p) for p in POINTS)
        return msg
    msg.fields = [PointField("x", 0, PointField.FLOAT32, 1),
                  PointField("y", 4, PointField.FLOAT32, 1),
                  PointField("z", 8, PointField.FLOAT32, 1),
                  PointField("intensity", 12, PointField.FLOAT32, 1),
                  PointField("ring", 16, PointField.UINT16, 1),
                  PointField("time", 20, PointField.FLOAT32, 1)]
    msg.point_step, msg.row_step = 32, 32 * len(POINTS)
    msg.data = b"".join(struct.pack("<ffffHxxf8x", x, y, z, 1.0, i, 0.0)
                        for i, (x, y, z) in enumerate(POINTS))
    return msg


def changed(make, **fields):
    """@make's message with @fields set (a callable gets the message)."""
    def made(stamp):
        msg = make(stamp)
        for name, value in fields.items():
            setattr(msg, name, value(msg) if callable(value) else value)
        return msg
    return made


def field_list(*spec):
    return lambda msg: [PointField(*f) for f in spec]


F32, I32 = PointField.FLOAT32, PointField.INT32
XYZ = (("x", 0, F32, 1), ("y", 4, F32, 1), ("z", 8, F32, 1))

# Clouds the node must drop and count as bad, each sent once.  The first
# passed the old 32-bit check (0x10000001 x 16 wraps to 16) and reached
# robocache_points_buffer_new_rows, which refused it with a critical.
BAD_CLOUDS = [
    ("width x point_step past 2^32",
     changed(make_cloud, width=0x10000001, point_step=16, row_step=16,
             fields=field_list(*XYZ), data=bytes(16))),
    ("row_step x height past 2^32",
     changed(make_cloud, width=1, height=0x40000001, point_step=16,
             row_step=16, fields=field_list(*XYZ), data=bytes(16))),
    ("data one byte short", changed(make_cloud, data=lambda m: m.data[:-1])),
    ("row_step shorter than a row",
     changed(make_cloud, row_step=lambda m: m.row_step - 1)),
    ("point_step 0", changed(make_cloud, point_step=0, row_step=0)),
    ("a field beyond point_step",
     changed(make_cloud, fields=field_list(*XYZ[:2], ("z", 30, F32, 1)))),
    ("a count past 2^32 bytes",
     changed(make_cloud,
             fields=field_list(*XYZ, ("i", 12, F32, 0x40000001)))),
    ("no z", changed(make_cloud, fields=field_list(*XYZ[:2]))),
    ("x an integer", changed(make_cloud, fields=field_list(
        ("x", 0, I32, 1), *XYZ[1:]))),
    ("unknown datatype 9",
     changed(make_cloud, fields=field_list(*XYZ, ("intensity", 12, 9, 1)))),
    ("x named twice",
     changed(make_cloud, fields=field_list(*XYZ, ("x", 12, F32, 1)))),
    ("big-endian", changed(make_cloud, is_bigendian=True)),
]

# Empty clouds are valid (a filter that removed every point): the node
# publishes an empty voxel cloud with their stamps.
EMPTY_CLOUDS = [
    changed(make_cloud, width=0, row_step=0, data=b""),
    changed(make_cloud, height=0, data=b""),
]


ARGS = None
VOXEL = DIMS = ORIGIN = None
JOINTS = ["j0", "j1", "j2"]
# The fused joints, in their order: the node's ~joints (--two-drivers).
FUSED = JOINTS


def fused_positions(t):
    p = positions(t)
    return [p[JOINTS.index(name)] for name in FUSED]


def make_joints(stamp, t):
    js = JointState()
    js.header.stamp = stamp
    js.name = JOINTS
    js.position = positions(t)
    return js


def joint_state(names, position, velocity=()):
    def made(stamp, t):
        js = make_joints(stamp, t)
        js.name, js.position, js.velocity = names, position, list(velocity)
        return js
    return made


# Joint states the node must drop and count as bad, each sent twice.
BAD_JOINTS = [
    ("no positions", joint_state(JOINTS, [], [0.0, 0.0, 0.0])),
    ("3 names, 2 positions", joint_state(JOINTS, [0.0, 0.0])),
    ("a name holding ','", joint_state(["j0", "j,1", "j2"], [0.0] * 3)),
    ("an empty name", joint_state(["j0", "", "j2"], [0.0] * 3)),
    ("65536 joints", joint_state([], [0.0] * 65536)),
]


def schedule(seconds):
    """(k, t) of every 100 Hz joint sample; a cloud with every tenth."""
    k = 0
    while k * 0.01 < seconds:
        yield k, k * 0.01
        k += 1


def write_bag(path):
    import rosbag
    t0 = rospy.Time(1700000000, 250000000)
    with rosbag.Bag(path, "w") as bag:
        for k, t in schedule(ARGS.seconds):
            stamp = t0 + rospy.Duration.from_sec(t)
            if k % 10 == 0:
                bag.write("/test/points", make_cloud(stamp), stamp)
            bag.write("/test/joints", make_joints(stamp, t), stamp)
    return 0


def subscribe():
    voxels, fused = [], []
    rospy.Subscriber("/robocache/voxels", PointCloud2,
                     lambda m: voxels.append((time.monotonic(), m)),
                     queue_size=100)
    rospy.Subscriber("/robocache/fused", JointState,
                     lambda m: fused.append((time.monotonic(), m)),
                     queue_size=1000)
    return voxels, fused


class Odd:
    """What the malformed run sent besides the good messages: stamps of
    the empty clouds, the times (from t0) of the joint states with a
    fourth joint and of those with a non-finite j1, how many bad ones."""
    def __init__(self):
        self.empty, self.four, self.nonfinite = set(), [], set()
        self.joints = []
        self.bad_clouds = self.bad_joints = 0

    def near_nonfinite(self, t):
        """Whether a joint sample next to @t (or at it) has j1 NaN or
        Inf."""
        i = bisect.bisect_right(self.joints, t)
        return any(s in self.nonfinite for s in self.joints[max(0, i - 1):
                                                            i + 1])


class Drivers:
    """What the two-drivers run sent besides the arm's joint states."""
    def __init__(self):
        self.gripper = self.nameless = 0


def publish_live(odd=None, drivers=None):
    """Publishes; returns (cloud stamps, first and last joint stamp).
    With @odd, the malformed messages too, noted in @odd; with @drivers, a
    gripper driver's joint states at 30 Hz on the joint topic too, and
    one arm message without names, counted in @drivers."""
    cloud_pub = rospy.Publisher("/test/points", PointCloud2, queue_size=10)
    joint_pub = rospy.Publisher("/test/joints", JointState, queue_size=100)
    deadline = time.monotonic() + 15
    while (cloud_pub.get_num_connections() == 0 or
           joint_pub.get_num_connections() == 0):
        if time.monotonic() > deadline:
            print("FAIL: robocache_node never subscribed")
            return None
        time.sleep(0.05)
    time.sleep(0.5)

    cloud_stamps = []
    start = time.monotonic()
    t0 = rospy.Time.now()
    stamp = t0
    if odd is not None:
        # After the first good messages (they fix the node's time map),
        # between the good ones: a cloud 50 ms after each good cloud, a
        # bad joint state every 50 ms.
        cloud_queue = [make for _, make in BAD_CLOUDS] + EMPTY_CLOUDS
        joint_queue = [make for _, make in BAD_JOINTS] * 2
    for k, _ in schedule(ARGS.seconds):
        time.sleep(max(0.0, start + k * 0.01 - time.monotonic()))
        stamp = rospy.Time.now()
        t = (stamp - t0).to_sec()
        if k % 10 == 0:
            # Malformed run: every other cloud in another layout.
            cloud_pub.publish(make_cloud(stamp, odd is not None and
                                         k % 20 == 10))
            cloud_stamps.append(stamp)
        js = make_joints(stamp, t)
        if odd is not None and 60 <= k % 100 < 65:
            # Five samples with j1 NaN, or Inf: passed through as values.
            js.position[1] = float("nan") if k < 100 else float("inf")
            odd.nonfinite.add(t)
        joint_pub.publish(js)
        if odd is not None:
            odd.joints.append(t)
        # 3 of every 10 arm samples, after the arm's, with their own stamp.
        if drivers is not None and k * 3 // 10 != (k - 1) * 3 // 10:
            gs = JointState()
            gs.header.stamp = rospy.Time.now()
            gs.name, gs.position = ["gripper_finger"], [0.02]
            joint_pub.publish(gs)
            drivers.gripper += 1
        if drivers is not None and k == 50:
            joint_pub.publish(joint_state([], js.position)(stamp, t))
            drivers.nameless += 1
        if odd is None or k < 20:
            continue
        if k % 10 == 5 and cloud_queue:
            make = cloud_queue.pop(0)
            cloud_pub.publish(make(stamp))
            if make in EMPTY_CLOUDS:
                cloud_stamps.append(stamp)
                odd.empty.add((stamp.secs, stamp.nsecs))
            else:
                odd.bad_clouds += 1
        if k % 5 == 2 and joint_queue:
            joint_pub.publish(joint_queue.pop(0)(stamp, t))
            odd.bad_joints += 1
        if k == 120:
            # A fourth joint for one sample 5 ms later: the node follows
            # (new caps), and back to three at the next sample.
            s4 = stamp + rospy.Duration.from_sec(0.005)
            joint_pub.publish(joint_state(JOINTS + ["j3"], positions(
                t + 0.005) + [7.0])(s4, t + 0.005))
            odd.four.append(t + 0.005)
    if odd is not None and (cloud_queue or joint_queue):
        print("FAIL: --seconds too short for the malformed messages")
        return None
    return cloud_stamps, t0, stamp


def burst(n):
    """Publishes @n clouds 1 ms apart (faster than a big grid voxelizes)
    with joint states; checks the voxel clouds that come out are right and
    fewer than @n (the node dropped the oldest, not queued them all)."""
    cloud_pub = rospy.Publisher("/test/points", PointCloud2, queue_size=n)
    joint_pub = rospy.Publisher("/test/joints", JointState, queue_size=n)
    deadline = time.monotonic() + 15
    while (cloud_pub.get_num_connections() == 0 or
           joint_pub.get_num_connections() == 0):
        if time.monotonic() > deadline:
            print("FAIL: robocache_node never subscribed")
            return None
        time.sleep(0.05)
    time.sleep(0.5)
    stamps = []
    t0 = rospy.Time.now()
    for k in range(n):
        stamp = t0 + rospy.Duration.from_sec(0.001 * k)
        cloud_pub.publish(make_cloud(stamp))
        joint_pub.publish(make_joints(stamp, 0.001 * k))
        stamps.append(stamp)
        time.sleep(0.001)
    return stamps


def bag_stamps(path):
    import rosbag
    clouds, joints = [], []
    with rosbag.Bag(path) as bag:
        for topic, msg, _ in bag.read_messages():
            (clouds if topic == "/test/points" else joints).append(
                msg.header.stamp)
    return clouds, joints[0], joints[-1]


def check(voxels, fused, cloud_stamps, t0, t1, odd=None):
    errors = []
    want = expected_centres()
    stamps = set((s.secs, s.nsecs) for s in cloud_stamps)
    empty = odd.empty if odd else set()
    print("%d clouds in; %d voxel clouds, %d fused out"
          % (len(cloud_stamps), len(voxels), len(fused)))
    if len(voxels) < len(cloud_stamps) // 2:
        errors.append("only %d voxel clouds for %d clouds"
                      % (len(voxels), len(cloud_stamps)))
    empties = 0
    for _, m in voxels:
        got = set(tuple(round(v, 4) for v in struct.unpack_from(
            "<fff", bytes(m.data), i * m.point_step)) for i in range(m.width))
        is_empty = (m.header.stamp.secs, m.header.stamp.nsecs) in empty
        empties += is_empty
        if got != (set() if is_empty else want):
            errors.append("voxel centres %s, expected %s"
                          % (sorted(got), "none" if is_empty else
                             sorted(want)))
            break
        if (m.header.stamp.secs, m.header.stamp.nsecs) not in stamps:
            errors.append("voxel stamp %s is no cloud's stamp"
                          % m.header.stamp)
            break
        if m.header.frame_id != "lidar":
            errors.append("voxel frame_id %r" % m.header.frame_id)
            break

    if empty and not empties:
        errors.append("no empty voxel cloud for the %d empty clouds"
                      % len(empty))

    prev = None
    checked = nonfinite = 0
    span = (t1 - t0).to_sec()
    for _, m in fused:
        t = (m.header.stamp - t0).to_sec()
        # Near the sample with a fourth joint: its names, and values not
        # checked (the stream restarts at each change of caps).
        four = odd is not None and any(abs(t - f) < 0.06 for f in odd.four)
        names = [FUSED, JOINTS + ["j3"]] if four else [FUSED]
        if list(m.name) not in names or len(m.position) != len(m.name):
            errors.append("fused names %s, values %s"
                          % (list(m.name), list(m.position)))
            break
        # Inside the joint samples linear interpolation is exact.
        if 0.05 <= t <= span - 0.05 and not four:
            want_pos = fused_positions(t)
            got = list(m.position)
            # A NaN or Inf j1 goes through as a value: j1 is not finite
            # between a sample holding one and its neighbours.
            if odd and not math.isfinite(got[1]) and odd.near_nonfinite(t):
                got[1] = want_pos[1]
                nonfinite += 1
            # All within, not any beyond: a NaN is neither, and must fail.
            if not all(abs(a - b) <= 1e-4 for a, b in zip(got, want_pos)):
                errors.append("fused %s at t=%.4f, expected %s"
                              % (list(m.position), t, want_pos))
                break
            checked += 1
        if prev is not None and m.header.stamp <= prev:
            errors.append("fused stamps not increasing: %s after %s"
                          % (m.header.stamp, prev))
            break
        prev = m.header.stamp
        if not -0.5 <= t <= span + 0.5:
            errors.append("fused stamp %s outside the input stamps [%s, %s]"
                          % (m.header.stamp, t0, t1))
            break
    if checked < 10:
        errors.append("only %d fused vectors inside the joint samples"
                      % checked)
    if odd and odd.nonfinite and not nonfinite:
        errors.append("no fused vector with the NaN or Inf of j1")

    # Rate, over the stamps and over the arrival times, inside the input.
    inside = [(r, m.header.stamp.to_sec()) for r, m in fused
              if 0.5 <= (m.header.stamp - t0).to_sec() <= span - 0.2]
    if len(inside) < 2:
        errors.append("too few fused messages (%d) to measure the rate"
                      % len(inside))
    else:
        for what, i in (("stamps", 1), ("arrivals", 0)):
            rate = (len(inside) - 1) / (inside[-1][i] - inside[0][i])
            print("fused rate over %s: %.2f Hz (asked %.2f)"
                  % (what, rate, ARGS.rate))
            if abs(rate - ARGS.rate) > 0.2 * ARGS.rate:
                errors.append("fused rate over %s %.2f Hz, expected %.2f "
                              "+- 20%%" % (what, rate, ARGS.rate))
        gaps = [b[1] - a[1] for a, b in zip(inside, inside[1:])]
        if max(gaps) > 3.0 / ARGS.rate:
            errors.append("a gap of %.3f s between fused stamps" % max(gaps))
    for e in errors:
        print("FAIL: " + e)
    if not errors:
        print("OK: voxel centres %s; %d fused vectors equal to the joint "
              "positions at their stamps" % (sorted(want), checked))
        if odd:
            print("OK: %d empty voxel clouds; %d fused vectors with j1 NaN "
                  "or Inf" % (empties, nonfinite))
    return 1 if errors else 0


def main():
    global ARGS, VOXEL, DIMS, ORIGIN, FUSED
    ap = argparse.ArgumentParser()
    ap.add_argument("--rate", type=float, default=20.0)
    ap.add_argument("--voxel-size", type=float, default=0.5)
    ap.add_argument("--dims", default="8,8,4")
    ap.add_argument("--origin", default="-2,-2,-1")
    ap.add_argument("--seconds", type=float, default=3.0)
    ap.add_argument("--write-bag")
    ap.add_argument("--check-bag")
    ap.add_argument("--burst", type=int, default=0)
    ap.add_argument("--malformed", action="store_true")
    ap.add_argument("--two-drivers", metavar="JOINTS")
    ARGS = ap.parse_args()
    VOXEL = ARGS.voxel_size
    DIMS = [int(v) for v in ARGS.dims.split(",")]
    ORIGIN = [float(v) for v in ARGS.origin.split(",")]
    if ARGS.two_drivers:
        FUSED = ARGS.two_drivers.split(",")

    if ARGS.write_bag:
        return write_bag(ARGS.write_bag)
    rospy.init_node("robocache_test", anonymous=True, disable_signals=True)
    voxels, fused = subscribe()
    if ARGS.burst:
        stamps = burst(ARGS.burst)
        if stamps is None:
            return 1
        time.sleep(ARGS.seconds)
        want = expected_centres()
        errors = []
        names = set((s.secs, s.nsecs) for s in stamps)
        print("burst: %d clouds in, %d voxel clouds out"
              % (len(stamps), len(voxels)))
        if not 0 < len(voxels) < len(stamps):
            errors.append("%d voxel clouds for a burst of %d"
                          % (len(voxels), len(stamps)))
        for _, m in voxels:
            got = set(tuple(round(v, 4) for v in struct.unpack_from(
                "<fff", bytes(m.data), i * 12)) for i in range(m.width))
            if got != want or (m.header.stamp.secs,
                               m.header.stamp.nsecs) not in names:
                errors.append("voxel cloud %s at %s" % (sorted(got),
                                                         m.header.stamp))
                break
        for e in errors:
            print("FAIL: " + e)
        rospy.signal_shutdown("done")
        return 1 if errors else 0
    odd = drivers = None
    if ARGS.check_bag:
        cloud_stamps, t0, t1 = bag_stamps(ARGS.check_bag)
        time.sleep(ARGS.seconds)
    else:
        odd = Odd() if ARGS.malformed else None
        drivers = Drivers() if ARGS.two_drivers else None
        live = publish_live(odd, drivers)
        if live is None:
            return 1
        cloud_stamps, t0, t1 = live
        time.sleep(1.0)
    # ros_node.sh compares these with the node's closing log line.
    if odd:
        print("bad sent: %d clouds, %d joint states"
              % (odd.bad_clouds, odd.bad_joints))
    elif drivers:
        print("gripper sent: %d joint states" % drivers.gripper)
        print("bad sent: 0 clouds, %d joint states" % drivers.nameless)
    ret = check(list(voxels), list(fused), cloud_stamps, t0, t1, odd)
    rospy.signal_shutdown("done")
    return ret


if __name__ == "__main__":
    sys.exit(main())
