"""robocache's kernels on arrays: resample, voxelize, centroids, fuse.

Each function takes arrays with ``__dlpack__`` and gives its result in the
inputs' kind (NumPy in, NumPy out; torch in, torch out), computed where the
inputs are: CUDA inputs on their device and on torch's current stream (no
synchronisation by hand, none by robocache either, except centroids, whose
size is known only after the kernel), CPU inputs on robocache's CPU
reference.
"""
import ctypes
import math
import operator

from . import _arrays, _lib
from ._arrays import CUDA

k = _lib.kernels
_DATA_TYPES = ("float32", "float64", "bfloat16")
_TIME_TYPES = ("int64", "float64")


class _Call:
    """The inputs of one call: their views, one device, one stream, and
    the temporary memory given back when the call ends."""

    def __init__(self, what):
        self.what = what
        self.views = []
        self.device = None
        self.temps = []

    def view(self, obj, name):
        v = _arrays.view(obj, name)
        if self.views:
            first = self.views[0]
            if (v.device, v.device_id) != (first.device, first.device_id):
                raise ValueError(
                    "robocache.%s: %s is %s but %s is %s; all arrays must "
                    "be on one device" % (self.what, name, v.describe(),
                                          first.name, first.describe()))
        else:
            self.device = v.device
            self.device_id = v.device_id
        self.views.append(v)
        return v

    @property
    def like(self):
        return self.views[0].kind

    def __enter__(self):
        # A failure's detail is its own, not an earlier call's.
        k.rc_clear_error_detail()
        return self

    def start(self):
        """Makes the inputs' device current (CUDA) and picks the stream."""
        self.stream = 0
        if self.device != CUDA:
            return
        if not _lib.cuda_available():
            raise _lib.RobocacheError(
                "robocache.%s: the inputs are CUDA arrays but robocache has "
                "no usable CUDA device: %s" % (
                    self.what, _lib.cuda_unavailable_reason()))
        _lib.select_device(self.device_id)
        self.stream = _arrays.current_stream(self.device_id)

    def output(self, shape, dtype):
        return _arrays.new_array(shape, dtype, self.device_id
                                 if self.device == CUDA else -1, self.stream)

    def temp(self, nbytes):
        """Scratch memory on the call's device for this call only."""
        ptr = ctypes.c_void_p()
        if self.device == CUDA:
            _lib.check(k.rc_device_alloc_async(ctypes.byref(ptr), nbytes,
                                               self.stream),
                       "allocating %d bytes of scratch" % nbytes)
        else:
            ptr = self.output((max(nbytes, 1),), "uint8")
            self.temps.append(ptr)
            return _arrays.data_pointer(ptr)
        self.temps.append(ptr.value)
        return ptr.value

    def times_ns(self, v):
        """int64 nanoseconds of the times `v` (float64 seconds converted
        into scratch)."""
        if v.dtype == "int64":
            return v.data
        n = math.prod(v.shape)
        out = self.temp(8 * n)
        if self.device == CUDA:
            _lib.check(k.rc_seconds_to_ns_cuda(v.data, out, n, self.stream),
                       "converting %s to nanoseconds" % v.name)
        elif k.rc_seconds_to_ns_cpu(v.data, out, n) != _lib.OK:
            raise ValueError("robocache.%s: %s (float64 seconds) holds a "
                             "value that is not finite or beyond +-9.2e9 s"
                             % (self.what, v.name))
        return out

    def __exit__(self, *exc):
        for t in self.temps:
            if self.device == CUDA:
                k.rc_device_free_async(t, self.stream)
        self.temps = []
        return False


def _check_dtype(what, v, accepted):
    if v.dtype not in accepted:
        raise TypeError("robocache.%s: %s must be %s; got %s"
                        % (what, v.name, " or ".join(accepted), v.dtype))


def _check_ndim(what, v, ndim, form):
    if len(v.shape) != ndim:
        raise ValueError("robocache.%s: %s must be %s; got shape %s"
                         % (what, v.name, form, v.shape))


def _fits_u32(what, name, value):
    if value > 0xFFFFFFFF:
        raise ValueError("robocache.%s: %s is %d, above 2^32 - 1"
                         % (what, name, value))


def _choice(what, name, value, table):
    if not isinstance(value, str) or value not in table:
        raise ValueError("robocache.%s: %s=%r; accepted: %s"
                         % (what, name, value, ", ".join(table)))
    return table[value]


def _check_sorted(what, v, pointer, rows, cols):
    """CPU inputs: times must not go backwards within a row (on the GPU
    this is not checked: the host does not wait to look)."""
    import numpy
    if rows * cols == 0:
        return
    times = numpy.ctypeslib.as_array(
        ctypes.cast(pointer, ctypes.POINTER(ctypes.c_int64)),
        shape=(rows, cols))
    # Compared, not subtracted: a difference of int64 times can wrap.
    bad = numpy.nonzero(times[:, 1:] < times[:, :-1])
    if bad[0].size:
        raise ValueError("robocache.%s: %s must not decrease along each "
                         "row; row %d goes back at index %d"
                         % (what, v.name, bad[0][0], bad[1][0] + 1))


