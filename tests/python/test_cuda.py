"""robocache's kernels on torch CUDA tensors (the GPU machine): results
against the CPU path and the NumPy references, torch in / torch out on
robocache's memory with no copy, torch's current stream honoured, memory
flat over many calls.  Exits 77 (SKIP) without torch or a CUDA device."""
import contextlib
import ctypes
import math
import sys
import unittest

import numpy as np

from cuda_or_skip import cuda_torch
from memory import under_sanitizer

torch = cuda_torch()

import references as ref  # noqa: E402
import robocache  # noqa: E402
from robocache import _arrays, _kernels, _lib  # noqa: E402

SEED = int(np.random.SeedSequence().entropy % 2**32)
print("seed", SEED, file=sys.stderr)
DEV = torch.device("cuda", 0)


def rng_for(test):
    return np.random.default_rng([SEED, abs(hash(test.id())) % 2**31])


def cuda(a):
    return torch.from_numpy(np.ascontiguousarray(a)).to(DEV)


@contextlib.contextmanager
def kernels_not_built_for_this_gpu():
    """The library's fault hook, standing for a GPU that none of
    cuda-architectures runs, armed for the block."""
    hook = _lib.kernels.rc_fault_inject
    hook.argtypes = [ctypes.c_int, ctypes.c_int]
    hook.restype = ctypes.c_int
    kernel_image = 4  # RC_FAULT_KERNEL_IMAGE
    status = hook(kernel_image, 0)
    if status != 0:
        raise AssertionError("rc_fault_inject: status %d" % status)
    try:
        yield
    finally:
        hook(0, 0)


