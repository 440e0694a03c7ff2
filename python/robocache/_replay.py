"""Playing recordings, without torch: the recording source of a file,
the gst-launch description of a recording's pipeline, and the alignment of
its streams into one sample per lidar sweep.  Shared by
robocache.RecordingDataset and the dataset builder (robocache.dataset)."""
import os
import pathlib
import re

import numpy as np

_NS = 10**9

# A recording file's suffix: ROS 2's (MCAP and rosbag2's SQLite storage,
# perhaps compressed whole by rosbag2's --compression-mode file;
# robocachemcapsrc) and ROS 1's bag (robocachebagsrc; .bag.active: the bag
# a killed rosbag record was writing).
_ROS2_SUFFIXES = (".mcap", ".db3", ".mcap.zstd", ".db3.zstd")
_ROS1_SUFFIXES = (".bag", ".bag.active")
RECORDING_SUFFIXES = _ROS1_SUFFIXES + _ROS2_SUFFIXES


def _is_recording_file(path):
    """Whether the file `path` is named as a recording (a name's last
    suffix alone would take rec_0.mcap.zstd for .zstd)."""
    return pathlib.Path(path).name.endswith(RECORDING_SUFFIXES)


def _without_twins(paths):
    """`paths` less each file compressed whole (rec_0.db3.zstd) whose
    uncompressed twin (rec_0.db3, not empty) is among them: rosbag2
    stopped while compressing it, and it may be cut off; as
    robocachemcapsrc leaves it out of a folder."""
    names = {str(p) for p in paths}
    return [p for p in paths
            if not (str(p).endswith(".zstd") and str(p)[:-5] in names
                    and os.path.getsize(str(p)[:-5]) > 0)]


def _is_rosbag2(folder):
    """A rosbag2 recording: a folder with its metadata.yaml.  A folder of
    .mcap or .db3 files without one is a folder of recordings, one a file
    (it was taken for one recording, its files' messages merged into one
    timeline)."""
    return (pathlib.Path(folder) / "metadata.yaml").is_file()


def _source(path):
    p = pathlib.Path(path)
    if p.name.endswith(_ROS1_SUFFIXES):
        return "robocachebagsrc"
    if p.name.endswith(_ROS2_SUFFIXES) or p.is_dir():
        return "robocachemcapsrc"
    raise ValueError("robocache.RecordingDataset: %s is not a recording; "
                     "accepted: .bag (ROS 1), .mcap, .db3 (perhaps "
                     ".zstd) or a rosbag2 folder (ROS 2)" % path)


def _quote(text):
    return '"%s"' % str(text).replace("\\", "\\\\").replace('"', '\\"')


def _vector(values):
    return '"<%s>"' % ",".join(repr(v) for v in values)


def _voxelize_element(backend, mode, voxel_size, origin, dims, features):
    """The robocachevoxelize of a recording's lidar branch."""
    vox = ("robocachevoxelize backend=%s mode=%s voxel-size=%s "
           "origin=%s dims=%s" % (backend, mode, _vector(voxel_size),
                                  _vector(origin), _vector(dims)))
    if features:
        vox += " features=%s" % _quote(",".join(features))
    return vox


# Each topic's branch: a queue bounded by time only (a byte bound fills
# with a few HD frames while another topic is far behind), then the sink.
# The lead's appsink (the grids, the large buffers) holds at most 8: once
# it and its queue are full the reading thread waits, so playing runs at
# most about a second of recording ahead of the loop, and the other
# topics' sinks, unbounded, hold no more than that either (and never make
# the reading thread wait on a pull).  A topic that falls behind (a
# drop-out, a late start) gets GAP events from the recording source,
# which robocache_merge takes as its progress and which preroll its sink,
# so nothing stalls.  At the end the sinks do not wait for the loop to
# take what they hold.
_BRANCH_QUEUE = ("queue max-size-buffers=0 max-size-bytes=0 "
                 "max-size-time=%d" % _NS)
