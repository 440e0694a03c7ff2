#!/usr/bin/python3
"""Writes the ROS 1 test bags of tests/elements/bagsrc.c with rosbag itself
(Debian's python3-rosbag and python3-sensor-msgs), so that the reader is
tested against the real writer and no opaque blob is checked in.

usage: make_bags.py OUTDIR

Writes all-none.bag, all-bz2.bag and all-lz4.bag (same messages, small
chunks so that every bag has several), big-none.bag (fewer topics, more
messages) and unplayable-camera.bag (4 s of /velodyne_points,
/joint_states and /camera/yuv, a camera whose every message is skipped).
The values follow the formulas below; bagsrc.c checks them with the same
formulas, so change both together.

Message i (0..N-1) of every topic has header.stamp = 1000 s + i * 100 ms
and is recorded at header.stamp + 20 ms + 5 ms * (the topic's line below,
from 0):
  /velodyne_points  PointCloud2, point_step 16 (x, y, z, intensity float32),
                    5 points: x = i, y = k, z = 0.5, intensity = 10 i + k
  /points_ring      PointCloud2, point_step 32: the same four fields, then
                    ring uint16 at 16 (= k) and time float32 at 20
                    (= k / 1000); bytes 24..31 are padding (zero)
  /joint_states     JointState j0, j1, j2: position = i + j / 10,
                    velocity = -j, no effort
  /camera/rgb       Image rgb8 4 x 2, step 12: byte b = (i + b) % 256
  /camera/depth     Image mono16 4 x 2, step 8: pixel p = 100 i + p
  /rosout_text      std_msgs/String (not supported: skipped with a warning)
  /camera/yuv       Image yuv422 4 x 2 (not played: skipped, counted; only
                    in unplayable-camera.bag)

bad-points.bag holds one topic per PointField layout that robocachebagsrc
must skip (BAD_CLOUDS below): messages 0 and 2 are the bad layout, message
1 is the /velodyne_points cloud 1.  bad-joints.bag does the same for
JointState: /bad/positions has two positions for three names,
/bad/many 30000 joints with velocities and efforts (90000 values);
message 1 of each is /joint_states' message 1.

odd-images.bag holds /camera/padded, Image rgb8 5 x 3 with step 20 (each
row's 15 bytes (i + 15 r + b) % 256, then 5 bytes of 0x55 padding), and
/camera/lossy, where messages 0, 2, 4, ... are empty (0 x 0, step 0, no
data: what a driver may send for a lost frame) and the others are
/camera/rgb's message i.

odd-points.bag holds two layouts that robocachebagsrc must play whole.
/points/pcl is PCL's PointNormal as a PCD file gives it (pcd_to_pointcloud
publishes it so): x, y, z at 0, 4, 8, a padding field "_" (uint8, count 4)
at 12, normal_x, normal_y, normal_z at 16, 20, 24, "_" again at 28,
curvature at 32, point_step 48 (bytes 36..47 in no field), 3 points:
field f (in that order, 0..6) of point k of message i = i + k / 10 + f,
padding bytes 0x55.  /points/descriptor has x, y, z, intensity as
/velodyne_points and a uint8 field "desc" of count 100 at 16 (byte b of
point k of message i = (i + k + b) % 256), point_step 116: 104 fields.

compressed-images.bag holds sensor_msgs/CompressedImage topics, N messages
each, of one 32 x 24 RGB frame of videotestsrc's default pattern encoded
by GStreamer (gst-launch-1.0: jpegenc, pngenc): /camera/jpeg (format
"rgb8; jpeg compressed bgr8", image_transport's), /camera/png (format
"png"), and two robocachebagsrc must skip: /camera/depth (format "16UC1;
compressedDepth png", the PNG after a 12-byte header of its own) and
/camera/mislabeled (format "jpeg", the PNG's bytes); /camera/unnamed has
an empty format over the JPEG (played: CompressedImage.msg takes such an
image for a JPEG).

encrypted.bag is all-none.bag whose bag header also names rosbag's AES
encryptor, as `Bag.set_encryptor("rosbag/AesCbcEncryptor", user)` writes
it (fields encryptor and gpg_user; the header record's padding shrunk by
as much, so every other byte stays where it was): an encrypted bag without
a GPG key to make here.

mixed-connections.bag records topics on two connections each, as rosbag
record does for two publishers: message i on the first when i is even,
on the second when odd, at record_time(i, line).  /joint_states (line 0)
JointState on both, one definition; /mixed (line 1) JointState, then
PointCloud2 (cloud(i, False)); /stale_md5 (line 2) JointState on both, the
second connection's md5sum another (a changed definition); and
/velodyne_points (line 3) on one connection.  robocachebagsrc plays
/joint_states and /velodyne_points and refuses the other two.

For the recovery of cut-off recordings (tests/formats/reader.c, bagsrc.c):
killed-C.bag (C: none, bz2, lz4) is all-C.bag as rosbag had written it on
disk after its first KILLED_AT messages, what a killed rosbag record
leaves (index_pos 0, the last chunk open).  Beside each all-*.bag,
all-*.bag.ends lists, from rosbag's own index, each message's record time
(ns) and the byte of the file at which it is whole: the end of its
chunk's data when compressed, of its record when not.
"""

