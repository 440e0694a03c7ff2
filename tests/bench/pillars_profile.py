"""Sparse pillars for a profiler: rc_sparse_voxelize_cuda through ctypes
on the torch_pillars.py workload (KITTI-like sweep of 120,000 points,
432 x 496 pillars, K = 32, M = 40,000), without torch, so that a
profiler's per-kernel summary holds robocache's kernels only.  Checks
the GPU output equal byte for byte to the CPU's, then makes --runs calls
(4 sweeps rotated) and prints the host-timed mean per call (launches
included; CUDA events in torch_pillars.py give the figure to quote).

. .device/gst-env.sh; PYTHONPATH=build/python:tests/python \
    ncu --print-summary per-kernel python3 tests/bench/pillars_profile.py
"""
import argparse
import ctypes
import os
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(__file__))
from robocache import _kernels, _lib  # noqa: E402
from pillars_cpu import GRID, sweep  # noqa: E402

K, M = 32, 40000
H2D, D2H = 0, 1
k = _lib.kernels
k.rc_device_copy_async.restype = ctypes.c_int
k.rc_device_copy_async.argtypes = [ctypes.c_void_p, ctypes.c_void_p,
                                   ctypes.c_size_t, ctypes.c_int,
                                   ctypes.c_void_p]


def device_alloc(size):
    ptr = ctypes.c_void_p()
    _lib.check(k.rc_device_alloc_async(ctypes.byref(ptr), size, None),
               "device alloc")
    return ptr.value


def copy(dst, src, size, kind):
    _lib.check(k.rc_device_copy_async(dst, src, size, kind, None), "copy")
    _lib.check(k.rc_stream_synchronize(None), "synchronize")


def outputs(c, alloc):
    """features, coords, num_points, n_voxels: (addresses, sizes)."""
    sizes = (M * K * c * 4, M * 3 * 4, M * 4, 4)
    return [alloc(s) for s in sizes], sizes


def cpu_reference(cloud, layout, params, c):
    host = [np.empty(s // 4, np.int32) for s in outputs(c, lambda s: 0)[1]]
    scratch = np.empty(k.rc_sparse_scratch_size(ctypes.byref(params)),
                       np.uint8)
    out = _lib.SparseOutput(*[h.ctypes.data for h in host])
    _lib.check(k.rc_sparse_voxelize_cpu(
        ctypes.byref(layout), ctypes.byref(params), cloud.ctypes.data,
        cloud.shape[0], ctypes.byref(out), scratch.ctypes.data, None),
        "sparse voxelize (CPU)")
    return host


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=20)
    args = ap.parse_args()
    rng = np.random.default_rng(11)
    clouds = [sweep(rng) for _ in range(4)]
    _, layout, grid = _kernels._grid_call(
        "profile", _kernels._Call("profile"), clouds[0], GRID["voxel_size"],
        GRID["origin"], GRID["dims"], "count", (3,))
    params = _lib.SparseParams(grid=grid, mode=_lib.SPARSE_MODE["pillars"],
                               max_points=K, max_voxels=M)
    c = k.rc_sparse_channels(ctypes.byref(layout), ctypes.byref(params))
    n = clouds[0].shape[0]
    d_clouds = [device_alloc(x.nbytes) for x in clouds]
    for d, x in zip(d_clouds, clouds):
        copy(d, x.ctypes.data, x.nbytes, H2D)
    d_out, sizes = outputs(c, device_alloc)
    arrays = _lib.SparseOutput(*d_out)
    size = ctypes.c_uint64()
    _lib.check(k.rc_sparse_cuda_scratch_size(
        ctypes.byref(layout), ctypes.byref(params), n, ctypes.byref(size)),
        "scratch size")
    scratch = device_alloc(size.value)

    def run(i):
        _lib.check(k.rc_sparse_voxelize_cuda(
            ctypes.byref(layout), ctypes.byref(params), d_clouds[i % 4], n,
            ctypes.byref(arrays), scratch, size.value, None, None),
            "sparse voxelize (CUDA)")

    run(0)
    want = cpu_reference(clouds[0], layout, params, c)
    same = True
    for d, s, w in zip(d_out, sizes, want):
        got = np.empty(s // 4, np.int32)
        copy(got.ctypes.data, d, s, D2H)
        same = same and np.array_equal(got, w)
    t = time.perf_counter()
    for i in range(args.runs):
        run(i)
    _lib.check(k.rc_stream_synchronize(None), "synchronize")
    us = (time.perf_counter() - t) / args.runs * 1e6
    print("pillars used: %d of %d; GPU output identical to the CPU's: %s"
          % (int(want[3][0]), M, same))
    print("%d calls: %.1f us a call, host-timed" % (args.runs, us))
    if not same:
        sys.exit(1)


if __name__ == "__main__":
    main()
