"""robocache.RecordingDataset: a torch IterableDataset of aligned samples
from recordings (docs/python.md, "Datasets over recordings").

This module imports without torch; RecordingDataset raises ImportError
when made where torch does not import.
"""
import collections
import os
import pathlib

import numpy as np

from . import _kernels, _lib
from ._pipeline import Pipeline

try:
    import torch
    import torch.utils.data
    _Base = torch.utils.data.IterableDataset
except ImportError:      # the module still imports; the class says why
    torch = None
    _Base = object

_NS = 10**9


def _recordings(paths):
    """The recordings named by `paths` (a path or a list): .bag and .mcap
    files, rosbag2 folders (a folder holding metadata.yaml or an .mcap),
    and the recordings directly inside any other folder, sorted."""
    if isinstance(paths, (str, os.PathLike)):
        paths = [paths]
    found = []
    for p in map(pathlib.Path, paths):
        if p.is_dir() and not _is_rosbag2(p):
            inner = sorted(q for q in p.iterdir()
                           if q.suffix in (".bag", ".mcap")
                           or (q.is_dir() and _is_rosbag2(q)))
            if not inner:
                raise ValueError("robocache.RecordingDataset: %s holds no "
                                 "recording (.bag, .mcap, rosbag2 folder)"
                                 % p)
            found += inner
        elif p.exists():
            found.append(p)
        else:
            raise FileNotFoundError("robocache.RecordingDataset: no such "
                                    "recording: %s" % p)
    return [str(p) for p in found]


def _is_rosbag2(folder):
    return ((folder / "metadata.yaml").exists()
            or any(folder.glob("*.mcap")))


def _source(path):
    p = pathlib.Path(path)
    if p.suffix == ".bag":
        return "robocachebagsrc"
    if p.suffix == ".mcap" or p.is_dir():
        return "robocachemcapsrc"
    raise ValueError("robocache.RecordingDataset: %s is not a recording; "
                     "accepted: .bag (ROS 1), .mcap or a rosbag2 folder "
                     "(ROS 2)" % path)


def _quote(text):
    return '"%s"' % str(text).replace("\\", "\\\\").replace('"', '\\"')


def _vector(values):
    return '"<%s>"' % ",".join(repr(v) for v in values)


def _three(name, value, cast, positive, who="robocache.RecordingDataset"):
    """(x, y, z) from one number or three, checked."""
    values = [value] * 3 if isinstance(value, (int, float)) else value
    try:
        values = [cast(v) for v in values]
    except (TypeError, ValueError):
        values = []
    if len(values) != 3 or any(positive and v <= 0 or v != v
                               for v in values):
        raise ValueError("%s: %s must be a number or three (x, y, z)%s; "
                         "got %r" % (who, name, ", each > 0" if positive
                                     else "", value))
    return values


def _voxelize_element(backend, mode, voxel_size, origin, dims, features):
    """The robocachevoxelize of a recording's lidar branch."""
    vox = ("robocachevoxelize backend=%s mode=%s voxel-size=%s "
           "origin=%s dims=%s" % (backend, mode, _vector(voxel_size),
                                  _vector(origin), _vector(dims)))
    if features:
        vox += " features=%s" % _quote(",".join(features))
    return vox


def _description(path, topics, lidar, camera=None):
    """Plays `path`: topics[0] (the lidar) through the elements `lidar`
    into appsink "lidar", topics[1] into "joints" and, where `camera` is
    not None, topics[2] through the elements `camera` ("" for none) into
    "camera"."""
    desc = ("%s name=src location=%s topics=%s "
            "src.src_0 ! queue ! %sappsink name=lidar sync=false "
            "src.src_1 ! queue ! appsink name=joints sync=false"
            % (_source(path), _quote(path), _quote(",".join(topics)),
               lidar + " ! " if lidar else ""))
    if camera is not None:
        desc += (" src.src_2 ! queue ! %sappsink name=camera sync=false"
                 % (camera + " ! " if camera else ""))
    return desc


