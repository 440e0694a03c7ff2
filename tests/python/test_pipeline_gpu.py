"""robocache.Pipeline on the GPU (the GPU machine): CUDA tensors out of a
CUDA pipeline over the buffers' own device memory, on torch's (primary)
context, equal to the CPU pipeline; memory flat over 10,000 buffers.
Exits 77 (SKIP) without torch, a CUDA device or robocache's CUDA path."""
import gc
import sys
import unittest

import numpy as np

from cuda_or_skip import cuda_torch
from memory import rss_kib, under_sanitizer

torch = cuda_torch()

import robocache  # noqa: E402

from test_pipeline import GRID  # noqa: E402

LIDAR = "robocachelidarsrc num-buffers=%d points-per-sweep=20000 seed=5"


def u32(t):
    """A uint32 grid tensor (int32 before torch 2.3) as a numpy uint32."""
    return t.cpu().view(torch.int32).numpy().view(np.uint32)


def grids(backend, n=5, mode="count", device=0):
    with robocache.Pipeline(
            LIDAR % n + " ! robocachevoxelize mode=%s backend=%s %s"
            % (mode, backend, GRID), device=device) as p:
        return list(p)


class Gpu(unittest.TestCase):
    def test_cuda_tensors_equal_cpu(self):
        gpu = grids("gpu")
        cpu = grids("cpu", device="cpu")
        self.assertEqual(len(gpu), 5)
        for g, c in zip(gpu, cpu):
            self.assertIn("memory:CUDAMemory", g.caps)
            t = g.array
            self.assertIsInstance(t, torch.Tensor)
            self.assertEqual(t.device, torch.device("cuda", 0))
            self.assertIn(t.dtype, (torch.int32, getattr(torch, "uint32",
                                                          torch.int32)))
            self.assertEqual(tuple(t.shape), (12, 64, 64))
            # The tensor starts at the device pointer the C side mapped.
            self.assertEqual(t.data_ptr(), g.data_ptr)
            self.assertEqual(g.pts, c.pts)
            self.assertIsInstance(c.array, np.ndarray)
            # A torch kernel reads the memory (same context as torch's).
            total = int(t.to(torch.int64).sum().item())
            self.assertEqual(total, int(c.array.sum()))
            np.testing.assert_array_equal(u32(t), c.array)

    def test_same_device_memory_on_both_branches(self):
        with robocache.Pipeline(
                LIDAR % 3 + " ! robocachevoxelize backend=gpu %s ! tee name=t "
                "t. ! queue ! appsink name=a t. ! queue ! appsink name=b"
                % GRID, device=0) as p:
            by_pts = {}
            for s in p:
                self.assertTrue(s.array.is_cuda)
                by_pts.setdefault(s.pts, set()).add(s.array.data_ptr())
        self.assertEqual(len(by_pts), 3)
        for ptrs in by_pts.values():
            self.assertEqual(len(ptrs), 1)

    def test_centroids_as_cuda_points(self):
        gpu = [s.array for s in grids("gpu", 2, "centroids")]
        cpu = [s.array for s in grids("cpu", 2, "centroids", "cpu")]
        for g, c in zip(gpu, cpu):
            self.assertTrue(g.is_cuda)
            self.assertEqual(tuple(g.shape), c.shape)
            np.testing.assert_allclose(g.cpu().numpy(), c, rtol=1e-5,
                                       atol=1e-5)

    def test_matches_kernel_like_torch(self):
        with robocache.Pipeline(
                LIDAR % 2 + " ! tee name=t t. ! queue ! appsink name=p "
                "t. ! queue ! robocachevoxelize mode=count backend=gpu %s ! "
                "appsink name=g" % GRID, device=0, like="torch") as p:
            samples = list(p)
        pts = [s for s in samples if s.stream == "p"]
        grid = [s for s in samples if s.stream == "g"]
        for a, b in zip(pts, grid):
            self.assertFalse(a.array.is_cuda)    # points: system memory
            self.assertTrue(b.array.is_cuda)
            ref = robocache.voxelize(a.array.numpy(), 0.5, (-16, -16, -3),
                                     (64, 64, 12), mode="count")
            np.testing.assert_array_equal(ref, u32(b.array))

    @under_sanitizer
    def test_no_leak_over_10000_buffers(self):
        n_warm, n = 1000, 10000
        with robocache.Pipeline(
                "robocachelidarsrc num-buffers=%d points-per-sweep=256 ! "
                "robocachevoxelize mode=count backend=gpu "
                'voxel-size="<1.0>" origin="<-8,-8,-2>" dims="<16,16,4>"'
                % (n_warm + n), device=0) as p:
            it = iter(p)
            for _ in range(n_warm):
                next(it)
            gc.collect()
            torch.cuda.synchronize()
            free_before = torch.cuda.mem_get_info(0)[0]
            rss_before = rss_kib()
            count = 0
            for s in it:
                self.assertTrue(s.array.is_cuda)
                count += 1
            gc.collect()
            torch.cuda.synchronize()
            free_after = torch.cuda.mem_get_info(0)[0]
            rss_after = rss_kib()
        self.assertEqual(count, n)
        print("VmRSS %d -> %d kB, device free %d -> %d MiB" % (
            rss_before, rss_after, free_before >> 20, free_after >> 20),
            file=sys.stderr)
        self.assertLess(rss_after - rss_before, 8192)
        self.assertLess(free_before - free_after, 64 << 20)


if __name__ == "__main__":
    unittest.main(verbosity=2)
