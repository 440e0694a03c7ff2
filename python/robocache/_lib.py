"""The project's shared libraries, found in the build or install tree and
loaded with ctypes; their C structures and prototypes."""
import ctypes
import math
import operator
import os
import pathlib
import threading
import warnings

from . import _config

_here = pathlib.Path(__file__).resolve().parent


class RobocacheError(RuntimeError):
    """A robocache library call failed (CUDA error, out of memory ...)."""


def installed_dir(path):
    """A folder of _config (relative to this package where installed
    under one prefix), as an absolute path; None when not set (a build
    folder)."""
    return _here / path if path else None


def _candidates(name):
    """Where `name` may be: an installed copy's configured library folder,
    or next to the package in a build folder (build/python/robocache ->
    build/kernels, build/gst); then the loader's own search."""
    if _config.LIBDIR:
        yield installed_dir(_config.LIBDIR) / name
    else:
        build = _here.parent.parent
        for sub in ("kernels", "gst"):
            yield build / sub / name
    yield name


def _load(name, env):
    """Loads `name` (a .so); the environment variable `env` overrides."""
    tried = []
    paths = [os.environ[env]] if os.environ.get(env) else _candidates(name)
    for path in paths:
        if isinstance(path, pathlib.Path) and not path.exists():
            tried.append(str(path))
            continue
        try:
            return ctypes.CDLL(str(path), mode=ctypes.RTLD_GLOBAL)
        except OSError as err:
            tried.append("%s (%s)" % (path, err))
    raise ImportError("robocache: cannot load %s; tried %s (set %s to its "
                      "path)" % (name, ", ".join(tried), env))


def build_root():
    """The build folder this package runs from, or None when installed."""
    build = _here.parent.parent
    if (build / "kernels" / KERNELS_NAME).exists():
        return build
    return None


KERNELS_NAME = "librobocache-kernels-1.0.so.0"

# ---- C structures of robocache-kernels.h -----------------------------

c_int, c_uint32, c_int64, c_uint64 = (ctypes.c_int, ctypes.c_uint32,
                                      ctypes.c_int64, ctypes.c_uint64)
c_void_p, c_double = ctypes.c_void_p, ctypes.c_double


class DLDevice(ctypes.Structure):
    _fields_ = [("device_type", ctypes.c_int32), ("device_id", ctypes.c_int32)]


class DLDataType(ctypes.Structure):
    _fields_ = [("code", ctypes.c_uint8), ("bits", ctypes.c_uint8),
                ("lanes", ctypes.c_uint16)]


class DLTensor(ctypes.Structure):
    _fields_ = [("data", c_void_p), ("device", DLDevice),
                ("ndim", ctypes.c_int32), ("dtype", DLDataType),
                ("shape", ctypes.POINTER(c_int64)),
                ("strides", ctypes.POINTER(c_int64)),
                ("byte_offset", c_uint64)]


class DLManagedTensor(ctypes.Structure):
    pass


DLManagedTensor._fields_ = [
    ("dl_tensor", DLTensor), ("manager_ctx", c_void_p),
    ("deleter", ctypes.CFUNCTYPE(None, ctypes.POINTER(DLManagedTensor)))]

MAX_FEATURES = 8
MAX_GROUPS = 16
MAX_STREAMS = 16
# Joints around a sweep (RecordingDataset, the dataset builder): how far a
# window may reach, in seconds (its ends in ns fit int64 with room), and
# how many samples it may hold (each a row of the joints).
MAX_WINDOW_SECONDS = 1e9
MAX_JOINT_SAMPLES = 1000000


class Field(ctypes.Structure):
    _fields_ = [("offset", c_uint32), ("type", c_int)]


class PointLayout(ctypes.Structure):
    _fields_ = [("point_step", c_uint32), ("x", Field), ("y", Field),
                ("z", Field), ("n_features", c_uint32),
                ("features", Field * MAX_FEATURES)]