import os
import shutil
import struct
import subprocess
import sys
import tempfile

import rosbag
import rospy
from sensor_msgs.msg import (CompressedImage, Image, JointState, PointCloud2,
                             PointField)
from std_msgs.msg import String

N = 10
KILLED_AT = 33


def stamp(i):
    return rospy.Time(1000, i * 100000000)


def record_time(i, line):
    return rospy.Time(1000, i * 100000000 + 20000000 + 5000000 * line)


def cloud(i, ring):
    msg = PointCloud2()
    msg.header.stamp = stamp(i)
    msg.header.frame_id = "velodyne"
    msg.header.seq = i
    fields = [("x", 0), ("y", 4), ("z", 8), ("intensity", 12)]
    msg.fields = [PointField(name=n, offset=o, datatype=PointField.FLOAT32,
                             count=1) for n, o in fields]
    step = 16
    if ring:
        msg.fields.append(PointField(name="ring", offset=16,
                                     datatype=PointField.UINT16, count=1))
        msg.fields.append(PointField(name="time", offset=20,
                                     datatype=PointField.FLOAT32, count=1))
        step = 32
    n = 5
    data = bytearray()
    for k in range(n):
        p = struct.pack("<4f", i, k, 0.5, 10 * i + k)
        if ring:
            p += struct.pack("<HxxfQ", k, k / 1000.0, 0)
        data += p
    msg.height = 1
    msg.width = n
    msg.is_bigendian = False
    msg.point_step = step
    msg.row_step = step * n
    msg.data = bytes(data)
    msg.is_dense = True
    return msg


def joints(i):
    msg = JointState()
    msg.header.stamp = stamp(i)
    msg.name = ["j0", "j1", "j2"]
    msg.position = [i + j / 10.0 for j in range(3)]
    msg.velocity = [-float(j) for j in range(3)]
    msg.effort = []
    return msg


def image(i, encoding):
    msg = Image()
    msg.header.stamp = stamp(i)
    msg.header.frame_id = "camera"
    msg.width = 4
    msg.height = 2
    msg.encoding = encoding
    msg.is_bigendian = 0
    if encoding == "rgb8":
        msg.step = 12
        msg.data = bytes((i + b) % 256 for b in range(24))
    else:
        msg.step = 8
        msg.data = b"".join(struct.pack("<H", 100 * i + p) for p in range(8))
    return msg


def bad_cloud(i, case):
    msg = cloud(i, False)
    f = msg.fields
    if case == "datatype":
        f[0].datatype = 9
    elif case == "offset":
        f[3].offset = 20
    elif case == "count":
        f[3].count = 0x40000001
    elif case == "count0":
        f[3].count = 0
    elif case == "overlap":
        f[0].count = 4
    elif case == "no_z":
        del f[2]
    elif case == "same_name":
        f[3].name = "x"
    elif case == "bigendian":
        msg.is_bigendian = True
    elif case == "step1":
        msg.point_step = 1
        msg.row_step = msg.width
        msg.data = msg.data[:msg.width]
    return msg


# topic suffix: the field the skip warning names
BAD_CLOUDS = ["datatype", "offset", "count", "count0", "overlap", "no_z",
              "step1", "same_name", "bigendian"]


def write_bad_points(path):
    with rosbag.Bag(path, "w") as bag:
        for i in range(3):
            for line, case in enumerate(BAD_CLOUDS):
                msg = cloud(i, False) if i == 1 else bad_cloud(i, case)
                bag.write("/bad/" + case, msg, record_time(i, line))


def bad_joints(i, case):
    msg = joints(i)
    if i == 1:
        return msg
    if case == "positions":
        msg.position = msg.position[:2]
    elif case == "many":
        # 30000 joints with velocities and efforts: 90000 values.
        n = 30000
        msg.name = ["j%d" % j for j in range(n)]
        msg.position = [float(j) for j in range(n)]
        msg.velocity = [0.0] * n
        msg.effort = [1.0] * n
    return msg


def write_bad_joints(path):
    with rosbag.Bag(path, "w") as bag:
        for i in range(3):
            for line, case in enumerate(["positions", "many"]):
                bag.write("/bad/" + case, bad_joints(i, case),
                          record_time(i, line))


