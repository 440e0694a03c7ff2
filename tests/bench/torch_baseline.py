#!/usr/bin/env python3
"""PyTorch baseline for the robocache kernel benchmarks (bench-kernels).

The same workloads, sizes, floor bytes and timing method as
tests/bench/bench_kernels.c, written the way one would in plain PyTorch:

  resample  torch.searchsorted + gather + lerp, batched over B
            (cubic: the same Catmull-Rom Hermite weights on four gathers;
            bfloat16: computed in float32, stored as bfloat16)
  voxelize  voxel index arithmetic + index_add_ of ones for counts,
            index_put_ of ones for occupancy, index_add_ of the features
            and of ones for means (out-of-grid points go to a spare last
            voxel, so that nothing waits for the host); unique and
            index_add_ for the centroids (PCL's VoxelGrid); unique,
            sorts and scatters for robocachepillars' sparse pillars
  fuse      per stream searchsorted + gather + lerp, then torch.cat

Fresh random inputs on the GPU (never zeros), rotated among enough sets to
span 200 MB (4x the H100 L2), warm-up, then each of N runs (default 200)
timed with a pair of CUDA events; median, p10, p90.  Then, as in
bench-kernels, back to back: CALLS_PER_GRAPH calls captured into one CUDA
graph (torch.cuda.graph) and replayed N times, time per call (not for
calls over B2B_MAX_US).  Each workload's first result is checked against
a NumPy reference before timing.  --json rewrites its file after every
workload, so that a run cut short keeps what it measured.

  python3 torch_baseline.py [--json FILE] [--runs N] [--seed S]
                            [--sweep voxelize|resample|fuse|all]
                            [--points N,..] [--modes MODE,..]

Needs only torch (with CUDA) and numpy.
"""
import argparse
import json
import math
import os
import sys

import numpy as np
import torch

# The NumPy reference of the sparse pillars, shared with the tests.
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "python"))
from sparse_reference import hard_voxelize  # noqa: E402

ROTATE_BYTES = 200 * 2**20
MIN_SETS, MAX_SETS = 2, 128
WARMUP_RUNS = 10
COPY_BYTES = 1 << 30
COPY_RUNS = 30
CALLS_PER_GRAPH = 20
# Calls slower than this are not timed back to back: their launch is under
# 0.5 % of them, and the graph's replays would take minutes (index_put_
# with accumulate takes about 0.1 s for 4 million points).
B2B_MAX_US = 2000

DEV = torch.device("cuda")


def sets_for(set_bytes):
    return min(max(math.ceil(ROTATE_BYTES / set_bytes), MIN_SETS), MAX_SETS)


def time_runs(fn, n_sets, runs):
    """Event pair around each run, host running ahead; stats in us."""
    for i in range(max(WARMUP_RUNS, n_sets)):
        fn(i % n_sets)
    torch.cuda.synchronize()
    starts = [torch.cuda.Event(enable_timing=True) for _ in range(runs)]
    ends = [torch.cuda.Event(enable_timing=True) for _ in range(runs)]
    for i in range(runs):
        starts[i].record()
        fn(i % n_sets)
        ends[i].record()
    torch.cuda.synchronize()
    us = np.array([s.elapsed_time(e) * 1e3 for s, e in zip(starts, ends)])
    return {
        "runs": runs,
        "n_sets": n_sets,
        "median_us": float(np.percentile(us, 50)),
        "p10_us": float(np.percentile(us, 10)),
        "p90_us": float(np.percentile(us, 90)),
        "min_us": float(us.min()),
        "loop_us": starts[0].elapsed_time(ends[-1]) * 1e3 / runs,
    }


def time_back_to_back(fn, n_sets, runs):
    """Per call, CALLS_PER_GRAPH calls in one CUDA graph whose replays
    time_runs times; None with the reason where the workload cannot be
    captured."""
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):
        for i in range(3):
            fn(i % n_sets)
    torch.cuda.current_stream().wait_stream(side)
    graph = torch.cuda.CUDAGraph()
    try:
        with torch.cuda.graph(graph):
            outs = [fn(k % n_sets) for k in range(CALLS_PER_GRAPH)]
    except RuntimeError as e:
        return None, str(e).splitlines()[0]
    replays = time_runs(lambda s: graph.replay(), 1, runs)
    del outs, graph
    return {
        "b2b_calls": CALLS_PER_GRAPH,
        "b2b_median_us": replays["median_us"] / CALLS_PER_GRAPH,
        "b2b_p10_us": replays["p10_us"] / CALLS_PER_GRAPH,
        "b2b_p90_us": replays["p90_us"] / CALLS_PER_GRAPH,
    }, None