class VoxelGrid(ctypes.Structure):
    _fields_ = [("origin", c_double * 3), ("voxel_size", c_double * 3),
                ("dims", c_uint32 * 3), ("mode", c_int)]


class VoxelizeStats(ctypes.Structure):
    _fields_ = [("in_grid", c_uint64), ("out_of_range", c_uint64),
                ("invalid", c_uint64), ("occupied", c_uint64)]


class SparseParams(ctypes.Structure):
    _fields_ = [("grid", VoxelGrid), ("mode", c_int),
                ("max_points", c_uint32), ("max_voxels", c_uint32)]


class SparseOutput(ctypes.Structure):
    _fields_ = [("features", c_void_p), ("coords", c_void_p),
                ("num_points", c_void_p), ("n_voxels", c_void_p)]


class SparseStats(ctypes.Structure):
    _fields_ = [("in_grid", c_uint64), ("out_of_range", c_uint64),
                ("invalid", c_uint64), ("voxels", c_uint64),
                ("dropped_voxels", c_uint64), ("dropped_points", c_uint64)]


# rc_sparse_mode
SPARSE_MODE = {"pillars": 0, "pillars9": 1, "voxels": 2}


class ChannelRange(ctypes.Structure):
    _fields_ = [("first", c_uint32), ("count", c_uint32)]


class ResampleParams(ctypes.Structure):
    _fields_ = [("batch", c_uint32), ("n_source", c_uint32),
                ("n_target", c_uint32), ("channels", c_uint32),
                ("type", c_int), ("method", c_int), ("edge", c_int),
                ("n_quaternions", c_uint32),
                ("quaternion_first", c_uint32 * MAX_GROUPS),
                ("n_angle_ranges", c_uint32),
                ("angle_ranges", ChannelRange * MAX_GROUPS)]


class FuseStream(ctypes.Structure):
    _fields_ = [("n_samples", c_uint32), ("channels", c_uint32),
                ("type", c_int), ("method", c_int), ("times", c_void_p),
                ("values", c_void_p)]


class FuseParams(ctypes.Structure):
    _fields_ = [("episodes", c_uint32), ("n_ticks", c_uint32),
                ("n_streams", c_uint32), ("edge", c_int),
                ("streams", FuseStream * MAX_STREAMS)]


# rc_scalar_type, rc_voxel_mode, rc_interp_method, rc_edge_policy
TYPE = {"int8": 0, "uint8": 1, "int16": 2, "uint16": 3, "int32": 4,
        "uint32": 5, "float32": 6, "float64": 7, "bfloat16": 8}
VOXEL_MODE = {"occupancy": 0, "count": 1, "mean": 2, "centroids": 3}
METHOD = {"linear": 0, "nearest": 1, "previous": 2, "cubic": 3}
EDGE = {"hold": 0, "nan": 1}
OK, ERROR_NOT_BUILT = 0, 5