def _index_list(what, name, values, limit, channels):
    try:
        if _lib.not_number(values) or any(_lib.not_number(x)
                                          for x in values):
            raise TypeError
        out = [operator.index(x) for x in values]
    except TypeError:
        raise TypeError("robocache.%s: %s must be a sequence of channel "
                        "indices; got %r" % (what, name, values)) from None
    if len(out) > limit:
        raise ValueError("robocache.%s: %s holds %d entries; at most %d"
                         % (what, name, len(out), limit))
    for x in out:
        if not 0 <= x < channels:
            raise ValueError("robocache.%s: %s holds channel %d; channels "
                             "are 0 .. %d" % (what, name, x, channels - 1))
    return out


def _angle_ranges(what, angles, channels):
    """Channel indices -> runs of consecutive channels."""
    indices = sorted(set(_index_list(what, "angles", angles, channels,
                                     channels)))
    ranges = []
    for i in indices:
        if ranges and ranges[-1][0] + ranges[-1][1] == i:
            ranges[-1][1] += 1
        else:
            ranges.append([i, 1])
    if len(ranges) > _lib.MAX_GROUPS:
        raise ValueError("robocache.%s: angles form %d runs of consecutive "
                         "channels; at most %d" % (what, len(ranges),
                                                   _lib.MAX_GROUPS))
    return ranges


_params_cache = {}


def _keep(table, key, value):
    """Stores `value` under `key` in one of the call caches, which are
    emptied at 64 entries: a training loop repeats a few shapes."""
    if len(table) >= 64:
        table.clear()
    table[key] = value
    return value


def _cached(key, make):
    """Parameters already checked for the same call shape: a training loop
    repeats one shape, and checking costs more than the launch."""
    try:
        params = _params_cache.get(key)
    except TypeError:           # an unhashable argument: no caching
        return make()
    if params is None:
        params = _keep(_params_cache, key, make())
    return params


def _sequence_key(values):
    try:
        return tuple(values)
    except TypeError:
        return values


def _typed_key(values):
    """@values (a tuple) with each value's type, for a cache key: (1.0,)
    equals (1,), yet only (1,) is a sequence of channel indices, and a call
    whose key was seen skips the checks."""
    if type(values) is not tuple:
        return values
    return tuple((type(v), v) for v in values)


def _resample_params(B, S, T, D, dtype, method, edge, quaternions, angles):
    quaternions = _sequence_key(quaternions)
    angles = _sequence_key(angles)

    def make():
        what = "resample"
        p = _lib.ResampleParams(batch=B, n_source=S, n_target=T, channels=D,
                                type=_lib.TYPE[dtype],
                                method=_choice(what, "method", method,
                                               _lib.METHOD),
                                edge=_choice(what, "edge", edge, _lib.EDGE))
        firsts = _index_list(what, "quaternions", quaternions,
                             _lib.MAX_GROUPS, D)
        p.n_quaternions = len(firsts)
        for i, first in enumerate(firsts):
            p.quaternion_first[i] = first
        ranges = _angle_ranges(what, angles, D)
        p.n_angle_ranges = len(ranges)
        for i, (first, count) in enumerate(ranges):
            p.angle_ranges[i] = _lib.ChannelRange(first, count)
        if k.rc_resample_check(ctypes.byref(p)) != _lib.OK:
            raise ValueError(
                "robocache.resample: quaternions %s and angles %s: each "
                "quaternion takes channels first .. first + 3 (below D = "
                "%d) and no two groups may share a channel"
                % (list(firsts), sorted(set(angles)), D))
        return p
    return _cached((B, S, T, D, dtype, method, edge, _typed_key(quaternions),
                    _typed_key(angles)), make)


class _FastPlan:
    """A torch CUDA resample call checked once: what the next call with the
    same shapes, dtypes, device and options needs."""

    __slots__ = ("params", "device", "shape", "type", "single")


_fast_plans = {}
_c_void_p = ctypes.c_void_p
_byref = ctypes.byref
_array_new = k.rc_array_new
_resample_cuda = k.rc_resample_cuda


def _free_new(address):
    """Frees a fast path's rc_array_new array that no tensor took."""
    k.rc_array_free(ctypes.cast(address, ctypes.POINTER(
        _lib.DLManagedTensor)))


def _fast_key(data, st, tt, method, edge, quaternions, angles):
    try:
        key = (data.shape, data.dtype, st.shape, st.dtype, tt.shape,
               tt.dtype, data.get_device(), method, edge,
               _typed_key(quaternions if type(quaternions) is tuple
                          else _sequence_key(quaternions)),
               _typed_key(angles if type(angles) is tuple
                          else _sequence_key(angles)))
        hash(key)
        return key
    except (AttributeError, TypeError):
        return None


