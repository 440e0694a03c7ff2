"""The dataset builder's configuration: read from a JSON or TOML file (or
a dict), checked, completed with the defaults and hashed (docs/dataset.md,
"Configuration")."""
import copy
import hashlib
import json
import math
import pathlib
import sys

from .._lib import MAX_JOINT_SAMPLES, MAX_WINDOW_SECONDS
from .._replay import _topic_problem

FORMAT = "robocache-dataset/2"

# Every section and key there is, with its default (None: not set).
DEFAULTS = {
    "topics": {"lidar": "/velodyne_points", "joints": "/joint_states",
               "camera": None},
    "grid": {"kind": "voxels", "voxel_size": None, "origin": None,
             "dims": None, "mode": None, "features": None,
             "max_voxels": 40000, "max_points_per_voxel": 32,
             "paper_features": False},
    "joints": {"window": [-0.1, 0.1], "rate": None, "samples": None,
               "method": "linear", "max_gap": None},
    "camera": {"width": None, "height": None},
    "shards": {"max_samples": 1000, "max_bytes": 1 << 30,
               "compression": "none", "level": 1},
}

# The grid defaults of each kind: RecordingDataset's dense grid, and
# robocachepillars' KITTI pillars.
GRID_KINDS = {
    "voxels": {"voxel_size": [0.2, 0.2, 0.2], "origin": [-25.6, -25.6, -3.2],
               "dims": [256, 256, 32], "mode": "count", "features": []},
    "pillars": {"voxel_size": [0.16, 0.16, 4.0], "origin": [0.0, -39.68, -3.0],
                "dims": [432, 496, 1], "mode": "pillars",
                "features": ["intensity"]},
}
GRID_MODES = {"voxels": ("occupancy", "count", "mean"),
              "pillars": ("pillars", "voxels")}
JOINT_METHODS = ("linear", "nearest", "previous", "cubic")
_WHO = "robocache.dataset config"


class ConfigError(ValueError):
    """A configuration that cannot be used; the message names the key, what
    it got and what is accepted."""


def _fail(key, got, accepted):
    raise ConfigError("%s: %s = %r; accepted: %s" % (_WHO, key, got,
                                                     accepted))


def read(path):
    """The configuration in the file `path`: JSON (.json) or TOML (.toml,
    with Python 3.11's tomllib)."""
    path = pathlib.Path(path)
    text = path.read_bytes()
    if path.suffix == ".toml":
        try:
            import tomllib
        except ImportError:
            raise ConfigError("%s: %s is TOML, which needs Python 3.11 or "
                              "newer (tomllib; this is %d.%d): write it as "
                              "JSON" % ((_WHO, path) + sys.version_info[:2]))
        try:
            return tomllib.loads(text.decode())
        except (tomllib.TOMLDecodeError, UnicodeDecodeError) as err:
            raise ConfigError("%s: %s: %s" % (_WHO, path, err))
    if path.suffix == ".json":
        try:
            return json.loads(text)
        except ValueError as err:
            raise ConfigError("%s: %s: %s" % (_WHO, path, err))
    raise ConfigError("%s: %s: accepted: a .json or .toml file"
                      % (_WHO, path))


def _merge(raw):
    """DEFAULTS overlaid with `raw`, refusing unknown sections and keys."""
    if not isinstance(raw, dict):
        _fail("the configuration", type(raw).__name__, "a table (dict)")
    conf = copy.deepcopy(DEFAULTS)
    for section, values in raw.items():
        if section not in conf:
            _fail("section", section, ", ".join(sorted(conf)))
        if not isinstance(values, dict):
            _fail(section, values, "a table of " + ", ".join(conf[section]))
        for key, value in values.items():
            if key not in conf[section]:
                _fail("%s key" % section, key,
                      ", ".join(sorted(conf[section])))
            conf[section][key] = value
    return conf


def _number(v):
    return (isinstance(v, (int, float)) and not isinstance(v, bool)
            and math.isfinite(v))


def _numbers(key, value, whole, positive):
    """Three numbers (x, y, z) from one or three."""
    values = [value] * 3 if _number(value) else value
    ok = (isinstance(values, (list, tuple)) and len(values) == 3
          and all(_number(v) for v in values))
    if ok and whole:
        ok = all(float(v).is_integer() for v in values)
    if ok and positive:
        ok = all(v > 0 for v in values)
    if not ok:
        _fail(key, value, "a number or three (x, y, z)%s"
              % (", whole and > 0" if whole else
                 ", each > 0" if positive else ""))
    return [int(v) if whole else float(v) for v in values]


def _names(key, value):
    if value is None:
        return []
    if (not isinstance(value, list)
            or not all(isinstance(v, str) and v for v in value)):
        _fail(key, value, "a list of field names")
    return list(value)


