"""Independent NumPy references for robocache's kernels, written from the
documented behaviour (docs/elements.md, kernels/robocache-kernels.h), not
from the C code; shared by the CPU and the CUDA tests."""
import math

import numpy as np


def random_times(rng, rows, n, start_ns=0):
    """Rows of strictly increasing int64 nanoseconds: a 1 kHz clock with
    jitter and occasional drop-outs (gaps of several periods)."""
    gaps = rng.integers(700_000, 1_300_000, size=(rows, n))
    gaps[rng.random((rows, n)) < 0.03] *= 7
    return start_ns + np.cumsum(gaps, axis=1).astype(np.int64)


def with_repeats(rng, times, share=0.2):
    """The rows with about @share of their times made equal to the time
    before (a sensor that resends a reading with the same stamp)."""
    times = times.copy()
    for row in times:
        for i in np.flatnonzero(rng.random(len(row) - 1) < share) + 1:
            row[i] = row[i - 1]
    return times


def last_at_each_time(ts, x):
    """One trajectory's samples with equal times collapsed to the last of
    them: equal times, the later sample wins (docs/python.md)."""
    keep = np.append(ts[1:] != ts[:-1], True)
    return ts[keep], x[keep]


def resample_last_wins(st, x, tt, method):
    """resample_row over each trajectory of (B, S) times st, (B, S, D)
    values x and (B, T) targets tt, its equal times collapsed first."""
    return np.stack([resample_row(*last_at_each_time(st[b], x[b]), tt[b],
                                  method) for b in range(st.shape[0])])


def targets_around(rng, times, n):
    """Targets spread over each row's span and a little beyond it, some
    exactly on source times."""
    lo, hi = times[:, :1], times[:, -1:]
    span = hi - lo
    t = lo - span // 20 + (rng.random((times.shape[0], n)) *
                           (span * 1.1)).astype(np.int64)
    hit = rng.random(t.shape) < 0.1
    cols = rng.integers(0, times.shape[1], size=t.shape)
    t[hit] = np.take_along_axis(times, cols, axis=1)[hit]
    return t


def wrap(a):
    return (a + math.pi) % (2 * math.pi) - math.pi


def _relative(ts, t):
    """Times from the row's first one, in float64: nanoseconds near 1e18
    lose their last bits as float64, their differences do not."""
    if ts.dtype.kind == "i":
        return ((ts - ts[0]).astype(np.float64),
                (t - ts[0]).astype(np.float64))
    return ts, t


def _neighbours(ts, t):
    """Index of the last source time <= t (clamped into range) and the
    next one, with the fraction between them."""
    n = len(ts)
    i1 = np.clip(np.searchsorted(ts, t, side="right") - 1, 0, n - 1)
    i2 = np.minimum(i1 + 1, n - 1)
    span = (ts[i2] - ts[i1]).astype(np.float64)
    w = np.where(span > 0, (t - ts[i1]) / np.where(span > 0, span, 1), 0.0)
    return i1, i2, np.clip(w, 0.0, 1.0)


def resample_row(ts, x, t, method, edge="hold"):
    """One trajectory: ts (S,), x (S, D), t (T,) -> (T, D) float64."""
    x = x.astype(np.float64)
    ts, t = _relative(ts, t)
    if method == "linear":
        out = np.stack([np.interp(t, ts, x[:, d]) for d in
                        range(x.shape[1])], axis=-1)
    else:
        i1, i2, w = _neighbours(ts, t)
        if method == "previous":
            pick = i1
        elif method == "nearest":
            pick = np.where(ts[i2] - t <= t - ts[i1], i2, i1)
        else:
            pick = None
        if pick is not None:
            out = x[pick]
        else:
            out = _cubic(ts, x, t, i1, i2, w)
    before, after = t < ts[0], t > ts[-1]
    out[before] = x[0]
    out[after] = x[-1]
    if edge == "nan":
        out[before | after] = np.nan
    return out