def _resample_fast(key, data, st, tt):
    """The training-loop call on torch CUDA tensors already seen with these
    shapes: no checks but the per-call ones.  None where the general path
    must handle (and judge) the call."""
    plan = _fast_plans.get(key)
    if (plan is None or not data.is_contiguous() or not st.is_contiguous()
            or not tt.is_contiguous() or st.get_device() != plan.device
            or tt.get_device() != plan.device or data.is_neg()
            or st.is_neg() or tt.is_neg()):
        return None
    x_at, st_at, tt_at = data.data_ptr(), st.data_ptr(), tt.data_ptr()
    # Misaligned data (_arrays._check_aligned) goes to the general path.
    if (st_at | tt_at) & 7 or x_at % data.element_size():
        return None
    device = plan.device
    if _lib._thread.__dict__.get("device") != device:
        _lib.select_device(device)
    stream = _arrays.torch_stream(device)
    address = _c_void_p()
    if _array_new(device, 3, plan.shape, plan.type, stream,
                  _byref(address)) != 0:
        return None
    status = _resample_cuda(plan.params, st_at, x_at, tt_at,
                            _c_void_p.from_address(address.value).value,
                            stream)
    if status != 0:
        _free_new(address)
        _lib.check(status, "resample (CUDA)")
    out = _arrays.torch_from_new(address.value)
    return out[0] if plan.single else out


def _remember_fast(key, params, device, B, T, D, dtype, single):
    plan = _FastPlan()
    plan.params = ctypes.pointer(params)
    plan.device = device
    plan.shape = (ctypes.c_int64 * 3)(B, T, D)
    plan.type = _lib.TYPE[dtype]
    plan.single = single
    _keep(_fast_plans, key, plan)


def resample(source_data, source_times, target_times, method="linear", *,
             quaternions=(), angles=(), edge="hold"):
    """Resamples B trajectories onto new times.

    source_data   (B, S, D) float32, float64 or bfloat16
    source_times  (B, S) int64 nanoseconds or float64 seconds, not
                  decreasing along each row
    target_times  (B, T), the same dtype as source_times
    method        "linear", "nearest", "previous" or "cubic"
    quaternions   first channels of unit quaternions (x, y, z, w): slerp
                  on the shortest arc with linear and cubic
    angles        channels holding angles in radians that wrap at +-pi:
                  interpolated the short way round
    edge          outside the source times: "hold" the end values (as
                  numpy.interp does) or "nan"

    Returns (B, T, D) in source_data's dtype.  2-D source_data (S, D) with
    1-D times is one trajectory and gives (T, D).
    """
    what = "resample"
    key = None
    if getattr(source_data, "is_cuda", False):
        key = _fast_key(source_data, source_times, target_times, method,
                        edge, quaternions, angles)
        if key is not None:
            result = _resample_fast(key, source_data, source_times,
                                    target_times)
            if result is not None:
                return result
    with _Call(what) as call:
        data = call.view(source_data, "source_data")
        st = call.view(source_times, "source_times")
        tt = call.view(target_times, "target_times")
        single = len(data.shape) == 2
        if single:
            _check_ndim(what, st, 1, "(S,) with 2-D source_data")
            _check_ndim(what, tt, 1, "(T,) with 2-D source_data")
            (S, D), B, T = data.shape, 1, tt.shape[0]
        else:
            _check_ndim(what, data, 3, "(B, S, D) or (S, D)")
            _check_ndim(what, st, 2, "(B, S)")
            _check_ndim(what, tt, 2, "(B, T)")
            (B, S, D), T = data.shape, tt.shape[1]
        _check_dtype(what, data, _DATA_TYPES)
        _check_dtype(what, st, _TIME_TYPES)
        if tt.dtype != st.dtype:
            raise TypeError("robocache.resample: target_times must have "
                            "source_times' dtype (%s); got %s"
                            % (st.dtype, tt.dtype))
        if st.shape != data.shape[:-1]:
            raise ValueError("robocache.resample: source_times must be %s "
                             "to match source_data %s; got %s"
                             % (data.shape[:-1], data.shape, st.shape))
        if tt.shape[:-1] != st.shape[:-1]:
            raise ValueError("robocache.resample: target_times must have "
                             "%d rows like source_times; got shape %s"
                             % (B, tt.shape))
        if S == 0 or D == 0:
            raise ValueError("robocache.resample: source_data %s needs at "
                             "least one sample and one channel" % (data.shape,))
        for name, value in (("B", B), ("S", S), ("T", T), ("D", D)):
            _fits_u32(what, name, value)

        p = _resample_params(B, S, T, D, data.dtype, method, edge,
                             quaternions, angles)
        call.start()
        src_ns = call.times_ns(st)
        dst_ns = call.times_ns(tt)
        out = call.output((B, T, D), data.dtype)
        if call.device == CUDA:
            _lib.check(k.rc_resample_cuda(
                ctypes.byref(p), src_ns, data.data, dst_ns,
                _arrays.data_pointer(out), call.stream), "resample (CUDA)")
        else:
            _check_sorted(what, st, src_ns, B, S)
            _lib.check(k.rc_resample_cpu(
                ctypes.byref(p), src_ns, data.data, dst_ns,
                _arrays.data_pointer(out)), "resample (CPU)")
        result = _arrays.hand_over(out, call.like)
        if (key is not None and call.like == "torch" and call.device == CUDA
                and st.dtype == "int64"):
            _remember_fast(key, p, call.device_id, B, T, D, data.dtype,
                           single)
    return result[0] if single else result


