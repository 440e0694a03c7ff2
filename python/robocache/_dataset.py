"""robocache.RecordingDataset: a torch IterableDataset of aligned samples
from recordings (docs/python.md, "Datasets over recordings").

This module imports without torch; RecordingDataset raises ImportError
when made where torch does not import.
"""
import collections
import concurrent.futures
import functools
import math
import numbers
import operator
import os
import pathlib

import numpy as np

from . import _lib
from ._pipeline import Pipeline, _Aligner
from ._replay import (_NS, _description, _is_recording_file, _is_rosbag2,
                      _joints_valid, _negotiation_hint, _source, _targets,
                      _topic_problem, _voxelize_element, _without_twins)


def _real(value):
    """A real number (not a bool, a string or a complex)."""
    return isinstance(value, numbers.Real) and not isinstance(value, bool)


def _seconds_or_none(name, value):
    """`value`, checked: seconds >= 0 (a finite number), or None."""
    if value is not None and not (_real(value) and 0 <= value < math.inf):
        raise ValueError("robocache.RecordingDataset: %s=%r; accepted: "
                         "seconds >= 0 (a finite number), or None"
                         % (name, value))
    return value


def _joint_window(window):
    """(before, after) in seconds, finite, before <= after."""
    try:
        lo, hi = window
    except (TypeError, ValueError):
        lo = hi = None
    if not (_real(lo) and _real(hi) and
            -_lib.MAX_WINDOW_SECONDS <= lo <= hi <= _lib.MAX_WINDOW_SECONDS):
        raise ValueError("robocache.RecordingDataset: joint_window=%r; "
                         "accepted: (before, after) in seconds from the "
                         "sweep, before <= after, each within +-%g"
                         % (window, _lib.MAX_WINDOW_SECONDS))
    return float(lo), float(hi)


def _feature_names(features):
    """None, or the point field names averaged in mean mode: a list of
    names, or one string of names separated by commas."""
    if features is None:
        return None
    if isinstance(features, str):
        features = [f.strip() for f in features.split(",")]
    try:
        names = list(features)
    except TypeError:
        names = None
    if not names or not all(isinstance(f, str) and f for f in names):
        raise ValueError("robocache.RecordingDataset: features=%r; "
                         "accepted: point field names (a list of names, "
                         "or names separated by commas), or None"
                         % (features,))
    return names


try:
    import torch
    import torch.utils.data
    _Base = torch.utils.data.IterableDataset
except ImportError:      # the module still imports; the class says why
    torch = None
    _Base = object


def _recordings(paths):
    """The recordings named by `paths` (a path or a list): .bag, .mcap and
    .db3 files (.bag.active, .mcap.zstd, .db3.zstd too), rosbag2 folders
    (a folder holding metadata.yaml), and the recordings directly inside
    any other folder, sorted."""
    if isinstance(paths, (str, os.PathLike)):
        paths = [paths]
    found = []
    for p in map(pathlib.Path, paths):
        if p.is_dir() and not _is_rosbag2(p):
            inner = _without_twins(sorted(
                q for q in p.iterdir()
                if _is_recording_file(q) or (q.is_dir() and _is_rosbag2(q))))
            if not inner:
                raise ValueError("robocache.RecordingDataset: %s holds no "
                                 "recording (.bag, .mcap, .db3, rosbag2 "
                                 "folder)" % p)
            found += inner
        elif p.exists():
            found.append(p)
        else:
            raise FileNotFoundError("robocache.RecordingDataset: no such "
                                    "recording: %s" % p)
    return [str(p) for p in found]