def _aligned(values, lo, hi, camera):
    """Aligns the streams of one recording: `values` gives (stream, pts,
    value) in the Pipeline's order (streams "lidar", "joints", "camera");
    yields (time, grid, joints, frames) per sweep, once the joint samples
    reach its window's end (time + hi) and, with `camera`, a frame at or
    after it has come (or the recording ended).  joints and frames are
    deques of (time, value) to read before the next item is asked for:
    what no later sweep needs is dropped from them then."""
    joints = collections.deque()
    frames = collections.deque()
    sweeps = collections.deque()

    def ready():
        time = sweeps[0][0]
        if not joints or joints[-1][0] < time + hi:
            return False
        return not camera or bool(frames and frames[-1][0] >= time)

    def give():
        time, grid = sweeps.popleft()
        yield time, grid, joints, frames
        # Sweeps come in time order: joint samples before the next
        # window's start are not needed again, but the one just before
        # is; the same for frames.
        while len(joints) > 1 and joints[1][0] <= time + lo:
            joints.popleft()
        while len(frames) > 1 and frames[1][0] <= time:
            frames.popleft()

    for stream, pts, value in values:
        if pts is None:
            continue
        {"joints": joints, "camera": frames}.get(stream, sweeps).append(
            (pts, value))
        while sweeps and ready():
            yield from give()
    while sweeps:
        yield from give()


def _targets(time, window, samples):
    """int64 ns: time + linspace over `window` (seconds), `samples`
    points."""
    lo = int(round(window[0] * _NS))
    return time + np.linspace(
        lo, lo + int(round((window[1] - window[0]) * _NS)),
        samples).round().astype(np.int64)


def _joint_span(joints, targets):
    """(times int64, values) of the joint samples that `targets` need (the
    one before the first target to the one after the last), or None when
    there is none."""
    if not joints:
        return None
    times = np.fromiter((t for t, _ in joints), np.int64, len(joints))
    values = np.stack([v for _, v in joints])
    first = max(int(np.searchsorted(times, targets[0], "right")) - 1, 0)
    last = int(np.searchsorted(times, targets[-1], "left")) + 1
    return times[first:last], values[first:last]


def _nearest(frames, time):
    """The (time, frame) of `frames` nearest `time`, or None."""
    return min(frames, key=lambda f: abs(f[0] - time)) if frames else None