# More columns than any point layout has (x, y, z and a few fields), in
# fewer rows: a cloud passed as (F, N), which would read as F points.
_MOST_COLUMNS = 64


def _check_cloud(what, pts):
    """Points are (N, F): a row a point, x, y, z first."""
    _check_ndim(what, pts, 2, "(N, F) with x, y, z in the first columns")
    n, f = pts.shape
    if f < 3:
        raise ValueError("robocache.%s: points must have x, y, z in its "
                         "first 3 columns; got shape %s" % (what, pts.shape))
    if f > _MOST_COLUMNS and n < f:
        raise ValueError("robocache.%s: points of shape %s would be %d "
                         "points of %d columns; accepted: (N, F), a row a "
                         "point with x, y, z first (a cloud of shape (F, N) "
                         "wants .T.copy())" % (what, pts.shape, n, f))


def _grid_call(what, call, points, voxel_size, origin, dims, mode,
               features):
    """Checks the points and the grid; returns the C layout and grid."""
    pts = call.view(points, "points")
    _check_cloud(what, pts)
    _check_dtype(what, pts, ("float32",))
    n, f = pts.shape
    _fits_u32(what, "the number of points", n)
    if f * 4 > 0xFFFFFFFF:
        raise ValueError("robocache.%s: points have %d columns; too many"
                         % (what, f))
    who = "robocache." + what
    size = _lib.xyz(who, "voxel_size", voxel_size, float, True)
    corner = _lib.xyz(who, "origin", origin, float, False)
    shape = _lib.xyz(who, "dims", dims, int, True)
    if math.prod(shape) > 0xFFFFFFFF:
        # Before the C grid's 32-bit dims, which would wrap.
        raise ValueError("robocache.%s: dims %s make %d voxels; at most "
                         "2^32 - 1" % (what, tuple(shape), math.prod(shape)))
    layout = _lib.PointLayout(point_step=4 * f)
    layout.x = _lib.Field(0, _lib.TYPE["float32"])
    layout.y = _lib.Field(4, _lib.TYPE["float32"])
    layout.z = _lib.Field(8, _lib.TYPE["float32"])
    columns = _index_list(what, "features", (0, 1, 2) if features is None
                          else features, _lib.MAX_FEATURES, f)
    if not columns and mode in ("mean", "centroids"):
        raise ValueError("robocache.%s: features must name at least one "
                         "column" % what)
    layout.n_features = len(columns)
    for i, c in enumerate(columns):
        layout.features[i] = _lib.Field(4 * c, _lib.TYPE["float32"])
    grid = _lib.VoxelGrid(origin=(ctypes.c_double * 3)(*corner),
                          voxel_size=(ctypes.c_double * 3)(*size),
                          dims=(ctypes.c_uint32 * 3)(*shape),
                          mode=_lib.VOXEL_MODE[mode])
    if k.rc_voxelize_check(ctypes.byref(layout), ctypes.byref(grid)) != 0:
        raise ValueError("robocache.%s: dims %s make %d voxels; at most "
                         "2^32 - 1" % (what, shape, math.prod(shape)))
    return pts, layout, grid


def _voxelize_into(call, pts, layout, grid, out_ptr, stats):
    """Runs the kernel for one cloud; `stats` must be page-locked for
    CUDA."""
    sizes = (ctypes.c_uint64 * 1)(pts.shape[0])
    if call.device == CUDA:
        scratch = call.temp(k.rc_voxelize_cuda_scratch_size(
            ctypes.byref(layout), ctypes.byref(grid), 1, pts.shape[0]))
        # A new block of the pool: nothing in it is a clear scratch.
        _lib.check(k.rc_voxelize_cuda_scratch_reset(scratch, call.stream),
                   "clearing the voxelization scratch")
        _lib.check(k.rc_voxelize_cuda(
            ctypes.byref(layout), ctypes.byref(grid), pts.data, sizes, 1,
            out_ptr, scratch, stats, call.stream), "voxelize (CUDA)")
    else:
        scratch = call.temp(k.rc_voxelize_scratch_size(
            ctypes.byref(layout), ctypes.byref(grid), pts.shape[0]))
        _lib.check(k.rc_voxelize_cpu(
            ctypes.byref(layout), ctypes.byref(grid), pts.data, sizes, 1,
            out_ptr, scratch, stats), "voxelize (CPU)")


class _VoxelizePlan:
    """A torch CUDA voxelize call checked once: what the next call with
    the same columns, dtype, device and options needs.  The number of
    points may change from call to call, as a lidar's sweeps do."""

    __slots__ = ("device", "layout", "grid", "params", "outputs",
                 "max_points")