class Kernels(unittest.TestCase):
    def setUp(self):
        self.rng = rng_for(self)

    def test_resample_matches_cpu_and_numpy(self):
        B, S, T, D = 8, 700, 300, 9
        st = ref.random_times(self.rng, B, S, start_ns=10**18)
        tt = ref.targets_around(self.rng, st, T)
        x = self.rng.standard_normal((B, S, D)).astype(np.float32)
        for method in ("linear", "nearest", "previous", "cubic"):
            with self.subTest(method=method):
                out = robocache.resample(cuda(x), cuda(st), cuda(tt), method)
                self.assertTrue(out.is_cuda)
                self.assertEqual(out.dtype, torch.float32)
                got = out.cpu().numpy()
                cpu = robocache.resample(x, st, tt, method)
                np.testing.assert_allclose(got, cpu, rtol=1e-5, atol=1e-5)
                want = np.stack([ref.resample_row(st[b], x[b], tt[b],
                                                  method) for b in range(B)])
                np.testing.assert_allclose(got, want, rtol=2e-5, atol=2e-5)

    def test_equal_times_later_sample_wins(self):
        B, S, T, D = 4, 600, 300, 5
        st = ref.with_repeats(self.rng, ref.random_times(self.rng, B, S))
        tt = ref.targets_around(self.rng, st, T)
        x = self.rng.standard_normal((B, S, D))
        for method in ("linear", "nearest", "previous", "cubic"):
            with self.subTest(method=method):
                got = robocache.resample(cuda(x), cuda(st), cuda(tt),
                                         method).cpu().numpy()
                np.testing.assert_allclose(
                    got, ref.resample_last_wins(st, x, tt, method),
                    rtol=1e-9, atol=1e-9)
        got = robocache.fuse([(cuda(st), cuda(x.astype(np.float32)))],
                             cuda(tt)).cpu().numpy()
        np.testing.assert_allclose(
            got, ref.resample_last_wins(st, x, tt, "linear"), rtol=2e-5,
            atol=2e-5)

    def test_negative_bit_views_read_negated(self):
        """A view with torch's negative bit (z.conj().imag) holds the
        negation of its memory: read as torch reads it, on the general
        path and on the fast path of a call already seen."""
        B, S, T, D = 3, 400, 150, 5
        st = ref.random_times(self.rng, B, S)
        tt = ref.targets_around(self.rng, st, T)
        x = self.rng.standard_normal((B, S, D)).astype(np.float32)
        z = torch.complex(cuda(np.zeros_like(x)), cuda(-x))
        negated = z.conj().imag
        self.assertTrue(negated.is_neg())
        want = robocache.resample(x, st, tt)
        for attempt in ("general", "fast"):
            with self.subTest(path=attempt):
                if attempt == "general":
                    _kernels._fast_plans.clear()
                else:
                    robocache.resample(cuda(x), cuda(st), cuda(tt))
                got = robocache.resample(negated, cuda(st), cuda(tt))
                np.testing.assert_allclose(got.cpu().numpy(), want,
                                           rtol=1e-6, atol=1e-6)
        pts = self.rng.uniform(-3, 3, (3000, 3)).astype(np.float32)
        zp = torch.complex(cuda(np.zeros_like(pts)), cuda(-pts))
        grid = robocache.voxelize(zp.conj().imag, 0.5, (-3, -3, -3),
                                  (12, 12, 12))
        np.testing.assert_array_equal(grid.cpu().numpy(), ref.voxelize(
            pts, (0.5,) * 3, (-3, -3, -3), (12, 12, 12), "count"))

    def test_resample_bfloat16_and_seconds(self):
        B, S, T, D = 4, 500, 200, 16
        st = np.sort(self.rng.uniform(0, 30, (B, S)), axis=1)
        tt = self.rng.uniform(-1, 31, (B, T))
        x = torch.from_numpy(self.rng.standard_normal((B, S, D)).astype(
            np.float32)).to(torch.bfloat16)
        out = robocache.resample(x.to(DEV), cuda(st), cuda(tt))
        self.assertEqual(out.dtype, torch.bfloat16)
        cpu = robocache.resample(x, torch.from_numpy(st),
                                 torch.from_numpy(tt))
        self.assertIsInstance(cpu, torch.Tensor)
        self.assertEqual(cpu.dtype, torch.bfloat16)
        # Computed in float32 on both sides, but the GPU may fuse a
        # multiply-add: at most one bfloat16 rounding step apart.
        torch.testing.assert_close(out.cpu().float(), cpu.float(),
                                   rtol=8e-3, atol=1e-5)
        want = np.stack([np.stack([np.interp(tt[b], st[b], x[b, :, d].float())
                                   for d in range(D)], -1) for b in range(B)])
        np.testing.assert_allclose(out.float().cpu().numpy(), want,
                                   rtol=1e-2, atol=1e-2)

    def test_quaternions_and_angles(self):
        B, S, T = 3, 300, 200
        st = ref.random_times(self.rng, B, S)
        tt = ref.targets_around(self.rng, st, T)
        q = self.rng.standard_normal((B, S, 4))
        q /= np.linalg.norm(q, axis=2, keepdims=True)
        a = self.rng.uniform(-math.pi, math.pi, (B, S, 2))
        x = np.concatenate([q, a], axis=2).astype(np.float32)
        for method in ("linear", "cubic"):
            out = robocache.resample(cuda(x), cuda(st), cuda(tt), method,
                                     quaternions=[0], angles=[4, 5])
            cpu = robocache.resample(x, st, tt, method, quaternions=[0],
                                     angles=[4, 5])
            diff = out.cpu().numpy() - cpu
            # +pi and -pi are one angle.
            diff[..., 4:] = np.remainder(diff[..., 4:] + math.pi,
                                         2 * math.pi) - math.pi
            np.testing.assert_allclose(diff, 0, atol=5e-5)

    def test_voxelize_and_centroids(self):
        n = 130_000
        pts = self.rng.uniform(-40, 40, (n, 4)).astype(np.float32)
        pts[self.rng.random(n) < 0.01, 0] = np.nan
        grid = dict(voxel_size=(0.4, 0.4, 0.5), origin=(-35, -35, -3),
                    dims=(176, 176, 12))
        g = cuda(pts)
        for mode in ("count", "occupancy", "mean"):
            with self.subTest(mode=mode):
                features = (3,) if mode == "mean" else None
                out = robocache.voxelize(g, mode=mode, features=features,
                                         **grid)
                self.assertTrue(out.is_cuda)
                want = ref.voxelize(pts, mode=mode, features=features or
                                    (0, 1, 2), **grid)
                np.testing.assert_allclose(out.cpu().numpy(), want,
                                           rtol=1e-4, atol=1e-4)
        out = robocache.centroids(g, features=(0, 1, 2, 3), **grid)
        cpu = robocache.centroids(pts, features=(0, 1, 2, 3), **grid)
        self.assertEqual(tuple(out.shape), cpu.shape)
        np.testing.assert_allclose(out.cpu().numpy(), cpu, rtol=1e-4,
                                   atol=1e-4)

    def test_voxelize_fast_path(self):
        """A call already seen with the same columns and options (a
        training loop's next sweep, with another number of points) skips
        the general path's checks: its grids and sparse voxels are still
        the CPU's, on clouds of other sizes, an empty one and a view with
        the negative bit; a non-contiguous cloud is refused as before;
        options given as arrays, which could change under the same object,
        are never remembered."""
        import unittest.mock
        grid = dict(voxel_size=(0.4, 0.4, 0.5), origin=(-35, -35, -3),
                    dims=(176, 176, 12))
        kitti = dict(voxel_size=(0.16, 0.16, 4.0), origin=(0.0, -39.68, -3.0),
                     dims=(432, 496, 1))
        cases = [(dict(mode="count"), grid), (dict(mode="occupancy"), grid),
                 (dict(mode="mean", features=(3, 0)), grid),
                 (dict(mode="pillars", max_voxels=3000), kitti),
                 (dict(mode="voxels", max_points_per_voxel=5,
                       max_voxels=500, features=(3,)), kitti)]

        def cloud(n):
            pts = self.rng.uniform(-40, 40, (n, 4)).astype(np.float32)
            pts[self.rng.random(n) < 0.01, 1] = np.nan
            return pts

        def same(got, pts, kw, g):
            want = robocache.voxelize(pts, **kw, **g)
            if not isinstance(want, tuple):
                got, want = (got,), (want,)
            self.assertEqual(len(got), len(want))
            for a, b in zip(got, want):
                self.assertTrue(a.is_cuda)
                if kw["mode"] == "mean":
                    # Sums in another order: the last bits may differ.
                    np.testing.assert_allclose(a.cpu().numpy(), b,
                                               rtol=1e-4, atol=1e-4)
                else:
                    np.testing.assert_array_equal(a.cpu().numpy(), b)

        _kernels._voxelize_plans.clear()
        for kw, g in cases:
            with self.subTest(**kw):
                first = cloud(20000)
                same(robocache.voxelize(cuda(first), **kw, **g), first, kw, g)
                general = unittest.mock.patch.object(
                    _kernels, "_grid_call",
                    side_effect=AssertionError("the general path ran"))
                for n in (31000, 0, 777):
                    pts = cloud(n)
                    with general:
                        got = robocache.voxelize(cuda(pts), **kw, **g)
                    same(got, pts, kw, g)
                pts = cloud(5000)
                # Contiguous, so that only its negative bit keeps it off
                # the fast path (torch's private _neg_view makes one).
                negated = torch._neg_view(cuda(-pts))
                self.assertTrue(negated.is_neg() and negated.is_contiguous())
                same(robocache.voxelize(negated, **kw, **g), pts, kw, g)
                wide = cuda(np.concatenate([pts, pts], axis=1))[:, :4]
                with self.assertRaises(ValueError) as caught:
                    robocache.voxelize(wide, **kw, **g)
                self.assertIn("must be contiguous", str(caught.exception))
        remembered = len(_kernels._voxelize_plans)
        size = np.array([0.4, 0.4, 0.5])
        pts = cloud(3000)
        for _ in range(2):
            got = robocache.voxelize(cuda(pts), size, grid["origin"],
                                     grid["dims"])
            same(got, pts, dict(mode="count"), dict(
                voxel_size=size, origin=grid["origin"], dims=grid["dims"]))
        self.assertEqual(len(_kernels._voxelize_plans), remembered)

    def test_fuse(self):
        E, T = 4, 256
        t1 = ref.random_times(self.rng, E, 1000)
        t2 = ref.random_times(self.rng, E, 300)
        v1 = self.rng.standard_normal((E, 1000, 7)).astype(np.float32)
        v2 = self.rng.standard_normal((E, 300, 3)).astype(np.float32)
        ticks = ref.targets_around(self.rng, t1, T)
        out = robocache.fuse([(cuda(t1), cuda(v1)),
                              (cuda(t2), cuda(v2), "nearest")], cuda(ticks))
        cpu = robocache.fuse([(t1, v1), (t2, v2, "nearest")], ticks)
        np.testing.assert_allclose(out.cpu().numpy(), cpu, rtol=1e-5,
                                   atol=1e-5)

    def test_fuse_fast_path(self):
        """A call already seen with the same shapes and options (int64
        times) skips the general path's checks: fresh times and values of
        those shapes still give the CPU's result; a view with the negative
        bit is read negated and a non-contiguous one refused, as before;
        float64 seconds, converted every call, are never remembered."""
        import unittest.mock
        E, T = 3, 200

        def inputs():
            t1 = ref.random_times(self.rng, E, 700)
            t2 = ref.random_times(self.rng, E, 90)
            return (t1, self.rng.standard_normal((E, 700, 5)).astype(
                np.float32), t2, self.rng.standard_normal(
                (E, 90, 4)).astype(np.float32),
                ref.targets_around(self.rng, t1, T))

        kept = []

        def fused(t1, v1, t2, v2, ticks, to=cuda):
            # Every input kept alive: torch's allocator would otherwise
            # give the next call's tensors the same addresses, and a fast
            # path that kept an earlier call's addresses would pass.
            args = [to(a) for a in (t1, v1, t2, v2, ticks)]
            kept.append(args)
            return robocache.fuse([(args[0], args[1]),
                                   (args[2], args[3], "nearest")], args[4])

        def same(got, x):
            self.assertTrue(got.is_cuda)
            np.testing.assert_allclose(got.cpu().numpy(),
                                       fused(*x, to=lambda a: a),
                                       rtol=1e-5, atol=1e-5)

        _kernels._fuse_plans.clear()
        x = inputs()
        same(fused(*x), x)
        self.assertEqual(len(_kernels._fuse_plans), 1)
        general = unittest.mock.patch.object(
            _kernels, "_Call", side_effect=AssertionError(
                "the general path ran"))
        for _ in range(3):
            x = inputs()
            with general:
                got = fused(*x)
            same(got, x)
        t1, v1, t2, v2, ticks = x
        negated = torch._neg_view(cuda(-v2))
        self.assertTrue(negated.is_neg() and negated.is_contiguous())
        same(robocache.fuse([(cuda(t1), cuda(v1)),
                             (cuda(t2), negated, "nearest")], cuda(ticks)), x)
        wide = cuda(np.concatenate([v1, v1], axis=2))[:, :, :5]
        with self.assertRaises(ValueError) as caught:
            robocache.fuse([(cuda(t1), wide), (cuda(t2), cuda(v2),
                                                "nearest")], cuda(ticks))
        self.assertIn("must be contiguous", str(caught.exception))
        seconds = [a / 1e9 if a.dtype == np.int64 else a for a in x]
        for _ in range(2):
            same(fused(*seconds), seconds)
        self.assertEqual(len(_kernels._fuse_plans), 1)

    def test_gpu_the_kernels_were_not_built_for(self):
        pts = cuda(self.rng.uniform(-10, 10, (5000, 4)).astype(np.float32))
        grid = dict(voxel_size=0.5, origin=-10, dims=40)
        with kernels_not_built_for_this_gpu():
            with self.assertRaises(robocache.RobocacheError) as caught:
                robocache.voxelize(pts, **grid)
        message = str(caught.exception)
        self.assertIn("cudaErrorNoKernelImageForDevice", message)
        self.assertIn("built for cuda-architectures", message)
        self.assertIn("-Dcuda-architectures='", message)
        out = robocache.voxelize(pts, **grid)
        np.testing.assert_array_equal(
            out.cpu().numpy(), robocache.voxelize(pts.cpu().numpy(), **grid))

    def test_cuda_unavailable_where_the_kernels_cannot_run(self):
        saved = dict(_lib._cuda_state)
        try:
            _lib._cuda_state.clear()
            with kernels_not_built_for_this_gpu():
                with self.assertWarns(RuntimeWarning) as caught:
                    self.assertFalse(robocache.cuda_available())
            self.assertIn("-Dcuda-architectures='", str(caught.warning))
            self.assertIn("cudaErrorNoKernelImageForDevice",
                          robocache.cuda_unavailable_reason())
        finally:
            _lib._cuda_state.clear()
            _lib._cuda_state.update(saved)
        self.assertTrue(robocache.cuda_available())

    def test_output_is_robocache_memory_without_copy(self):
        exported = _arrays.new_array((64, 32), "float32", 0, 0)
        pointer = _arrays.data_pointer(exported)
        tensor = _arrays.hand_over(exported, "torch")
        self.assertEqual(tensor.data_ptr(), pointer)
        self.assertEqual(tensor.device, DEV)

    def test_dlpack_producer_that_is_not_torch(self):
        # A CUDA array known only by __dlpack__ (robocache's own exporter
        # standing in for CuPy & co.): accepted, result through from_dlpack.
        B, S, T, D = 2, 100, 50, 3
        st = ref.random_times(self.rng, B, S)
        tt = ref.targets_around(self.rng, st, T)
        x = self.rng.standard_normal((B, S, D)).astype(np.float32)
        xs = cuda(x)

        class Foreign:
            def __init__(self, t):
                self.t = t

            def __dlpack__(self, stream=None):
                return self.t.__dlpack__(stream=stream)

            def __dlpack_device__(self):
                return self.t.__dlpack_device__()
        out = robocache.resample(Foreign(xs), Foreign(cuda(st)),
                                 Foreign(cuda(tt)))
        back = torch.from_dlpack(out) if not isinstance(
            out, torch.Tensor) else out
        np.testing.assert_allclose(back.cpu().numpy(),
                                   robocache.resample(x, st, tt), atol=1e-5)

    def test_current_stream_is_honoured(self):
        B, S, T, D = 16, 4096, 1024, 32
        st = ref.random_times(self.rng, B, S)
        tt = ref.targets_around(self.rng, st, T)
        x = self.rng.standard_normal((B, S, D)).astype(np.float32)
        src, st_d, tt_d = cuda(x), cuda(st), cuda(tt)
        late = torch.empty_like(src)
        side = torch.cuda.Stream()
        torch.cuda.synchronize()
        with torch.cuda.stream(side):
            # The input is written late on `side`: a resample not ordered
            # on `side` would read it unfinished.
            torch.cuda._sleep(200_000_000)
            late.copy_(src)
            out = robocache.resample(late, st_d, tt_d)
        side.synchronize()
        np.testing.assert_allclose(out.cpu().numpy(),
                                   robocache.resample(x, st, tt), atol=1e-5)

    def misaligned(self, a):
        """`a` on the GPU one byte past an aligned address (a tensor on a
        storage sliced at byte 1), its bytes copied there as bytes; skips
        where this torch makes no such tensor."""
        t = cuda(a)
        raw = torch.zeros(t.numel() * t.element_size() + 16,
                          dtype=torch.uint8, device=DEV)
        try:
            out = torch.empty(0, dtype=t.dtype, device=DEV).set_(
                raw.untyped_storage()[1:], 0, t.shape)
        except (RuntimeError, TypeError, ValueError) as e:
            self.skipTest("torch makes no misaligned tensor here: %s" % e)
        if out.data_ptr() % out.element_size() == 0:
            self.skipTest("the sliced storage came out aligned")
        raw[1:1 + t.numel() * t.element_size()].copy_(
            t.contiguous().view(-1).view(torch.uint8))
        return out

    def test_misaligned_refused_after_fast_path(self):
        """A misaligned tensor (a GPU load of it stops every later call of
        the process) is refused, also where the same shapes already took
        a fast path; the next aligned call still works."""
        st = ref.random_times(self.rng, 2, 50)
        x = self.rng.standard_normal((2, 50, 3)).astype(np.float32)
        p = self.rng.uniform(-4, 4, (1000, 4)).astype(np.float32)
        grid = dict(voxel_size=0.5, origin=(-4, -4, -4), dims=16)
        calls = [
            ("source_data", lambda x: robocache.resample(
                x, cuda(st), cuda(st)), x,
             lambda: robocache.resample(x, st, st)),
            ("points", lambda p: robocache.voxelize(p, **grid), p,
             lambda: robocache.voxelize(p, **grid)),
            ("streams[0] values", lambda x: robocache.fuse(
                [(cuda(st), x)], cuda(st)), x,
             lambda: robocache.fuse([(st, x)], st)),
        ]
        for name, call, data, on_cpu in calls:
            with self.subTest(name=name):
                for _ in range(3):
                    call(cuda(data))
                with self.assertRaises(ValueError) as caught:
                    call(self.misaligned(data))
                self.assertIn("%s is not aligned" % name,
                              str(caught.exception))
                np.testing.assert_allclose(call(cuda(data)).cpu().numpy(),
                                           on_cpu(), rtol=1e-5, atol=1e-5)

    def test_mixed_devices_refused(self):
        st = ref.random_times(self.rng, 1, 10)
        x = self.rng.standard_normal((1, 10, 2)).astype(np.float32)
        with self.assertRaises(ValueError) as caught:
            robocache.resample(cuda(x), torch.from_numpy(st),
                               torch.from_numpy(st))
        self.assertIn("one device", str(caught.exception))

    def test_second_device(self):
        """Arrays on cuda:1 are computed on device 1, giving what device 0
        gives (a machine with one GPU says so and checks nothing)."""
        if torch.cuda.device_count() < 2:
            print("test_second_device: one CUDA device, not run",
                  file=sys.stderr)
            return
        B, S, T, D = 4, 600, 250, 8
        st = ref.random_times(self.rng, B, S)
        tt = ref.targets_around(self.rng, st, T)
        x = self.rng.standard_normal((B, S, D)).astype(np.float32)
        pts = self.rng.uniform(-4, 4, (5000, 4)).astype(np.float32)
        one = torch.device("cuda", 1)
        on1 = robocache.resample(*(torch.from_numpy(a).to(one)
                                   for a in (x, st, tt)))
        self.assertEqual(on1.device, one)
        np.testing.assert_array_equal(
            on1.cpu().numpy(),
            robocache.resample(cuda(x), cuda(st), cuda(tt)).cpu().numpy())
        grid = dict(voxel_size=(0.5, 0.5, 0.5), origin=(-4, -4, -4),
                    dims=(16, 16, 16))
        grid1 = robocache.voxelize(torch.from_numpy(pts).to(one), **grid)
        self.assertEqual(grid1.device, one)
        np.testing.assert_array_equal(
            grid1.cpu().numpy(),
            robocache.voxelize(cuda(pts), **grid).cpu().numpy())

    @under_sanitizer
    def test_memory_flat_over_ten_thousand_calls(self):
        st = cuda(ref.random_times(self.rng, 4, 256))
        tt = cuda(ref.targets_around(self.rng, st.cpu().numpy(), 128))
        x = cuda(self.rng.standard_normal((4, 256, 8)).astype(np.float32))
        pts = cuda(self.rng.uniform(-5, 5, (4096, 4)).astype(np.float32))

        def calls(n):
            for _ in range(n):
                robocache.resample(x, st, tt)
                robocache.voxelize(pts, 0.5, (-5, -5, -5), (20, 20, 20))
            torch.cuda.synchronize()
        calls(1000)
        free_before = torch.cuda.mem_get_info()[0]
        calls(10000)
        free_after = torch.cuda.mem_get_info()[0]
        print("device memory free before/after 10,000 calls: %d / %d MiB"
              % (free_before >> 20, free_after >> 20), file=sys.stderr)
        self.assertLess(free_before - free_after, 64 << 20)


if __name__ == "__main__":
    unittest.main(verbosity=2)