class Bench:
    def __init__(self, runs, gen, json_path=None):
        self.runs = runs
        self.gen = gen
        self.json_path = json_path
        self.meta = {}
        self.copy = None
        self.copy_gbps = None
        self.results = []

    def save(self):
        """The JSON so far, rewritten after each workload so that a run cut
        short by a time limit keeps what it measured."""
        if not self.json_path:
            return
        with open(self.json_path + ".part", "w") as f:
            json.dump(dict(self.meta, copy_gbps=self.copy_gbps, copy=self.copy,
                           workloads=self.results), f, indent=2)
        os.replace(self.json_path + ".part", self.json_path)

    def uniform(self, shape, lo, hi, dtype=torch.float64):
        t = torch.rand(shape, generator=self.gen, device=DEV, dtype=dtype)
        return lo + (hi - lo) * t

    def measure_copy(self):
        src = torch.full((COPY_BYTES,), 0xA5, dtype=torch.uint8, device=DEV)
        dst = torch.empty_like(src)
        r = time_runs(lambda s: dst.copy_(src), 1, COPY_RUNS)
        r.update(name="copy-d2d-1GiB", kind="copy",
                 detail="Tensor.copy_ device to device, 1 GiB",
                 floor_bytes=2 * COPY_BYTES, set_bytes=2 * COPY_BYTES)
        r["gbps"] = r["floor_bytes"] / (r["median_us"] * 1e-6) / 1e9
        r["floor_us"] = r["median_us"]
        r["ratio"] = 1.0
        self.copy = r
        self.copy_gbps = r["gbps"]
        del src, dst
        torch.cuda.empty_cache()

    def add(self, name, kind, detail, floor_bytes, fn, n_sets):
        r = time_runs(fn, n_sets, self.runs)
        r.update(name=name, kind=kind, detail=detail,
                 floor_bytes=float(floor_bytes), set_bytes=float(floor_bytes))
        r["gbps"] = floor_bytes / (r["median_us"] * 1e-6) / 1e9
        r["floor_us"] = floor_bytes / (self.copy_gbps * 1e9) * 1e6
        r["ratio"] = r["median_us"] / r["floor_us"]
        print("%-44s %9.1f  (%8.1f-%8.1f) %9.2f %8.0f %9.1f %6.2f" % (
            name, r["median_us"], r["p10_us"], r["p90_us"], floor_bytes / 1e6,
            r["gbps"], r["floor_us"], r["ratio"]), flush=True)
        if r["median_us"] > B2B_MAX_US:
            b2b, why = None, "one call takes %.0f us, over %d" % (
                r["median_us"], B2B_MAX_US)
        else:
            b2b, why = time_back_to_back(fn, n_sets, self.runs)
        if b2b:
            r.update(b2b)
            r["b2b_ratio"] = r["b2b_median_us"] / r["floor_us"]
            print("%-44s %9.1f  (%8.1f-%8.1f) %9s %8.0f %9s %6.2f" % (
                "  ... per call, back to back", r["b2b_median_us"],
                r["b2b_p10_us"], r["b2b_p90_us"], "",
                floor_bytes / (r["b2b_median_us"] * 1e3), "",
                r["b2b_ratio"]), flush=True)
        else:
            r["b2b_error"] = why
            print("  ... back to back: not timed (%s)" % why, flush=True)
        self.results.append(r)
        self.save()
        torch.cuda.empty_cache()


def die(msg):
    sys.stdout.flush()
    sys.exit("torch_baseline: " + msg)


# --------------------------------------------------------------------------
# Resampling

def locate(st, tt):
    """Bracketing indices (i1, i2) with st[i1] <= t < st[i2] inside."""
    S = st.shape[-1]
    i2 = torch.searchsorted(st, tt, right=True).clamp_(1, S - 1)
    return i2 - 1, i2


def gather_rows(sv, idx):
    return sv.gather(1, idx.unsqueeze(-1).expand(-1, -1, sv.shape[-1]))


def resample_linear(st, sv, tt):
    i1, i2 = locate(st, tt)
    t1, t2 = st.gather(1, i1), st.gather(1, i2)
    w = ((tt - t1).float() / (t2 - t1).clamp_min(1).float()).clamp_(0, 1)
    g1, g2 = gather_rows(sv, i1), gather_rows(sv, i2)
    if sv.dtype == torch.float32:
        return torch.lerp(g1, g2, w.unsqueeze(-1))
    return torch.lerp(g1.float(), g2.float(), w.unsqueeze(-1)).to(sv.dtype)