def _made_ahead(make, discard):
    """make() until it returns None, each call on a thread of its own one
    item ahead: while the loop trains on one sample, the next is made.
    Making a sample is mostly C with the GIL released (waiting for the
    streams, the frame's copy from pageable memory), so the two threads
    overlap.  An item made ahead that the loop never takes (it stopped
    early) goes to discard()."""
    with concurrent.futures.ThreadPoolExecutor(1) as pool:
        coming = pool.submit(make)
        try:
            while True:
                item = coming.result()
                if item is None:
                    return
                coming = pool.submit(make)
                yield item
        finally:
            if coming.done() or not coming.cancel():
                try:
                    item = coming.result()
                except Exception:
                    item = None     # the loop has stopped: nobody to tell
                if item is not None:
                    discard(item)


def _cuda_problem(torch, device):
    """Why the samples cannot be made on `device` (a torch.device), or
    None: said when the dataset is made, not by torch's assertion at the
    first sample."""
    if device.type != "cuda":
        return None
    if not torch.cuda.is_available():
        return "torch has no usable CUDA (torch.cuda.is_available() is False)"
    if not _lib.cuda_available():
        return ("no CUDA device is usable by robocache: %s"
                % _lib.cuda_unavailable_reason())
    if (device.index or 0) >= torch.cuda.device_count():
        return "torch sees %d CUDA devices" % torch.cuda.device_count()
    return None


