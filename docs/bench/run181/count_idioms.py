#!/usr/bin/env python3
"""The ways a PyTorch user counts points into voxels, timed alike
(torch_baseline.py's method: fresh clouds rotated, CUDA events, medians):
index_put_ with accumulate (sorts the indices), index_add_ and
scatter_add_ of ones (an atomic a point), bincount (the same after a wait
for the host).  Each checked against NumPy's bincount first.

  python3 count_idioms.py [--runs N]
"""
import argparse
import os
import sys

import numpy as np
import torch

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "..",
                                "tests", "bench"))
import torch_baseline as tb  # noqa: E402


def idioms(n_vox):
    def put(lin):
        g = torch.zeros(n_vox + 1, dtype=torch.int32, device=tb.DEV)
        g.index_put_((lin,), torch.ones_like(lin, dtype=torch.int32),
                     accumulate=True)
        return g[:n_vox]

    def add(lin):
        g = torch.zeros(n_vox + 1, dtype=torch.int32, device=tb.DEV)
        g.index_add_(0, lin, torch.ones_like(lin, dtype=torch.int32))
        return g[:n_vox]

    def scatter(lin):
        g = torch.zeros(n_vox + 1, dtype=torch.int32, device=tb.DEV)
        g.scatter_add_(0, lin, torch.ones_like(lin, dtype=torch.int32))
        return g[:n_vox]

    def bincount(lin):
        return torch.bincount(lin, minlength=n_vox + 1)[:n_vox]

    return {"index_put_ accumulate": put, "index_add_": add,
            "scatter_add_": scatter, "bincount": bincount}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--runs", type=int, default=20)
    args = ap.parse_args()
    gen = torch.Generator(device=tb.DEV)
    gen.manual_seed(1)
    b = tb.Bench(args.runs, gen)
    print("%s, torch %s; median us of %d runs (p10-p90)" % (
        torch.cuda.get_device_name(), torch.__version__, args.runs))
    for grid_name, grid, shape in (("256cube uniform", tb.CUBE, "uniform"),
                                   ("kitti0.2 lidar", tb.KITTI_LEAF,
                                    "lidar")):
        origin, vsize, dims = grid
        o = torch.tensor(origin, dtype=torch.float32, device=tb.DEV)
        v = torch.tensor(vsize, dtype=torch.float32, device=tb.DEV)
        d = torch.tensor(dims, dtype=torch.int64, device=tb.DEV)
        for n in (131072, 4194304):
            n_sets = tb.sets_for(n * 16 + 4 * dims[0] * dims[1] * dims[2])
            sets = [tb.make_cloud(b, n, grid, shape) for _ in range(n_sets)]
            want = tb.numpy_voxelize(sets[0].cpu().numpy(), grid, "count",
                                     None)
            for name, fn in idioms(dims[0] * dims[1] * dims[2]).items():
                def call(s):
                    lin, _ = tb.voxel_index(sets[s], o, v, d, dims)
                    return fn(lin)
                got = call(0).cpu().numpy()
                if not np.array_equal(got.astype(np.int64), want):
                    sys.exit("%s: %s differs from NumPy" % (grid_name, name))
                r = tb.time_runs(call, n_sets, args.runs)
                print("%-16s %8d points  %-22s %10.1f  (%.1f-%.1f)" % (
                    grid_name, n, name, r["median_us"], r["p10_us"],
                    r["p90_us"]), flush=True)
            del sets
            torch.cuda.empty_cache()


if __name__ == "__main__":
    main()
