"""robocache.voxelize(mode="pillars" | "voxels") against the NumPy
reference (sparse_reference.py): random clouds overflowing both limits,
NaN points, points on voxel faces, empty sweeps, every point in one voxel;
torch CPU tensors; on CUDA (torch), the CPU's bytes, twice.  Fresh random
inputs every run (the seed is printed; ROBOCACHE_TEST_SEED replays)."""
import os
import sys
import unittest

import numpy as np

import robocache
from sparse_reference import hard_voxelize

SEED = int(os.environ.get("ROBOCACHE_TEST_SEED", np.random.SeedSequence()
                          .entropy % 2**32))
print("seed", SEED, file=sys.stderr)

KITTI = dict(voxel_size=(0.16, 0.16, 4.0), origin=(0.0, -39.68, -3.0),
             dims=(432, 496, 1))
SMALL = dict(voxel_size=0.5, origin=(-2.0, -1.5, -1.0), dims=(8, 6, 4))


def cloud(rng, n, grid, cluster=0):
    """x, y, z, intensity: 10 % around the grid, some on faces, 2 % NaN or
    Inf, every third point on its neighbour."""
    size = np.broadcast_to(np.asarray(grid["voxel_size"]), (3,))
    lo = np.asarray(grid["origin"])
    span = size * np.asarray(grid["dims"])
    p = np.empty((n, 4), np.float32)
    p[:, :3] = rng.uniform(lo - 0.05 * span, lo + 1.05 * span, (n, 3))
    faces = rng.random((n, 3)) < 0.1
    steps = rng.integers(0, np.asarray(grid["dims"]) + 1, (n, 3))
    p[:, :3] = np.where(faces, lo + steps * size, p[:, :3])
    p[2::3, :3] = p[1:-1:3, :3][: len(p[2::3])]
    p[:cluster, :3] = lo + size * (0.25 + 0.5 * rng.random((cluster, 3)))
    bad = rng.random(n) < 0.02
    p[bad, rng.integers(0, 3)] = np.nan
    p[:, 3] = rng.random(n)
    return p


class Sparse(unittest.TestCase):
    def setUp(self):
        self.rng = np.random.default_rng([SEED, abs(hash(self.id())) % 2**31])

    def same(self, got, want):
        for g, w, name in zip(got, want[:4], ("features", "coords",
                                               "num_points", "n_voxels")):
            g = np.asarray(g)
            self.assertEqual(g.shape, w.shape, name)
            self.assertEqual(g.dtype, w.dtype, name)
            self.assertTrue(np.array_equal(g.view(np.uint8),
                                           w.view(np.uint8)), name)

    def check(self, pts, grid, **kw):
        kw.setdefault("mode", "pillars")
        got = robocache.voxelize(pts, **grid, **kw)
        want = hard_voxelize(pts, grid["voxel_size"], grid["origin"],
                             grid["dims"], kw.get("max_points_per_voxel", 32),
                             kw.get("max_voxels", 40000),
                             kw.get("mode", "pillars"), kw.get("features"),
                             kw.get("paper_features", False))
        self.same(got, want)
        return got

    def test_random_overflowing(self):
        for r in range(24):
            mode = ("pillars", "voxels")[r % 2]
            k = int(self.rng.integers(1, 40))
            m = int(self.rng.integers(1, 150))
            pts = cloud(self.rng, int(self.rng.integers(1, 4000)), SMALL)
            self.check(pts, SMALL, mode=mode, max_points_per_voxel=k,
                       max_voxels=m, paper_features=r % 4 == 0)

    def test_kitti(self):
        pts = cloud(self.rng, 120000, KITTI, cluster=100)
        f, c, n, used = self.check(pts, KITTI, mode="pillars")
        self.assertEqual(f.shape, (40000, 32, 10))
        self.assertEqual(int(used[0]), int((n > 0).sum()))

    def test_empty_and_one_voxel(self):
        empty = np.zeros((0, 4), np.float32)
        f, c, n, used = self.check(empty, SMALL, max_voxels=4)
        self.assertEqual(int(used[0]), 0)
        self.assertFalse(f.any())
        one = cloud(self.rng, 500, SMALL, cluster=500)
        f, c, n, used = self.check(one, SMALL, max_voxels=4)
        self.assertEqual(int(used[0]), 1)
        self.assertEqual(int(n[0]), 32)

    def test_features_columns(self):
        pts = cloud(self.rng, 2000, SMALL)
        self.check(pts, SMALL, mode="voxels", features=())
        self.check(pts, SMALL, mode="pillars", features=(3, 3))

    def test_bad_arguments(self):
        pts = cloud(self.rng, 10, SMALL)
        for kw, words in ((dict(max_voxels=0), "max_voxels"),
                          (dict(max_points_per_voxel=0),
                           "max_points_per_voxel")):
            with self.assertRaises(ValueError) as caught:
                robocache.voxelize(pts, **SMALL, mode="pillars", **kw)
            self.assertIn(words, str(caught.exception))

    def test_torch(self):
        try:
            import torch
        except ImportError:
            self.skipTest("no torch")
        pts = cloud(self.rng, 5000, SMALL)
        want = robocache.voxelize(pts, **SMALL, mode="pillars",
                                  max_voxels=100)
        got = robocache.voxelize(torch.from_numpy(pts), **SMALL,
                                 mode="pillars", max_voxels=100)
        self.assertTrue(all(isinstance(g, torch.Tensor) for g in got))
        self.same([g.numpy() for g in got], [np.asarray(w) for w in want])
        if not (torch.cuda.is_available() and robocache.cuda_available()):
            return
        big = cloud(self.rng, 120000, KITTI, cluster=300)
        cpu = robocache.voxelize(torch.from_numpy(big), **KITTI,
                                 mode="pillars")
        for _ in range(2):
            gpu = robocache.voxelize(torch.from_numpy(big).cuda(), **KITTI,
                                     mode="pillars")
            self.same([g.cpu().numpy() for g in gpu],
                      [c.numpy() for c in cpu])


if __name__ == "__main__":
    unittest.main()
