"""What the dataset builder's tests share: three recordings made by real
writers (a ROS 1 bag by rosbag, the same messages as MCAP by
robocachemcapsink, the synthetic sensors as MCAP) and a corrupt one, the
configuration they are built with, the CLI, and shards read back with
tarfile and numpy alone."""
import hashlib
import io
import json
import os
import shutil
import subprocess
import sys
import tarfile

import numpy as np

import robocache

TOPICS = "/velodyne_points,/joint_states,/camera/rgb"
# A grid holding both the bag's points (x 0..9, y 0..4, z 0.5) and the
# synthetic scene; four samples a shard, so recordings have several.
CONFIG = {
    "topics": {"lidar": "/velodyne_points", "joints": "/joint_states",
               "camera": "/camera/rgb"},
    "grid": {"voxel_size": 0.8, "origin": [-25.6, -25.6, -3.2],
             "dims": [64, 64, 8], "mode": "count"},
    "joints": {"window": [-0.1, 0.1], "rate": 100, "method": "linear"},
    "shards": {"max_samples": 4},
}
GOOD = ("a.bag", "b.mcap", "c.mcap")
CORRUPT = "d.bag"
UNPLAYABLE = "e.bag"


def skip(reason):
    print("SKIP: %s" % reason)
    sys.exit(77)


def extra_folder(folder):
    return folder + "-extra"


def make_recordings(folder):
    """Writes a.bag, b.mcap, c.mcap and the corrupt d.bag into `folder`,
    and e.bag, whose /camera/yuv is skipped, into extra_folder(folder)
    (exits 77 where rosbag cannot write the bag)."""
    os.makedirs(folder, exist_ok=True)
    script = os.environ.get("ROBOCACHE_MAKE_BAGS")
    if not script:
        skip("ROBOCACHE_MAKE_BAGS is not set (run through meson)")
    bags = os.path.join(folder, "bags")
    done = subprocess.run(["/usr/bin/python3", script, bags],
                          capture_output=True, text=True, timeout=120)
    if done.returncode != 0:
        skip("tests/bag/make_bags.py (python3-rosbag) failed: %s"
             % done.stderr.strip()[-300:])
    shutil.copy(os.path.join(bags, "all-lz4.bag"),
                os.path.join(folder, "a.bag"))
    # Beside the folder, not in it: a camera of yuv422, none of whose
    # messages plays.
    os.makedirs(extra_folder(folder), exist_ok=True)
    shutil.copy(os.path.join(bags, "unplayable-camera.bag"),
                os.path.join(extra_folder(folder), UNPLAYABLE))
    # Not a cut bag (robocachebagsrc recovers those): the version line,
    # then a bag header record whose length runs past the file's end.
    with open(os.path.join(folder, CORRUPT), "wb") as f:
        f.write(b"#ROSBAG V2.0\n" + b"\xff" * 4096)
    shutil.rmtree(bags)
    robocache.run(
        "robocachebagsrc name=b location=%s topics=%s "
        "robocachemcapsink name=m location=%s sink_0::topic=/velodyne_points "
        "sink_1::topic=/joint_states sink_2::topic=/camera/rgb "
        "b.src_0 ! queue ! m.sink_0 b.src_1 ! queue ! m.sink_1 "
        "b.src_2 ! queue ! m.sink_2" % (os.path.join(folder, "a.bag"),
                                        TOPICS,
                                        os.path.join(folder, "b.mcap")),
        timeout=120)
    robocache.run(
        "robocachemcapsink name=m location=%s sink_0::topic=/velodyne_points "
        "sink_1::topic=/joint_states sink_2::topic=/camera/rgb "
        "robocachelidarsrc num-buffers=10 points-per-sweep=3000 seed=5 ! "
        "m.sink_0 robocachejointsrc num-buffers=100 rate=100/1 ! m.sink_1 "
        "videotestsrc num-buffers=15 ! video/x-raw,format=RGB,width=32,"
        "height=24,framerate=15/1 ! m.sink_2"
        % os.path.join(folder, "c.mcap"), timeout=120)
    return folder


def write_config(path, config=None):
    with open(path, "w") as f:
        json.dump(CONFIG if config is None else config, f)
    return path


def cli(*args, timeout=300):
    """python3 -m robocache.dataset ARGS: (exit status, stdout + stderr)."""
    done = subprocess.run([sys.executable, "-m", "robocache.dataset"]
                          + [str(a) for a in args], capture_output=True,
                          text=True, timeout=timeout)
    return done.returncode, done.stdout + done.stderr


def read_shards(out):
    """{sample key: {field: array or dict}} of every shard in
    <out>/shards, read with tarfile and numpy alone, and the shards'
    names in order."""
    folder = os.path.join(out, "shards")
    names = sorted(n for n in os.listdir(folder)
                   if n.endswith((".tar", ".tar.gz")))
    samples = {}
    for name in names:
        with tarfile.open(os.path.join(folder, name)) as tar:
            for member in tar:
                key, ext = member.name.split(".", 1)
                data = tar.extractfile(member).read()
                value = (np.load(io.BytesIO(data)) if ext.endswith(".npy")
                         else json.loads(data))
                samples.setdefault(key, {})[ext.replace(".npy", "")] = value
    return samples, names


def read_manifest(out):
    with open(os.path.join(out, "manifest.json")) as f:
        return json.load(f)


def messages(path, topic):
    """[(pts, array)] of one topic of a recording, through
    robocache.Pipeline (the recording source alone)."""
    src = "robocachebagsrc" if path.endswith(".bag") else "robocachemcapsrc"
    with robocache.Pipeline("%s location=%s topics=%s" % (src, path, topic),
                            device="cpu") as p:
        return [(s.pts, np.array(s.array)) for s in p]


def files(folder):
    """{name: sha256} of every file under `folder`."""
    out = {}
    for root, _, names in os.walk(folder):
        for n in names:
            path = os.path.join(root, n)
            with open(path, "rb") as f:
                out[os.path.relpath(path, folder)] = hashlib.sha256(
                    f.read()).hexdigest()
    return out