P = ctypes.POINTER
_PROTOTYPES = {
    "rc_status_message": (ctypes.c_char_p, [c_int]),
    "rc_error_detail": (ctypes.c_char_p, []),
    "rc_clear_error_detail": (None, []),
    "rc_device_count": (c_int, [P(ctypes.c_char_p)]),
    "rc_device_check_kernels": (c_int, []),
    "rc_device_select": (c_int, [c_int]),
    "rc_device_current": (c_int, [P(c_int)]),
    "rc_device_name": (c_int, [ctypes.c_char_p, ctypes.c_size_t]),
    "rc_stream_wait": (c_int, [c_void_p, c_void_p]),
    "rc_stream_synchronize": (c_int, [c_void_p]),
    "rc_device_alloc_async": (c_int, [P(c_void_p), ctypes.c_size_t,
                                      c_void_p]),
    "rc_device_free_async": (c_int, [c_void_p, c_void_p]),
    "rc_host_alloc": (c_int, [P(c_void_p), ctypes.c_size_t]),
    "rc_host_free": (c_int, [c_void_p]),
    # The array comes back as a plain address (P(c_void_p)): the fast
    # paths read its data pointer, the first field, without a Structure.
    "rc_array_new": (c_int, [c_int, c_int, P(c_int64), c_int, c_void_p,
                             P(c_void_p)]),
    "rc_array_free": (None, [P(DLManagedTensor)]),
    "rc_seconds_to_ns_cpu": (c_int, [c_void_p, c_void_p, c_uint64]),
    "rc_seconds_to_ns_cuda": (c_int, [c_void_p, c_void_p, c_uint64,
                                      c_void_p]),
    "rc_resample_check": (c_int, [P(ResampleParams)]),
    "rc_resample_cpu": (c_int, [P(ResampleParams), c_void_p, c_void_p,
                                c_void_p, c_void_p]),
    "rc_resample_cuda": (c_int, [P(ResampleParams), c_void_p, c_void_p,
                                 c_void_p, c_void_p, c_void_p]),
    "rc_voxelize_check": (c_int, [P(PointLayout), P(VoxelGrid)]),
    "rc_voxel_grid_n_voxels": (c_uint64, [P(VoxelGrid)]),
    "rc_voxelize_output_size": (c_uint64, [P(PointLayout), P(VoxelGrid)]),
    "rc_voxelize_centroids_size": (c_uint64, [P(PointLayout), P(VoxelGrid),
                                              c_uint64]),
    "rc_voxelize_scratch_size": (c_uint64, [P(PointLayout), P(VoxelGrid),
                                            c_uint64]),
    "rc_voxelize_cuda_scratch_size": (c_uint64, [P(PointLayout),
                                                 P(VoxelGrid), c_uint32,
                                                 c_uint64]),
    "rc_voxelize_cuda_scratch_reset": (c_int, [c_void_p, c_void_p]),
    "rc_voxelize_cpu": (c_int, [P(PointLayout), P(VoxelGrid), c_void_p,
                                P(c_uint64), c_uint32, c_void_p, c_void_p,
                                P(VoxelizeStats)]),
    "rc_voxelize_cuda": (c_int, [P(PointLayout), P(VoxelGrid), c_void_p,
                                 P(c_uint64), c_uint32, c_void_p, c_void_p,
                                 c_void_p, c_void_p]),
    "rc_sparse_channels": (c_uint32, [P(PointLayout), P(SparseParams)]),
    "rc_sparse_check": (c_int, [P(PointLayout), P(SparseParams)]),
    "rc_sparse_scratch_size": (c_uint64, [P(SparseParams)]),
    "rc_sparse_voxelize_cpu": (c_int, [P(PointLayout), P(SparseParams),
                                       c_void_p, c_uint64, P(SparseOutput),
                                       c_void_p, c_void_p]),
    "rc_sparse_cuda_scratch_size": (c_int, [P(PointLayout), P(SparseParams),
                                            c_uint64, P(c_uint64)]),
    "rc_sparse_voxelize_cuda": (c_int, [P(PointLayout), P(SparseParams),
                                        c_void_p, c_uint64, P(SparseOutput),
                                        c_void_p, c_uint64, c_void_p,
                                        c_void_p]),
    "rc_fuse_check": (c_int, [P(FuseParams)]),
    "rc_fuse_row_channels": (c_uint32, [P(FuseParams)]),
    "rc_fuse_cpu": (c_int, [P(FuseParams), c_void_p, c_void_p]),
    "rc_fuse_cuda": (c_int, [P(FuseParams), c_void_p, c_void_p, c_void_p]),
}

kernels = _load(KERNELS_NAME, "ROBOCACHE_KERNELS_LIBRARY")
for _name, (_res, _args) in _PROTOTYPES.items():
    _fn = getattr(kernels, _name)
    _fn.restype, _fn.argtypes = _res, _args


