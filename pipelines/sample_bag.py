#!/usr/bin/python3
"""Writes the ROS 1 bag of the sample data (pipelines/sample-data.sh) with
rosbag itself (Debian's python3-rosbag and python3-sensor-msgs, the writer
tests/bag/make_bags.py uses).

usage: sample_bag.py VELODYNE_DIR OUT.bag

The three sensors of a small robot, 3 s, stamped from 1700000000 s and
recorded 5 ms after their stamp:
  /velodyne_points    PointCloud2, 10 Hz: the sweeps VELODYNE_DIR/%06d.bin
                      (KITTI layout: float32 x, y, z, intensity, 16 bytes a
                      point), as written by robocachelidarsrc
  /joint_states       JointState, 100 Hz: six arm joints j0..j5 swinging
                      (position in rad, velocity in rad/s)
  /camera/image_raw   Image rgb8 160 x 120, 10 Hz: a colour ramp moving
                      right one pixel a frame, a white bar in the middle
Prints one line per topic: messages, rate and size.
"""

import glob
import math
import os
import sys

import rosbag
import rospy
from sensor_msgs.msg import Image, JointState, PointCloud2, PointField

T0 = 1700000000
SECONDS = 3
JOINT_HZ = 100
CAMERA_HZ = 10
WIDTH, HEIGHT = 160, 120
JOINTS = ["j%d" % j for j in range(6)]


def stamp(seconds):
    return rospy.Time(T0) + rospy.Duration.from_sec(seconds)


def cloud(data, t):
    msg = PointCloud2()
    msg.header.stamp = stamp(t)
    msg.header.frame_id = "velodyne"
    msg.fields = [PointField(name=n, offset=o, datatype=PointField.FLOAT32,
                             count=1)
                  for n, o in (("x", 0), ("y", 4), ("z", 8),
                               ("intensity", 12))]
    msg.point_step = 16
    msg.height = 1
    msg.width = len(data) // 16
    msg.row_step = len(data)
    msg.is_bigendian = False
    msg.is_dense = False
    msg.data = data
    return msg


def joints(t):
    msg = JointState()
    msg.header.stamp = stamp(t)
    msg.name = JOINTS
    w = [2 * math.pi * (0.2 + 0.1 * j) for j in range(len(JOINTS))]
    msg.position = [0.5 * math.sin(w[j] * t) for j in range(len(JOINTS))]
    msg.velocity = [0.5 * w[j] * math.cos(w[j] * t)
                    for j in range(len(JOINTS))]
    return msg


def image(i, t):
    msg = Image()
    msg.header.stamp = stamp(t)
    msg.header.frame_id = "camera"
    msg.height, msg.width, msg.encoding, msg.step = HEIGHT, WIDTH, "rgb8", \
        WIDTH * 3
    row = bytearray()
    for x in range(WIDTH):
        v = (x + i) % WIDTH * 255 // (WIDTH - 1)
        row += bytes((v, 255 - v, 128))
    bar = bytes((255, 255, 255)) * WIDTH
    rows = [bar if HEIGHT // 2 - 4 <= y < HEIGHT // 2 + 4 else bytes(row)
            for y in range(HEIGHT)]
    msg.data = b"".join(rows)
    return msg


def main():
    velodyne, out = sys.argv[1], sys.argv[2]
    sweeps = sorted(glob.glob(os.path.join(velodyne, "*.bin")))
    if not sweeps:
        sys.exit("sample_bag.py: no .bin sweeps in %s" % velodyne)
    written = {}
    with rosbag.Bag(out, "w") as bag:
        def put(topic, msg, t):
            bag.write(topic, msg, stamp(t + 0.005))
            n, size = written.get(topic, (0, 0))
            written[topic] = (n + 1, size + len(msg.data)
                              if hasattr(msg, "data") else size)
        messages = []
        for i, path in enumerate(sweeps):
            with open(path, "rb") as f:
                messages.append((i / 10.0, "/velodyne_points",
                                 cloud(f.read(), i / 10.0)))
        for k in range(SECONDS * JOINT_HZ):
            messages.append((k / JOINT_HZ, "/joint_states",
                             joints(k / JOINT_HZ)))
        for i in range(SECONDS * CAMERA_HZ):
            messages.append((i / CAMERA_HZ, "/camera/image_raw",
                             image(i, i / CAMERA_HZ)))
        for t, topic, msg in sorted(messages, key=lambda m: (m[0], m[1])):
            put(topic, msg, t)
    for topic, (n, size) in sorted(written.items()):
        print("  %-20s %4d messages%s" % (topic, n, "  %6.1f MB" % (size / 1e6)
                                          if size else ""))


if __name__ == "__main__":
    main()