_voxelize_plans = {}
_PLAIN_TYPES = (int, float, bool, str, type(None))


def _plain_key(value):
    """`value` with its type (and, in a tuple or list, each element's) for a
    cache key: numbers, strings and None, or a tuple or list of them.
    TypeError for anything else (an array, whose values could change
    under the same object)."""
    if type(value) in _PLAIN_TYPES:
        return (type(value), value)
    if type(value) in (tuple, list) and all(type(x) in _PLAIN_TYPES
                                            for x in value):
        return (type(value),) + tuple((type(x), x) for x in value)
    raise TypeError("not a plain value")


def _voxelize_key(points, *options):
    try:
        if points.dim() != 2:
            return None
        return (points.shape[1], points.dtype, points.get_device()) + tuple(
            _plain_key(v) for v in options)
    except (AttributeError, TypeError):
        return None


def _remember_voxelize(key, device, layout, grid, params, outputs,
                       max_points):
    plan = _VoxelizePlan()
    plan.device = device
    plan.layout, plan.grid, plan.params = layout, grid, params
    plan.outputs = [(len(shape), (ctypes.c_int64 * len(shape))(*shape),
                     _lib.TYPE[dtype]) for shape, dtype in outputs]
    plan.max_points = max_points
    _keep(_voxelize_plans, key, plan)


def _voxelize_fast(key, points):
    """The training-loop call on a torch CUDA tensor already seen with these
    options: the per-call checks, then the outputs and the kernel call as
    the general path makes them.  None where the general path must handle
    (and judge) the call."""
    plan = _voxelize_plans.get(key)
    n = points.shape[0]
    if (plan is None or n > plan.max_points or not points.is_contiguous()
            or points.is_neg()
            or points.data_ptr() % points.element_size()):
        return None
    device = plan.device
    if _lib._thread.__dict__.get("device") != device:
        _lib.select_device(device)
    pts = _arrays.View()
    pts.data, pts.shape = points.data_ptr(), (n, points.shape[1])
    addresses = []
    with _Call("voxelize") as call:
        call.device, call.device_id = CUDA, device
        call.stream = _arrays.torch_stream(device)
        try:
            for ndim, shape, dtype in plan.outputs:
                address = _c_void_p()
                if _array_new(device, ndim, shape, dtype, call.stream,
                              _byref(address)) != 0:
                    # The general path says why, or finds the memory.
                    for a in addresses:
                        _free_new(a)
                    return None
                addresses.append(address.value)
            data = [_c_void_p.from_address(a).value for a in addresses]
            if plan.params is None:
                _voxelize_into(call, pts, plan.layout, plan.grid, data[0],
                               None)
            else:
                _sparse_into(call, pts, plan.layout, plan.params,
                             _lib.SparseOutput(*data))
        except BaseException:
            for a in addresses:
                _free_new(a)
            raise
    outs = [_arrays.torch_from_new(a) for a in addresses]
    return outs[0] if plan.params is None else tuple(outs)


_GRID_DTYPE = {"occupancy": "uint8", "count": "uint32", "mean": "float32"}
# What voxelize's mode takes: the dense grids, then the sparse voxels.
_VOXELIZE_MODES = dict.fromkeys(list(_GRID_DTYPE) + ["pillars", "voxels"])


