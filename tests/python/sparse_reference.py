"""Hard voxelization (sparse voxels and pillars) in NumPy, written from the
definition in docs/media-types.md: the reference of tests/python/test_sparse.py
and the NumPy side of tests/bench/pillars_cpu.py."""
import numpy as np


def hard_voxelize(points, voxel_size, origin, dims, max_points=32,
                  max_voxels=40000, mode="pillars", features=None,
                  paper_features=False):
    """Returns (features, coords, num_points, n_voxels) as robocache does."""
    points = np.asarray(points, dtype=np.float32)
    size = np.broadcast_to(np.asarray(voxel_size, np.float64), (3,))
    corner = np.asarray(origin, np.float64)
    dims = np.asarray(dims, np.int64)
    cols = list(range(3, points.shape[1])) if features is None \
        else list(features)
    raw = 3 + len(cols)
    extra = 0 if mode == "voxels" else (5 if paper_features else 6)
    c = raw + extra

    xyz = points[:, :3].astype(np.float64)
    with np.errstate(invalid="ignore"):
        f = (xyz - corner) / size
        inside = np.isfinite(xyz).all(1) & (f >= 0).all(1) & (f < dims).all(1)
    idx = np.flatnonzero(inside)
    ijk = f[idx].astype(np.int64)
    cell = (ijk[:, 2] * dims[1] + ijk[:, 1]) * dims[0] + ijk[:, 0]
    _, first, inverse = np.unique(cell, return_index=True,
                                  return_inverse=True)
    # Voxels ranked by their first point: the slots.
    rank = np.empty(len(first), np.int64)
    rank[np.argsort(first, kind="stable")] = np.arange(len(first))
    slot = rank[inverse]
    # Each point's place in its voxel, in input order.
    order = np.argsort(slot, kind="stable")
    within = np.empty(len(slot), np.int64)
    within[order] = np.arange(len(slot)) - np.searchsorted(
        slot[order], slot[order], "left")
    keep = (slot < max_voxels) & (within < max_points)

    out = np.zeros((max_voxels, max_points, c), np.float32)
    coords = np.zeros((max_voxels, 3), np.int32)
    num = np.zeros(max_voxels, np.int32)
    used = min(len(first), max_voxels)
    out[slot[keep], within[keep], :3] = points[idx[keep], :3]
    if cols:
        out[slot[keep], within[keep], 3:raw] = points[idx[keep]][:, cols]
    num[:used] = np.minimum(np.bincount(slot[slot < max_voxels],
                                        minlength=used), max_points)
    firsts = np.sort(first)[:used]
    coords[:used] = ijk[firsts][:, ::-1]
    if extra:
        v = out[:used]
        total = np.zeros((used, 3), np.float32)
        for k in range(max_points):        # in slot order, as float32
            total += v[:, k, :3]
        mean = total / num[:used, None].astype(np.float32)
        centre = (corner + (coords[:used, ::-1] + 0.5) * size).astype(
            np.float32)
        live = (np.arange(max_points)[None, :] < num[:used, None])[..., None]
        v[:, :, raw:raw + 3] = np.where(live, v[:, :, :3] - mean[:, None],
                                        0)
        n_centre = extra - 3
        v[:, :, raw + 3:] = np.where(
            live, v[:, :, :n_centre] - centre[:, None, :n_centre], 0)
    stats = {"in_grid": len(idx), "voxels": len(first),
             "dropped_points": int(len(idx) - keep.sum())}
    return out, coords, num, np.array([used], np.int32), stats