def write(path, compression, topics, n, killed=None, first=0):
    """Messages first to first + n - 1 of each topic.  With killed, a copy
    of the file as it is on disk after KILLED_AT messages goes there."""
    written = 0
    with rosbag.Bag(path, "w", compression=compression,
                    chunk_threshold=2048) as bag:
        for i in range(first, first + n):
            messages = [
                ("/velodyne_points", lambda: cloud(i, False)),
                ("/points_ring", lambda: cloud(i, True)),
                ("/joint_states", lambda: joints(i)),
                ("/camera/rgb", lambda: image(i, "rgb8")),
                ("/camera/depth", lambda: image(i, "mono16")),
                ("/rosout_text", lambda: String(data="message %d" % i)),
                ("/camera/yuv", lambda: image(i, "yuv422")),
            ]
            for line, (topic, make) in enumerate(messages):
                if topic in topics:
                    bag.write(topic, make(), record_time(i, line))
                    written += 1
                if killed and written == KILLED_AT:
                    bag._file.flush()
                    shutil.copyfile(path, killed)
                    killed = None


def padded_image(i):
    msg = image(i, "rgb8")
    msg.width, msg.height, msg.step = 5, 3, 20
    msg.data = b"".join(bytes((i + 15 * r + b) % 256 for b in range(15))
                        + b"\x55" * 5 for r in range(3))
    return msg


def lossy_image(i):
    if i % 2:
        return image(i, "rgb8")
    msg = image(i, "rgb8")
    msg.width = msg.height = msg.step = 0
    msg.data = b""
    return msg


def pcl_cloud(i):
    msg = cloud(i, False)
    fields = [("x", 0), ("y", 4), ("z", 8), ("normal_x", 16),
              ("normal_y", 20), ("normal_z", 24), ("curvature", 32)]
    msg.fields = [PointField(name=n, offset=o, datatype=PointField.FLOAT32,
                             count=1) for n, o in fields]
    for at in (12, 28):
        msg.fields.append(PointField(name="_", offset=at,
                                     datatype=PointField.UINT8, count=4))
    msg.fields.sort(key=lambda f: f.offset)
    msg.width, msg.point_step = 3, 48
    msg.row_step = 3 * 48
    data = bytearray(b"\x55" * msg.row_step)
    for k in range(3):
        for f, (_, at) in enumerate(fields):
            struct.pack_into("<f", data, 48 * k + at, i + k / 10.0 + f)
    msg.data = bytes(data)
    return msg


def descriptor_cloud(i):
    msg = cloud(i, False)
    msg.fields.append(PointField(name="desc", offset=16,
                                 datatype=PointField.UINT8, count=100))
    msg.point_step = 116
    msg.row_step = 116 * msg.width
    msg.data = b"".join(msg.data[16 * k:16 * k + 16]
                        + bytes((i + k + b) % 256 for b in range(100))
                        for k in range(msg.width))
    return msg


def write_odd_points(path):
    """odd-points.bag (above)."""
    with rosbag.Bag(path, "w") as bag:
        for i in range(N):
            bag.write("/points/pcl", pcl_cloud(i), record_time(i, 0))
            bag.write("/points/descriptor", descriptor_cloud(i),
                      record_time(i, 1))


def encoded_frame(encoder):
    """One 32 x 24 RGB frame of videotestsrc, encoded by `encoder`."""
    with tempfile.TemporaryDirectory() as folder:
        out = os.path.join(folder, "frame")
        subprocess.run(["gst-launch-1.0", "-q", "videotestsrc",
                        "num-buffers=1", "!",
                        "video/x-raw,format=RGB,width=32,height=24", "!",
                        encoder, "!", "filesink", "location=" + out],
                       check=True, capture_output=True, timeout=60)
        with open(out, "rb") as f:
            return f.read()


def write_compressed_images(path):
    """compressed-images.bag (above)."""
    jpeg, png = encoded_frame("jpegenc"), encoded_frame("pngenc")
    topics = [("/camera/jpeg", "rgb8; jpeg compressed bgr8", jpeg),
              ("/camera/png", "png", png),
              ("/camera/depth", "16UC1; compressedDepth png",
               bytes(12) + png),
              ("/camera/mislabeled", "jpeg", png),
              ("/camera/unnamed", "", jpeg)]
    with rosbag.Bag(path, "w") as bag:
        for i in range(N):
            for line, (topic, form, data) in enumerate(topics):
                msg = CompressedImage()
                msg.header.stamp = stamp(i)
                msg.header.frame_id = "camera"
                msg.format = form
                msg.data = data
                bag.write(topic, msg, record_time(i, line))


def write_odd_images(path):
    """odd-images.bag (above)."""
    with rosbag.Bag(path, "w") as bag:
        for i in range(N):
            bag.write("/camera/padded", padded_image(i), record_time(i, 0))
            bag.write("/camera/lossy", lossy_image(i), record_time(i, 1))


