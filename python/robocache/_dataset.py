"""robocache.RecordingDataset: a torch IterableDataset of aligned samples
from recordings (docs/python.md, "Datasets over recordings").

This module imports without torch; RecordingDataset raises ImportError
when made where torch does not import.
"""
import collections
import concurrent.futures
import functools
import os
import pathlib

from . import _kernels, _lib
from ._pipeline import Pipeline
from ._replay import (_NS, _description, _is_rosbag2, _source, _targets,
                      _three, _voxelize_element)

try:
    import torch
    import torch.utils.data
    _Base = torch.utils.data.IterableDataset
except ImportError:      # the module still imports; the class says why
    torch = None
    _Base = object


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


def _made_ahead(make, samples):
    """make(sample) for each of `samples`, each called on a thread of its
    own one sample ahead: while the loop trains on one sample, the next
    is made.  Making a sample is mostly waiting, on copies from pageable
    memory (each waits for its stream), on the launches and on the camera
    frame's bytes, cold in the CPU's caches, with the GIL released, so the
    two threads overlap."""
    with concurrent.futures.ThreadPoolExecutor(1) as pool:
        ahead = None
        for sample in samples:
            coming = pool.submit(make, sample)
            if ahead is not None:
                yield ahead.result()
            ahead = coming
        if ahead is not None:
            yield ahead.result()


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
    patience       seconds of recording a sweep may wait past its window
                   for joints or a frame (default 1.0; None: to the end):
                   through a longer drop-out it comes with what came

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
                 joint_method="linear", device=None, patience=1.0):
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
        if patience is not None and not float(patience) >= 0:
            raise ValueError("robocache.RecordingDataset: patience=%r; "
                             "accepted: seconds >= 0, or None"
                             % (patience,))
        self.patience = patience
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
        offsets = _targets(0, self.joint_window, self.joint_samples)
        lo, hi = int(offsets[0]), int(offsets[-1])
        device = (self.device.index or 0) if self.device.type == "cuda" \
            else "cpu"
        side = (torch.cuda.Stream(self.device)
                if self.device.type == "cuda" else None)
        reading = collections.deque()
        with Pipeline(self.description(self.files[index]), device=device,
                      like="torch") as p:
            aligned = ((index, time, time + offsets, grid.array, span,
                        frame and (frame[0], frame[1].array))
                       for time, grid, span, frame in p._aligned(
                           "lidar", "joints",
                           "camera" if self.camera_topic else None, lo, hi,
                           None if self.patience is None
                           else int(round(self.patience * _NS))))
            made = (_made_ahead(functools.partial(self._make_on, side),
                                aligned) if side is not None
                    else (self._item(*sample) for sample in aligned))
            try:
                for item in made:
                    yield (item if side is None
                           else self._hand_over(side, reading, *item))
            finally:
                made.close()
                aligned.close()
                if side is not None:
                    side.synchronize()

    def _make_on(self, side, sample):
        """The sample, made on the dataset's thread (_made_ahead) and its
        CUDA work on `side`, a stream of the dataset's own: copies from
        pageable memory wait for their stream's queued work, so on the
        loop's stream they would wait for its training steps.  With the
        event that marks the work's end, and the grid the work reads."""
        # Not torch.cuda.stream(): it cost 0.2 ms a sample (run 106).
        torch.cuda.set_stream(side)     # this thread's, for good
        item = self._item(*sample)
        done = torch.cuda.Event()
        done.record(side)
        return item, done, sample[3]

    @staticmethod
    def _hand_over(side, reading, item, done, grid):
        """`item` for the loop's stream, which waits for `side` on the
        GPU.  The grid, a buffer of robocachevoxelize's pool that is
        written again once it goes back, is kept in `reading` until `side`
        has read it."""
        current = torch.cuda.current_stream(side.device)
        current.wait_event(done)
        for key in ("voxels", "joints", "image"):
            if key in item and item[key].is_cuda:
                item[key].record_stream(current)
        reading.append((done, grid))
        while reading and reading[0][0].query():
            reading.popleft()
        return item

    def _item(self, index, time, targets, grid, span, frame):
        # A copy, never a view (a float32 grid of mode mean): the buffer
        # goes back to its pool.
        item = {"voxels": grid.to(self.device, torch.float32, copy=True),
                "time": time, "file": index}
        item["joint_times"] = torch.from_numpy(targets)
        item["joints"] = self._resample(span, targets)
        if self.camera_topic:
            item["image_time"], item["image"] = (
                (-1, torch.zeros((0, 0, 0), dtype=torch.uint8,
                                 device=self.device)) if frame is None
                else (frame[0], frame[1].to(self.device).contiguous()))
        return item

    def _resample(self, span, targets):
        if span is None:
            return torch.full((self.joint_samples, 1), float("nan"),
                              device=self.device)
        times, values = span
        out = _kernels.resample(torch.from_numpy(values).to(self.device),
                                torch.from_numpy(times).to(self.device),
                                torch.from_numpy(targets).to(self.device),
                                self.joint_method)
        return out.float()
