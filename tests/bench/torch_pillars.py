"""Sparse pillars on a GPU: robocache.voxelize(mode="pillars") against the
same hard voxelization and 10 PillarVFE channels written in PyTorch, in the
same run, with the copy floor: CUDA events, warm-up, medians, 8 fresh
sweeps rotated.  KITTI-like sweep of 120,000 points, 432 x 496 pillars,
K = 32, M = 40,000.

. .device/gst-env.sh; PYTHONPATH=build/python:tests/python \
    python3 tests/bench/torch_pillars.py [--runs 200]
"""
import argparse
import os
import sys

import numpy as np
import torch

sys.path.insert(0, os.path.dirname(__file__))
import robocache  # noqa: E402
from pillars_cpu import GRID, sweep  # noqa: E402

K, M = 32, 40000


def torch_pillars(p):
    """The definition of docs/media-types.md, in PyTorch ops."""
    dev = p.device
    size = torch.tensor(GRID["voxel_size"], dtype=torch.float64, device=dev)
    lo = torch.tensor(GRID["origin"], dtype=torch.float64, device=dev)
    dims = torch.tensor(GRID["dims"], device=dev)
    f = (p[:, :3].double() - lo) / size
    inside = torch.isfinite(f).all(1) & (f >= 0).all(1) & (f < dims).all(1)
    idx = torch.nonzero(inside).squeeze(1)
    ijk = f[idx].long()
    cell = (ijk[:, 2] * dims[1] + ijk[:, 1]) * dims[0] + ijk[:, 0]
    uniq, inverse = torch.unique(cell, return_inverse=True)
    first = torch.full((len(uniq),), len(cell), device=dev, dtype=torch.long)
    first.scatter_reduce_(0, inverse, torch.arange(len(cell), device=dev),
                          "amin")
    rank = torch.empty_like(first)
    rank[torch.sort(first, stable=True).indices] = torch.arange(
        len(first), device=dev)
    slot = rank[inverse]
    order = torch.sort(slot, stable=True).indices
    ss = slot[order]
    within = torch.empty_like(slot)
    within[order] = torch.arange(len(slot), device=dev) - torch.searchsorted(
        ss, ss)
    keep = (slot < M) & (within < K)
    out = torch.zeros((M, K, 10), dtype=torch.float32, device=dev)
    out[slot[keep], within[keep], :4] = p[idx[keep]]
    used = min(len(uniq), M)
    num = torch.zeros(M, dtype=torch.int32, device=dev)
    num[:used] = torch.bincount(slot[keep], minlength=used)[:used].int()
    coords = torch.zeros((M, 3), dtype=torch.int32, device=dev)
    coords[rank[rank < M]] = ijk[first[rank < M]].flip(1).int()
    v = out[:used]
    total = torch.zeros((used, 3), dtype=torch.float32, device=dev)
    for k in range(K):
        total += v[:, k, :3]
    mean = total / num[:used, None].float()
    centre = (lo + (coords[:used].flip(1).double() + 0.5) * size).float()
    live = (torch.arange(K, device=dev)[None, :] < num[:used, None])[..., None]
    v[:, :, 4:7] = torch.where(live, v[:, :, :3] - mean[:, None], 0.0)
    v[:, :, 7:10] = torch.where(live, v[:, :, :3] - centre[:, None], 0.0)
    return out, coords, num, torch.tensor([used], device=dev)


def time_us(fn, inputs, runs):
    for i in range(10):
        fn(inputs[i % len(inputs)])
    torch.cuda.synchronize()
    ev = [(torch.cuda.Event(enable_timing=True),
           torch.cuda.Event(enable_timing=True)) for _ in range(runs)]
    for i, (a, b) in enumerate(ev):
        a.record()
        fn(inputs[i % len(inputs)])
        b.record()
    torch.cuda.synchronize()
    us = np.array([a.elapsed_time(b) * 1e3 for a, b in ev])
    return np.median(us), np.percentile(us, 10), np.percentile(us, 90)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=200)
    args = ap.parse_args()
    rng = np.random.default_rng(11)
    clouds = [torch.from_numpy(sweep(rng)).cuda() for _ in range(8)]
    src = torch.empty(2**28, dtype=torch.float32, device="cuda")
    dst = torch.empty_like(src)
    copy = time_us(lambda _: dst.copy_(src), [None], 30)
    gbps = 2 * src.numel() * 4 / (copy[0] * 1e-6) / 1e9
    floor_us = (M * K * 10 * 4 + M * 16 + 16 + 120000 * 16) / (gbps * 1e3)
    a = robocache.voxelize(clouds[0], **GRID, mode="pillars")
    b = torch_pillars(clouds[0])
    same = all(torch.equal(x.cpu().view(torch.uint8).reshape(-1),
                           y.cpu().to(x.dtype).view(torch.uint8).reshape(-1))
               for x, y in zip(a, b))
    rc = time_us(lambda c: robocache.voxelize(c, **GRID, mode="pillars"),
                 clouds, args.runs)
    pt = time_us(torch_pillars, clouds, max(20, args.runs // 10))
    print("device: %s; copy %.0f GB/s; floor %.1f us; torch output "
          "identical: %s" % (torch.cuda.get_device_name(), gbps, floor_us,
                             same))
    print("%-30s %10s %10s %10s" % ("", "median us", "p10", "p90"))
    print("%-30s %10.1f %10.1f %10.1f" % ("robocache CUDA", *rc))
    print("%-30s %10.1f %10.1f %10.1f" % ("PyTorch", *pt))
    print("speed-up %.1fx; robocache at %.2fx the floor"
          % (pt[0] / rc[0], rc[0] / floor_us))


if __name__ == "__main__":
    main()