def resample_cubic(st, sv, tt):
    """Cubic Hermite, tangents (p2 - p0) / (t2 - t0) and (p3 - p1) /
    (t3 - t1); a missing outer neighbour repeats the inner one."""
    S = st.shape[-1]
    i1, i2 = locate(st, tt)
    i0, i3 = (i1 - 1).clamp_(min=0), (i2 + 1).clamp_(max=S - 1)
    t0, t1 = st.gather(1, i0), st.gather(1, i1)
    t2, t3 = st.gather(1, i2), st.gather(1, i3)
    h = (t2 - t1).float()
    s = ((tt - t1).float() / h).clamp_(0, 1)
    a1 = h / (t2 - t0).float()
    a2 = h / (t3 - t1).float()
    s2, s3 = s * s, s * s * s
    h00 = 2 * s3 - 3 * s2 + 1
    h10 = s3 - 2 * s2 + s
    h01 = -2 * s3 + 3 * s2
    h11 = s3 - s2
    c = [-h10 * a1, h00 - h11 * a2, h01 + h10 * a1, h11 * a2]
    out = None
    for k, idx in enumerate((i0, i1, i2, i3)):
        term = c[k].unsqueeze(-1) * gather_rows(sv, idx).float()
        out = term if out is None else out + term
    return out.to(sv.dtype)


def make_resample_set(b, B, S, T, D, dtype):
    """1 kHz-ish strictly increasing sources (+-40% jitter); sorted targets
    over the span, 2% beyond each end; values in [-10, 10)."""
    period = 1e6
    steps = b.uniform((B, S), 0.6, 1.4) * period
    steps[:, 0] = b.uniform((B,), 0, 1e9)
    st = torch.cumsum(steps.floor(), 1).to(torch.int64)
    span = (st[:, -1] - st[:, 0]).double().unsqueeze(1)
    lo = st[:, :1].double() - 0.02 * span
    k = torch.arange(T, device=DEV, dtype=torch.float64).unsqueeze(0)
    tt = (lo + (k + b.uniform((B, T), 0, 1)) * 1.04 * span / T).to(
        torch.int64)
    sv = b.uniform((B, S, D), -10, 10, torch.float32).to(dtype)
    return st, sv, tt


def close(got, want, bf16):
    """float32 ~1e-5, bfloat16 one unit in the last place."""
    got, want = np.asarray(got, np.float64), np.asarray(want, np.float64)
    mag = np.maximum(np.abs(got), np.abs(want))
    if bf16:
        tol = mag / 128 + 1e-6
    else:
        tol = 1e-5 * np.maximum(1, mag)
    return np.abs(got - want) <= tol


def check_linear(name, st, sv, tt, out, rows=4):
    """np.interp (which holds the end values too) on a few rows."""
    bf16 = out.dtype == torch.bfloat16
    st, tt = st.cpu().numpy(), tt.cpu().numpy()
    sv = sv.float().cpu().numpy()
    out = out.float().cpu().numpy()
    for r in range(min(rows, st.shape[0])):
        x0 = st[r, 0]
        xs, xt = (st[r] - x0).astype(np.float64), (tt[r] - x0).astype(
            np.float64)
        for c in range(sv.shape[2]):
            want = np.interp(xt, xs, sv[r, :, c])
            ok = close(out[r, :, c], want, bf16)
            if not ok.all():
                i = int(np.argmin(ok))
                die("%s: row %d channel %d target %d: torch %.9g, numpy %.9g"
                    % (name, r, c, i, out[r, i, c], want[i]))


def bench_resample(b, B, S, T, D, dtype, method):
    tname = {torch.float32: "f32", torch.bfloat16: "bf16"}[dtype]
    name = "resample-%s-%s-B%d-S%d-T%d-D%d" % (tname, method, B, S, T, D)
    esize = torch.tensor([], dtype=dtype).element_size()
    floor = B * S * 8 + B * S * D * esize + B * T * 8 + B * T * D * esize
    fn = resample_linear if method == "linear" else resample_cubic
    n_sets = sets_for(floor)
    sets = [make_resample_set(b, B, S, T, D, dtype) for _ in range(n_sets)]

    out = fn(*sets[0])
    if not torch.isfinite(out.float()).all():
        die(name + ": non-finite output")
    if method == "linear":
        check_linear(name, *sets[0], out)
    else:
        # Hermite with these tangents reproduces a straight line exactly.
        st, _, tt = sets[0]
        x = (st - st[:, :1]).double() * 1e-9
        line = (3 * x - 2).unsqueeze(-1).expand(-1, -1, D).float().to(dtype)
        got = fn(st, line, tt).float().cpu().numpy()
        xt = ((tt - st[:, :1]).double() * 1e-9).clamp(
            min=0).cpu().numpy()
        xt = np.minimum(xt, x[:, -1:].cpu().numpy())
        want = np.broadcast_to((3 * xt - 2)[:, :, None], got.shape)
        bad = ~close(got, want, dtype == torch.bfloat16)
        if bad.any():
            die("%s: %d of %d elements off a straight line" % (
                name, int(bad.sum()), bad.size))
    del out
    b.add(name, "resample", "B=%d S=%d T=%d D=%d %s %s, edge hold" % (
        B, S, T, D, str(dtype).replace("torch.", ""), method), floor,
        lambda s: fn(*sets[s]), n_sets)