class RecordingDataset(_Base):
    """Aligned samples of recordings, one per lidar sweep:

        voxels       the sweep's voxel grid, float32 (z, y, x) (mode count
                     or occupancy; mean: (features, z, y, x))
        joints       (joint_samples, channels) float32: the joint states
                     resampled at `time` + linspace(*joint_window)
        joint_times  (joint_samples,) int64 ns, those times
        image        the camera frame nearest the sweep, (H, W, C) uint8
                     (only with camera_topic); image_time its time
        time         the sweep's time, ns of pipeline time (the recording
                     source's running time: 0 at its first message)
        file         index of the recording in `files`

    Tensors are on `device`: the grid is computed there (robocachevoxelize
    on the GPU, its CUDA memory handed to torch without a copy) and the
    joints resampled there (robocache.resample).

    paths          a recording or a list: ROS 1 .bag (robocachebagsrc),
                   .mcap or rosbag2 folders (robocachemcapsrc), or folders
                   of them
    lidar_topic    sensor_msgs/PointCloud2 topic (default /velodyne_points)
    joint_topic    sensor_msgs/JointState topic (default /joint_states)
    camera_topic   sensor_msgs/Image topic, or None (default) for none
    voxel_size, origin, dims, mode, features
                   the grid, as robocachevoxelize takes them (defaults
                   0.2 m, (-25.6, -25.6, -3.2), (256, 256, 32), "count")
    joint_window   (before, after) in seconds around the sweep (default
                   (-0.1, 0.1)); joint_samples points in it (default 21);
                   joint_method as robocache.resample takes it
    device         "cuda", "cuda:N", "cpu" or None (CUDA where torch and
                   robocache both have it)

    Sharded by file across DataLoader workers (worker k of n takes files
    k, k + n, ...); with CUDA, use num_workers=0 or the "spawn"
    multiprocessing context.  A sweep waits for the joint samples up to
    the window's end and the first camera frame after it (or the end of
    the recording); sweeps with no joint sample at all get NaN joints.
    """

    def __init__(self, paths, lidar_topic="/velodyne_points",
                 joint_topic="/joint_states", camera_topic=None, *,
                 voxel_size=0.2, origin=(-25.6, -25.6, -3.2),
                 dims=(256, 256, 32), mode="count", features=None,
                 joint_window=(-0.1, 0.1), joint_samples=21,
                 joint_method="linear", device=None):
        if torch is None:
            raise ImportError("robocache.RecordingDataset needs torch "
                              "(torch.utils.data.IterableDataset), which "
                              "does not import here")
        super().__init__()
        self.files = _recordings(paths)
        for f in self.files:
            _source(f)
        self.lidar_topic, self.joint_topic = lidar_topic, joint_topic
        self.camera_topic = camera_topic
        self.voxel_size = _three("voxel_size", voxel_size, float, True)
        self.origin = _three("origin", origin, float, False)
        self.dims = _three("dims", dims, int, True)
        if mode not in ("occupancy", "count", "mean"):
            raise ValueError("robocache.RecordingDataset: mode=%r; accepted:"
                             " occupancy, count, mean" % (mode,))
        self.mode, self.features = mode, features
        lo, hi = (float(x) for x in joint_window)
        if not lo <= hi or int(joint_samples) < 1:
            raise ValueError("robocache.RecordingDataset: joint_window must "
                             "be (before, after) with before <= after and "
                             "joint_samples >= 1; got %r, %r"
                             % (joint_window, joint_samples))
        self.joint_window = (lo, hi)
        self.joint_samples = int(joint_samples)
        self.joint_method = joint_method
        if device is None:
            device = ("cuda" if torch.cuda.is_available()
                      and _lib.cuda_available() else "cpu")
        self.device = torch.device(device)
        if self.device.type not in ("cpu", "cuda"):
            raise ValueError("robocache.RecordingDataset: device=%r; "
                             "accepted: cpu, cuda, cuda:N" % (device,))

    def description(self, path):
        """The gst-launch description this dataset plays `path` with."""
        topics = [self.lidar_topic, self.joint_topic]
        if self.camera_topic:
            topics.append(self.camera_topic)
        backend = "gpu" if self.device.type == "cuda" else "cpu"
        return _description(path, topics, _voxelize_element(
            backend, self.mode, self.voxel_size, self.origin, self.dims,
            self.features), "" if self.camera_topic else None)

    def _my_files(self):
        info = torch.utils.data.get_worker_info()
        indices = range(len(self.files))
        if info is not None:
            indices = indices[info.id::info.num_workers]
        return indices

    def __iter__(self):
        for index in self._my_files():
            yield from self._play(index)

    # ---- one recording -----------------------------------------------

    def _play(self, index):
        lo = int(round(self.joint_window[0] * _NS))
        hi = int(round(self.joint_window[1] * _NS))
        device = (self.device.index or 0) if self.device.type == "cuda" \
            else "cpu"
        with Pipeline(self.description(self.files[index]), device=device,
                      like="torch") as p:
            values = ((s.stream, s.pts, s.array[0].numpy().copy()
                       if s.stream == "joints" else s.array) for s in p)
            for time, grid, joints, frames in _aligned(
                    values, lo, hi, bool(self.camera_topic)):
                yield self._item(index, time, grid, joints, frames)

    def _item(self, index, time, grid, joints, frames):
        item = {"voxels": grid.to(self.device).float(), "time": time,
                "file": index}
        targets = _targets(time, self.joint_window, self.joint_samples)
        item["joint_times"] = torch.from_numpy(targets)
        item["joints"] = self._resample(joints, targets)
        if self.camera_topic:
            best = _nearest(frames, time)
            item["image_time"], item["image"] = (
                (-1, torch.zeros((0, 0, 0), dtype=torch.uint8,
                                 device=self.device)) if best is None
                else (best[0], best[1].to(self.device).contiguous()))
        return item

    def _resample(self, joints, targets):
        span = _joint_span(joints, targets)
        if span is None:
            return torch.full((self.joint_samples, 1), float("nan"),
                              device=self.device)
        times, values = span
        out = _kernels.resample(torch.from_numpy(values).to(self.device),
                                torch.from_numpy(times).to(self.device),
                                torch.from_numpy(targets).to(self.device),
                                self.joint_method)
        return out.float()