def _cubic(ts, x, t, i1, i2, s):
    """Cubic Hermite, Catmull-Rom tangents (p2 - p0) / (t2 - t0) over
    non-uniform neighbours, one-sided at the ends."""
    n = len(ts)
    i0 = np.maximum(i1 - 1, 0)
    i3 = np.minimum(i2 + 1, n - 1)
    t0, t1, t2, t3 = (ts[i].astype(np.float64) for i in (i0, i1, i2, i3))
    h = t2 - t1
    ok = h > 0
    a1 = np.where(ok, h / np.where(t2 - t0 > 0, t2 - t0, 1), 0)[:, None]
    a2 = np.where(ok, h / np.where(t3 - t1 > 0, t3 - t1, 1), 0)[:, None]
    s = s[:, None]
    h00, h10 = 2 * s**3 - 3 * s**2 + 1, s**3 - 2 * s**2 + s
    h01, h11 = -2 * s**3 + 3 * s**2, s**3 - s**2
    p0, p1, p2, p3 = x[i0], x[i1], x[i2], x[i3]
    return h00 * p1 + h01 * p2 + h10 * a1 * (p2 - p0) + h11 * a2 * (p3 - p1)


def slerp_rows(ts, q, t):
    """Quaternions (S, 4) x, y, z, w: slerp on the shortest arc."""
    ts, t = _relative(ts, t)
    i1, i2, w = _neighbours(ts, t)
    a, b = q[i1].astype(np.float64), q[i2].astype(np.float64)
    a /= np.linalg.norm(a, axis=1, keepdims=True)
    b /= np.linalg.norm(b, axis=1, keepdims=True)
    dot = np.sum(a * b, axis=1)
    b[dot < 0] *= -1
    theta = np.arccos(np.clip(np.abs(dot), -1, 1))[:, None]
    w = w[:, None]
    small = theta < 1e-6
    sin = np.where(small, 1, np.sin(theta))
    wa = np.where(small, 1 - w, np.sin((1 - w) * theta) / sin)
    wb = np.where(small, w, np.sin(w * theta) / sin)
    out = wa * a + wb * b
    out /= np.linalg.norm(out, axis=1, keepdims=True)
    out[t <= ts[0]] = a[t <= ts[0]]
    return out


def angle_rows(ts, a, t):
    """Angles (S,) wrapping at +-pi: linear the short way round."""
    ts, t = _relative(ts, t)
    i1, i2, w = _neighbours(ts, t)
    return wrap(a[i1] + w * wrap(a[i2] - a[i1]))


def voxel_index(points, voxel_size, origin, dims):
    """Flat voxel index (z, y, x order) of each point, -1 outside or for
    non-finite points."""
    rel = (points[:, :3].astype(np.float64) - origin) / voxel_size
    finite = np.all(np.isfinite(rel), axis=1)
    ijk = np.floor(np.where(np.isfinite(rel), rel, -1)).astype(np.int64)
    inside = finite & np.all((ijk >= 0) & (ijk < dims), axis=1)
    flat = (ijk[:, 2] * dims[1] + ijk[:, 1]) * dims[0] + ijk[:, 0]
    return np.where(inside, flat, -1)


def voxelize(points, voxel_size, origin, dims, mode, features=(0, 1, 2)):
    dims = np.asarray(dims)
    idx = voxel_index(points, np.asarray(voxel_size, np.float64),
                      np.asarray(origin, np.float64), dims)
    keep = idx >= 0
    n = int(np.prod(dims))
    count = np.zeros(n, np.int64)
    np.add.at(count, idx[keep], 1)
    shape = tuple(dims[::-1])
    if mode == "count":
        return count.reshape(shape).astype(np.uint32)
    if mode == "occupancy":
        return (count > 0).reshape(shape).astype(np.uint8)
    sums = np.zeros((len(features), n), np.float64)
    for f, col in enumerate(features):
        np.add.at(sums[f], idx[keep], points[keep, col])
    mean = sums / np.maximum(count, 1)
    if mode == "mean":
        return mean.reshape((len(features),) + shape)
    occupied = np.nonzero(count)[0]
    return mean[:, occupied].T