# --------------------------------------------------------------------------
# Voxelization

# (origin, voxel size, dims): bench-kernels' 51.2 m cube in 0.2 m voxels
# and the KITTI region in 0.2 m voxels (PCL's leaf on a car's sweep).
CUBE = ((-25.6, -25.6, -25.6), (0.2, 0.2, 0.2), (256, 256, 256))
KITTI_LEAF = ((0, -39.6, -3), (0.2, 0.2, 0.2), (346, 396, 20))
BEV_KITTI = ((0, -39.68, -3), (0.16, 0.16, 4), (432, 496, 1))

# The columns each mean averages, by feature count, as bench-kernels'
# layouts: intensity; x, y, z; x, y, z, intensity.
MEAN_COLUMNS = {1: slice(3, 4), 3: slice(0, 3), 4: slice(0, 4)}


def voxel_index(pts, origin, vsize, dims_t, dims):
    """Linear voxel index per point, n_voxels for points outside (@dims
    as a device tensor and as Python ints: nothing waits for the host)."""
    ijk = torch.floor((pts[:, :3] - origin) / vsize).to(torch.int64)
    inside = ((ijk >= 0) & (ijk < dims_t)).all(1)
    lin = (ijk[:, 2] * dims[1] + ijk[:, 1]) * dims[0] + ijk[:, 0]
    n_vox = dims[0] * dims[1] * dims[2]
    return torch.where(inside, lin, torch.full_like(lin, n_vox)), n_vox


def voxelize_count(pts, origin, vsize, dims_t, dims, columns):
    """index_add_ of ones: an atomic a point, as bincount's, without its
    wait for the host (index_put_ with accumulate sorts the indices
    first: 9 to 95 times slower, docs/bench/run181/count_idioms.txt)."""
    lin, n_vox = voxel_index(pts, origin, vsize, dims_t, dims)
    grid = torch.zeros(n_vox + 1, dtype=torch.int32, device=DEV)
    grid.index_add_(0, lin, torch.ones_like(lin, dtype=torch.int32))
    return grid[:n_vox]


def voxelize_occupancy(pts, origin, vsize, dims_t, dims, columns):
    lin, n_vox = voxel_index(pts, origin, vsize, dims_t, dims)
    grid = torch.zeros(n_vox + 1, dtype=torch.uint8, device=DEV)
    grid.index_put_((lin,), torch.ones_like(lin, dtype=torch.uint8))
    return grid[:n_vox]


def voxelize_mean(pts, origin, vsize, dims_t, dims, columns):
    """The dense grid of means, 0 where empty, one plane per feature as
    robocache writes it: index_add_ of the features and of ones, divided."""
    lin, n_vox = voxel_index(pts, origin, vsize, dims_t, dims)
    feats = pts[:, columns]
    sums = torch.zeros(n_vox + 1, feats.shape[1], device=DEV)
    sums.index_add_(0, lin, feats)
    counts = torch.zeros(n_vox + 1, device=DEV)
    counts.index_add_(0, lin, torch.ones_like(lin, dtype=torch.float32))
    means = sums[:n_vox] / counts[:n_vox].clamp(min=1).unsqueeze(1)
    return means.t().contiguous()


def voxelize_centroids(pts, origin, vsize, dims_t, dims, columns):
    """PCL's VoxelGrid as a PyTorch user writes it: the occupied voxels
    in index order (unique), the mean of the @columns (x, y, z and
    intensity, or x, y, z) in each (index_add_ over the inverse).  unique
    waits for the host."""
    lin, n_vox = voxel_index(pts, origin, vsize, dims_t, dims)
    occupied, inverse, counts = torch.unique(
        lin, sorted=True, return_inverse=True, return_counts=True)
    feats = pts[:, columns]
    sums = torch.zeros(occupied.numel(), feats.shape[1], device=DEV)
    sums.index_add_(0, inverse, feats)
    means = sums / counts.unsqueeze(1)
    return means[occupied < n_vox]


# robocachepillars' default: K points in each of at most M pillars.
PILLAR_POINTS, PILLAR_SLOTS = 32, 40000