def not_number(value):
    """Strings, bytes and bools (Python's, NumPy's and torch's, and arrays
    of them), which float() and operator.index() would take as numbers."""
    return (isinstance(value, (str, bytes, bytearray, bool))
            or str(getattr(value, "dtype", "")) in ("bool", "torch.bool"))


def one_or_three(value):
    """The values of `value`, or three of it where it is one number (a
    Python or NumPy scalar, a 0-d array: anything not iterable).  A string,
    bytes or a bool, alone or among the values, is a TypeError: "111" is
    not (1, 1, 1), nor True 1."""
    if not_number(value):
        raise TypeError("%r is not a number or a sequence of numbers"
                        % (value,))
    try:
        values = list(value)
    except TypeError:
        return [value] * 3
    if any(not_number(x) for x in values):
        raise TypeError("%r is not a number or a sequence of numbers"
                        % (value,))
    return values


def xyz(who, name, value, kind, positive):
    """A grid's (x, y, z) from one number or three, checked: kind float
    (sizes, corners) or int (voxel counts: integers, as NumPy's and
    torch's shapes are, so 8.0 is refused as they refuse it, and a
    computed 249.99999 is not cut to 249)."""
    cast = float if kind is float else operator.index
    accepted = ("a number or three (x, y, z)" if kind is float
                else "an integer or three (x, y, z)")
    try:
        values = [cast(x) for x in one_or_three(value)]
    except (TypeError, ValueError):
        raise TypeError("%s: %s must be %s; got %r"
                        % (who, name, accepted, value)) from None
    if len(values) != 3:
        raise ValueError("%s: %s must hold 3 values (x, y, z); got %d"
                         % (who, name, len(values)))
    for x in values:
        if not math.isfinite(x) or (positive and x <= 0):
            raise ValueError("%s: %s must be finite%s; got %r"
                             % (who, name, " and > 0" if positive else "",
                                value))
    return values


def check(status, what):
    """Raises RobocacheError for a failed rc_status, naming `what`."""
    if status == OK:
        return
    message = kernels.rc_status_message(status).decode()
    detail = kernels.rc_error_detail().decode()
    raise RobocacheError("robocache: %s failed: %s%s" % (
        what, message, " (%s)" % detail if detail else ""))


_cuda_lock = threading.Lock()
_cuda_state = {}


def cuda_available():
    """True where robocache was built with CUDA and the current device is
    usable and runs its kernels.  A GPU of an architecture the kernels
    were not built for is not: a RuntimeWarning, once, names it and the
    option to rebuild with (cuda_unavailable_reason() too)."""
    with _cuda_lock:
        if "count" not in _cuda_state:
            why = ctypes.c_char_p()
            count = kernels.rc_device_count(ctypes.byref(why))
            reason = (why.value or b"").decode()
            if count > 0:
                kernels.rc_clear_error_detail()
                if kernels.rc_device_check_kernels() != OK:
                    count, reason = 0, kernels.rc_error_detail().decode()
                    warnings.warn("robocache: the GPU is not used: " +
                                  reason, RuntimeWarning, stacklevel=2)
            _cuda_state.update(count=count, why=reason)
    return _cuda_state["count"] > 0


def cuda_unavailable_reason():
    """Why cuda_available() is False ("" when it is True)."""
    cuda_available()
    return "" if _cuda_state["count"] > 0 else _cuda_state["why"]


_thread = threading.local()


def select_device(device_id):
    """Makes CUDA device `device_id` current for robocache's kernels on
    this thread.  The kernel library carries its own CUDA runtime, whose
    current device only robocache changes, so it is set once per thread and
    device, not on every call (torch's current device is left alone)."""
    if getattr(_thread, "device", None) != device_id:
        check(kernels.rc_device_select(device_id),
              "selecting CUDA device %d" % device_id)
        _thread.device = device_id
