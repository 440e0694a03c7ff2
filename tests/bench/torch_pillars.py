"""Sparse pillars on a GPU: robocache.voxelize(mode="pillars") against the
same hard voxelization and 10 PillarVFE channels written in PyTorch, in the
same run, with the copy floor: CUDA events, warm-up, medians, 8 fresh
sweeps rotated.  KITTI-like sweep of 120,000 points, 432 x 496 pillars,
K = 32, M = 40,000.

. .device/gst-env.sh; PYTHONPATH=build/python:tests/python \
    python3 tests/bench/torch_pillars.py [--runs 200]

--points N,.. sweeps the cloud size instead (issue 23's cost curve; the
same lidar shape, 4 fresh clouds a size): per size the floor, the C call,
PyTorch and whether their outputs are identical, one table row each, and
with --json PREFIX the rows in PREFIX-sweep.json.
"""
import argparse
import json
import ctypes
import os
import sys

import numpy as np
import torch

sys.path.insert(0, os.path.dirname(__file__))
import robocache  # noqa: E402
from robocache import _kernels, _lib  # noqa: E402
from pillars_cpu import GRID, sweep  # noqa: E402
import torch_baseline as tb  # noqa: E402

K, M = tb.PILLAR_POINTS, tb.PILLAR_SLOTS


def torch_pillars(p):
    """The definition of docs/media-types.md, in PyTorch ops
    (torch_baseline.py, whose sweep times it beside bench-kernels')."""
    return tb.voxelize_pillars(p, GRID["origin"], GRID["voxel_size"],
                               torch.tensor(GRID["dims"], device=p.device),
                               GRID["dims"], None, K, M)