def voxelize_pillars(pts, origin, vsize, dims_t, dims, columns,
                     K=PILLAR_POINTS, M=PILLAR_SLOTS):
    """robocachepillars' hard voxelization with PillarVFE's 10 channels
    (docs/media-types.md) in PyTorch ops: the pillars in the order their
    first point reaches them, each pillar's first K points; features,
    coords (z, y, x), num_points, n_voxels.  unique and the pillar count
    wait for the host."""
    lo = torch.as_tensor(origin, dtype=torch.float64, device=DEV)
    size = torch.as_tensor(vsize, dtype=torch.float64, device=DEV)
    f = (pts[:, :3].double() - lo) / size
    inside = torch.isfinite(f).all(1) & (f >= 0).all(1) & (f < dims_t).all(1)
    idx = torch.nonzero(inside).squeeze(1)
    ijk = f[idx].long()
    cell = (ijk[:, 2] * dims[1] + ijk[:, 1]) * dims[0] + ijk[:, 0]
    uniq, inverse = torch.unique(cell, return_inverse=True)
    first = torch.full((len(uniq),), len(cell), device=DEV, dtype=torch.long)
    first.scatter_reduce_(0, inverse, torch.arange(len(cell), device=DEV),
                          "amin")
    rank = torch.empty_like(first)
    rank[torch.sort(first, stable=True).indices] = torch.arange(
        len(first), device=DEV)
    slot = rank[inverse]
    order = torch.sort(slot, stable=True).indices
    ss = slot[order]
    within = torch.empty_like(slot)
    within[order] = torch.arange(len(slot), device=DEV) - torch.searchsorted(
        ss, ss)
    keep = (slot < M) & (within < K)
    out = torch.zeros((M, K, 10), dtype=torch.float32, device=DEV)
    out[slot[keep], within[keep], :4] = pts[idx[keep]]
    used = min(len(uniq), M)
    num = torch.zeros(M, dtype=torch.int32, device=DEV)
    num[:used] = torch.bincount(slot[keep], minlength=used)[:used].int()
    coords = torch.zeros((M, 3), dtype=torch.int32, device=DEV)
    coords[rank[rank < M]] = ijk[first[rank < M]].flip(1).int()
    v = out[:used]
    total = torch.zeros((used, 3), dtype=torch.float32, device=DEV)
    for k in range(K):
        total += v[:, k, :3]
    mean = total / num[:used, None].float()
    centre = (lo + (coords[:used].flip(1).double() + 0.5) * size).float()
    live = (torch.arange(K, device=DEV)[None, :] < num[:used, None])[..., None]
    v[:, :, 4:7] = torch.where(live, v[:, :, :3] - mean[:, None], 0.0)
    v[:, :, 7:10] = torch.where(live, v[:, :, :3] - centre[:, None], 0.0)
    return out, coords, num, torch.tensor([used], device=DEV)


VOXELIZE = {"occupancy": voxelize_occupancy, "count": voxelize_count,
            "mean": voxelize_mean, "centroids": voxelize_centroids,
            "pillars": voxelize_pillars}


def lidar_point(ring, az, r, noise, b):
    """bench-kernels' 64-ring lidar 1.73 m above flat ground: rings from
    -24.8 to 2 degrees, the downward ones stopped by the ground (its range
    noisy by @noise)."""
    el = (-24.8 + 26.8 * ring.double() / 63) * math.pi / 180
    ground = 1.73 / torch.tan(-el) * b.uniform(r.shape, 1 - noise, 1 + noise)
    r = torch.where(el < 0, torch.minimum(r, ground), r)
    return torch.stack((r * torch.cos(el) * torch.cos(az),
                        r * torch.cos(el) * torch.sin(az),
                        r * torch.sin(el)), 1)