def _grid(grid):
    kind = grid["kind"]
    if kind not in GRID_KINDS:
        _fail("grid.kind", kind, ", ".join(GRID_KINDS))
    for key, default in GRID_KINDS[kind].items():
        if grid[key] is None:
            grid[key] = copy.deepcopy(default)
    grid["voxel_size"] = _numbers("grid.voxel_size", grid["voxel_size"],
                                  False, True)
    grid["origin"] = _numbers("grid.origin", grid["origin"], False, False)
    grid["dims"] = _numbers("grid.dims", grid["dims"], True, True)
    if math.prod(grid["dims"]) > 0xFFFFFFFF:
        _fail("grid.dims", grid["dims"], "at most 2^32 - 1 voxels in all")
    if grid["mode"] not in GRID_MODES[kind]:
        _fail("grid.mode", grid["mode"], "for kind %s: %s"
              % (kind, ", ".join(GRID_MODES[kind])))
    grid["features"] = _names("grid.features", grid["features"])
    for key in ("max_voxels", "max_points_per_voxel"):
        if (not isinstance(grid[key], int) or isinstance(grid[key], bool)
                or not 1 <= grid[key] < 2**31):
            _fail("grid." + key, grid[key], "a whole number in [1, 2^31)")
    if not isinstance(grid["paper_features"], bool):
        _fail("grid.paper_features", grid["paper_features"], "true, false")
    if kind == "voxels":
        # Keys of the other kind are left out, so that they cannot change
        # the hash of a configuration they do not affect.
        for key in ("max_voxels", "max_points_per_voxel", "paper_features"):
            del grid[key]


def _joints(joints):
    try:
        lo, hi = (float(x) for x in joints["window"])
    except (TypeError, ValueError):
        lo = hi = math.nan
    if not -MAX_WINDOW_SECONDS <= lo <= hi <= MAX_WINDOW_SECONDS:
        _fail("joints.window", joints["window"],
              "[before, after] in seconds, before <= after, each within "
              "+-%g" % MAX_WINDOW_SECONDS)
    joints["window"] = [lo, hi]
    rate, samples = joints.pop("rate"), joints["samples"]
    if rate is not None and samples is not None:
        _fail("joints.rate and joints.samples", [rate, samples],
              "one of them")
    if samples is None:
        rate = 100.0 if rate is None else rate
        if not isinstance(rate, (int, float)) or not rate > 0:
            _fail("joints.rate", rate, "Hz, a number > 0")
        steps = (hi - lo) * rate
        if abs(steps - round(steps)) > 1e-6:
            _fail("joints.rate", rate, "a rate at which the window (%g s) "
                  "is a whole number of steps" % (hi - lo))
        samples = int(round(steps)) + 1
        if samples > MAX_JOINT_SAMPLES:
            _fail("joints.rate", rate, "a rate that gives the window (%g s) "
                  "at most %d samples" % (hi - lo, MAX_JOINT_SAMPLES))
    if not isinstance(samples, int) or isinstance(samples, bool) \
            or not 1 <= samples <= MAX_JOINT_SAMPLES:
        _fail("joints.samples", samples, "a whole number from 1 to %d"
              % MAX_JOINT_SAMPLES)
    joints["samples"] = samples
    if joints["method"] not in JOINT_METHODS:
        _fail("joints.method", joints["method"], ", ".join(JOINT_METHODS))
    gap = joints["max_gap"]
    if gap is not None and (not isinstance(gap, (int, float)) or
                            isinstance(gap, bool) or
                            not 0 <= gap < math.inf):
        _fail("joints.max_gap", gap, "seconds, a finite number >= 0, or "
              "null (any gap)")


def _size(value, key, low):
    if not isinstance(value, int) or isinstance(value, bool) or value < low:
        _fail(key, value, "a whole number >= %d" % low)


def normalise(raw):
    """The complete, checked configuration: a dict of plain JSON values
    whose canonical form is hashed."""
    conf = _merge(raw or {})
    topics = conf["topics"]
    problem = _topic_problem([
        ("topics." + key, topics[key]) for key in ("lidar", "joints", "camera")
        if key != "camera" or topics[key] is not None])
    if problem:
        _fail(*problem)
    _grid(conf["grid"])
    _joints(conf["joints"])
    camera = conf["camera"]
    if (camera["width"] is None) != (camera["height"] is None):
        _fail("camera.width and camera.height",
              [camera["width"], camera["height"]], "both or neither")
    if camera["width"] is not None:
        if topics["camera"] is None:
            _fail("camera.width", camera["width"],
                  "a size only with topics.camera")
        _size(camera["width"], "camera.width", 1)
        _size(camera["height"], "camera.height", 1)
    _size(conf["shards"]["max_samples"], "shards.max_samples", 1)
    _size(conf["shards"]["max_bytes"], "shards.max_bytes", 1)
    shards = conf["shards"]
    if shards["compression"] not in ("none", "gzip"):
        _fail("shards.compression", shards["compression"], "none, gzip")
    _size(shards["level"], "shards.level", 1)
    if shards["level"] > 9:
        _fail("shards.level", shards["level"], "1 (fastest) to 9")
    if shards["compression"] == "none":
        del shards["level"]     # changes nothing: left out of the hash
    return conf


def digest(conf, version):
    """sha256 of the canonical configuration, the format and robocache's
    version: what a shard's bytes depend on besides the recording."""
    text = json.dumps({"format": FORMAT, "robocache": version,
                       "config": conf}, sort_keys=True,
                      separators=(",", ":"))
    return "sha256:" + hashlib.sha256(text.encode()).hexdigest()