def voxelize(points, voxel_size, origin, dims, mode="count", features=None,
             max_points_per_voxel=32, max_voxels=40000,
             paper_features=False):
    """Bins a point cloud into a dense voxel grid, or (mode "pillars" or
    "voxels") into sparse "hard" voxels for lidar detectors.

    points      (N, F) float32, x, y, z in the first three columns
    voxel_size  metres, one number or (x, y, z)
    origin      the grid's minimum corner (x, y, z), metres
    dims        voxels along (x, y, z)
    mode        "occupancy" (uint8 0/1), "count" (uint32) or "mean"
                (float32: the mean of the `features` columns per voxel, 0
                where empty); "pillars" or "voxels": below
    features    mean mode: the columns averaged (default (0, 1, 2), the
                voxel's centroid)

    Returns the grid as (dims[2], dims[1], dims[0]), x fastest (the
    element's memory layout); mean: (len(features), z, y, x).  Counts are
    int32 for torch (whose uint32 lacks most operations).  Points with
    a NaN or Inf coordinate, or outside the grid, are left out.

    mode "pillars" / "voxels" (docs/media-types.md, sparse voxels): at
    most `max_voxels` voxels (the first reached in input order) of at most
    `max_points_per_voxel` points (each voxel's first, in input order).
    `features` are then the columns carried after x, y, z (default: all
    the others).  Returns four arrays on the points' device:
      features    (max_voxels, max_points_per_voxel, C) float32, zero-padded:
                  pillars: x, y, z, the features, offsets from the voxel's
                  mean (3) and centre (3; 2 with paper_features=True), as
                  OpenPCDet's PillarVFE; voxels: x, y, z, the features
      coords      (max_voxels, 3) int32, (z, y, x)
      num_points  (max_voxels,) int32
      n_voxels    (1,) int32, the voxels used (rows past it are zeros)
    The same bytes on the CPU and on CUDA.
    """
    what = "voxelize"
    key = None
    if getattr(points, "is_cuda", False):
        key = _voxelize_key(points, voxel_size, origin, dims, mode, features,
                            max_points_per_voxel, max_voxels, paper_features)
        if key is not None:
            result = _voxelize_fast(key, points)
            if result is not None:
                return result
    _choice(what, "mode", mode, _VOXELIZE_MODES)
    if mode in ("pillars", "voxels"):
        return _sparse_voxelize(points, voxel_size, origin, dims, mode,
                                features, max_points_per_voxel, max_voxels,
                                paper_features, key)
    with _Call(what) as call:
        pts, layout, grid = _grid_call(what, call, points, voxel_size,
                                       origin, dims, mode, features)
        x, y, z = grid.dims
        shape = ((layout.n_features, z, y, x) if mode == "mean"
                 else (z, y, x))
        dtype = _GRID_DTYPE[mode]
        if mode == "count" and call.like == "torch":
            # torch's uint32 does few operations (and none before 2.3):
            # the same counts as int32, which hold any cloud below 2^31
            # points.
            if pts.shape[0] >= 2**31:
                raise ValueError("robocache.voxelize: count mode on torch "
                                 "tensors takes clouds below 2^31 points; "
                                 "got %d" % pts.shape[0])
            dtype = "int32"
        call.start()
        out = call.output(shape, dtype)
        _voxelize_into(call, pts, layout, grid, _arrays.data_pointer(out),
                       None)
        result = _arrays.hand_over(out, call.like)
        if key is not None and call.like == "torch" and call.device == CUDA:
            _remember_voxelize(key, call.device_id, layout, grid, None,
                               [(shape, dtype)], 2**31 - 1 if
                               mode == "count" else 0xFFFFFFFF)
        return result


def _sparse_voxelize(points, voxel_size, origin, dims, mode, features,
                     max_points, max_voxels, paper_features, key):
    what = "voxelize"
    with _Call(what) as call:
        pts = call.view(points, "points")
        _check_cloud(what, pts)
        if features is None:
            features = tuple(range(3, pts.shape[1]))
        pts, layout, grid = _grid_call(what, call, points, voxel_size,
                                       origin, dims, "count", features)
        for name, v in (("max_points_per_voxel", max_points),
                        ("max_voxels", max_voxels)):
            try:
                if _lib.not_number(v):
                    raise TypeError
                operator.index(v)
            except TypeError:
                raise TypeError("robocache.voxelize: %s must be an integer; "
                                "got %r" % (name, v)) from None
            if v < 1 or v > 2**31 - 1:
                raise ValueError("robocache.voxelize: %s must be in "
                                 "[1, 2^31 - 1]; got %r" % (name, v))
        if type(paper_features).__name__ not in ("bool", "bool_"):
            raise TypeError("robocache.voxelize: paper_features must be True "
                            "or False; got %r" % (paper_features,))
        if paper_features and mode == "voxels":
            raise ValueError("robocache.voxelize: paper_features is for "
                             "mode \"pillars\" (the paper's 9 channels), "
                             "not \"voxels\"")
        params = _lib.SparseParams(grid=grid, mode=_lib.SPARSE_MODE[
            "voxels" if mode == "voxels" else
            "pillars9" if paper_features else "pillars"],
            max_points=max_points, max_voxels=max_voxels)
        if k.rc_sparse_check(ctypes.byref(layout), ctypes.byref(params)):
            raise ValueError("robocache.voxelize: max_voxels x "
                             "max_points_per_voxel x channels is too large, "
                             "or the grid has 2^32 - 1 voxels or more")
        c = k.rc_sparse_channels(ctypes.byref(layout), ctypes.byref(params))
        call.start()
        shapes = [((max_voxels, max_points, c), "float32"),
                  ((max_voxels, 3), "int32"), ((max_voxels,), "int32"),
                  ((1,), "int32")]
        outs = tuple(call.output(shape, dtype) for shape, dtype in shapes)
        _sparse_into(call, pts, layout, params, _lib.SparseOutput(
            *[_arrays.data_pointer(o) for o in outs]))
        result = tuple(_arrays.hand_over(o, call.like) for o in outs)
        if key is not None and call.like == "torch" and call.device == CUDA:
            _remember_voxelize(key, call.device_id, layout, grid, params,
                               shapes, 0xFFFFFFFF)
        return result