class RecordingDataset(_Base):
    """Aligned samples of recordings, one per lidar sweep:

        voxels       the sweep's voxel grid, float32 (z, y, x) (mode count
                     or occupancy; mean: (features, z, y, x))
        joints       (joint_samples, channels) float32: the joint states
                     resampled at `time` + linspace(*joint_window)
        joint_times  (joint_samples,) int64 ns, those times
        joints_valid (joint_samples,) bool: whether real joint states
                     stand around each time (False where the end values
                     are held or a gap above joint_max_gap is bridged)
        image        the camera frame nearest the sweep, (H, W, C) uint8
                     (only with camera_topic); image_time its time
        time         the sweep's time, ns of pipeline time (the recording
                     source's running time: 0 at its first message)
        file         index of the recording in `files`

    Tensors are on `device`: the grid is computed there (robocachevoxelize
    on the GPU) and converted to float32 there; the joints are resampled
    on the CPU in float64 (as robocache.resample does) and copied there
    with the camera frame, all in one C call per sample
    (robocache_align_write) that releases the GIL.

    paths          a recording or a list: ROS 1 .bag (robocachebagsrc),
                   .mcap, .db3 (either perhaps compressed whole, .zstd) or
                   rosbag2 folders (robocachemcapsrc), or folders of them
    lidar_topic    sensor_msgs/PointCloud2 topic (default /velodyne_points)
    joint_topic    sensor_msgs/JointState topic (default /joint_states)
    camera_topic   sensor_msgs/Image topic, or None (default) for none
    voxel_size, origin, dims, mode, features
                   the grid, as robocachevoxelize takes them (defaults
                   0.2 m, (-25.6, -25.6, -3.2), (256, 256, 32), "count")
    joint_window   (before, after) in seconds around the sweep (default
                   (-0.1, 0.1)); joint_samples points in it (default 21);
                   joint_method as robocache.resample takes it;
                   joint_max_gap: seconds between two joint states above
                   which the times between are not valid (default None:
                   any two)
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
                 joint_method="linear", joint_max_gap=None, device=None,
                 patience=1.0):
        if torch is None:
            raise ImportError("robocache.RecordingDataset needs torch "
                              "(torch.utils.data.IterableDataset), which "
                              "does not import here")
        super().__init__()
        self.files = _recordings(paths)
        for f in self.files:
            _source(f)
        problem = _topic_problem(
            [("lidar_topic", lidar_topic), ("joint_topic", joint_topic)]
            + ([("camera_topic", camera_topic)] if camera_topic else []))
        if problem:
            raise ValueError("robocache.RecordingDataset: %s=%r; accepted: "
                             "%s" % problem)
        self.lidar_topic, self.joint_topic = lidar_topic, joint_topic
        self.camera_topic = camera_topic
        who = "robocache.RecordingDataset"
        self.voxel_size = _lib.xyz(who, "voxel_size", voxel_size, float,
                                   True)
        self.origin = _lib.xyz(who, "origin", origin, float, False)
        self.dims = _lib.xyz(who, "dims", dims, int, True)
        if not isinstance(mode, str) or mode not in ("occupancy", "count",
                                                     "mean"):
            raise ValueError("robocache.RecordingDataset: mode=%r; accepted:"
                             " occupancy, count, mean" % (mode,))
        self.mode, self.features = mode, _feature_names(features)
        self.joint_window = _joint_window(joint_window)
        try:
            self.joint_samples = operator.index(joint_samples)
        except TypeError:
            self.joint_samples = 0
        if not 1 <= self.joint_samples <= _lib.MAX_JOINT_SAMPLES or \
                isinstance(joint_samples, bool):
            raise ValueError("robocache.RecordingDataset: joint_samples=%r; "
                             "accepted: a whole number from 1 to %d"
                             % (joint_samples, _lib.MAX_JOINT_SAMPLES))
        if not isinstance(joint_method, str) or \
                joint_method not in _lib.METHOD:
            raise ValueError("robocache.RecordingDataset: joint_method=%r; "
                             "accepted: %s" % (joint_method,
                                               ", ".join(_lib.METHOD)))
        self.joint_method = joint_method
        self.joint_max_gap = _seconds_or_none("joint_max_gap", joint_max_gap)
        self.patience = _seconds_or_none("patience", patience)
        if device is None:
            device = ("cuda" if torch.cuda.is_available()
                      and _lib.cuda_available() else "cpu")
        try:
            self.device = torch.device(device)
        except (RuntimeError, TypeError):
            self.device = None
        if self.device is None or self.device.type not in ("cpu", "cuda"):
            raise ValueError("robocache.RecordingDataset: device=%r; "
                             "accepted: cpu, cuda, cuda:N" % (device,))
        why = _cuda_problem(torch, self.device)
        if why:
            raise _lib.RobocacheError("robocache.RecordingDataset: "
                                      "device=%r, but %s" % (device, why))

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
            try:
                yield from self._play(index)
            except _lib.RobocacheError as err:
                hint = _negotiation_hint(err, ("lidar_topic", "joint_topic",
                                               "camera_topic"))
                if not hint:
                    raise
                raise _lib.RobocacheError("%s%s" % (err, hint)) from err

    # ---- one recording -----------------------------------------------

    def _play(self, index):
        offsets = _targets(0, self.joint_window, self.joint_samples)
        lo, hi = int(offsets[0]), int(offsets[-1])
        cuda = self.device.type == "cuda"
        device = (self.device.index or 0) if cuda else "cpu"
        side = torch.cuda.Stream(self.device) if cuda else None
        reading = collections.deque()
        with Pipeline(self.description(self.files[index]), device=device,
                      like="torch") as p:
            aligner = _Aligner(
                p, "lidar", "joints",
                "camera" if self.camera_topic else None, lo, hi,
                None if self.patience is None
                else int(round(self.patience * _NS)))
            unref = p._g.gst.gst_mini_object_unref
            make = functools.partial(self._make, aligner, index, offsets,
                                     side)
            # A sample made ahead and not taken: its lead is dropped with
            # those being read, once `side` is done.
            made = (_made_ahead(make, lambda item: reading.append(item[1:]))
                    if cuda else iter(make, None))
            try:
                for item in made:
                    if cuda:
                        item = self._hand_over(side, reading, unref, *item)
                    yield item
            finally:
                if cuda:
                    made.close()
                    side.synchronize()
                    for _done, lead in reading:
                        unref(lead)
                aligner.close()

    def _make(self, aligner, index, offsets, side):
        """The next sample of `aligner`, or None at the end: tensors
        allocated here and filled in one C call (robocache_align_write),
        its CUDA work on `side`, a stream of the dataset's own (copies from
        pageable memory wait for their stream's queued work, so on the
        loop's stream they would wait for its training steps).  With CUDA,
        (sample, the event that marks the work's end, the lead buffer the
        work reads); on the CPU, the sample."""
        if side is not None:
            # Not torch.cuda.stream(): it cost 0.2 ms a sample (run 106).
            torch.cuda.set_stream(side)     # this thread's, for good
        if not aligner.next():
            return None
        out = aligner.out
        unref = aligner._g.gst.gst_mini_object_unref
        try:
            item = self._write(aligner, out, index, offsets, side)
        except BaseException:
            unref(out.lead)
            raise
        finally:
            # Its bytes are copied or staged by now.
            if out.frame:
                unref(out.frame)
        if side is None:
            unref(out.lead)
            return item
        done = torch.cuda.Event()
        done.record(side)
        return item, done, out.lead

    def _write(self, aligner, out, index, offsets, side):
        device = self.device
        lead = aligner.info(out.lead)
        voxels = torch.empty(tuple(lead.shape[:lead.ndim]),
                             dtype=torch.float32, device=device)
        targets = offsets + out.time
        item = {"voxels": voxels, "time": out.time, "file": index,
                "joint_times": torch.from_numpy(targets)}
        o = aligner._g.AlignOutput(
            device=-1 if side is None else (device.index or 0),
            stream=None if side is None else side.cuda_stream,
            lead=voxels.data_ptr(), lead_count=voxels.numel(),
            targets=targets.ctypes.data, n_targets=len(targets),
            method=_lib.METHOD[self.joint_method])
        times = np.ctypeslib.as_array(out.vector_times, (out.n_vectors,)) \
            if out.n_vectors else ()
        item["joints_valid"] = torch.from_numpy(_joints_valid(
            times, targets, None if self.joint_max_gap is None
            else int(round(self.joint_max_gap * _NS)))).to(device)
        if out.n_vectors:
            item["joints"] = torch.empty((len(targets), out.channels),
                                         dtype=torch.float32, device=device)
            o.vectors = item["joints"].data_ptr()
        else:
            item["joints"] = torch.full((len(targets), 1), float("nan"),
                                        device=device)
        if self.camera_topic:
            item["image_time"], item["image"] = -1, torch.zeros(
                (0, 0, 0), dtype=torch.uint8, device=device)
            if out.frame:
                frame = aligner.info(out.frame)
                image = torch.empty(tuple(frame.shape[:frame.ndim]),
                                    dtype=_torch_dtype(frame.dtype),
                                    device=device)
                item["image_time"], item["image"] = out.frame_time, image
                o.frame = image.data_ptr()
                o.frame_size = image.numel() * image.element_size()
        aligner.write(o)
        return item

    @staticmethod
    def _hand_over(side, reading, unref, item, done, lead):
        """`item` for the loop's stream, which waits for `side` on the
        GPU.  The lead, a buffer of robocachevoxelize's pool that is
        written again once it goes back, is kept in `reading` until `side`
        has read it."""
        current = torch.cuda.current_stream(side.device)
        current.wait_event(done)
        for key in ("voxels", "joints", "image"):
            if key in item and item[key].is_cuda:
                item[key].record_stream(current)
        reading.append((done, lead))
        while reading and reading[0][0].query():
            unref(reading.popleft()[1])
        return item


def _torch_dtype(dtype):
    """The torch dtype of a DLPack (code, bits): a frame's."""
    name = {(1, 8): "uint8", (1, 16): "uint16", (0, 8): "int8",
            (0, 16): "int16", (2, 32): "float32", (2, 16): "float16",
            (4, 16): "bfloat16"}.get((dtype.code, dtype.bits))
    if name == "uint16" and not hasattr(torch, "uint16"):
        name = "int16"      # torch before 2.3: the same bits
    if name is None:
        raise ValueError("robocache.RecordingDataset: a frame of DLPack "
                         "type (%d, %d) bits; accepted: 8- and 16-bit "
                         "pixels" % (dtype.code, dtype.bits))
    return getattr(torch, name)