def make_cloud(b, n, grid, shape):
    """x, y, z, intensity float32 (stride 16), bench-kernels' clouds:
    uniform over the grid and 5% beyond each face; a lidar sweep in no
    order ("lidar"); a scan of the ground and a wall 15 to 35 m away ring
    by ring ("rows") or column by column ("columns")."""
    origin, vsize, dims = grid
    if shape == "uniform":
        span = torch.tensor(dims, dtype=torch.float64, device=DEV) * \
            torch.tensor(vsize, dtype=torch.float64, device=DEV)
        xyz = torch.tensor(origin, dtype=torch.float64, device=DEV) + \
            span * b.uniform((n, 3), -0.05, 1.05)
    elif shape == "lidar":
        az = b.uniform((n,), 0, 2 * math.pi)
        ring = torch.randint(0, 64, (n,), generator=b.gen, device=DEV)
        u = b.uniform((n,), 0, 1)
        xyz = lidar_point(ring, az, 2 + 78 * u * u, 0.02, b)
    else:
        i = torch.arange(n, device=DEV)
        columns = (n + 63) // 64
        ring, column = (i // columns, i % columns) if shape == "rows" else \
            (i % 64, i // 64)
        az = 2 * math.pi * (column + b.uniform((n,), 0, 0.1)) / columns
        xyz = lidar_point(ring, az, 25 + 10 * torch.sin(3 * az + ring), 0.01,
                          b)
    return torch.cat((xyz, b.uniform((n, 1), 0, 1)), 1).float().contiguous()


def numpy_voxelize(p, grid, mode, columns):
    """The expected output of @mode on the NumPy cloud @p, binned in the
    same float32 arithmetic."""
    origin, vsize, dims = grid
    n_vox = dims[0] * dims[1] * dims[2]
    ijk = np.floor((p[:, :3] - np.array(origin, np.float32)) /
                   np.array(vsize, np.float32)).astype(np.int64)
    ok = ((ijk >= 0) & (ijk < np.array(dims))).all(1)
    lin = (ijk[ok, 2] * dims[1] + ijk[ok, 1]) * dims[0] + ijk[ok, 0]
    if ok.sum() < p.shape[0] // 10:
        die("only %d of %d points in the grid" % (ok.sum(), p.shape[0]))
    if mode == "centroids":
        occupied, lin = np.unique(lin, return_inverse=True)
        n_vox = occupied.size
    counts = np.bincount(lin, minlength=n_vox)
    if mode == "count":
        return counts
    if mode == "occupancy":
        return (counts > 0).astype(np.uint8)
    feats = p[ok][:, columns].astype(np.float64)
    sums = np.stack([np.bincount(lin, feats[:, f], n_vox)
                     for f in range(feats.shape[1])])
    means = sums / np.maximum(counts, 1)
    return means.T if mode == "centroids" else means


def bench_voxelize(b, name, n, grid, mode, shape, n_features=1):
    origin, vsize, dims = grid
    # The pillars bin in double, as robocache's do.
    real = torch.float64 if mode == "pillars" else torch.float32
    o = torch.tensor(origin, dtype=real, device=DEV)
    v = torch.tensor(vsize, dtype=real, device=DEV)
    d = torch.tensor(dims, dtype=torch.int64, device=DEV)
    fn, columns = VOXELIZE[mode], MEAN_COLUMNS[n_features]
    sets = [make_cloud(b, n, grid, shape)]

    if mode == "pillars":
        want = hard_voxelize(sets[0].cpu().numpy(), vsize, origin, dims,
                             PILLAR_POINTS, PILLAR_SLOTS)[:4]
        got = [x.cpu().numpy() for x in fn(sets[0], o, v, d, dims, columns)]
        ok = all(np.array_equal(g, w) for g, w in zip(got[1:], want[1:])) \
            and np.allclose(got[0], want[0], rtol=1e-6, atol=1e-6)
    else:
        want = numpy_voxelize(sets[0].cpu().numpy(), grid, mode, columns)
        got = fn(sets[0], o, v, d, dims, columns).cpu().numpy()
        if mode in ("count", "occupancy"):
            ok = np.array_equal(got.astype(np.int64), want.astype(np.int64))
        else:
            ok = got.shape == want.shape and np.allclose(
                got, want, rtol=1e-4, atol=1e-4)
    if not ok:
        die("%s: the %s differ from NumPy" % (name, mode))
    # What robocache writes: the grid (occupancy in whole words), the
    # means' planes, the centroids of the occupied voxels only, every
    # pillar slot (features, coords and point count) and the slots used.
    n_vox = dims[0] * dims[1] * dims[2]
    out_bytes = {"occupancy": lambda: (n_vox + 3) // 4 * 4,
                 "count": lambda: 4 * n_vox,
                 "mean": lambda: 4 * n_vox * n_features,
                 "centroids": lambda: 4 * want.size,
                 "pillars": lambda: sum(x.nbytes for x in want)}[mode]()
    floor = n * 16 + out_bytes
    n_sets = sets_for(floor)
    sets += [make_cloud(b, n, grid, shape) for _ in range(n_sets - 1)]
    b.add(name, "voxelize", "%d points stride 16 (%s) into %dx%dx%d %s%s" % (
        n, shape, *dims, mode, " of %d features" % n_features
        if mode in ("mean", "centroids") else ", K=%d M=%d, 10 channels" % (
            PILLAR_POINTS, PILLAR_SLOTS) if mode == "pillars" else ""), floor,
        lambda s: fn(sets[s], o, v, d, dims, columns), n_sets)


# --------------------------------------------------------------------------
# Batched fusion

FUSE_STREAMS = ((30, 512), (100, 14), (333, 6))


def fuse(ticks, streams):
    return torch.cat([resample_linear(t, v, ticks) for t, v in streams], -1)


def fuse_kinds(n_streams):
    """The quoted workload's three streams, taken in turn."""
    return [FUSE_STREAMS[k % len(FUSE_STREAMS)] for k in range(n_streams)]


def make_fuse_set(b, E, T, seconds, kinds):
    starts = b.uniform((E, 1), 0, 1e12).floor()
    k = torch.arange(T, device=DEV, dtype=torch.float64).unsqueeze(0)
    ticks = (starts + (k * seconds * 1e9 / T).floor()).to(torch.int64)
    streams = []
    for rate, channels in kinds:
        n = int(rate * seconds)
        period = 1e9 / rate
        first = starts - period * b.uniform((E, 1), 0, 1)
        i = torch.arange(n, device=DEV, dtype=torch.float64).unsqueeze(0)
        times = (first + period * (i + b.uniform((E, n), -0.1, 0.1))).to(
            torch.int64)
        values = b.uniform((E, n, channels), -10, 10, torch.float32)
        streams.append((times, values))
    return ticks, streams


def bench_fuse(b, E, T, seconds, n_streams=len(FUSE_STREAMS), name=None):
    kinds = fuse_kinds(n_streams)
    name = name or "fuse-f32-linear-E%d-T%d-%dstreams" % (E, T, n_streams)
    row = sum(c for _, c in kinds)
    floor = E * T * 8 + E * T * row * 4 + sum(
        E * int(r * seconds) * (8 + 4 * c) for r, c in kinds)
    n_sets = sets_for(floor)
    sets = [make_fuse_set(b, E, T, seconds, kinds) for _ in range(n_sets)]

    ticks, streams = sets[0]
    out = fuse(ticks, streams)
    col = 0
    for times, values in streams:
        c = values.shape[2]
        check_linear(name, times, values, ticks, out[:, :, col:col + c], 2)
        col += c
    del out
    b.add(name, "fuse", "E=%d T=%d over %g s; %d streams of 30 Hz x 512, "
          "100 Hz x 14, 333 Hz x 6 in turn; float32 linear, edge hold"
          % (E, T, seconds, n_streams), floor, lambda s: fuse(*sets[s]),
          n_sets)


# --------------------------------------------------------------------------

SWEEP_POINTS = [16384 << k for k in range(9)]      # to 4,194,304
SWEEP_MODES = ["count", "occupancy", "mean", "centroids", "pillars"]


def sweep(b, what, points=SWEEP_POINTS, modes=SWEEP_MODES):
    """The sizes of bench-kernels --sweep, under its names
    (plot_sweep.py matches them); @points and @modes as its --points and
    --modes."""
    f32, bf16 = torch.float32, torch.bfloat16
    if what in ("voxelize", "all"):
        for mode in modes:
            if mode == "pillars":
                for n in points:
                    bench_voxelize(b, "sweep-voxelize-pillars-bev432x496-n%d"
                                   % n, n, BEV_KITTI, "pillars", "lidar")
                continue
            centroids = mode == "centroids"
            features = 4 if centroids else 1
            for n in points:
                bench_voxelize(b, "sweep-voxelize-%s-%s-n%d" % (
                    mode, "kitti0.2" if centroids else "256cube", n), n,
                    KITTI_LEAF if centroids else CUBE, mode,
                    "lidar" if centroids else "uniform", features)
            # The centroids of x, y and z alone, robocachevoxelize's
            # default features.
            for n in points if centroids else ():
                bench_voxelize(b, "sweep-voxelize-centroids-xyz-kitti0.2-n%d"
                               % n, n, KITTI_LEAF, mode, "lidar", 3)
            for n in points if mode in ("occupancy", "count") else ():
                bench_voxelize(b, "sweep-voxelize-%s-256cube-lidar-n%d" % (
                    mode, n), n, CUBE, mode, "lidar")
            # In no order (the centroids' points series above), ring by
            # ring, column by column.
            for order in ("shuffled", "rows", "columns")[centroids:]:
                for n in points:
                    bench_voxelize(b, "sweep-voxelize-%s-kitti0.2-%s-n%d" % (
                        mode, order, n), n, KITTI_LEAF, mode,
                        "lidar" if order == "shuffled" else order, features)
            for f in (3, 4) if mode == "mean" else ():
                for n in points:
                    bench_voxelize(b, "sweep-voxelize-mean-%s-256cube-n%d" % (
                        "xyz" if f == 3 else "xyzi", n), n, CUBE, "mean",
                        "uniform", f)
        for side in (64, 128, 512):
            bench_voxelize(b, "sweep-voxelize-count-%dcube-n131072" % side,
                           131072, (CUBE[0], (51.2 / side,) * 3, (side,) * 3),
                           "count", "uniform")
        bench_voxelize(b, "sweep-voxelize-count-bev432x496-n131072", 131072,
                       BEV_KITTI, "count", "lidar")
    if what in ("fuse", "all"):
        for n in (1, 2, 4, 8, 16):
            bench_fuse(b, 64, 500, 10.0, n, "sweep-fuse-f32-E64-T500-S%d" % n)
        for T in (100, 1000, 10000):
            bench_fuse(b, 64, T, 10.0, 3, "sweep-fuse-f32-E64-T%d-S3" % T)
    if what in ("resample", "all"):
        for B in (1, 4, 16, 64, 256, 1024):
            bench_resample(b, B, 4096, 1024, 32, f32, "linear")
        for n in (256, 1024, 4096, 16384, 65536):
            bench_resample(b, 64, n, n, 32, f32, "linear")
        for D in (1, 2, 4, 8, 16, 64, 128):      # 32: in the batch sweep
            bench_resample(b, 64, 4096, 1024, D, f32, "linear")
        for B in (1, 4, 16, 64, 256, 1024):
            bench_resample(b, B, 4096, 1024, 32, bf16, "linear")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--json", metavar="FILE")
    ap.add_argument("--runs", type=int, default=200)
    ap.add_argument("--seed", type=int, default=None)
    ap.add_argument("--sweep", choices=("voxelize", "resample", "fuse", "all"),
                    help="the sizes of bench-kernels --sweep instead")
    ap.add_argument("--points", metavar="N,..", help="the voxelize sweep's "
                    "point counts (as bench-kernels --points)")
    ap.add_argument("--modes", metavar="MODE,..", help="the voxelize "
                    "sweep's modes, of " + ",".join(SWEEP_MODES))
    args = ap.parse_args()
    if args.runs < 1:
        ap.error("--runs must be >= 1")
    try:
        points = [int(n) for n in args.points.split(",")] if args.points \
            else SWEEP_POINTS
    except ValueError:
        points = []
    if not points or min(points) < 1 or max(points) > 1 << 26:
        ap.error("--points takes counts from 1 to %d, comma-separated"
                 % (1 << 26))
    modes = args.modes.split(",") if args.modes else SWEEP_MODES
    if not set(modes) <= set(SWEEP_MODES):
        ap.error("--modes takes " + ",".join(SWEEP_MODES))
    if not torch.cuda.is_available():
        die("no CUDA device for torch")
    seed = args.seed if args.seed is not None else \
        int(np.random.SeedSequence().entropy % 2**63)
    gen = torch.Generator(device=DEV)
    gen.manual_seed(seed)
    b = Bench(args.runs, gen, args.json)

    device = torch.cuda.get_device_name()
    b.meta = {"impl": "torch", "device": device,
              "torch_version": torch.__version__, "runs": args.runs,
              "seed": seed, "sweep": args.sweep}
    b.measure_copy()
    print("device: %s (torch %s)\nseed: %d (--seed replays it), runs: %d\n"
          "copy bandwidth (device to device, 1 GiB, read + write): %.0f GB/s"
          " (median of %d; p10 %.0f us, p90 %.0f us)\n" % (
              device, torch.__version__, seed, args.runs, b.copy_gbps,
              b.copy["runs"], b.copy["p10_us"], b.copy["p90_us"]))
    print("%-44s %9s  (%8s-%8s) %9s %8s %9s %6s" % (
        "workload", "median us", "p10", "p90", "floor MB", "GB/s",
        "floor us", "ratio"), flush=True)

    if args.sweep:
        sweep(b, args.sweep, points, modes)
    else:
        quoted(b)

    print("\nfloor: bytes moved (each input read once, each output written "
          "once) over the copy bandwidth; ratio = median / floor")
    if args.json:
        b.save()
        print("wrote " + args.json)


def quoted(b):
    """The workloads the project quotes (docs/performance.md)."""
    f32, bf16 = torch.float32, torch.bfloat16
    bench_resample(b, 64, 4096, 1024, 32, f32, "linear")
    bench_resample(b, 8, 1024, 4096, 7, f32, "linear")
    bench_resample(b, 256, 512, 512, 64, f32, "linear")
    bench_resample(b, 64, 4096, 1024, 32, f32, "cubic")
    bench_resample(b, 64, 4096, 1024, 32, bf16, "linear")

    bench_voxelize(b, "voxelize-count-256cube-n131072", 131072, CUBE,
                   "count", "uniform")
    bench_voxelize(b, "voxelize-occupancy-256cube-n131072", 131072, CUBE,
                   "occupancy", "uniform")
    bench_voxelize(b, "voxelize-count-bev432x496-n120000", 120000, BEV_KITTI,
                   "count", "lidar")

    bench_fuse(b, 64, 500, 10.0)
    # Last: unique waits for the host, so its graph capture fails.
    bench_voxelize(b, "voxelize-centroids-kitti0.2-n131072", 131072,
                   KITTI_LEAF, "centroids", "lidar", 4)

if __name__ == "__main__":
    main()
