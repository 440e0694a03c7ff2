"""Playing recordings, without torch: the recording source of a file,
the gst-launch description of a recording's pipeline, and the alignment of
its streams into one sample per lidar sweep.  Shared by
robocache.RecordingDataset and the dataset builder (robocache.dataset)."""
import pathlib

import numpy as np

_NS = 10**9


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
            "src.src_0 ! queue max-size-bytes=0 ! %sappsink name=lidar sync=false "
            "src.src_1 ! queue max-size-bytes=0 ! appsink name=joints sync=false"
            % (_source(path), _quote(path), _quote(",".join(topics)),
               lidar + " ! " if lidar else ""))
    if camera is not None:
        desc += (" src.src_2 ! queue max-size-bytes=0 ! %sappsink name=camera sync=false"
                 % (camera + " ! " if camera else ""))
    return desc


def _targets(time, window, samples):
    """int64 ns: time + linspace over `window` (seconds), `samples`
    points."""
    lo = int(round(window[0] * _NS))
    return time + np.linspace(
        lo, lo + int(round((window[1] - window[0]) * _NS)),
        samples).round().astype(np.int64)


def _window_offsets(window, samples):
    """(first, last) of _targets(0, window, samples): the window's ends in
    ns, as the targets round them."""
    offsets = _targets(0, window, samples)
    return int(offsets[0]), int(offsets[-1])
