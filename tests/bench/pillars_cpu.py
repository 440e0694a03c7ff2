"""Sparse pillars on the CPU: robocache.voxelize(mode="pillars") against the
same computation in NumPy (tests/python/sparse_reference.py), on a
KITTI-like sweep of 120,000 points, grid 432 x 496 x 1, K = 32, M = 40,000.
Fresh sweeps rotated, warm-up, median of --runs.

PYTHONPATH=build-cpu/python:tests/python python3 tests/bench/pillars_cpu.py
"""
import argparse
import os
import sys
import time

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "python"))
import robocache  # noqa: E402
from sparse_reference import hard_voxelize  # noqa: E402

GRID = dict(voxel_size=(0.16, 0.16, 4.0), origin=(0.0, -39.68, -3.0),
            dims=(432, 496, 1))


def sweep(rng, n=120000):
    """64 rings, range denser near the sensor, cut by the ground."""
    az = rng.uniform(0, 2 * np.pi, n)
    el = np.deg2rad(-24.8 + 26.8 * rng.integers(0, 64, n) / 63.0)
    r = 2 + 78 * rng.random(n) ** 2
    ground = np.where(el < 0, 1.73 / np.tan(-np.minimum(el, -1e-3)), np.inf)
    r = np.minimum(r, ground * rng.uniform(0.98, 1.02, n))
    p = np.empty((n, 4), np.float32)
    p[:, 0] = r * np.cos(el) * np.cos(az)
    p[:, 1] = r * np.cos(el) * np.sin(az)
    p[:, 2] = r * np.sin(el)
    p[:, 3] = rng.random(n)
    return p


def median_ms(fn, clouds, runs):
    for c in clouds[:2]:
        fn(c)
    times = []
    for i in range(runs):
        t = time.perf_counter()
        fn(clouds[i % len(clouds)])
        times.append((time.perf_counter() - t) * 1e3)
    return float(np.median(times)), float(np.percentile(times, 10)), \
        float(np.percentile(times, 90))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=30)
    args = ap.parse_args()
    rng = np.random.default_rng(7)
    clouds = [sweep(rng) for _ in range(4)]
    got = robocache.voxelize(clouds[0], **GRID, mode="pillars")
    want = hard_voxelize(clouds[0], GRID["voxel_size"], GRID["origin"],
                         GRID["dims"])
    assert all(np.array_equal(np.asarray(g).view(np.uint8),
                              w.view(np.uint8)) for g, w in zip(got, want))
    print("pillars used: %d of 40000" % int(got[3][0]))
    rc = median_ms(lambda c: robocache.voxelize(c, **GRID, mode="pillars"),
                   clouds, args.runs)
    npy = median_ms(lambda c: hard_voxelize(c, GRID["voxel_size"],
                                            GRID["origin"], GRID["dims"]),
                    clouds, args.runs)
    print("%-28s %9s %9s %9s" % ("", "median ms", "p10", "p90"))
    print("%-28s %9.2f %9.2f %9.2f" % ("robocache CPU", *rc))
    print("%-28s %9.2f %9.2f %9.2f" % ("numpy", *npy))
    print("speed-up: %.1fx" % (npy[0] / rc[0]))


if __name__ == "__main__":
    main()