def _sparse_into(call, pts, layout, params, arrays):
    """Runs the sparse voxelization of one cloud into `arrays`."""
    if call.device == CUDA:
        size = ctypes.c_uint64()
        _lib.check(k.rc_sparse_cuda_scratch_size(
            ctypes.byref(layout), ctypes.byref(params), pts.shape[0],
            ctypes.byref(size)), "sizing the sparse voxel scratch")
        scratch = call.temp(max(size.value, 1))
        _lib.check(k.rc_sparse_voxelize_cuda(
            ctypes.byref(layout), ctypes.byref(params), pts.data,
            pts.shape[0], ctypes.byref(arrays), scratch, size.value, None,
            call.stream), "sparse voxelize (CUDA)")
    else:
        scratch = call.temp(k.rc_sparse_scratch_size(ctypes.byref(params)))
        _lib.check(k.rc_sparse_voxelize_cpu(
            ctypes.byref(layout), ctypes.byref(params), pts.data,
            pts.shape[0], ctypes.byref(arrays), scratch, None),
            "sparse voxelize (CPU)")


class _PinnedStats:
    """A page-locked rc_voxelize_stats per CUDA device, made once."""

    def __init__(self):
        self.by_device = {}

    def get(self, device_id):
        if device_id not in self.by_device:
            ptr = ctypes.c_void_p()
            _lib.check(k.rc_host_alloc(ctypes.byref(ptr),
                                       ctypes.sizeof(_lib.VoxelizeStats)),
                       "allocating page-locked statistics")
            self.by_device[device_id] = ptr.value
        return self.by_device[device_id]


_pinned_stats = _PinnedStats()


def centroids(points, voxel_size, origin, dims, features=None):
    """The centroid cloud of a voxel grid (PCL's VoxelGrid filter): one row
    per occupied voxel, in voxel index order (x fastest), holding the mean
    of the `features` columns (default x, y, z) over the voxel's points.

    Same arguments as voxelize; returns (M, len(features)) float32.  On
    CUDA this waits for the stream once: M is known only then.
    """
    what = "centroids"
    with _Call(what) as call:
        pts, layout, grid = _grid_call(what, call, points, voxel_size,
                                       origin, dims, "centroids", features)
        call.start()
        cap = min(pts.shape[0], k.rc_voxel_grid_n_voxels(ctypes.byref(grid)))
        out = call.output((cap, layout.n_features), "float32")
        if call.device == CUDA:
            # One page-locked block per device: calls on it are serialised.
            with _lib._cuda_lock:
                stats_ptr = _pinned_stats.get(call.device_id)
                _voxelize_into(call, pts, layout, grid,
                               _arrays.data_pointer(out), stats_ptr)
                _lib.check(k.rc_stream_synchronize(call.stream),
                           "waiting for the centroids")
                occupied = _lib.VoxelizeStats.from_address(
                    stats_ptr).occupied
        else:
            stats = _lib.VoxelizeStats()
            _voxelize_into(call, pts, layout, grid,
                           _arrays.data_pointer(out), ctypes.byref(stats))
            occupied = stats.occupied
        out._managed.contents.dl_tensor.shape[0] = occupied
        return _arrays.hand_over(out, call.like)


class _FusePlan:
    """A torch CUDA fuse call checked once, its times int64: the
    parameters but for the streams' addresses, and the output's shape."""

    __slots__ = ("device", "params", "shape")


_fuse_plans = {}


def _fuse_key(streams, ticks, edge):
    """The call's shapes, dtypes, devices and options for a cache key;
    None where it has none (an entry that is not a tuple or list of two or
    three, an array that is not a torch tensor, an option that is not
    plain)."""
    try:
        key = [ticks.shape, ticks.dtype, ticks.get_device(), _plain_key(edge)]
        for entry in streams:
            if type(entry) not in (tuple, list) or len(entry) not in (2, 3):
                return None
            times, values = entry[0], entry[1]
            key += [times.shape, times.dtype, times.get_device(),
                    values.shape, values.dtype, values.get_device(),
                    _plain_key(entry[2] if len(entry) == 3 else "linear")]
        return tuple(key)
    except (AttributeError, TypeError):
        return None


def _remember_fuse(key, device, params, shape):
    plan = _FusePlan()
    plan.device = device
    plan.params = _lib.FuseParams.from_buffer_copy(params)
    plan.shape = (ctypes.c_int64 * 3)(*shape)
    _keep(_fuse_plans, key, plan)


def _fuse_fast(key, streams, ticks):
    """The training-loop call on torch CUDA tensors already seen with these
    shapes and options: the per-call checks (contiguity, the negative bit)
    and the kernel.  None where the general path must handle (and judge)
    the call."""
    plan = _fuse_plans.get(key)
    if plan is None:
        return None
    arrays = [ticks] + [a for entry in streams for a in entry[:2]]
    if not all(a.is_contiguous() and not a.is_neg()
               and not a.data_ptr() % a.element_size() for a in arrays):
        return None
    device = plan.device
    if _lib._thread.__dict__.get("device") != device:
        _lib.select_device(device)
    stream = _arrays.torch_stream(device)
    # A copy: the plan's serves other threads' calls too.
    p = _lib.FuseParams.from_buffer_copy(plan.params)
    for i, entry in enumerate(streams):
        p.streams[i].times = entry[0].data_ptr()
        p.streams[i].values = entry[1].data_ptr()
    address = _c_void_p()
    if _array_new(device, 3, plan.shape, _lib.TYPE["float32"], stream,
                  _byref(address)) != 0:
        return None
    k.rc_clear_error_detail()
    out = _c_void_p.from_address(address.value).value
    status = k.rc_fuse_cuda(_byref(p), ticks.data_ptr(), out, stream)
    if status != 0:
        _free_new(address)
        _lib.check(status, "fuse (CUDA)")
    return _arrays.torch_from_new(address.value)