_SINK = "appsink name=%s sync=false wait-on-eos=false max-buffers=%d"
_LEAD_BUFFERS = 8


def _description(path, topics, lidar, camera=None):
    """Plays `path`: topics[0] (the lidar, the lead) through the elements
    `lidar` into appsink "lidar", topics[1] into "joints" and, where
    `camera` is not None, topics[2] through the elements `camera` ("" for
    none) into "camera"."""
    def branch(pad, elements, sink, max_buffers):
        return " src.src_%d ! %s ! %s%s" % (
            pad, _BRANCH_QUEUE, elements + " ! " if elements else "",
            _SINK % (sink, max_buffers))

    desc = ("%s name=src location=%s topics=%s" % (
        _source(path), _quote(path), _quote(",".join(topics)))
        + branch(0, lidar, "lidar", _LEAD_BUFFERS)
        + branch(1, "", "joints", 0))
    if camera is not None:
        desc += branch(2, camera, "camera", 0)
    return desc


# A ROS name's characters: others (a comma, a space, a quote) would break
# the recording source's topics list.
_TOPIC_NAME = re.compile(r"/[A-Za-z0-9_/~{}]*")


def _topic_problem(streams):
    """The first of `streams`, (argument, topic) pairs in the order of
    lidar, joints and camera (where taken), that a recording's pipeline
    cannot take, as (argument, topic, what is accepted); None where all
    can."""
    for i, (argument, topic) in enumerate(streams):
        if not isinstance(topic, str) or not _TOPIC_NAME.fullmatch(topic):
            return (argument, topic, "a topic name starting with /, of "
                    "letters, digits, _ and /")
        if topic in [t for _, t in streams[:i]]:
            return argument, topic, "a topic that no other stream takes"
    return None


def _negotiation_hint(error, names):
    """What a recording's pipeline whose topic did not fit its stream most
    likely means, to add to its error (GStreamer says only
    not-negotiated; the aligner, which vectors it takes): a topic of
    another type than its stream takes, the streams called by `names`
    (lidar, joints, camera); "" for other errors."""
    text = str(error)
    if ("not-negotiated" not in text
            and "the vectors stream" not in text):
        return ""
    return (" (not negotiated: a topic's messages are not of the type its "
            "stream takes: %s PointCloud2, %s JointState, %s Image, or "
            "CompressedImage without a frame size, which scales raw frames "
            "only)" % tuple(names))


def _targets(time, window, samples):
    """int64 ns: time + linspace over `window` (seconds), `samples`
    points."""
    lo = int(round(window[0] * _NS))
    return time + np.linspace(
        lo, lo + int(round((window[1] - window[0]) * _NS)),
        samples).round().astype(np.int64)


def _joints_valid(times, targets, max_gap=None):
    """Per target time (int64 ns), whether real joint states stand around
    it: it falls on one, or between two no more than `max_gap` ns apart
    (None: any two).  False where resampling holds the end values (before
    the first joint state in reach, after the last: a recording cut off, a
    sensor that stopped) or bridges a longer gap (a drop-out)."""
    times = np.asarray(times, np.int64)
    targets = np.asarray(targets, np.int64)
    if len(times) == 0:
        return np.zeros(len(targets), bool)
    after = np.searchsorted(times, targets)     # first time >= target
    inside = (after > 0) & (after < len(times))
    on = (after < len(times)) & (times[np.minimum(after, len(times) - 1)]
                                 == targets)
    if max_gap is None:
        return on | inside
    gap = np.full(len(targets), np.iinfo(np.int64).max)
    gap[inside] = times[after[inside]] - times[after[inside] - 1]
    return on | (inside & (gap <= max_gap))


def _window_offsets(window, samples):
    """(first, last) of _targets(0, window, samples): the window's ends in
    ns, as the targets round them."""
    offsets = _targets(0, window, samples)
    return int(offsets[0]), int(offsets[-1])