def write_encrypted(source, path):
    """encrypted.bag (above), from all-none.bag at `source`."""
    with open(source, "rb") as f:
        data = bytearray(f.read())
    start = len(b"#ROSBAG V2.0\n")
    header_len, = struct.unpack_from("<I", data, start)
    fields = b"".join(struct.pack("<I", len(f)) + f for f in (
        b"encryptor=rosbag/AesCbcEncryptor", b"gpg_user=Robot"))
    data_at = start + 4 + header_len
    padding, = struct.unpack_from("<I", data, data_at)
    assert padding >= len(fields)
    record = (struct.pack("<I", header_len + len(fields))
              + data[start + 4:data_at] + fields
              + struct.pack("<I", padding - len(fields))
              + data[data_at + 4 + len(fields):data_at + 4 + padding])
    end = data_at + 4 + padding
    assert len(record) == end - start
    data[start:end] = record
    with open(path, "wb") as f:
        f.write(data)


def write_mixed_connections(path):
    """mixed-connections.bag (above)."""
    topics = [
        ("/joint_states", joints, joints),
        ("/mixed", joints, lambda i: cloud(i, False)),
        ("/stale_md5", joints, joints),
        ("/velodyne_points", lambda i: cloud(i, False), None),
    ]
    second_conns = {}
    with rosbag.Bag(path, "w", chunk_threshold=2048) as bag:
        for i in range(N):
            for line, (topic, first, second) in enumerate(topics):
                if second is None or i % 2 == 0:
                    bag.write(topic, first(i), record_time(i, line))
                    continue
                msg = second(i)
                header = None
                if topic == "/stale_md5":
                    header = {"topic": topic, "type": msg._type,
                              "md5sum": "0" * 32,
                              "message_definition": msg._full_text}
                # The python writer keeps one connection per topic: swapping
                # in the topic's second makes it write there (opening it the
                # first time), as a second publisher does in rosbag record.
                conns = bag._topic_connections
                first_conn = conns.pop(topic)
                if topic in second_conns:
                    conns[topic] = second_conns[topic]
                bag.write(topic, msg, record_time(i, line),
                          connection_header=header)
                second_conns[topic] = conns[topic]
                conns[topic] = first_conn


def write_ends(path):
    """PATH.ends (see above), from rosbag's index of the finished bag."""
    lines = []
    with rosbag.Bag(path) as bag, open(path, "rb") as f:
        data = f.read()
        for entries in bag._connection_indexes.values():
            for e in entries:
                chunk = bag._chunk_headers[e.chunk_pos]
                if chunk.compression == "none":
                    pos = chunk.data_pos + e.offset
                    header_len, = struct.unpack_from("<I", data, pos)
                    data_len, = struct.unpack_from("<I", data,
                                                   pos + 4 + header_len)
                    end = pos + 8 + header_len + data_len
                else:
                    end = chunk.data_pos + chunk.compressed_size
                lines.append("%d %d\n" % (e.time.to_nsec(), end))
    with open(path + ".ends", "w") as out:
        out.writelines(sorted(lines))

def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    every = ["/velodyne_points", "/points_ring", "/joint_states",
             "/camera/rgb", "/camera/depth", "/rosout_text"]
    for compression in ("none", "bz2", "lz4"):
        path = os.path.join(out, "all-%s.bag" % compression)
        write(path, compression, every, N,
              killed=os.path.join(out, "killed-%s.bag" % compression))
        write_ends(path)
    write(os.path.join(out, "big-none.bag"), "none",
          ["/velodyne_points", "/joint_states"], 100)
    write_bad_points(os.path.join(out, "bad-points.bag"))
    write_bad_joints(os.path.join(out, "bad-joints.bag"))
    write(os.path.join(out, "unplayable-camera.bag"), "none",
          ["/velodyne_points", "/joint_states", "/camera/yuv"], 40)
    write_mixed_connections(os.path.join(out, "mixed-connections.bag"))
    write_odd_images(os.path.join(out, "odd-images.bag"))
    write_odd_points(os.path.join(out, "odd-points.bag"))
    write_compressed_images(os.path.join(out, "compressed-images.bag"))
    write_encrypted(os.path.join(out, "all-none.bag"),
                    os.path.join(out, "encrypted.bag"))
    # all-lz4.bag as `rosbag record --split` leaves it: two files in a
    # folder, the first half of each topic's messages in the first.
    split = os.path.join(out, "split")
    os.makedirs(split, exist_ok=True)
    for part in range(2):
        write(os.path.join(split, "split_%d.bag" % part), "lz4", every,
              N // 2, first=part * (N // 2))


if __name__ == "__main__":
    main()