def kernel_call(clouds):
    """rc_sparse_voxelize_cuda through ctypes with everything prebuilt
    (outputs, scratch, parameters): the kernels' own time, as a C caller
    (the element) sees it, without the Python function's checks and
    allocations."""
    k = _lib.kernels
    call = _kernels._Call("bench")
    _, layout, grid = _kernels._grid_call(
        "bench", call, clouds[0], GRID["voxel_size"], GRID["origin"],
        GRID["dims"], "count", (3,))
    params = _lib.SparseParams(grid=grid, mode=_lib.SPARSE_MODE["pillars"],
                               max_points=K, max_voxels=M)
    c = k.rc_sparse_channels(ctypes.byref(layout), ctypes.byref(params))
    dev = clouds[0].device
    outs = (torch.empty((M, K, c), device=dev),
            torch.empty((M, 3), dtype=torch.int32, device=dev),
            torch.empty((M,), dtype=torch.int32, device=dev),
            torch.empty((1,), dtype=torch.int32, device=dev))
    arrays = _lib.SparseOutput(*[o.data_ptr() for o in outs])
    size = ctypes.c_uint64()
    _lib.check(k.rc_sparse_cuda_scratch_size(
        ctypes.byref(layout), ctypes.byref(params), clouds[0].shape[0],
        ctypes.byref(size)), "scratch size")
    scratch = torch.empty(size.value, dtype=torch.uint8, device=dev)
    stream = torch.cuda.current_stream().cuda_stream

    def run(cloud):
        _lib.check(k.rc_sparse_voxelize_cuda(
            ctypes.byref(layout), ctypes.byref(params), cloud.data_ptr(),
            cloud.shape[0], ctypes.byref(arrays), scratch.data_ptr(),
            size.value, None, stream), "sparse voxelize")
    run.outs, run.scratch = outs, scratch
    return run


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
    ap.add_argument("--json", metavar="PREFIX",
                    help="also write PREFIX-robocache.json and "
                    "PREFIX-torch.json for tests/bench/plot.py")
    ap.add_argument("--points", metavar="N,..",
                    help="sweep these cloud sizes instead")
    args = ap.parse_args()
    rng = np.random.default_rng(11)
    if args.points:
        sweep_points([int(n) for n in args.points.split(",")], rng, args)
        return
    clouds = [torch.from_numpy(sweep(rng)).cuda() for _ in range(8)]
    gbps = copy_gbps()
    floor_us = (M * K * 10 * 4 + M * 16 + 16 + 120000 * 16) / (gbps * 1e3)
    a = robocache.voxelize(clouds[0], **GRID, mode="pillars")
    b = torch_pillars(clouds[0])
    same = all(torch.equal(x.cpu().view(torch.uint8).reshape(-1),
                           y.cpu().to(x.dtype).view(torch.uint8).reshape(-1))
               for x, y in zip(a, b))
    rc = time_us(lambda c: robocache.voxelize(c, **GRID, mode="pillars"),
                 clouds, args.runs)
    raw = kernel_call(clouds)
    raw(clouds[0])
    same_raw = all(torch.equal(x, y) for x, y in zip(a, raw.outs))
    kr = time_us(raw, clouds, args.runs)
    pt = time_us(torch_pillars, clouds, max(20, args.runs // 10))
    print("device: %s; copy %.0f GB/s; floor %.1f us; torch output "
          "identical: %s" % (torch.cuda.get_device_name(), gbps, floor_us,
                             same))
    print("%-30s %10s %10s %10s" % ("", "median us", "p10", "p90"))
    print("%-30s %10.1f %10.1f %10.1f" % ("robocache kernels (C call)",
                                          *kr))
    print("%-30s %10.1f %10.1f %10.1f" % ("robocache.voxelize (Python)",
                                          *rc))
    print("%-30s %10.1f %10.1f %10.1f" % ("PyTorch", *pt))
    print("C call output identical to the Python call's: %s" % same_raw)
    print("speed-up: kernels %.1fx, Python call %.1fx; kernels at %.2fx "
          "the floor" % (pt[0] / kr[0], pt[0] / rc[0], kr[0] / floor_us))
    if args.json:
        write_plot_json(args.json, gbps, floor_us, kr, rc, pt)


def copy_gbps():
    """The device-to-device copy rate, bytes read plus written."""
    src = torch.empty(2**28, dtype=torch.float32, device="cuda")
    dst = torch.empty_like(src)
    copy = time_us(lambda _: dst.copy_(src), [None], 30)
    return 2 * src.numel() * 4 / (copy[0] * 1e-6) / 1e9


def sweep_points(sizes, rng, args):
    """The C call and PyTorch over cloud sizes, with the floor at each: the
    features (M x K x 10 float32) and coordinates written, the points
    read once."""
    gbps = copy_gbps()
    print("device: %s; copy %.0f GB/s" % (torch.cuda.get_device_name(),
                                         gbps))
    print("%9s %9s %10s %10s %10s %8s %9s %6s" % (
        "points", "floor us", "C call us", "p10", "p90", "/floor",
        "torch us", "same"))
    rows = []
    for n in sizes:
        clouds = [torch.from_numpy(sweep(rng, n)).cuda() for _ in range(4)]
        floor_us = (M * K * 10 * 4 + M * 16 + 16 + n * 16) / (gbps * 1e3)
        raw = kernel_call(clouds)
        raw(clouds[0])
        same = all(torch.equal(x.cpu().view(torch.uint8).reshape(-1),
                               y.cpu().to(x.dtype).view(torch.uint8)
                               .reshape(-1))
                   for x, y in zip(raw.outs, torch_pillars(clouds[0])))
        kr = time_us(raw, clouds, args.runs)
        pt = time_us(torch_pillars, clouds, max(10, args.runs // 20))
        print("%9d %9.1f %10.1f %10.1f %10.1f %8.2f %9.1f %6s" % (
            n, floor_us, kr[0], kr[1], kr[2], kr[0] / floor_us, pt[0], same))
        rows.append({"points": n, "floor_us": floor_us, "median_us": kr[0],
                     "p10_us": kr[1], "p90_us": kr[2], "torch_us": pt[0],
                     "identical": same})
        del clouds, raw
    if args.json:
        with open("%s-sweep.json" % args.json, "w") as f:
            json.dump({"device": torch.cuda.get_device_name(),
                       "copy_gbps": gbps, "max_voxels": M, "max_points": K,
                       "rows": rows}, f, indent=1)


def write_plot_json(prefix, gbps, floor_us, kernels, python, baseline):
    """The medians in the bench-kernels layout that plot.py reads: one
    workload, its floor the bytes of the copy-bound floor."""
    device = torch.cuda.get_device_name()
    floor_bytes = floor_us * gbps * 1e3
    runs = {"robocache": [("pillars KITTI 120k, C call", kernels),
                          ("pillars KITTI 120k, Python call", python)],
            "torch": [("pillars KITTI 120k, C call", baseline),
                      ("pillars KITTI 120k, Python call", baseline)]}
    for impl, rows in runs.items():
        doc = {"impl": impl, "device": device, "copy_gbps": gbps,
               "workloads": [{"name": name, "median_us": t[0],
                              "p10_us": t[1], "p90_us": t[2],
                              "gbps": floor_bytes / (t[0] * 1e3),
                              "ratio": t[0] / floor_us}
                             for name, t in rows]}
        with open("%s-%s.json" % (prefix, impl), "w") as f:
            json.dump(doc, f, indent=1)


if __name__ == "__main__":
    main()
