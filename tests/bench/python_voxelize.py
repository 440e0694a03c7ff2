#!/usr/bin/env python3
"""robocache.voxelize from Python on torch CUDA tensors against the raw C
call, in one run: what the Python function costs a call over the kernels
(docs/performance.md, "Python").

Workloads: counts of 130,000 points into 176 x 176 x 12 voxels (the
element's default grid size class), and PointPillars' sparse pillars of a
KITTI-like sweep of 120,000 points (432 x 496, K 32, M 40,000).  Fresh
random clouds rotated (never zeros), warm-up, medians of N runs; the
measures are python_resample.py's (host issue with the GPU idle, one call
with its synchronisation, back to back).  The raw call is
rc_voxelize_cuda / rc_sparse_voxelize_cuda through ctypes with every
argument, output and scratch prebuilt (torch_pillars.py's for the
pillars), checked equal to the Python call's output first.

  python3 python_voxelize.py [--runs N] [--json FILE]
Needs the build's python/ and tests/python on PYTHONPATH and torch with
CUDA.
"""
import ctypes
import json
import os
import sys

import numpy as np
import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import python_resample as pr  # noqa: E402
import torch_pillars  # noqa: E402
from pillars_cpu import GRID as KITTI  # noqa: E402
import robocache  # noqa: E402
from robocache import _kernels, _lib  # noqa: E402

DEV = torch.device("cuda", 0)
COUNT = dict(voxel_size=(0.4, 0.4, 0.5), origin=(-35.2, -35.2, -3.0),
             dims=(176, 176, 12))
k = _lib.kernels


def clouds(rng, n, grid, count):
    lo = np.asarray(grid["origin"])
    hi = lo + np.asarray(grid["voxel_size"]) * np.asarray(grid["dims"])
    out = []
    for _ in range(count):
        p = np.empty((n, 4), np.float32)
        p[:, :3] = rng.uniform(lo, hi, (n, 3))
        p[:, 3] = rng.random(n)
        out.append(torch.from_numpy(p).to(DEV))
    return out


def raw_count(sets):
    """rc_voxelize_cuda with the layout, grid, output and scratch
    prebuilt."""
    call = _kernels._Call("bench")
    _, layout, grid = _kernels._grid_call(
        "bench", call, sets[0], COUNT["voxel_size"], COUNT["origin"],
        COUNT["dims"], "count", None)
    n = sets[0].shape[0]
    x, y, z = COUNT["dims"]
    out = torch.empty((z, y, x), dtype=torch.int32, device=DEV)
    size = k.rc_voxelize_cuda_scratch_size(ctypes.byref(layout),
                                           ctypes.byref(grid), 1, n)
    scratch = torch.empty(max(size, 1), dtype=torch.uint8, device=DEV)
    stream = torch.cuda.current_stream().cuda_stream
    _lib.check(k.rc_voxelize_cuda_scratch_reset(scratch.data_ptr(), stream),
               "clearing the scratch")
    sizes = (ctypes.c_uint64 * 1)(n)
    args = (ctypes.byref(layout), ctypes.byref(grid))
    ptrs = [s.data_ptr() for s in sets]
    optr, sptr = out.data_ptr(), scratch.data_ptr()
    fn = k.rc_voxelize_cuda

    def run(i):
        fn(*args, ptrs[i], sizes, 1, optr, sptr, None, stream)
    run.keep = (out, scratch, layout, grid)
    return run, [out]


def raw_pillars(sets):
    """torch_pillars.py's prebuilt rc_sparse_voxelize_cuda, by index."""
    run = torch_pillars.kernel_call(sets)
    return (lambda i: run(sets[i])), list(run.outs)


def measure(fn, n_sets, runs):
    for i in range(20):
        fn(i % n_sets)
    torch.cuda.synchronize()
    return {"host_issue": pr.host_issue(fn, n_sets, runs),
            "one_call": pr.one_call(fn, n_sets, runs),
            "back_to_back": pr.back_to_back(fn, n_sets)}


def main():
    args = pr.bench_arguments()
    rng = np.random.default_rng(args.seed)
    result = {"seed": args.seed, "device": torch.cuda.get_device_name(DEV),
              "torch": torch.__version__}
    workloads = (
        ("count 130,000 points, 176x176x12", clouds(rng, 130000, COUNT, 4),
         lambda s: robocache.voxelize(s, **COUNT), raw_count),
        ("pillars 120,000 points, 432x496, K 32, M 40,000",
         clouds(rng, 120000, KITTI, 4),
         lambda s: robocache.voxelize(s, **KITTI, mode="pillars"),
         raw_pillars))
    print("%-50s %28s %28s %28s" % ("µs, median (p10-p90)", "host issue",
                                    "one call + sync", "back to back"))
    for name, sets, python_call, make_raw in workloads:
        raw, raw_outs = make_raw(sets)
        raw(0)
        got = python_call(sets[0])
        got = got if isinstance(got, tuple) else (got,)
        for a, b in zip(got, raw_outs):
            assert torch.equal(a.view(torch.uint8), b.view(torch.uint8)), \
                "%s: the Python call and the raw call differ" % name
        rows = {"python": measure(lambda i: python_call(sets[i]), len(sets),
                                  args.runs),
                "raw C": measure(raw, len(sets), args.runs)}
        result[name] = rows
        for who, r in rows.items():
            print("%-50s" % ("%s: %s" % (name.split(",")[0], who)) + "".join(
                " %10.1f (%6.1f-%6.1f)" % (r[m]["median_us"], r[m]["p10_us"],
                                           r[m]["p90_us"])
                for m in ("host_issue", "one_call", "back_to_back")))
        print("%-50s %10.1f" % ("  Python's cost over the C call (back to "
                                "back)", rows["python"]["back_to_back"]
                                ["median_us"] - rows["raw C"]["back_to_back"]
                                ["median_us"]))
    if args.json:
        with open(args.json, "w") as f:
            json.dump(result, f, indent=1)


if __name__ == "__main__":
    main()