def fuse(streams, tick_times, edge="hold"):
    """Aligns recorded streams on common ticks and concatenates them: the
    batch form of robocachefuse (E episodes at once).

    streams     a sequence of (times, values) or (times, values, method):
                times (E, S_i) int64 ns or float64 s, not decreasing along
                each row; values (E, S_i, C_i) float32 or bfloat16; method
                "linear" (default), "nearest" or "previous"
    tick_times  (E, T), the dtype of the streams' times
    edge        before a stream's first / after its last sample: "hold"
                or "nan"

    Returns (E, T, sum C_i) float32: stream 0's channels first.
    """
    what = "fuse"
    try:
        streams = list(streams)
    except TypeError:
        raise TypeError("robocache.fuse: streams must be a sequence of "
                        "(times, values) or (times, values, method); got "
                        "%s" % type(streams).__name__) from None
    key = None
    if getattr(tick_times, "is_cuda", False):
        key = _fuse_key(streams, tick_times, edge)
        if key is not None:
            result = _fuse_fast(key, streams, tick_times)
            if result is not None:
                return result
    if not 1 <= len(streams) <= _lib.MAX_STREAMS:
        raise ValueError("robocache.fuse: streams holds %d streams; "
                         "accepted: 1 .. %d" % (len(streams),
                                                _lib.MAX_STREAMS))
    with _Call(what) as call:
        ticks = call.view(tick_times, "tick_times")
        _check_ndim(what, ticks, 2, "(E, T)")
        _check_dtype(what, ticks, _TIME_TYPES)
        E, T = ticks.shape
        _fits_u32(what, "E", E)
        _fits_u32(what, "T", T)
        p = _lib.FuseParams(episodes=E, n_ticks=T, n_streams=len(streams),
                            edge=_choice(what, "edge", edge, _lib.EDGE))
        parsed = []
        for i, entry in enumerate(streams):
            if not isinstance(entry, (tuple, list)) or len(entry) not in (2,
                                                                         3):
                raise TypeError("robocache.fuse: streams[%d] must be "
                                "(times, values) or (times, values, method)"
                                % i)
            times = call.view(entry[0], "streams[%d] times" % i)
            values = call.view(entry[1], "streams[%d] values" % i)
            method = entry[2] if len(entry) == 3 else "linear"
            _check_ndim(what, times, 2, "(E, S)")
            _check_ndim(what, values, 3, "(E, S, C)")
            _check_dtype(what, times, (ticks.dtype,))
            _check_dtype(what, values, ("float32", "bfloat16"))
            if times.shape != values.shape[:2] or times.shape[0] != E:
                raise ValueError("robocache.fuse: streams[%d] times %s and "
                                 "values %s must be (E=%d, S) and (E, S, C)"
                                 % (i, times.shape, values.shape, E))
            _fits_u32(what, "S", times.shape[1])
            _fits_u32(what, "C", values.shape[2])
            m = _choice(what, "streams[%d] method" % i, method,
                        {x: _lib.METHOD[x] for x in
                         ("linear", "nearest", "previous")})
            parsed.append((times, values, m))
        call.start()
        for i, (times, values, m) in enumerate(parsed):
            times_ns = call.times_ns(times)
            if call.device != CUDA:
                _check_sorted(what, times, times_ns, E, times.shape[1])
            p.streams[i] = _lib.FuseStream(
                n_samples=times.shape[1], channels=values.shape[2],
                type=_lib.TYPE[values.dtype], method=m, times=times_ns,
                values=values.data)
        if k.rc_fuse_check(ctypes.byref(p)) != _lib.OK:
            raise ValueError("robocache.fuse: every stream needs at least "
                             "one sample and one channel")
        out_shape = (E, T, k.rc_fuse_row_channels(ctypes.byref(p)))
        out = call.output(out_shape, "float32")
        ticks_ns = call.times_ns(ticks)
        if call.device == CUDA:
            _lib.check(k.rc_fuse_cuda(ctypes.byref(p), ticks_ns,
                                      _arrays.data_pointer(out),
                                      call.stream), "fuse (CUDA)")
        else:
            _lib.check(k.rc_fuse_cpu(ctypes.byref(p), ticks_ns,
                                     _arrays.data_pointer(out)),
                       "fuse (CPU)")
        result = _arrays.hand_over(out, call.like)
        if (key is not None and call.like == "torch" and call.device == CUDA
                and ticks.dtype == "int64"):
            _remember_fuse(key, call.device_id, p, out_shape)
        return result
