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
                                      played, check against its stamps"""
import argparse
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


def make_cloud(stamp):
    msg = PointCloud2()
    msg.header.stamp = stamp
    msg.header.frame_id = "lidar"
    msg.height, msg.width = 1, len(POINTS)
    msg.fields = [PointField("x", 0, PointField.FLOAT32, 1),
                  PointField("y", 4, PointField.FLOAT32, 1),
                  PointField("z", 8, PointField.FLOAT32, 1),
                  PointField("intensity", 12, PointField.FLOAT32, 1),
                  PointField("ring", 16, PointField.UINT16, 1),
                  PointField("time", 20, PointField.FLOAT32, 1)]
    msg.is_bigendian = False
    msg.point_step, msg.row_step = 32, 32 * len(POINTS)
    msg.data = b"".join(struct.pack("<ffffHxxf8x", x, y, z, 1.0, i, 0.0)
                        for i, (x, y, z) in enumerate(POINTS))
    msg.is_dense = False
    return msg


ARGS = None
VOXEL = DIMS = ORIGIN = None
JOINTS = ["j0", "j1", "j2"]


def make_joints(stamp, t):
    js = JointState()
    js.header.stamp = stamp
    js.name = JOINTS
    js.position = positions(t)
    return js


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


def publish_live():
    """Publishes; returns (cloud stamps, first and last joint stamp)."""
    cloud_pub = rospy.Publisher("/test/points", PointCloud2, queue_size=10)
    joint_pub = rospy.Publisher("/test/joints", JointState, queue_size=100)
    deadline = time.monotonic() + 15
    while (cloud_pub.get_num_connections() == 0 or
           joint_pub.get_num_connections() == 0):
        if time.monotonic() > deadline:
            return None
        time.sleep(0.05)
    time.sleep(0.5)

    cloud_stamps = []
    start = time.monotonic()
    t0 = rospy.Time.now()
    stamp = t0
    for k, _ in schedule(ARGS.seconds):
        time.sleep(max(0.0, start + k * 0.01 - time.monotonic()))
        stamp = rospy.Time.now()
        if k % 10 == 0:
            cloud_pub.publish(make_cloud(stamp))
            cloud_stamps.append(stamp)
        joint_pub.publish(make_joints(stamp, (stamp - t0).to_sec()))
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


def check(voxels, fused, cloud_stamps, t0, t1):
    errors = []
    want = expected_centres()
    stamps = set((s.secs, s.nsecs) for s in cloud_stamps)
    print("%d clouds in; %d voxel clouds, %d fused out"
          % (len(cloud_stamps), len(voxels), len(fused)))
    if len(voxels) < len(cloud_stamps) // 2:
        errors.append("only %d voxel clouds for %d clouds"
                      % (len(voxels), len(cloud_stamps)))
    for _, m in voxels:
        got = set(tuple(round(v, 4) for v in struct.unpack_from(
            "<fff", bytes(m.data), i * m.point_step)) for i in range(m.width))
        if got != want:
            errors.append("voxel centres %s, expected %s"
                          % (sorted(got), sorted(want)))
            break
        if (m.header.stamp.secs, m.header.stamp.nsecs) not in stamps:
            errors.append("voxel stamp %s is no cloud's stamp"
                          % m.header.stamp)
            break
        if m.header.frame_id != "lidar":
            errors.append("voxel frame_id %r" % m.header.frame_id)
            break

    prev = None
    checked = 0
    span = (t1 - t0).to_sec()
    for _, m in fused:
        t = (m.header.stamp - t0).to_sec()
        if list(m.name) != JOINTS or len(m.position) != 3:
            errors.append("fused names %s, values %s"
                          % (list(m.name), list(m.position)))
            break
        # Inside the joint samples linear interpolation is exact.
        if 0.05 <= t <= span - 0.05:
            want_pos = positions(t)
            # All within, not any beyond: a NaN is neither, and must fail.
            if not all(abs(a - b) <= 1e-4
                       for a, b in zip(m.position, want_pos)):
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
    return 1 if errors else 0


def main():
    global ARGS, VOXEL, DIMS, ORIGIN
    ap = argparse.ArgumentParser()
    ap.add_argument("--rate", type=float, default=20.0)
    ap.add_argument("--voxel-size", type=float, default=0.5)
    ap.add_argument("--dims", default="8,8,4")
    ap.add_argument("--origin", default="-2,-2,-1")
    ap.add_argument("--seconds", type=float, default=3.0)
    ap.add_argument("--write-bag")
    ap.add_argument("--check-bag")
    ap.add_argument("--burst", type=int, default=0)
    ARGS = ap.parse_args()
    VOXEL = ARGS.voxel_size
    DIMS = [int(v) for v in ARGS.dims.split(",")]
    ORIGIN = [float(v) for v in ARGS.origin.split(",")]

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
    if ARGS.check_bag:
        cloud_stamps, t0, t1 = bag_stamps(ARGS.check_bag)
        time.sleep(ARGS.seconds)
    else:
        live = publish_live()
        if live is None:
            print("FAIL: robocache_node never subscribed")
            return 1
        cloud_stamps, t0, t1 = live
        time.sleep(1.0)
    ret = check(list(voxels), list(fused), cloud_stamps, t0, t1)
    rospy.signal_shutdown("done")
    return ret


if __name__ == "__main__":
    sys.exit(main())
