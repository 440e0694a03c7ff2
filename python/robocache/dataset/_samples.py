"""The samples of one recording as NumPy arrays: one robocache pipeline
plays it (robocachebagsrc or robocachemcapsrc, robocachevoxelize on the
CPU or a GPU, videoscale for the camera size); the streams are aligned
as robocache.RecordingDataset aligns them."""
import re

import numpy as np

from .. import _kernels
from .._replay import (_NS, _description, _joints_valid, _targets,
                        _voxelize_element, _window_offsets)
from .._pipeline import Pipeline


def description(conf, path, backend):
    """The gst-launch description that plays `path` under `conf`.  The
    grid is computed by the pipeline (kind voxels) and handed over in
    system memory, downloaded where it was computed on a GPU; for kind
    pillars the lidar branch gives the sweep's points."""
    topics, grid = conf["topics"], conf["grid"]
    names = [topics["lidar"], topics["joints"]]
    lidar = ""
    if grid["kind"] == "voxels":
        lidar = _voxelize_element(backend, grid["mode"], grid["voxel_size"],
                                  grid["origin"], grid["dims"],
                                  grid["features"]) + \
            " ! other/x-robocache-voxels"
    camera = None
    if topics["camera"]:
        names.append(topics["camera"])
        camera = ""
        if conf["camera"]["width"]:
            camera = "videoscale ! video/x-raw,width=%d,height=%d" % (
                conf["camera"]["width"], conf["camera"]["height"])
    return _description(path, names, lidar, camera)


_FIELDS = re.compile(r'fields=\(string\)"((?:[^"\\]|\\.)*)"')
_STEP = re.compile(r"point-step=\(int\)(\d+)")
_TYPES = {"int8": "i1", "uint8": "u1", "int16": "<i2", "uint16": "<u2",
          "int32": "<i4", "uint32": "<u4", "float32": "<f4",
          "float64": "<f8"}


def point_columns(array, caps, names):
    """(N, len(names)) float32: the fields `names` of the points in
    `array` (a Sample's array: (N, fields) float32 or (N, point_step)
    uint8), read with the layout of their caps."""
    fields = {}
    match = _FIELDS.search(caps)
    for spec in (match.group(1).replace("\\,", ",").split(",")
                 if match else []):
        name, kind, offset = spec.split(":")
        fields[name] = (_TYPES[kind], int(offset))
    missing = [n for n in names if n not in fields]
    if missing:
        raise ValueError("robocache.dataset: the points have no field %s;"
                         " they have %s" % (", ".join(missing),
                                            ", ".join(fields)))
    step = int(_STEP.search(caps).group(1))
    raw = np.ascontiguousarray(array).view(np.uint8).reshape(-1, step)
    out = np.empty((raw.shape[0], len(names)), np.float32)
    for i, name in enumerate(names):
        kind, offset = fields[name]
        width = np.dtype(kind).itemsize
        out[:, i] = raw[:, offset:offset + width].copy().view(kind)[:, 0]
    return out


def _pillars(grid, points):
    """The sweep's sparse voxels by robocachepillars' kernel, cut to the
    voxels used: OpenPCDet's voxels, voxel_coords, voxel_num_points."""
    feats, coords, counts, used = _kernels.voxelize(
        points, grid["voxel_size"], grid["origin"], grid["dims"],
        mode=grid["mode"], features=tuple(range(3, points.shape[1])),
        max_points_per_voxel=grid["max_points_per_voxel"],
        max_voxels=grid["max_voxels"], paper_features=grid["paper_features"])
    n = int(used[0])
    return {"voxels": feats[:n], "voxel_coords": coords[:n],
            "voxel_num_points": counts[:n]}


def _lidar(conf, sample):
    """The sweep's grid (the buffer's own memory, back to its pool once
    written) or, for kind pillars, its points' columns."""
    if conf["grid"]["kind"] == "pillars":
        return point_columns(sample.array, sample.caps,
                             ["x", "y", "z"] + conf["grid"]["features"])
    return sample.array


def _joints(conf, span, targets):
    if span is None:
        return np.full((len(targets), 1), np.nan, np.float32)
    times, values = span
    return _kernels.resample(values, times, targets,
                             conf["joints"]["method"]).astype(np.float32)


def samples(conf, path, device="cpu"):
    """Yields one dict of arrays per lidar sweep of `path`: grid (kind
    voxels) or voxels, voxel_coords, voxel_num_points (kind pillars);
    joints, joint_times, joints_valid; image (with a camera topic); and
    "meta": time
    and image_time in ns.  `device`: "cpu" or a CUDA device index (the
    grid is computed there)."""
    window = conf["joints"]["window"]
    lo, hi = _window_offsets(window, conf["joints"]["samples"])
    camera = bool(conf["topics"]["camera"])
    backend = "cpu" if device == "cpu" else "gpu"
    with Pipeline(description(conf, path, backend), device=device) as p:
        for time, lidar, span, frame in p._aligned(
                "lidar", "joints", "camera" if camera else None, lo, hi):
            lidar = _lidar(conf, lidar)
            targets = _targets(time, window, conf["joints"]["samples"])
            item = ({"grid": lidar} if conf["grid"]["kind"] == "voxels"
                    else _pillars(conf["grid"], lidar))
            item["joints"] = _joints(conf, span, targets)
            item["joint_times"] = targets
            max_gap = conf["joints"]["max_gap"]
            item["joints_valid"] = _joints_valid(
                span[0] if span else (), targets,
                None if max_gap is None else int(round(max_gap * _NS)))
            item["meta"] = {"time": int(time), "image_time": -1}
            if camera:
                item["image"] = (np.zeros((0, 0, 0), np.uint8)
                                 if frame is None else frame[1].array)
                if frame is not None:
                    item["meta"]["image_time"] = int(frame[0])
            yield item
