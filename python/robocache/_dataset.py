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


def _three(name, value, cast, positive):
    """(x, y, z) from one number or three, checked."""
    values = [value] * 3 if isinstance(value, (int, float)) else value
    try:
        values = [cast(v) for v in values]
    except (TypeError, ValueError):
        values = []
    if len(values) != 3 or any(positive and v <= 0 or v != v
                               for v in values):
        raise ValueError("robocache.RecordingDataset: %s must be a number "
                         "or three (x, y, z)%s; got %r"
                         % (name, ", each > 0" if positive else "", value))
    return values


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
        vox = ("robocachevoxelize backend=%s mode=%s voxel-size=%s "
               "origin=%s dims=%s" % (backend, self.mode,
                                      _vector(self.voxel_size),
                                      _vector(self.origin),
                                      _vector(self.dims)))
        if self.features:
            vox += " features=%s" % _quote(",".join(self.features))
        desc = ("%s name=src location=%s topics=%s "
                "src.src_0 ! queue ! %s ! appsink name=lidar sync=false "
                "src.src_1 ! queue ! appsink name=joints sync=false"
                % (_source(path), _quote(path), _quote(",".join(topics)),
                   vox))
        if self.camera_topic:
            desc += " src.src_2 ! queue ! appsink name=camera sync=false"
        return desc

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
        joints = collections.deque()     # (time, values (channels,))
        frames = collections.deque()     # (time, image)
        sweeps = collections.deque()     # (time, grid)
        with Pipeline(self.description(self.files[index]), device=device,
                      like="torch") as p:
            for s in p:
                if s.pts is None:
                    continue
                if s.stream == "joints":
                    joints.append((s.pts, s.array[0].numpy().copy()))
                elif s.stream == "camera":
                    frames.append((s.pts, s.array))
                else:
                    sweeps.append((s.pts, s.array))
                while sweeps and self._ready(sweeps[0][0] + hi, joints,
                                             sweeps[0][0], frames):
                    yield self._item(index, sweeps.popleft(), joints,
                                     frames, lo)
            while sweeps:
                yield self._item(index, sweeps.popleft(), joints, frames, lo)

    def _ready(self, joints_until, joints, time, frames):
        if not joints or joints[-1][0] < joints_until:
            return False
        return not self.camera_topic or bool(frames
                                             and frames[-1][0] >= time)

    def _item(self, index, sweep, joints, frames, lo):
        time, grid = sweep
        item = {"voxels": grid.to(self.device).float(), "time": time,
                "file": index}
        targets = time + np.linspace(
            lo, lo + int(round((self.joint_window[1] - self.joint_window[0])
                               * _NS)),
            self.joint_samples).round().astype(np.int64)
        item["joint_times"] = torch.from_numpy(targets)
        item["joints"] = self._resample(joints, targets)
        # Joint samples before the window's start are not needed again
        # (sweeps come in time order), but the one just before is.
        while len(joints) > 1 and joints[1][0] <= targets[0]:
            joints.popleft()
        if self.camera_topic:
            item["image_time"], item["image"] = self._nearest(frames, time)
        return item

    def _resample(self, joints, targets):
        if not joints:
            return torch.full((self.joint_samples, 1), float("nan"),
                              device=self.device)
        times = np.fromiter((t for t, _ in joints), np.int64, len(joints))
        values = np.stack([v for _, v in joints])
        first = max(int(np.searchsorted(times, targets[0], "right")) - 1, 0)
        last = int(np.searchsorted(times, targets[-1], "left")) + 1
        times, values = times[first:last], values[first:last]
        out = _kernels.resample(torch.from_numpy(values).to(self.device),
                                torch.from_numpy(times).to(self.device),
                                torch.from_numpy(targets).to(self.device),
                                self.joint_method)
        return out.float()

    def _nearest(self, frames, time):
        if not frames:
            return (-1, torch.zeros((0, 0, 0), dtype=torch.uint8,
                                    device=self.device))
        best = min(frames, key=lambda f: abs(f[0] - time))
        # Frames before the one just before this sweep are done with.
        while len(frames) > 1 and frames[1][0] <= time:
            frames.popleft()
        return best[0], best[1].to(self.device).contiguous()
